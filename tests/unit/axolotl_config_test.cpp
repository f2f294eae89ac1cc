// axolotl's FSDP, plugin and precision keys in --config (issue 41), as axolotl's own code reads
// them (src/axolotl at 067b021c8: utils/trainer.py setup_fsdp_envs, schemas/validation.py,
// integrations/cut_cross_entropy and liger, utils/config normalize_config).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "trainbudget/api/training_config.hpp"

namespace tb::api {
namespace {

const std::string kBase = "base_model: openai/gpt-oss-20b\nsequence_len: 4096\n";

TrainingConfig read(const std::string& extra) {
  return parse_training_config(kBase + extra, "/nonexistent");
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

TEST(AxolotlConfig, FsdpKeysSetShardingOffloadAndRecompute) {
  // fsdp_config turns FSDP on: FULL_SHARD, ZeRO-3, unless it says otherwise.
  const TrainingConfig on = read(
      "fsdp_version: 2\nfsdp_config:\n  offload_params: true\n"
      "  auto_wrap_policy: TRANSFORMER_BASED_WRAP\n");
  EXPECT_EQ(on.values.at("zero"), "3");
  EXPECT_EQ(on.values.at("offload"), "params");
  EXPECT_TRUE(has(on.no_effect, "fsdp_config.auto_wrap_policy"));
  EXPECT_TRUE(has(on.no_effect, "fsdp_version"));
  EXPECT_EQ(read("fsdp_config:\n  reshard_after_forward: false\n").values.at("zero"), "2");
  // The deprecated fsdp_ prefix, dropped as check_fsdp_config_kwargs_prefix does.
  const TrainingConfig old = read(
      "fsdp:\n  - full_shard\n  - auto_wrap\nfsdp_config:\n  fsdp_sharding_strategy: "
      "SHARD_GRAD_OP\n  fsdp_activation_checkpointing: true\n  fsdp_offload_params: false\n");
  EXPECT_EQ(old.values.at("zero"), "2");
  EXPECT_EQ(old.values.at("recompute"), "full");
  EXPECT_FALSE(old.values.contains("offload"));
  EXPECT_EQ(read("fsdp:\n  - full_shard\n  - offload\n").values.at("offload"), "params");
  EXPECT_FALSE(read("fsdp:\n").values.contains("zero"));
  EXPECT_TRUE(has(read("fsdp_config:\n  sharding_strategy: ODD\n").unknown,
                  "fsdp_config.sharding_strategy=ODD"));
}

// axolotl's mesh (setup_parallelism_envs and its ParallelismConfig patch): ep x dp_replicate x
// dp_shard x cp x tp processes, FSDP sharded over dp_shard (HSDP across dp_replicate).
TEST(AxolotlConfig, TheMeshSizesAreTheDevicesAndTheLayout) {
  EXPECT_EQ(read("dp_shard_size: 16\n").values.at("devices"), "16");
  // examples/distributed-parallel/qwen3-8b-fsdp-tp-cp.yaml: 2 x 2 x 2 = 8 devices.
  const TrainingConfig tpcp =
      read("dp_shard_size: 2\ncontext_parallel_size: 2\ntensor_parallel_size: 2\n");
  EXPECT_EQ(tpcp.values.at("devices"), "8");
  EXPECT_EQ(tpcp.values.at("tp"), "2");
  EXPECT_EQ(tpcp.values.at("cp"), "2");
  EXPECT_TRUE(tpcp.unknown.empty());
  // examples/distributed-parallel/llama-3_1-8b-hsdp-tp.yaml: HSDP, shards of 4 replicated twice,
  // tp 2: 16 devices.
  const TrainingConfig hsdp =
      read("dp_shard_size: 4\ndp_replicate_size: 2\ntensor_parallel_size: 2\n");
  EXPECT_EQ(hsdp.values.at("devices"), "16");
  EXPECT_EQ(hsdp.values.at("shard_group"), "4");
  // examples/expert_parallel/qwen3_30ba3b_ep_fft_4gpu.yaml ("world size 4"): ep 4 on 4 devices;
  // the ALST examples' context_parallel_size 8 alone: 8 devices.
  const TrainingConfig ep = read("expert_parallel_size: 4\n");
  EXPECT_EQ(ep.values.at("ep"), "4");
  EXPECT_EQ(ep.values.at("devices"), "4");
  EXPECT_EQ(read("context_parallel_size: 8\n").values.at("devices"), "8");
  // examples/expert_parallel/qwen3_30ba3b_ep_fsdp_fft_4gpu.yaml ("world size 4 minimum:
  // expert_parallel_size x dp_shard_size").
  EXPECT_EQ(read("expert_parallel_size: 2\ndp_shard_size: 2\n").values.at("devices"), "4");
  // Its plugin does what expert_parallel_size says.
  const TrainingConfig plugin = read(
      "plugins:\n  - axolotl.integrations.expert_parallel.ExpertParallelPlugin\n"
      "expert_parallel_size: 2\n");
  EXPECT_TRUE(plugin.unknown.empty());
  // Sizes of 1 change nothing; a size that is no positive integer is named.
  const TrainingConfig one = read("tensor_parallel_size: 1\n");
  EXPECT_FALSE(one.values.contains("tp"));
  EXPECT_TRUE(has(one.no_effect, "tensor_parallel_size"));
  EXPECT_TRUE(has(read("tensor_parallel_size: two\n").unknown, "tensor_parallel_size=two"));
}

// axolotl's reward_model (core/builders/causal.py: AxolotlRewardTrainer, TRL's RewardTrainer),
// as its examples write it (examples/qwen2/reward-model.yaml).
TEST(AxolotlConfig, RewardModelIsTheRmTrainer) {
  const TrainingConfig rm =
      read("reward_model: true\nmodel_type: AutoModelForSequenceClassification\nnum_labels: 1\n");
  EXPECT_EQ(rm.values.at("trainer"), "rm");
  EXPECT_TRUE(rm.unknown.empty());
  EXPECT_TRUE(has(read("num_labels: 3\n").unknown, "num_labels=3"));
  EXPECT_FALSE(read("process_reward_model: true\n").values.contains("trainer"));
}

// The schedule's, logging's and data filters' keys are bookkeeping, counted and not listed.
TEST(AxolotlConfig, ScheduleLoggingAndDataFiltersAreBookkeeping) {
  const TrainingConfig c = read(
      "cosine_min_lr_ratio: 0.1\ncosine_constant_lr_ratio: 0.8\neta_min: 0.0\ndebug: true\n"
      "use_swanlab: true\nswanlab_project: p\nmin_sample_len: 16\nreinit_weights: false\n"
      "dataset_exact_deduplication: true\n"
      "plugins:\n  - axolotl.integrations.swanlab.SwanLabPlugin\n"
      "model_config:\n  output_router_logits: true\n");
  EXPECT_TRUE(c.unknown.empty());
  // Another override of the model's config could change the architecture: listed.
  EXPECT_FALSE(read("model_config:\n  num_hidden_layers: 2\n").unknown.empty());
}

TEST(AxolotlConfig, PluginsSetTheLossAndLiger) {
  const TrainingConfig cce =
      read("plugins:\n  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\n");
  EXPECT_EQ(cce.values.at("loss"), "linear");
  EXPECT_FALSE(read("plugins:\n  - axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin\n"
                    "cut_cross_entropy: false\n")
                   .values.contains("loss"));
  const TrainingConfig liger = read(
      "plugins:\n  - axolotl.integrations.liger.LigerPlugin\nliger_rms_norm: true\n"
      "liger_glu_activation: true\nliger_rope: true\nliger_fused_linear_cross_entropy: true\n");
  EXPECT_EQ(liger.values.at("use_liger_kernel"), "true");
  EXPECT_EQ(liger.values.at("loss"), "linear");
  // Without the plugin the keys do nothing; a plugin not modelled is named.
  const TrainingConfig bare = read("liger_rms_norm: true\n");
  EXPECT_FALSE(bare.values.contains("use_liger_kernel"));
  EXPECT_TRUE(has(bare.no_effect, "liger_rms_norm (without its plugin)"));
  EXPECT_TRUE(has(read("plugins:\n  - axolotl.integrations.kernels.KernelsPlugin\n").unknown,
                  "plugins=axolotl.integrations.kernels.KernelsPlugin"));
}

TEST(AxolotlConfig, AttnImplementationSetsTheAttention) {
  for (const char* fused : {"flash_attention_2", "sdpa", "flex_attention", "xformers",
                            "kernels-community/vllm-flash-attn3"}) {
    EXPECT_EQ(read(std::string{"attn_implementation: "} + fused + "\n").values.at("attention"),
              "flash")
        << fused;
  }
  EXPECT_EQ(read("attn_implementation: eager\n").values.at("attention"), "eager");
  EXPECT_TRUE(has(read("attn_implementation: odd\n").unknown, "attn_implementation=odd"));
  EXPECT_TRUE(has(read("trackio_project_name: x\n").no_effect, "trackio_project_name"));
}

TEST(AxolotlConfig, Bf16FullFineTunesKeepNoFp32Copy) {
  // normalize_config loads the model in bf16; AdamW's moments follow the parameters.
  EXPECT_EQ(read("bf16: true\noptimizer: adamw_torch_fused\n").values.at("recipe"),
            "pure-bf16-adam");
  EXPECT_EQ(read("bf16: auto\n").values.at("recipe"), "pure-bf16-adam");
  EXPECT_EQ(read("bf16: true\noptimizer: adamw_torch_8bit\n").values.at("recipe"),
            "bf16-adam-8bit");
  EXPECT_EQ(read("fsdp_version: 2\nfsdp_config:\n  offload_params: false\nbf16: true\n")
                .values.at("recipe"),
            "pure-bf16-adam");
  // DeepSpeed's own fp32 master, accelerate's FSDP1 upcast, fp32 models and adapters keep it.
  EXPECT_EQ(read("bf16: true\noptimizer: adamw_torch_8bit\nfsdp_config:\n  offload_params: "
                 "false\n")
                .values.at("recipe"),
            "adam-8bit");
  EXPECT_FALSE(read("optimizer: adamw_torch\n").values.at("recipe") == "pure-bf16-adam");
  EXPECT_EQ(read("bf16: true\nadapter: lora\noptimizer: adamw_torch\n").values.at("recipe"),
            "amp-adam");
  // torchao's 4-bit AdamW (adam-4bit), and without an fp32 copy under axolotl's bf16 load; a
  // 4-bit name torchao does not give is not read as 32-bit AdamW.
  EXPECT_EQ(read("optimizer: adamw_torch_4bit\n").values.at("recipe"), "adam-4bit");
  EXPECT_EQ(read("bf16: true\noptimizer: adamw_torch_4bit\n").values.at("recipe"),
            "bf16-adam-4bit");
  EXPECT_FALSE(read("optimizer: adamw_lpmm_4bit\n").values.contains("recipe"));
}

TEST(AxolotlConfig, Bf16RuleYieldsToAnotherFilesFp32Master) {
  // FSDP without axolotl's own FSDP2 preparation (fsdp list only, or fsdp_version 1) upcasts.
  EXPECT_FALSE(
      read("bf16: true\nfsdp:\n  - full_shard\nfsdp_version: 2\n").values.contains("recipe"));
  EXPECT_EQ(read("bf16: true\nfsdp_config:\n  fsdp_version: 2\n").values.at("recipe"),
            "pure-bf16-adam");
  // Beside a DeepSpeed file with bf16 (or "auto"), or an accelerate file that runs FSDP or
  // DeepSpeed, the optimizer's own recipe returns.
  const auto pair = [](const std::string& other) {
    std::vector<TrainingConfig> configs{read("bf16: true\noptimizer: adamw_torch_8bit\n"),
                                        parse_training_config(other, "/nonexistent")};
    reconcile_training_configs(configs);
    return configs.front();
  };
  const TrainingConfig ds =
      pair(R"({"zero_optimization": {"stage": 3}, "bf16": {"enabled": "auto"}})");
  EXPECT_EQ(ds.values.at("recipe"), "adam-8bit");
  EXPECT_TRUE(has(ds.no_effect, "bf16"));
  EXPECT_TRUE(has(ds.mapped,
                  "optimizer (an fp32 master kept by another config file's launch) -> "
                  "recipe"));
  EXPECT_EQ(pair("distributed_type: FSDP\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 2\n")
                .values.at("recipe"),
            "adam-8bit");
  // A DeepSpeed file in fp32 keeps the model's bf16 reading.
  EXPECT_EQ(pair(R"({"zero_optimization": {"stage": 2}})").values.at("recipe"), "bf16-adam-8bit");
}

TEST(AxolotlConfig, Mxfp4DequantizedIsWhatIsCounted) {
  const TrainingConfig d = read(
      "model_quantization_config: Mxfp4Config\nmodel_quantization_config_kwargs:\n  dequantize: "
      "true\n");
  EXPECT_TRUE(has(d.no_effect, "model_quantization_config"));
  EXPECT_TRUE(has(d.no_effect, "model_quantization_config_kwargs"));
  EXPECT_FALSE(read("model_quantization_config: Mxfp4Config\n"
                    "model_quantization_config_kwargs:\n  dequantize: false\n")
                   .unknown.empty());
}

// axolotl_keys.cpp: the deprecated batch_size divided by micro_batch_size (normalize_config)
// unless gradient_accumulation_steps is given; torch_compile; the GPTQ loader's keys read only
// under gptq: true; the archived examples' empty max_packed_sequence_len; bookkeeping listed as
// such, not as "not understood".
TEST(AxolotlConfig, LegacyAndBookkeepingKeys) {
  const TrainingConfig old = read(
      "micro_batch_size: 2\nbatch_size: 16\ntorch_compile: true\ngptq: false\n"
      "gptq_groupsize: 128\nmax_packed_sequence_len:\nchat_template: llama3\nseed: 42\n");
  EXPECT_EQ(old.values.at("grad_accum"), "8");
  EXPECT_EQ(old.values.at("compile"), "true");
  EXPECT_TRUE(old.unknown.empty()) << old.unknown.front();
  for (const char* k :
       {"gptq", "gptq_groupsize", "max_packed_sequence_len", "chat_template", "seed"}) {
    EXPECT_TRUE(has(old.no_effect, k)) << k;
  }
  const TrainingConfig given =
      read("micro_batch_size: 2\nbatch_size: 16\ngradient_accumulation_steps: 3\n");
  EXPECT_EQ(given.values.at("grad_accum"), "3");
  const TrainingConfig quantised = read("gptq: true\ngptq_groupsize: 128\ntorch_compile: auto\n");
  EXPECT_EQ(quantised.unknown.size(), 3U);
  EXPECT_EQ(quantised.values.count("compile"), 0U);
}

}  // namespace
}  // namespace tb::api
