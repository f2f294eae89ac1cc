// The estimate with an architecture: exact LoRA adapters, QLoRA's NF4 base, MoE compute.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using testing_models::job_for;

TEST(EstimateWithModel, LoraCountsAdaptersExactly) {
  TrainingJob job = job_for("llama-2-7b-hf.json", Method::kLora);
  job.lora = {8, {"q", "v"}};
  EXPECT_DOUBLE_EQ(trainable_params(job).value(), 4194304.0);
  const MemoryEstimate m = testing_models::states_of(job, find_recipe("amp-adam"));
  EXPECT_DOUBLE_EQ(m.by_key("frozen_weights").value(), 6738415616.0 * 2);
  EXPECT_DOUBLE_EQ(m.total.value(), 6738415616.0 * 2 + 4194304.0 * 16);
  EXPECT_DOUBLE_EQ(testing_models::formula_compute(job).flops_per_token,
                   4 * 6738415616.0 + 6 * 4194304.0);
}

TEST(EstimateWithModel, QloraStoresTheBaseInNf4) {
  TrainingJob job = job_for("llama-2-7b-hf.json", Method::kQlora);
  const MemoryEstimate m = testing_models::states_of(job, find_recipe("amp-adam"));
  // Hand-derived in lora_test: 3.238 GB of codes, 0.103 GB of constants, 0.525 GB in bf16.
  EXPECT_NEAR(m.by_key("frozen_weights").value(), 3.87e9, 0.01e9);
  // Default adapters q,v at rank 16: 16 x 8192 x 2 x 32 = 8,388,608 parameters x 16 B.
  EXPECT_DOUBLE_EQ(trainable_params(job).value(), 8388608.0);
  EXPECT_NEAR(m.total.value(), m.by_key("frozen_weights").value() + 8388608.0 * 16, 1.0);
  job.qlora.double_quant = false;
  const MemoryEstimate single = testing_models::states_of(job, find_recipe("amp-adam"));
  // Without double quantization the constants are 0.5 bits instead of 0.127 per weight.
  EXPECT_NEAR(single.total.value() - m.total.value(), 6476005376.0 * (0.5 - 0.127) / 8, 1e6);
}

TEST(EstimateWithModel, MoeComputeUsesActiveParameters) {
  const TrainingJob job = job_for("mixtral-8x7b-v0.1.json", Method::kFull);
  const ComputeEstimate c = testing_models::formula_compute(job);
  EXPECT_DOUBLE_EQ(c.flops_per_token, 6.0 * static_cast<double>(job.model.counts->active));
  EXPECT_LT(c.flops_per_token, 6.0 * job.params / 3);  // 12.9B active of 46.7B
}

}  // namespace
}  // namespace tb
