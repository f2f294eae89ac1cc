// The frameworks' own rules in --config (issue 41): axolotl's rl trainers, LLaMA-Factory's
// vision keys, and DeepSpeed paths resolved from where the job is launched, as axolotl,
// LLaMA-Factory and transformers open them, before the config's own folder.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "scratch_dir.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {
namespace {

const char* kAxolotl = "base_model: NousResearch/Meta-Llama-3-8B\nsequence_len: 2048\n";
const char* kLlamaFactoryFull =
    "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: full\n";

// LLaMA-Factory's Megatron examples (examples/megatron/qwen3_moe_full.yaml: pp 4, ep 2, the
// distributed optimizer, full recompute) run Megatron-Core through mcore_adapter: its degrees
// are the layout, their smallest world the devices (ep divides dp: 4 x 2 = 8).
TEST(FrameworkConfig, LlamaFactoryMegatronKeysAreTheLayout) {
  const TrainingConfig moe =
      parse_training_config(std::string{kLlamaFactoryFull} +
                                "tensor_model_parallel_size: 1\npipeline_model_parallel_size: 4\n"
                                "expert_model_parallel_size: 2\nsequence_parallel: false\n"
                                "use_distributed_optimizer: true\nrecompute_granularity: full\n"
                                "moe_grouped_gemm: true\nmoe_token_dispatcher_type: alltoall\n"
                                "bias_activation_fusion: true\nmax_steps: 100\n",
                            "/nonexistent");
  EXPECT_EQ(moe.values.at("framework"), "megatron");
  EXPECT_EQ(moe.values.at("pp"), "4");
  EXPECT_EQ(moe.values.at("ep"), "2");
  EXPECT_EQ(moe.values.at("devices"), "8");
  EXPECT_EQ(moe.values.at("zero"), "1");
  EXPECT_EQ(moe.values.at("recompute"), "full");
  EXPECT_EQ(moe.values.at("steps"), "100");
  EXPECT_TRUE(moe.unknown.empty());
  // Without recompute_granularity Megatron-Core keeps every activation; a fusion turned off is
  // listed.
  const TrainingConfig plain = parse_training_config(
      std::string{kLlamaFactoryFull} + "tensor_model_parallel_size: 2\napply_rope_fusion: false\n",
      "/nonexistent");
  EXPECT_EQ(plain.values.at("recompute"), "none");
  EXPECT_EQ(plain.values.at("devices"), "2");
  EXPECT_FALSE(plain.unknown.empty());
  // QuantizationArguments: bitsandbytes without double quantization (its NPU examples).
  const TrainingConfig bnb = parse_training_config(
      "model_name_or_path: m\nstage: sft\nquantization_bit: 4\nquantization_method: bnb\n"
      "double_quantization: false\n",
      "/nonexistent");
  EXPECT_EQ(bnb.values.at("no_double_quant"), "true");
  EXPECT_TRUE(bnb.unknown.empty());
}

TEST(FrameworkConfig, AxolotlRlPicksTheTrainer) {
  for (const char* t : {"dpo", "ipo", "kto", "orpo", "simpo", "grpo"}) {
    const TrainingConfig c =
        parse_training_config(std::string{kAxolotl} + "rl: " + t + "\n", "/nonexistent");
    EXPECT_EQ(c.values.at("trainer"), t);
  }
  const TrainingConfig rm =
      parse_training_config(std::string{kAxolotl} + "reward_model: true\n", "/nonexistent");
  EXPECT_EQ(rm.values.at("trainer"), "rm");  // TRL's RewardTrainer (docs/rl.md)
  // An rl value axolotl's RLType lacks trains something else: refused, not read as SFT.
  EXPECT_THROW((void)parse_training_config(std::string{kAxolotl} + "rl: exotic\n", "/nonexistent"),
               InvalidRequest);
}

// Activation offload as each framework asks for it: axolotl's gradient_checkpointing: offload
// (validation.py turns it into activation_offloading) and activation_offloading, torchtune's
// enable_activation_offloading (OffloadActivations).
TEST(FrameworkConfig, ActivationOffloadKeysSetOffload) {
  const auto read = [](const std::string& text) {
    return parse_training_config(text, "/nonexistent").values;
  };
  const std::string axolotl = kAxolotl;
  const auto gc = read(axolotl + "gradient_checkpointing: offload\n");
  EXPECT_EQ(gc.at("recompute"), "full");
  EXPECT_EQ(gc.at("offload_activations"), "true");
  EXPECT_FALSE(read(axolotl + "gradient_checkpointing: true\n").contains("offload_activations"));
  EXPECT_EQ(read(axolotl + "gradient_checkpointing: true\nactivation_offloading: legacy\n")
                .at("offload_activations"),
            "true");
  const auto tt = read(
      "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n"
      "enable_activation_checkpointing: True\nenable_activation_offloading: True\n");
  EXPECT_EQ(tt.at("offload_activations"), "true");
  EXPECT_EQ(tt.at("recompute"), "full");
}

TEST(FrameworkConfig, LlamaFactoryVisionKeys) {
  const TrainingConfig c = parse_training_config(
      "model_name_or_path: Qwen/Qwen2.5-VL-7B-Instruct\nstage: sft\nfinetuning_type: full\n"
      "freeze_vision_tower: false\nimage_max_pixels: 589824\n",
      "/nonexistent");
  EXPECT_EQ(c.values.at("train_vision_tower"), "true");
  EXPECT_EQ(c.values.at("image_max_pixels"), "589824");
}

// LLaMA-Factory's own Qwen3-VL examples (examples/train_full/qwen3vl_full_sft.yaml): the
// projector frozen with the tower and the language model trained are what the estimate prices;
// a projector trained apart from the tower, or the language model frozen, are named.
TEST(FrameworkConfig, LlamaFactoryFreezeKeysAsTheEstimatePricesThem) {
  const std::string base =
      "model_name_or_path: Qwen/Qwen3-VL-4B-Instruct\nstage: sft\nfinetuning_type: full\n"
      "video_max_pixels: 16384\n";
  const TrainingConfig as_priced =
      parse_training_config(base +
                                "freeze_vision_tower: true\nfreeze_multi_modal_projector: true\n"
                                "freeze_language_model: false\n",
                            "/nonexistent");
  EXPECT_TRUE(as_priced.unknown.empty()) << as_priced.unknown.front();
  EXPECT_EQ(as_priced.values.count("train_vision_tower"), 0U);
  const TrainingConfig apart = parse_training_config(
      base + "freeze_multi_modal_projector: false\nfreeze_language_model: true\n", "/nonexistent");
  ASSERT_EQ(apart.unknown.size(), 2U);  // in the keys' order
  EXPECT_NE(apart.unknown[0].find("freeze_language_model=true"), std::string::npos);
  EXPECT_NE(apart.unknown[1].find("freeze_multi_modal_projector=false"), std::string::npos);
}

// Bookkeeping as such: DeepSpeed's ZeRO-3 keys by their bare names (DeepSpeedZeroConfig's
// aliases of the stage3_ ones) and its untested-optimizer switch; LLaMA-Factory's seed, and
// packing, whose sequences fill the cutoff_len the estimate prices.
TEST(FrameworkConfig, BookkeepingKeysAreNotUnderstoodKeys) {
  const TrainingConfig ds = parse_training_config(
      R"({"zero_optimization": {"stage": 3, "sub_group_size": 1e9, "reduce_scatter": true,
          "allgather_partitions": true, "max_live_parameters": 1e9},
          "zero_allow_untested_optimizer": true})",
      "/nonexistent");
  EXPECT_EQ(ds.values.at("zero"), "3");
  EXPECT_TRUE(ds.unknown.empty()) << ds.unknown.front();
  const TrainingConfig lf = parse_training_config(
      "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: lora\n"
      "packing: true\nseed: 42\n",
      "/nonexistent");
  EXPECT_TRUE(lf.unknown.empty()) << lf.unknown.front();
  EXPECT_NE(std::find_if(lf.no_effect.begin(), lf.no_effect.end(),
                         [](const std::string& k) { return k.starts_with("packing=true"); }),
            lf.no_effect.end());
}

