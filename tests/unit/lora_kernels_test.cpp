// axolotl's fused LoRA kernels (issue 41; axolotl kernels/lora.py and utils/schemas/config.py at
// 067b021c8): LoRA_MLP keeps the MLP's input, gate and up only, and axolotl turns the kernels on
// for its LoRA and QLoRA fine-tunes unless a key says otherwise. Values by hand.
#include <gtest/gtest.h>

#include "trainbudget/api/session.hpp"
#include "trainbudget/api/training_config.hpp"

namespace tb::api {
namespace {

const Session& session() {
  static const Session s{Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

double saved_layers(FieldMap m) {
  return session().estimate(m).estimate.primary.step->activations.layers_total.value();
}

// Llama 3.1 8B, LoRA on every linear, b = 1, s = 4096, nothing recomputed: act(gate) and
// act(gate) x up (4096 x 14336 each, bf16) are not saved, 234,881,024 bytes a layer, 32 layers.
// With adapters on q and v alone the MLP is not the kernel's and nothing changes.
TEST(LoraKernels, TheFusedMlpKeepsItsInputGateAndUp) {
  FieldMap m{{"model", "llama-3.1-8b"}, {"method", "lora"},    {"lora_targets", "all-linear"},
             {"seq_len", "4096"},       {"recompute", "none"}, {"machine", "h100-sxm"}};
  const double plain = saved_layers(m);
  m["lora_kernels"] = "true";
  EXPECT_DOUBLE_EQ(plain - saved_layers(m), 32.0 * 2.0 * 4096.0 * 14336.0 * 2.0);
  m["lora_targets"] = "q,v";
  const double qv = saved_layers(m);
  m.erase("lora_kernels");
  EXPECT_DOUBLE_EQ(qv, saved_layers(m));
}

TEST(LoraKernels, AxolotlTurnsThemOnAsItsValidationDoes) {
  const auto read = [](const std::string& extra) {
    return parse_training_config("base_model: x\nadapter: lora\n" + extra, "/nonexistent");
  };
  EXPECT_EQ(read("").values.at("lora_kernels"), "true");
  EXPECT_EQ(read("lora_mlp_kernel: true\n").values.at("lora_kernels"), "true");
  EXPECT_FALSE(read("lora_mlp_kernel: false\n").values.contains("lora_kernels"));
  EXPECT_FALSE(read("rl: dpo\n").values.contains("lora_kernels"));
  EXPECT_FALSE(read("load_in_8bit: true\n").values.contains("lora_kernels"));
  EXPECT_FALSE(read("fsdp_config:\n  offload_params: false\n").values.contains("lora_kernels"));
  EXPECT_EQ(
      read("fsdp_version: 2\nfsdp_config:\n  offload_params: false\n").values.at("lora_kernels"),
      "true");
  EXPECT_FALSE(parse_training_config("base_model: x\nmicro_batch_size: 1\n", "/nonexistent")
                   .values.contains("lora_kernels"));
}

}  // namespace
}  // namespace tb::api
