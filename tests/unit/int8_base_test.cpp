// QLoRA's 8-bit base (issue 41): bitsandbytes' LLM.int8 under the adapters (Dettmers et al. 2022;
// transformers' load_in_8bit, axolotl's 8-bit LoRA, LLaMA-Factory's quantization_bit 8): each
// quantized linear keeps int8 codes and an fp32 scale per output row (bitsandbytes Int8Params:
// CB and SCB). Values by hand.
#include <gtest/gtest.h>

#include <filesystem>

#include "trainbudget/api/session.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/lora.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

ModelArchitecture llama2() {
  return io::load_hf_config(std::filesystem::path(TB_TEST_DIR) / "data" / "hf_configs" /
                            "llama-2-7b-hf.json");
}

// Llama 2 7B: (4 x 4096^2 + 3 x 4096 x 11008) x 32 = 6,476,005,376 int8 weights; output rows per
// layer q, k, v, o 4 x 4096 + gate, up 2 x 11008 + down 4096 = 42,496, x 32 layers x 4 bytes.
TEST(Int8Base, CodesAndRowScales) {
  QloraOptions eight;
  eight.bits = 8;
  const FrozenBaseBytes b = qlora_base_bytes(llama2(), eight, 2.0);
  EXPECT_DOUBLE_EQ(b.quantized_weights, 6476005376.0);
  EXPECT_DOUBLE_EQ(b.nf4.value(), 6476005376.0);
  EXPECT_DOUBLE_EQ(b.constants.value(), 42496.0 * 32.0 * 4.0);
  EXPECT_DOUBLE_EQ(b.unquantized_params, 2.0 * 32000 * 4096 + 65.0 * 4096);
  // The 4-bit base of the same model holds half the codes.
  EXPECT_DOUBLE_EQ(qlora_base_bytes(llama2(), {}, 2.0).nf4.value(), 6476005376.0 / 2.0);
}

// The configs' 8-bit keys, and the field on another method refused.
TEST(Int8Base, ConfigsAndTheField) {
  const api::TrainingConfig axolotl = api::parse_training_config(
      "base_model: x\nadapter: lora\nload_in_8bit: true\nmicro_batch_size: 1\n", "/nonexistent");
  EXPECT_EQ(axolotl.values.at("method"), "qlora");
  EXPECT_EQ(axolotl.values.at("qlora_bits"), "8");
  const api::TrainingConfig lf = api::parse_training_config(
      "model_name_or_path: x\nstage: sft\nfinetuning_type: lora\nquantization_bit: 8\n",
      "/nonexistent");
  EXPECT_EQ(lf.values.at("method"), "qlora");
  EXPECT_EQ(lf.values.at("qlora_bits"), "8");
  static const api::Session s{api::Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  try {
    (void)s.estimate(
        api::FieldMap{{"model", "llama-3.1-8b"}, {"method", "lora"}, {"qlora_bits", "8"}});
    ADD_FAILURE() << "accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_EQ(e.problems().front().field, "qlora_bits");
  }
  // An 8-bit base holds 1 B a linear weight where NF4 holds about 0.53: the estimate's frozen
  // weights grow by the difference.
  const api::FieldMap q{{"model", "llama-3.1-8b"}, {"method", "qlora"}, {"machine", "h100-sxm"}};
  api::FieldMap q8 = q;
  q8["qlora_bits"] = "8";
  const double four = s.estimate(q).estimate.primary.machines.front().numbers.allocated.value();
  const double eight = s.estimate(q8).estimate.primary.machines.front().numbers.allocated.value();
  EXPECT_GT(eight - four, 3.0e9);
  EXPECT_LT(eight - four, 3.5e9);
}

}  // namespace
}  // namespace tb
