// A FieldMap through the field table into an EstimateRequest, every problem collected.
#include "trainbudget/api/request.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/limits.hpp"

namespace tb::api {
namespace {

std::vector<std::string> keys_of(std::span<const Field> fields) {
  std::vector<std::string> out;
  for (const Field& f : fields) out.emplace_back(f.key);
  return out;
}

Problem unknown_key(const std::string& key, std::span<const Field> fields, std::string_view what) {
  const std::vector<std::string> near =
      closest_names(key, keys_of(fields), 1, std::max<std::size_t>(2, key.size() / 3));
  if (near.empty()) return {excerpt(key), fmt::format("is not a field of {}", what), ""};
  return {excerpt(key),
          fmt::format("is not a field of {}; did you mean {{{}}}?", what, near.front()), ""};
}

// PPO as TRL's PPOTrainer runs it: the policy's own generate(), one completion per prompt, the
// reference always; the value and reward models are PPO's alone.
void check_ppo(const EstimateRequest& r, std::vector<Problem>& problems) {
  const bool ppo = r.job.objective == Objective::kPpo;
  if (!ppo) {
    for (const std::string_view key : {"value_model", "reward_model"}) {
      if (!r.has(key)) continue;
      problems.push_back(
          {std::string{key},
           fmt::format("only applies to {{trainer}} ppo, not '{}'", enum_name(r.job.objective)),
           ""});
    }
    return;
  }
  if (r.has("num_generations") && r.job.rollout.num_generations != 1) {
    problems.push_back({"num_generations", "ppo samples one completion per prompt", "1"});
  }
  // TRL's PPOTrainer generates per_device_train_batch_size x gradient_accumulation_steps x
  // num_mini_batches rollouts a process, then trains num_ppo_epochs over them in num_mini_batches
  // optimizer steps (trl/experimental/ppo/ppo_trainer.py, local_batch_size; OpenRLHF's
  // rollout_batch_size over train_batch_size likewise): steps_per_generation = accumulation x
  // mini-batches, whole mini-batches only.
  const std::int64_t accum = r.job.setup.grad_accumulation;
  const std::int64_t spg = r.job.rollout.steps_per_generation;
  if (r.has("steps_per_generation") && accum > 0 && spg % accum != 0) {
    problems.push_back(
        {"steps_per_generation",
         fmt::format("{} is not a whole number of PPO mini-batches of {} micro-batches "
                     "({{grad_accum}}): PPOConfig's num_mini_batches x "
                     "gradient_accumulation_steps",
                     spg, accum),
         fmt::format("a multiple of {}", accum)});
  }
  if (r.has("beta") && r.job.rollout.engine == RolloutEngine::kGenerate) {
    problems.push_back({"beta",
                        "changes nothing with ppo: TRL's PPOTrainer loads and runs its reference "
                        "whatever kl_coef, which only scales the penalty",
                        ""});
  }
}

// The online RL rows apply to grpo, rloo and ppo only, each vLLM row to the engines that read
// it; the sequence is the prompt and its completion, and the generation batch holds whole groups.
void check_rollout(const EstimateRequest& r, std::vector<Problem>& problems) {
  const RolloutSpec& rl = r.job.rollout;
  check_ppo(r, problems);
  if (!online_rl(r.job.objective)) {
    for (const Field& f : rollout_fields()) {
      if (!r.has(f.key) || f.key == "value_model" || f.key == "reward_model") continue;
      problems.push_back({std::string{f.key},
                          fmt::format("only applies to {{trainer}} grpo|rloo|ppo, not '{}'",
                                      enum_name(r.job.objective)),
                          ""});
    }
    return;
  }
  if (!r.has("model")) {
    problems.push_back({"trainer",
                        fmt::format("{} needs an architecture ({{model}}) to size the rollout's KV "
                                    "cache and time its generation",
                                    enum_name(r.job.objective)),
                        ""});
  }
  if (r.has("fit")) {
    problems.push_back({"fit",
                        "searches supervised steps; for online RL vary {micro_batch}, "
                        "{num_generations} or {max_completion_length} and compare",
                        ""});
  }
  if (r.has("seq_len")) {
    problems.push_back({"seq_len",
                        "is {max_prompt_length} + {max_completion_length} for online RL; "
                        "give those instead",
                        ""});
  }
  const auto engine_only = [&](std::string_view key, std::initializer_list<RolloutEngine> engines,
                               std::string_view which) {
    if (!r.has(key)) return;
    if (std::find(engines.begin(), engines.end(), rl.engine) != engines.end()) return;
    problems.push_back({std::string{key},
                        fmt::format("only applies to {{rollout_engine}} {}, not '{}'", which,
                                    enum_name(rl.engine)),
                        ""});
  };
  engine_only("vllm_gpu_memory_utilization", {RolloutEngine::kColocate}, "colocate");
  engine_only("vllm_enable_sleep_mode", {RolloutEngine::kColocate}, "colocate");
  engine_only("vllm_tensor_parallel_size", {RolloutEngine::kColocate, RolloutEngine::kServer},
              "colocate|server");
  engine_only("vllm_server_devices", {RolloutEngine::kServer}, "server");
  engine_only("vllm_server_gpu_memory_utilization", {RolloutEngine::kServer}, "server");
  engine_only("off_policy_steps", {RolloutEngine::kServer}, "server");
  engine_only("vllm_version", {RolloutEngine::kColocate, RolloutEngine::kServer},
              "colocate|server");
  engine_only("vllm_precision", {RolloutEngine::kColocate, RolloutEngine::kServer},
              "colocate|server");
  engine_only("vllm_async_engine", {RolloutEngine::kColocate, RolloutEngine::kServer},
              "colocate|server");
  engine_only("vllm_importance_sampling_correction",
              {RolloutEngine::kColocate, RolloutEngine::kServer}, "colocate|server");
  // TRL: the generation batch (per-device batch x processes x steps per generation) must be
  // evenly divisible by num_generations.
  const std::int64_t spg = generation_steps(rl, r.job.setup.grad_accumulation);
  const std::int64_t batch = r.job.setup.micro_batch * spg * r.job.devices;
  if (batch % rl.num_generations != 0) {
    problems.push_back(
        {"num_generations",
         fmt::format("{} does not divide the generation batch {{micro_batch}} x {} x "
                     "{{devices}} = {} completions",
                     rl.num_generations,
                     rl.steps_per_generation > 0 ? "{steps_per_generation}" : "{grad_accum}",
                     batch),
         "a divisor of the generation batch"});
  }
}

// Combinations the fields cannot check one by one.
void check_combinations(const EstimateRequest& r, std::vector<Problem>& problems) {
  if (r.brief && (r.format == "json" || r.format == "csv")) {
    problems.push_back({"brief",
                        fmt::format("shortens the table, markdown and html formats; {} is "
                                    "always whole",
                                    r.format),
                        ""});
  }
  if (r.has("model") && r.has("params")) {
    problems.push_back(
        {"params", "cannot be combined with {model}: the model's count is exact", ""});
  }
  // QLoRA's quantization settings mean nothing for another method's base.
  for (const std::string_view key : {"qlora_bits", "no_double_quant", "quantize_moe_experts"}) {
    if (!r.has(key) || r.job.method == Method::kQlora) continue;
    problems.push_back(
        {std::string{key}, "applies to {method} qlora (a quantized base) only", "method qlora"});
  }
  if (r.job.qlora.bits == 8 && r.has("no_double_quant")) {
    problems.push_back(
        {"no_double_quant", "applies to the 4-bit base (8 bits keep row scales)", "qlora_bits 4"});
  }
  if (r.job.setup.lora_kernels && r.job.method != Method::kLora && r.job.method != Method::kQlora) {
    problems.push_back(
        {"lora_kernels", "applies to the adapters of {method} lora or qlora", "method lora|qlora"});
  }
  if (!r.has("model")) {
    // The step fields size activations and FLOPs, which only an architecture has.
    for (const Field& f : estimate_fields()) {
      // The explain field explains what a bare count has: its states and its 6N FLOPs.
      if (f.group != "step" || !r.has(f.key) || f.key == "explain") continue;
      problems.push_back({std::string{f.key},
                          "needs an architecture ({model}) to size activations and FLOPs; a "
                          "bare {params} counts model states only",
                          ""});
    }
    for (const std::string_view key :
         {"lora_rank", "lora_targets", "lora_dropout", "dora", "lora_modules_to_save"}) {
      if (!r.has(key)) continue;
      problems.push_back({std::string{key},
                          "needs an architecture ({model}) to count adapters; with a bare "
                          "{params} use {trainable_fraction}",
                          ""});
    }
    for (const std::string_view key : {"kv_dtype", "context"}) {
      if (!r.has(key)) continue;
      problems.push_back({std::string{key},
                          "needs an architecture ({model}) to size the KV cache; a bare "
                          "{params} prices the weights only",
                          ""});
    }
  }
  if (!uses_adapters(r.job.method)) {
    for (const std::string_view key :
         {"lora_rank", "lora_targets", "lora_dropout", "dora", "lora_modules_to_save"}) {
      if (!r.has(key)) continue;
      problems.push_back(
          {std::string{key},
           fmt::format("only applies to {{method}} lora|qlora, not '{}'", enum_name(r.job.method)),
           ""});
    }
  }
  // Stepped in the backward pass, the optimizer runs once per micro-batch (torchtune refuses
  // optimizer_in_bwd with gradient accumulation).
  if (r.job.setup.optimizer_kernel == OptimizerKernel::kInBackward &&
      r.job.setup.grad_accumulation > 1) {
    problems.push_back({"optimizer_kernel",
                        "in-backward steps the optimizer in every backward pass, so {grad_accum} "
                        "must be 1",
                        "per-tensor|foreach|fused, or {grad_accum} 1"});
  }
  // GaLore projects a full fine-tune's moments over an architecture's weights.
  if (r.job.galore_rank > 0) {
    const std::string key = r.has("galore_rank") ? "galore_rank" : "method";
    if (!r.has("model")) {
      problems.push_back(
          {key, "GaLore needs an architecture ({model}) to project its weights", ""});
    } else if (r.job.method != Method::kFull) {
      problems.push_back(
          {key,
           fmt::format("GaLore only applies to {{method}} full, not '{}'", enum_name(r.job.method)),
           ""});
    }
  }
  if (r.has("recompute_layers") && r.job.setup.recompute != Recompute::kFull) {
    problems.push_back({"recompute_layers",
                        fmt::format("only applies to {{recompute}} full, not '{}'",
                                    enum_name(r.job.setup.recompute)),
                        ""});
  }
  check_rollout(r, problems);
  if (r.has("model") && r.has("trainable_fraction") && r.has("lora_rank") &&
      r.job.method != Method::kFreeze) {
    problems.push_back({"trainable_fraction",
                        "cannot be combined with {lora_rank}: with a model the fraction picks "
                        "the rank",
                        ""});
  }
}

}  // namespace

namespace {

EstimateRequest parse_request(const FieldMap& values, std::span<const Field> fields,
                              std::string_view what) {
  EstimateRequest r;
  std::vector<Problem> problems;
  // Defaults first, from the table (the one place they are written), then the given values.
  for (const Field& f : fields) {
    if (!f.default_value.empty()) f.apply(f.default_value, r);
  }
  for (const auto& [key, value] : values) {
    const Field* f = find_field(fields, key);
    if (f == nullptr) {
      problems.push_back(unknown_key(key, fields, what));
      continue;
    }
    // A flag set to false is the same as a flag not given.
    if (f->type == FieldType::kFlag && (value == "false" || value == "0")) {
      r.cleared.insert(key);
      continue;
    }
    try {
      f->apply(value, r);
      r.given.insert(key);
      r.values[key] = value;
    } catch (const InvalidRequest& e) {
      problems.insert(problems.end(), e.problems().begin(), e.problems().end());
    }
  }
  // PPOConfig's defaults where they differ from GRPO's: one completion per prompt and
  // num_ppo_epochs = 4 (trl/experimental/ppo/ppo_config.py at f2cd577).
  if (r.job.objective == Objective::kPpo) {
    if (!r.has("num_generations")) r.job.rollout.num_generations = 1;
    if (!r.has("num_iterations")) r.job.rollout.num_iterations = kPpoEpochs;
  }
  // unsloth's get_peft_model defaults to use_gradient_checkpointing="unsloth" (unsloth
  // models/llama.py at 015bdef): every layer recomputed, its input waiting in host memory.
  if (r.job.setup.framework == Framework::kUnsloth && !r.has("recompute")) {
    r.job.setup.recompute = Recompute::kFull;
    if (!r.has("offload_activations") && !r.cleared.contains("offload_activations")) {
      r.job.setup.offload_activations = true;
    }
  }
  if (problems.empty()) check_combinations(r, problems);
  // A local dataset's text at a stated characters-per-token figure (io/dataset_text.hpp).
  if (problems.empty() && !r.dataset_files.empty()) {
    if (r.has("dataset_tokens")) {
      problems.push_back(
          {"dataset_file", "cannot be combined with {dataset_tokens}: the count replaces it", ""});
    } else {
      try {
        io::DatasetText sum;
        for (const std::string& f : r.dataset_files) {
          const io::DatasetText t = io::count_dataset_text(f);
          sum.records += t.records;
          sum.characters += t.characters;
          sum.bytes += t.bytes;
        }
        r.dataset_text = sum;
        r.dataset_tokens =
            std::max(1.0, static_cast<double>(sum.characters) / io::kCharactersPerToken);
      } catch (const InvalidRequest& e) {
        problems.insert(problems.end(), e.problems().begin(), e.problems().end());
      }
    }
  }
  if (r.steps && r.has("tokens")) {
    problems.push_back({"steps",
                        "cannot be combined with {tokens}: tokens = steps x the step's sequences x "
                        "their length then",
                        ""});
  }
  // Tokens from the data: epochs passes over dataset_tokens (steps, when given, replace them).
  if (problems.empty() && r.dataset_tokens && !r.steps) {
    if (r.has("tokens")) {
      problems.push_back({"tokens",
                          "cannot be combined with {dataset_tokens}: tokens = epochs x "
                          "dataset_tokens then",
                          ""});
    } else if (r.epochs * *r.dataset_tokens > kTokensRange.hi) {
      problems.push_back({"epochs",
                          fmt::format("{:g} x {:g} dataset tokens is past {:g} tokens", r.epochs,
                                      *r.dataset_tokens, kTokensRange.hi),
                          ""});
    } else {
      r.job.tokens = r.epochs * *r.dataset_tokens;
    }
  }
  if (r.job.rollout.mean_completion_length > r.job.rollout.max_completion_length) {
    problems.push_back(
        {"mean_completion_length",
         fmt::format("{} is above max_completion_length {}", r.job.rollout.mean_completion_length,
                     r.job.rollout.max_completion_length),
         "at most max_completion_length"});
  }
  // Online RL trains on the prompt and its completion.
  if (problems.empty() && online_rl(r.job.objective)) {
    r.job.setup.seq_len = trained_seq_len(r.job.rollout);
    r.job.setup.seq_len_given = true;
  }
  if (!problems.empty()) throw InvalidRequest(std::move(problems));
  return r;
}

}  // namespace

EstimateRequest parse_estimate_request(const FieldMap& values) {
  return parse_request(values, estimate_fields(), "an estimate request");
}

EstimateRequest parse_plan_request(const FieldMap& values) {
  return parse_request(values, plan_fields(), "a plan request");
}

EstimateRequest parse_infer_request(const FieldMap& values) {
  return parse_request(values, infer_fields(), "an infer request");
}

EstimateRequest parse_compare_request(const FieldMap& values) {
  return parse_request(values, compare_fields(), "a compare request");
}

FieldMap field_map_from_json(std::string_view json_text) {
  // JSON text holds no NUL byte (RFC 8259 sec. 7: controls are escaped in strings, and none may
  // stand between tokens); the parser would stop at it and ignore the rest.
  if (const std::size_t nul = json_text.find('\0'); nul != std::string_view::npos) {
    throw InvalidRequest("request", fmt::format("holds a NUL byte at byte {}: not JSON text", nul));
  }
  if (const std::size_t depth = json_nesting_depth(json_text); depth > kMaxJsonDepth) {
    throw InvalidRequest("request", fmt::format("nested {} levels deep, past the {} accepted",
                                                depth, kMaxJsonDepth));
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidRequest("request", fmt::format("is not JSON: {}", excerpt(e.what(), 300)));
  }
  if (!doc.is_object()) {
    throw InvalidRequest("request", "must be one JSON object of field keys and values");
  }
  // A request has one key per field; thousands are not a request (and each unknown one costs
  // a suggestion search).
  constexpr std::size_t kMaxKeys = 256;
  if (doc.size() > kMaxKeys) {
    throw InvalidRequest("request", fmt::format("holds {} keys; a request has at most {} (one per "
                                                "field, docs/fields.md)",
                                                doc.size(), kMaxKeys));
  }
  FieldMap out;
  std::vector<Problem> problems;
  for (const auto& [key, value] : doc.items()) {
    if (value.is_string()) {
      out[key] = value.get<std::string>();
    } else if (value.is_boolean()) {
      out[key] = value.get<bool>() ? "true" : "false";
    } else if (value.is_number_unsigned()) {
      out[key] = std::to_string(value.get<std::uint64_t>());  // past 2^63 too, never wrapped
    } else if (value.is_number_integer()) {
      out[key] = std::to_string(value.get<std::int64_t>());
    } else if (value.is_number()) {
      out[key] = fmt::format("{}", value.get<double>());
    } else if (value.is_array() && std::all_of(value.begin(), value.end(),
                                               [](const auto& v) { return v.is_string(); })) {
      std::string list;
      for (const auto& item : value) list += (list.empty() ? "" : ",") + item.get<std::string>();
      out[key] = list;
    } else {
      problems.push_back(
          {excerpt(key), "must be a string, a number, a boolean or a list of strings", ""});
    }
  }
  if (!problems.empty()) throw InvalidRequest(std::move(problems));
  return out;
}

}  // namespace tb::api