// DoRA as each framework asks for it: axolotl's peft_use_dora, LLaMA-Factory's use_dora,
// torchtune's use_dora on its LoRA model builder (issue 44).
TEST(FrameworkConfig, DoraKeysSetDora) {
  const TrainingConfig ax = parse_training_config(
      std::string{kAxolotl} + "adapter: lora\nlora_r: 16\npeft_use_dora: true\n", "/nonexistent");
  EXPECT_EQ(ax.values.at("dora"), "true");
  const TrainingConfig lf = parse_training_config(
      "model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: lora\n"
      "use_dora: true\n",
      "/nonexistent");
  EXPECT_EQ(lf.values.at("dora"), "true");
  const TrainingConfig tt = parse_training_config(
      "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n"
      "  lora_attn_modules: ['q_proj', 'v_proj']\n  lora_rank: 8\n  use_dora: True\n",
      "/nonexistent");
  EXPECT_EQ(tt.values.at("dora"), "true");
  const TrainingConfig galore = parse_training_config(
      std::string{kLlamaFactoryFull} + "use_galore: true\ngalore_rank: 32\n", "/nonexistent");
  EXPECT_EQ(galore.values.at("galore_rank"), "32");
  const TrainingConfig galore_default =
      parse_training_config(std::string{kLlamaFactoryFull} + "use_galore: true\n", "/nonexistent");
  EXPECT_EQ(galore_default.values.at("galore_rank"), "16");
  const TrainingConfig off = parse_training_config(
      std::string{kAxolotl} + "adapter: lora\npeft_use_dora: false\n", "/nonexistent");
  EXPECT_FALSE(off.values.contains("dora"));
}

