// The infer and compare requests' field tables: the estimate's rows they share (the model, the
// machines, the output) and their own serving and pretraining rows.
#include <fmt/format.h>

#include <array>
#include <vector>

#include "field_checks.hpp"
#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/limits.hpp"
#include "trainbudget/spec/parallel.hpp"
#include "trainbudget/spec/parse_named.hpp"
#include "trainbudget/spec/serving.hpp"

namespace tb::api {
namespace {

using R = EstimateRequest&;
using V = std::string_view;
using checks::whole;

std::string weight_formats() { return enum_choices<WeightFormat>(); }
std::string kv_dtypes() { return enum_choices<KvDtype>(); }
std::string contexts() { return fmt::format("1..{} tokens", kMaxContext); }
std::string concurrencies() { return fmt::format("1..{} sequences", kMaxConcurrency); }
std::string prompts() { return "1..{context} tokens"; }
std::string degrees() { return fmt::format("1..{}", kMaxDegree); }
std::string headroom_range() { return "0.05..1"; }
std::string machine_lists() { return "ID[:dtype][,ID[:dtype]...] or all"; }
std::string pretrain_token_counts() { return "a count such as 1.4e12, 15T or 2T"; }
std::string device_counts() { return "1..1000000"; }

// The seed document's pair: the Mac that holds the model against the card that computes.
constexpr std::string_view kServingMachines = "m3-ultra,h100-sxm";

const std::array kServingFields{
    Field{
        "machine", FieldType::kList, "LIST", "", kServingMachines,
        "Devices to serve on: ID[:dtype][,...] or all (trainbudget hardware list); ':dtype' picks "
        "the prefill's rate",
        machine_lists,
        [](V v, R r) {
          if (v.empty()) throw InvalidRequest("machine", "empty", machine_lists());
          r.machines = std::string{v};
        },
        "serve"},
    Field{"weights", FieldType::kChoice, "FORMAT", "", "bf16",
          "Weight storage: bf16|fp16|fp32, fp8 (e4m3 linears), int8 (weight-only, per-channel "
          "scales), gptq-int4 / awq-int4 (group 128), nf4 (bitsandbytes), or a llama.cpp GGUF "
          "type q8_0|q6_k|q5_k_m|q4_k_m|q4_0 counted tensor by tensor (docs/inference.md)",
          weight_formats,
          [](V v, R r) { r.serving.weights = parse_named<WeightFormat>("weights", v); }, "serve"},
    Field{"kv_dtype", FieldType::kChoice, "DTYPE", "", "bf16",
          "KV cache element type: bf16|fp16|fp32, fp8 / int8 (1 byte), or llama.cpp's q8_0 / "
          "q4_0 cache (8.5 / 4.5 bits)",
          kv_dtypes, [](V v, R r) { r.serving.kv = parse_named<KvDtype>("kv_dtype", v); }, "serve"},
    Field{
        "context", FieldType::kInteger, "TOKENS", "tokens", "4096",
        "Tokens each sequence keeps in the KV cache (prompt + output); decode is priced at "
        "this position",
        contexts,
        [](V v, R r) { r.serving.context = whole(v, "context", static_cast<double>(kMaxContext)); },
        "serve"},
    Field{"concurrency", FieldType::kInteger, "N", "sequences", "1",
          "Sequences decoded together (the batch): each holds its own KV cache", concurrencies,
          [](V v, R r) {
            r.serving.concurrency = whole(v, "concurrency", static_cast<double>(kMaxConcurrency));
          },
          "serve"},
    Field{"prompt", FieldType::kInteger, "TOKENS", "tokens", "512",
          "Prefill tokens of one request (time to first token); at most {context}", prompts,
          [](V v, R r) { r.serving.prompt = whole(v, "prompt", static_cast<double>(kMaxContext)); },
          "serve"},
    Field{"tp", FieldType::kInteger, "N", "devices", "1",
          "Tensor-parallel devices inside one node: weights and KV heads split over N, two "
          "all-reduces per layer over the node's link",
          degrees, [](V v, R r) { r.serving.tp = checks::degree(v, "tp"); }, "serve"},
    Field{"gpu_memory_utilization", FieldType::kNumber, "FRACTION", "of the device", "0.9",
          "The share of a CUDA device's memory the serving engine may take (vLLM's "
          "gpu_memory_utilization, default 0.9); Apple silicon keeps Metal's working-set cap",
          headroom_range,
          [](V v, R r) {
            r.serving.gpu_memory_utilization =
                parse_number_in(v, "gpu_memory_utilization", 0.05, 1.0, true);
          },
          "serve"},
};

const std::array kCompareFields{
    Field{"pretrain_tokens", FieldType::kCount, "COUNT", "tokens", "",
          "Tokens of the pretraining task; default 20 per parameter (Hoffmann et al. 2022, "
          "Chinchilla)",
          pretrain_token_counts,
          [](V v, R r) {
            r.compare.pretrain_tokens = parse_count(v, "pretrain_tokens", kTokensRange);
          },
          "compare"},
    Field{"pretrain_devices", FieldType::kInteger, "N", "devices", "",
          "Devices of each machine for the pretraining task; default the fewest (a power of "
          "two, up to 4096) whose memory holds it",
          device_counts,
          [](V v, R r) {
            r.compare.pretrain_devices = static_cast<int>(whole(v, "pretrain_devices", 1e6));
          },
          "compare"},
};

// The estimate's rows an infer request shares.
constexpr std::array<std::string_view, 6> kSharedKeys{"params", "model", "system",
                                                      "format", "brief", "hardware_dir"};

std::vector<Field> serving_table(bool compare) {
  std::vector<Field> out;
  for (const std::string_view key : kSharedKeys) out.push_back(*find_field(estimate_fields(), key));
  if (compare) {
    for (const std::string_view key : {"tokens", "lora_rank", "framework"}) {
      out.push_back(*find_field(estimate_fields(), key));
    }
    // The training tasks checkpoint by default, as the QLoRA paper (Dettmers et al. 2023, sec.
    // 4) and the fine-tuning recipes do: the comparison is of what each machine can do.
    Field recompute = *find_field(estimate_fields(), "recompute");
    recompute.default_value = "full";
    recompute.help =
        "Activation recomputation of the training tasks (needs {model}): none | selective | "
        "full | selective-op; default full (gradient checkpointing, as fine-tuning recipes do)";
    out.push_back(recompute);
  }
  out.insert(out.end(), kServingFields.begin(), kServingFields.end());
  if (compare) out.insert(out.end(), kCompareFields.begin(), kCompareFields.end());
  return out;
}

}  // namespace

std::span<const Field> infer_fields() {
  static const std::vector<Field> table = serving_table(false);
  return table;
}

std::span<const Field> compare_fields() {
  static const std::vector<Field> table = serving_table(true);
  return table;
}

}  // namespace tb::api
