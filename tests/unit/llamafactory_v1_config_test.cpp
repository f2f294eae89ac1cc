// LLaMA-Factory's v1 YAML (examples/v1 at ff6d4d1) read as the fields it means: its plugins'
// defaults (peft.py's LoraParams, fsdp2.py's reshard_after_forward, the model's "auto" dtype),
// the trainer from the dataset's converter, and an export refused, against hand-derived values.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "config_notes.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {
namespace {

TrainingConfig read(const std::string& text, const std::filesystem::path& dir = "/nonexistent") {
  return parse_training_config(text, dir);
}

using testing_notes::listed;

// examples/v1/train_lora/train_lora_sft.yaml: micro_batch_size is axolotl's name too, and the
// file is v1's; LoraParams' r and dropout as given, "all" the linear layers, FSDP2 full shard.
TEST(LlamaFactoryV1Config, ALoraExampleIsItsFields) {
  const TrainingConfig c = read(
      "model: Qwen/Qwen3-4B\nmodel_class: llm\n"
      "peft_config:\n  name: lora\n  r: 16\n  lora_alpha: 32\n  lora_dropout: 0.05\n"
      "  target_modules: all\n"
      "kernel_config:\n  name: auto\n"
      "dist_config:\n  name: fsdp2\n  dcp_path: null\n"
      "train_dataset: data/v1_sft_demo.yaml\noutput_dir: ./outputs/test_lora\n"
      "micro_batch_size: 1\ncutoff_len: 2048\nlearning_rate: 1.0e-4\nmax_steps: 10\n"
      "sample_backend: hf\nmax_new_tokens: 128\n");
  EXPECT_EQ(c.format, "llama-factory-v1");
  EXPECT_EQ(c.values.at("model"), "Qwen/Qwen3-4B");
  EXPECT_EQ(c.values.at("method"), "lora");
  EXPECT_EQ(c.values.at("lora_rank"), "16");
  EXPECT_EQ(c.values.at("lora_dropout"), "0.05");
  EXPECT_EQ(c.values.at("lora_targets"), "all-linear");
  EXPECT_EQ(c.values.at("zero"), "3");
  EXPECT_EQ(c.values.at("micro_batch"), "1");
  EXPECT_EQ(c.values.at("seq_len"), "2048");
  EXPECT_EQ(c.values.at("steps"), "10");  // the Trainer's max_steps: the run's length
  EXPECT_EQ(c.values.at("recompute"), "full");
  EXPECT_EQ(c.values.count("trainer"), 0U);  // sft, the command's, said in the notes
  EXPECT_TRUE(listed(c.mapped, "sft assumed"));
  EXPECT_TRUE(listed(c.no_effect, "kernel_config.name (auto"));
  EXPECT_TRUE(c.unknown.empty());
  // LoraParams' defaults where the block is bare.
  const TrainingConfig bare = read("model: m\npeft_config:\n  name: lora\n");
  EXPECT_EQ(bare.values.at("lora_rank"), "8");
  EXPECT_EQ(bare.values.at("lora_dropout"), "0.05");
}

// A full fine-tune keeps the "auto" (bf16) weights under FSDP2 (param_dtype bf16), one device or
// DDP: AdamW's moments in bf16. reshard_after_forward false is ZeRO-2; offload_params the
// parameters on the host.
TEST(LlamaFactoryV1Config, FullFineTunesKeepTheBf16Weights) {
  const TrainingConfig c = read(
      "model: Qwen/Qwen3-0.6B\ndist_config:\n  name: fsdp2\n  reshard_after_forward: false\n"
      "  offload_params: true\nmicro_batch_size: 4\nenable_activation_checkpointing: false\n"
      "bf16: false\nkernel_config:\n  name: liger_kernel\n");
  EXPECT_EQ(c.values.at("method"), "full");
  EXPECT_EQ(c.values.at("recipe"), "pure-bf16-adam");
  EXPECT_EQ(c.values.at("zero"), "2");
  EXPECT_EQ(c.values.at("offload"), "params");
  EXPECT_EQ(c.values.at("recompute"), "none");
  EXPECT_EQ(c.values.at("activation_dtype"), "fp32");
  EXPECT_EQ(c.values.at("use_liger_kernel"), "true");
  // Expert parallelism over at least ep_size GPUs (the launch's count is not in the file); fla's
  // Gated DeltaNet kernels are what the estimate prices.
  const TrainingConfig ep = read(
      "model: m\ndist_config:\n  name: fsdpturbo\n  ep_size: 16\nkernel_config:\n  name: "
      "flash-linear-attention\n");
  EXPECT_EQ(ep.values.at("ep"), "16");
  EXPECT_EQ(ep.values.at("devices"), "16");
  EXPECT_TRUE(listed(ep.no_effect, "kernel_config.name (flash-linear-attention"));
  const TrainingConfig muon = read("model: m\noptim_config:\n  name: muon\n");
  EXPECT_TRUE(listed(muon.unknown, "optim_config.name=muon"));
  const TrainingConfig qlora = read(
      "model: m\npeft_config:\n  name: lora\nquant_config:\n  name: bnb\n"
      "  quantization_bit: 4\n");
  EXPECT_EQ(qlora.values.at("method"), "qlora");
}

// The trainer is the launch command's; a dataset whose converter is "pair" only trains under
// `llamafactory-cli dpo`. pref_loss names the objective.
TEST(LlamaFactoryV1Config, PreferencePairsAreDpo) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "trainbudget_lf_v1_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "pairs.yaml") << "dpo_demo:\n  path: HuggingFaceH4/orca_dpo_pairs\n"
                                       "  converter: pair\n";
  std::ofstream(dir / "sft.yaml") << "identity:\n  path: data/identity.json\n"
                                     "  converter: alpaca\n";
  const std::string head = "model: m\nmodel_class: llm\nmicro_batch_size: 1\n";
  EXPECT_EQ(read(head + "train_dataset: pairs.yaml\n", dir).values.at("trainer"), "dpo");
  EXPECT_EQ(read(head + "train_dataset: sft.yaml\n", dir).values.count("trainer"), 0U);
  EXPECT_EQ(read(head + "train_dataset: gone.yaml\n", dir).values.count("trainer"), 0U);
  EXPECT_EQ(read(head + "train_dataset: pairs.yaml\npref_loss: orpo\n", dir).values.at("trainer"),
            "orpo");
  std::filesystem::remove_all(dir);
}

// examples/v1/train_lora/export_lora.yaml merges an adapter: nothing to price.
TEST(LlamaFactoryV1Config, AnAdapterExportIsRefused) {
  EXPECT_THROW((void)read("model: Qwen/Qwen3-4B\npeft_config:\n  name: lora\n"
                          "  adapter_name_or_path: ./outputs/test_lora\n"
                          "  export_dir: ./merge_lora_model\n"),
               InvalidRequest);
}

}  // namespace
}  // namespace tb::api