// torchtune's low-memory full fine-tunes (recipes/configs/*/7B_full_low_memory.yaml,
// 8B_full_single_device.yaml): bitsandbytes' optimizers over the bf16 model, no master copy;
// optimizer_in_bwd steps each tensor from its gradient hook, winning over optimizer.fused.
TEST(FrameworkConfig, TorchtuneBitsandbytesOptimizersAndOptimizerInBackward) {
  const auto read = [](const char* optimizer, const char* extra) {
    return parse_training_config(
        std::string{"model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
                    "optimizer:\n  _component_: "} +
            optimizer + "\n  lr: 2e-5\n" + extra + "dtype: bf16\nbatch_size: 2\n",
        "/nonexistent");
  };
  const TrainingConfig paged8 =
      read("bitsandbytes.optim.PagedAdamW8bit", "optimizer_in_bwd: True\n");
  EXPECT_EQ(paged8.values.at("recipe"), "bf16-adam-8bit");
  EXPECT_EQ(paged8.values.at("optimizer_kernel"), "in-backward");
  const TrainingConfig paged32 = read("bitsandbytes.optim.PagedAdamW", "optimizer_in_bwd: False\n");
  EXPECT_EQ(paged32.values.at("recipe"), "bf16-adam");
  EXPECT_FALSE(paged32.values.contains("optimizer_kernel"));
  const TrainingConfig fused = parse_training_config(
      "optimizer_in_bwd: True\nmodel:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
      "optimizer:\n  _component_: torch.optim.AdamW\n  fused: True\ndtype: bf16\n",
      "/nonexistent");
  EXPECT_EQ(fused.values.at("recipe"), "pure-bf16-adam");
  EXPECT_EQ(fused.values.at("optimizer_kernel"), "in-backward");
}

// torchtune's generic llama2 builder (its llama2/1B_* recipes): the dimensions in the config are
// the model, as a config.json of model_type llama; the MLP's width by torchtune's default,
// scale_hidden_dim_for_mlp(2048) = 256 x ceil(4 x int(4096 / 3) / 256) = 5632, untied.
TEST(FrameworkConfig, TorchtuneGenericLlama2BuilderIsItsDimensions) {
  const std::string dims =
      "  vocab_size: 32000\n  num_layers: 22\n  num_heads: 32\n  num_kv_heads: 4\n"
      "  max_seq_len: 2048\n";
  const TrainingConfig c = parse_training_config(
      "model:\n  _component_: torchtune.models.llama2.llama2\n" + dims +
          "  embed_dim: 2048\n  attn_dropout: 0.0\n  norm_eps: 1e-5\nbatch_size: 2\n",
      "/nonexistent");
  const nlohmann::json model = nlohmann::json::parse(c.values.at("model"));
  EXPECT_EQ(model.at("model_type"), "llama");
  EXPECT_EQ(model.at("hidden_size"), 2048);
  EXPECT_EQ(model.at("intermediate_size"), 5632);
  EXPECT_EQ(model.at("num_key_value_heads"), 4);
  EXPECT_EQ(model.at("num_hidden_layers"), 22);
  EXPECT_EQ(model.at("tie_word_embeddings"), false);
  EXPECT_TRUE(std::none_of(c.unknown.begin(), c.unknown.end(), [](const std::string& u) {
    return u.find("model.") != std::string::npos;
  }));
  // A dimension missing: no model, and the note says which are needed.
  const TrainingConfig partial = parse_training_config(
      "model:\n  _component_: torchtune.models.llama2.llama2\n" + dims + "batch_size: 2\n",
      "/nonexistent");
  EXPECT_FALSE(partial.values.contains("model"));
  EXPECT_TRUE(std::any_of(partial.unknown.begin(), partial.unknown.end(), [](const std::string& u) {
    return u.find("embed_dim and max_seq_len are needed") != std::string::npos;
  }));
}

