// Architectures the unit tests share: the config.json fixtures and GPT-3 175B as the Megatron
// papers analyse it.
#pragma once

#include <filesystem>
#include <string>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/job.hpp"

namespace tb::testing_models {

inline const std::filesystem::path kConfigs =
    std::filesystem::path{TB_TEST_DIR} / "data" / "hf_configs";

inline ModelArchitecture config(const std::string& name) {
  return io::load_hf_config(kConfigs / name);
}

// The architecture of a preset in the repository's data/models.
inline ModelArchitecture preset_arch(const std::string& id) {
  return io::load_model_preset(std::filesystem::path{TB_TEST_DATA_DIR} / "models" / (id + ".toml"))
      .architecture;
}

// GPT-3 175B as Korthikanti et al. 2022 (sec. 4.1, Table 3) and Narayanan et al. 2021
// (sec. 5.1) analyse it: LayerNorm, a 4h GeLU MLP, multi-head attention, h = 12288, a = 96,
// L = 96, s = 2048, vocabulary 51200 as Megatron pads it.
inline ModelArchitecture gpt3_175b() {
  ModelArchitecture a;
  a.model_type = "gpt2";
  a.hidden = 12288;
  a.num_layers = 96;
  a.vocab = 51200;
  a.max_positions = 2048;
  a.learned_positions = true;
  a.tie_embeddings = true;
  a.norm = {NormKind::kLayerNorm, true};
  a.attention.num_heads = 96;
  a.attention.num_kv_heads = 96;
  a.attention.head_dim = 128;
  a.attention.qkv_bias = true;
  a.attention.output_bias = true;
  a.attention.fused_qkv = true;
  a.mlp.gated = false;
  a.mlp.intermediate = 4 * 12288;
  a.mlp.bias = true;
  a.mlp.activation = "gelu_new";
  return a;
}

// A job on a fixture config.json, counted exactly, as --model builds it.
// A test GPU of `gb` GB with a 1,000 TFLOP/s bf16 rate and no measured matmul ceiling.
inline Device test_device(double gb) {
  Device d;
  d.id = "test-gpu";
  d.name = "test GPU";
  d.memory_capacity = Bytes{gb * kGiga};
  ComputeRate r;
  r.dtype = DType::kBf16;
  r.dense = FlopsPerSecond{1000.0 * kTera};
  r.source = "test";
  d.rates.push_back(r);
  return d;
}

inline TrainingJob job_for(const char* config_name, Method method) {
  TrainingJob job;
  job.model.kind = "config";
  job.model.architecture = config(config_name);
  job.model.counts = count_params(*job.model.architecture);
  job.params = static_cast<double>(job.model.counts->total);
  job.method = method;
  return job;
}

// The model states of a job (no activations), as the estimate's rows before the step.
inline MemoryEstimate states_of(const TrainingJob& job, const Recipe& recipe) {
  return states_view(make_profile(job, recipe), layout_of(job, recipe));
}

// The compute of a job by its parameter formula (6N, 4N + 6N_adapter, 2N + 4N_trained), even
// when it has an architecture.
inline ComputeEstimate formula_compute(const TrainingJob& job) {
  const Recipe& recipe = find_recipe(job.recipe_id);
  ModelProfile p = make_profile(job, recipe);
  p.has_architecture = false;
  const StepCost c = evaluate(p, layout_of(job, recipe), ClusterProfile{});
  return {c.flops_per_token.value(), c.reference_6n.value(), c.total, FlopsBasis::kSixN};
}

// The built-in catalog, loaded once, and a machine of it as --machine ID picks it (its system
// and kernel class).
inline const HardwareCatalog& builtin_catalog() {
  static const HardwareCatalog c = io::load_catalog({io::data_dir() / "hardware", {}});
  return c;
}
inline MachineChoice builtin_machine(const char* id) {
  const HardwareCatalog& c = builtin_catalog();
  return {c.find(id), std::nullopt, c.system_for(id), c.kernel_costs(id)};
}

}  // namespace tb::testing_models
