// The engine's weights in fp8 (vllm_precision, docs/rl.md "Colocated engine"): the pool holds the
// fp8 weights (linear layers a byte each, the embeddings and LM head in bf16) and the decode
// reads them; the trainer's step is unchanged. Against weight_storage's own count.
#include <gtest/gtest.h>

#include <string>

#include "rollout_jobs.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/model/weight_storage.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using rollout_jobs::first_key;
using rollout_jobs::grpo;
using rollout_jobs::on;
using rollout_jobs::run;

TEST(EnginePrecision, Fp8WeightsAreTheLinearLayersInAByte) {
  TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  job.rollout.vllm_tensor_parallel_size = 2;
  job.devices = 2;
  const Estimate bf16 = run(job);  // held: the refs below point into it
  const RolloutCost& b = *on(bf16).rollout;
  job.rollout.vllm_fp8 = true;
  const Estimate fp8 = run(job);
  const RolloutCost& f = *on(fp8).rollout;
  const ModelArchitecture& arch = *job.model.architecture;
  EXPECT_DOUBLE_EQ(f.engine_weights.value(),
                   weight_storage(arch, WeightFormat::kFp8).total.value() / 2.0);
  EXPECT_DOUBLE_EQ(b.engine_weights.value(), 2.0 * job.params / 2.0);
  // More than half of bf16's (the embeddings and LM head stay 16-bit), less than all of it.
  EXPECT_GT(f.engine_weights.value(), 0.5 * b.engine_weights.value());
  EXPECT_LT(f.engine_weights.value(), b.engine_weights.value());
  // The pool's room for the cache grows by what the weights shed; decode reads less.
  EXPECT_NEAR(f.kv_capacity.value() - b.kv_capacity.value(),
              (b.engine_weights - f.engine_weights).value(), 1.0);
  EXPECT_LT(f.decode.count(), b.decode.count());
  // The trainer's passes are the same.
  EXPECT_DOUBLE_EQ(f.update.count(), b.update.count());
}

TEST(EnginePrecision, OnlyBf16OrFp8AndOnlyForAnEngine) {
  const std::string m = "llama-3.1-8b";
  EXPECT_EQ(first_key({{"model", m}, {"trainer", "grpo"}, {"vllm_precision", "fp8"}}),
            "vllm_precision");  // generate(): no engine
  EXPECT_EQ(first_key({{"model", m},
                       {"trainer", "grpo"},
                       {"rollout_engine", "colocate"},
                       {"vllm_precision", "int4"}}),
            "vllm_precision");
  EXPECT_EQ(first_key({{"model", m},
                       {"trainer", "grpo"},
                       {"rollout_engine", "colocate"},
                       {"num_generations", "1"},
                       {"vllm_precision", "fp8"}}),
            "");
}

}  // namespace
}  // namespace tb