// YAML 1.1 integers with digit separators, as PyYAML reads them (axolotl's, LLaMA-Factory's).
TEST(FrameworkConfig, SeparatedIntegersAreNumbers) {
  const TrainingConfig c = parse_training_config(
      "base_model: NousResearch/Meta-Llama-3-8B\nsequence_len: 4_096\nmicro_batch_size: 1_0\n",
      "/nonexistent");
  EXPECT_EQ(c.values.at("seq_len"), "4096");
  EXPECT_EQ(c.values.at("micro_batch"), "10");
  const TrainingConfig odd = parse_training_config(
      "base_model: NousResearch/Meta-Llama-3-8B\nsequence_len: _4096\n", "/nonexistent");
  EXPECT_EQ(odd.values.count("seq_len"), 1U);  // kept as the text it is, refused downstream
}

// A quoted empty key is a string key, as PyYAML reads it (axolotl's ebft example: device_map
// {"": 0}); an empty plain key names no field and is refused.
TEST(FrameworkConfig, QuotedEmptyKeysAreStrings) {
  const TrainingConfig c = parse_training_config(
      std::string{kAxolotl} + "device_map:\n  \"\": 0\nmicro_batch_size: 2\n", "/nonexistent");
  EXPECT_EQ(c.values.at("micro_batch"), "2");
  EXPECT_THROW(
      (void)parse_training_config(std::string{kAxolotl} + "device_map:\n  : 0\n", "/nonexistent"),
      InvalidRequest);
}

// The working directory is this test process's own (ctest runs each test as a process).
TEST(FrameworkConfig, DeepSpeedPathsResolveFromTheLaunchFolderFirst) {
  test_support::ScratchDir scratch;
  const std::filesystem::path launch = scratch.path() / "repo";
  const std::filesystem::path configs = launch / "examples";
  std::filesystem::create_directories(configs / "deepspeed");
  std::filesystem::create_directories(launch / "examples" / "deepspeed");
  std::ofstream{launch / "examples" / "deepspeed" / "ds_z3.json"}
      << R"({"zero_optimization": {"stage": 3}})";
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(launch);
  const std::string text = std::string{kAxolotl} + "deepspeed: examples/deepspeed/ds_z3.json\n";
  const TrainingConfig c = parse_training_config(text, configs / "llama3");
  EXPECT_EQ(c.values.at("zero"), "3");
  try {
    (void)parse_training_config(std::string{kAxolotl} + "deepspeed: nowhere/ds.json\n",
                                configs / "llama3");
    ADD_FAILURE() << "no error";
  } catch (const InvalidRequest& e) {
    const std::string m = e.problems().front().message;
    EXPECT_NE(m.find("is neither at nowhere/ds.json (from where the job is launched"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("llama3/nowhere/ds.json (beside the config)"), std::string::npos) << m;
  }
  std::filesystem::current_path(before);
}

// accelerate's FSDP2 file (TRL's examples/accelerate_configs/fsdp2.yaml): FSDP on is FULL_SHARD
// unless fsdp_reshard_after_forward is false; TRL's CLI YAML (model_name_or_path with
// dataset_name) reads as TrainingArguments.
TEST(FrameworkConfig, AccelerateFsdp2AndTrlCliYaml) {
  const auto zero = [](const std::string& fsdp) {
    return parse_training_config("distributed_type: FSDP\nnum_processes: 8\nfsdp_config:\n" + fsdp,
                                 "/nonexistent")
        .values.at("zero");
  };
  EXPECT_EQ(zero("  fsdp_version: 2\n  fsdp_reshard_after_forward: true\n"), "3");
  EXPECT_EQ(zero("  fsdp_version: 2\n  fsdp_reshard_after_forward: false\n"), "2");
  EXPECT_EQ(zero("  fsdp_version: 2\n"), "3");
  EXPECT_EQ(zero("  fsdp_reshard_after_forward: SHARD_GRAD_OP\n"), "2");
  EXPECT_EQ(zero("  fsdp_sharding_strategy: NO_SHARD\n"), "0");
  const TrainingConfig trl = parse_training_config(
      "model_name_or_path:\n  Qwen/Qwen2.5-0.5B\ndataset_name:\n  stanfordnlp/imdb\n"
      "report_to:\n  none\nlearning_rate:\n  0.0001\n",
      "/nonexistent");
  EXPECT_EQ(trl.format, "hf-training-arguments");
  EXPECT_EQ(trl.values.at("model"), "Qwen/Qwen2.5-0.5B");
  EXPECT_TRUE(trl.unknown.empty());
}

// LLaMA-Factory's pure_bf16 keeps a full fine-tune's trainable parameters in bf16
// (model/adapter.py); without it they are upcast to fp32.
TEST(FrameworkConfig, LlamaFactoryPureBf16) {
  const auto recipe = [](const std::string& extra) {
    const auto v =
        parse_training_config(std::string{kLlamaFactoryFull} + extra, "/nonexistent").values;
    return v.contains("recipe") ? v.at("recipe") : std::string{"(default)"};
  };
  EXPECT_EQ(recipe("pure_bf16: true\n"), "pure-bf16-adam");
  EXPECT_EQ(recipe("pure_bf16: true\noptim: adamw_8bit\n"), "bf16-adam-8bit");
  EXPECT_EQ(recipe("optim: adamw_torch\n"), "amp-adam");
  EXPECT_EQ(recipe("pure_bf16: false\n"), "(default)");
}

// TRL's ModelConfig torch_dtype bfloat16: a full fine-tune under the Trainer keeps no fp32 copy;
// FSDP (accelerate's upcast) and adapters keep the optimizer's recipe; "auto" is named.
TEST(FrameworkConfig, TrlTorchDtypeBf16) {
  const auto read = [](const std::string& json) {
    return parse_training_config(json, "/nonexistent");
  };
  const TrainingConfig full = read(
      R"({"model_name_or_path": "Qwen/Qwen2.5-0.5B", "per_device_train_batch_size": 2,
          "torch_dtype": "bfloat16", "optim": "adamw_torch"})");
  EXPECT_EQ(full.values.at("recipe"), "pure-bf16-adam");
  EXPECT_EQ(std::count(full.no_effect.begin(), full.no_effect.end(), "torch_dtype"), 0);
  EXPECT_EQ(read(R"({"per_device_train_batch_size": 2, "dtype": "bfloat16", "fsdp": "full_shard"})")
                .values.count("recipe"),
            0U);
  EXPECT_EQ(read(R"({"per_device_train_batch_size": 2, "torch_dtype": "bfloat16",
                     "use_peft": true})")
                .values.count("recipe"),
            0U);
  const TrainingConfig auto_dtype =
      read(R"({"per_device_train_batch_size": 2, "torch_dtype": "auto"})");
  EXPECT_EQ(auto_dtype.unknown.front(), "torch_dtype=auto");
  EXPECT_EQ(auto_dtype.values.count("recipe"), 0U);
}

// What LLaMA-Factory trains that no field models is refused in one line naming the key, not read
// as another job (until December 2026 OFT answered as a full fine-tune and stage rm as SFT).
TEST(FrameworkConfig, LlamaFactoryJobsNotModelledAreRefused) {
  const std::string model = "model_name_or_path: meta-llama/Llama-3.1-8B\n";
  const auto refused = [&](const std::string& keys, const std::string& named) {
    try {
      (void)parse_training_config(model + keys, "/nonexistent");
      ADD_FAILURE() << keys << " accepted";
    } catch (const InvalidRequest& e) {
      EXPECT_NE(std::string{e.what()}.find(named), std::string::npos) << e.what();
    }
  };
  refused("stage: sft\nfinetuning_type: oft\n", "finetuning_type 'oft' is not modelled");
  refused("stage: rm\nfinetuning_type: lora\n", "stage 'rm' is not modelled");
  refused("stage: ppo\nfinetuning_type: lora\n", "stage 'ppo' is not modelled");
  refused("stage: dpo\nfinetuning_type: lora\npref_loss: bco_pair\n",
          "pref_loss 'bco_pair' is not modelled");
  const TrainingConfig kto =
      parse_training_config(model + "stage: kto\nfinetuning_type: lora\n", "/nonexistent");
  EXPECT_EQ(kto.values.at("trainer"), "kto");
}

}  // namespace
}  // namespace tb::api
