// LoRA targets and adapter counts (PEFT semantics) and QLoRA's NF4 storage of the base.
#include "trainbudget/model/lora.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <regex>
#include <set>
#include <utility>

#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

// Which layer kinds an alias names. Fused layers answer to each of their parts.
bool alias_matches(std::string_view alias, LinearKind kind) {
  using K = LinearKind;
  if (alias == "q")
    return kind == K::kQuery || kind == K::kQkv || kind == K::kQueryA || kind == K::kQueryB;
  if (alias == "k") return kind == K::kKey || kind == K::kQkv || kind == K::kKvA || kind == K::kKvB;
  if (alias == "v")
    return kind == K::kValue || kind == K::kQkv || kind == K::kKvA || kind == K::kKvB;
  if (alias == "o") return kind == K::kOutput;
  if (alias == "gate") return kind == K::kGate || kind == K::kGateUp;
  if (alias == "up") return kind == K::kUp || kind == K::kGateUp;
  if (alias == "down") return kind == K::kDown;
  return false;
}

bool is_alias(std::string_view t) {
  return t == "q" || t == "k" || t == "v" || t == "o" || t == "gate" || t == "up" || t == "down";
}

// A target with regular-expression syntax: PEFT matches a string target_modules with
// re.fullmatch against each module's full name (peft/tuners/tuners_utils.py,
// check_target_module_exists), as axolotl's vision examples write them.
bool is_pattern(std::string_view t) { return t.find_first_of("[](){}|*+?\\^$") != t.npos; }

// The full names PEFT sees for one instance of the layer (the first decoder or encoder layer, the
// first expert), in the namings transformers has used: "model.layers.0.self_attn.q_proj", and
// for a vision-language model "model.language_model.layers.0..." (transformers >= 4.52) and
// "language_model.model.layers.0..."; encoder layers "visual.blocks.0.attn.qkv" with and
// without "model.", SigLIP's under "vision_tower.vision_model.encoder.layers.0.".
std::vector<std::string> full_names(const LinearLayer& l, bool vlm) {
  std::string path = l.path;
  if (const auto e = path.find("{e}"); e != path.npos) {
    path = path.substr(0, e) + "0" + path.substr(e + 3);
  }
  if (l.place != LinearPlace::kVision) {
    std::vector<std::string> out{"model.layers.0." + path};
    if (vlm) {
      out.push_back("model.language_model.layers.0." + path);
      out.push_back("language_model.model.layers.0." + path);
    }
    return out;
  }
  if (path.starts_with("vision.")) {
    path = "vision_tower.vision_model.encoder.layers.0." + path.substr(7);
  } else {
    for (const std::string_view stack : {"blocks.", "layers."}) {
      if (const auto at = path.find(stack); at != path.npos) {
        path = path.substr(0, at + stack.size()) + "0." + path.substr(at + stack.size());
        break;
      }
    }
  }
  return {path, "model." + path};
}

// Longer patterns are refused: libstdc++'s std::regex compiles and matches by recursion.
constexpr std::size_t kMaxPattern = 256;

bool pattern_matches(const LinearLayer& layer, std::string_view target, bool vlm) {
  if (target.size() > kMaxPattern) {
    throw InvalidRequest("lora_targets",
                         fmt::format("a regular expression of {} characters is longer than {}",
                                     target.size(), kMaxPattern),
                         "a regular expression of at most 256 characters");
  }
  std::regex re;
  try {
    re = std::regex(std::string(target));
  } catch (const std::regex_error&) {
    throw InvalidRequest("lora_targets",
                         fmt::format("'{}' is not a regular expression PEFT could match", target),
                         "q, k, v, o, gate, up, down, all-linear, module names, or one regular "
                         "expression over full module names");
  }
  const std::vector<std::string> names = full_names(layer, vlm);
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return std::regex_match(n, re); });
}

bool targeted(const LinearLayer& layer, std::string_view target, bool vlm) {
  if (layer.kind == LinearKind::kLmHead) return false;  // PEFT never adapts the output layer
  if (is_pattern(target)) return pattern_matches(layer, target, vlm);
  // A weight tensor outside any nn.Linear: by its name only (PEFT's target_parameters).
  if (!layer.module) return layer.name == target;
  if (target == "all-linear") return true;
  // A vision encoder's layers are matched by name, as PEFT matches a suffix: the alias q is
  // q_proj, which SigLIP has and Qwen's fused attn.qkv is not; up is up_proj, not fc1.
  if (is_alias(target) && layer.place == LinearPlace::kVision) {
    return layer.name == fmt::format("{}_proj", target);
  }
  if (is_alias(target)) return alias_matches(target, layer.kind);
  // A dotted target ("linear_attn.in_proj_ba", "shared_expert.up_proj") is a suffix of the full
  // module name (peft/tuners/tuners_utils.py check_target_module_exists: the name equals it or
  // ends with "." + it).
  if (target.find('.') != target.npos) {
    const std::vector<std::string> names = full_names(layer, vlm);
    return std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return n == target || (n.size() > target.size() && n.ends_with(target) &&
                             n[n.size() - target.size() - 1] == '.');
    });
  }
  return layer.name == target;
}

std::string module_names(const std::vector<LinearLayer>& linears) {
  std::set<std::string> names;
  for (const LinearLayer& l : linears) {
    if (l.kind != LinearKind::kLmHead) names.insert(l.name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

// The adapters of a rank and targets whose count passes int64 (only absurd dimensions do).
InvalidRequest adapter_overflow(const LoraSpec& spec) {
  return InvalidRequest("lora_rank",
                        fmt::format("rank {} on these {{lora_targets}} gives more than 9.2e18 "
                                    "adapter parameters (64-bit overflow)",
                                    spec.rank),
                        "a smaller rank or fewer targets");
}
}  // namespace

std::vector<std::string> skipped_lora_targets(const ModelArchitecture& arch, const LoraSpec& spec) {
  // Module names of the families' attention and MLP layers (transformers' Llama, GPT-NeoX,
  // GPT-2, Falcon, Phi-3, Mixtral): a list written for one family names them in another.
  static constexpr std::array<std::string_view, 14> kCommonModuleNames{
      "q_proj",    "k_proj",   "v_proj",       "o_proj",          "gate_proj", "up_proj",
      "down_proj", "qkv_proj", "gate_up_proj", "query_key_value", "c_attn",    "dense_h_to_4h",
      "w1",        "w3"};
  const std::vector<LinearLayer> linears = model_linears(arch);
  const auto matches = [&](const std::string& t) {
    return std::any_of(linears.begin(), linears.end(), [&](const LinearLayer& l) {
      return targeted(l, t, arch.vision.has_value());
    });
  };
  std::vector<std::string> skipped;
  bool any = false;
  for (const std::string& t : spec.targets) {
    if (matches(t)) {
      any = true;
    } else if (std::find(kCommonModuleNames.begin(), kCommonModuleNames.end(), t) !=
               kCommonModuleNames.end()) {
      skipped.push_back(t);
    }
  }
  return any ? skipped : std::vector<std::string>{};
}

std::vector<AdaptedLinear> lora_adapters(const ModelArchitecture& arch, const LoraSpec& spec) {
  if (spec.rank < 1) {
    throw InvalidRequest("lora_rank", fmt::format("{} must be at least 1", spec.rank));
  }
  const std::vector<LinearLayer> linears = model_linears(arch);
  std::vector<AdaptedLinear> out;
  for (const std::string& target : spec.targets) {
    bool matched = false;
    for (const LinearLayer& l : linears) {
      if (!targeted(l, target, arch.vision.has_value())) continue;
      matched = true;
      const bool already = std::any_of(out.begin(), out.end(), [&](const AdaptedLinear& a) {
        return a.layer.path == l.path && a.layer.place == l.place &&
               a.layer.in_features == l.in_features;
      });
      if (already) continue;
      try {
        // DoRA's magnitude: one value per output row (PEFT dora.py, lora_magnitude_vector).
        const std::int64_t per =
            checked_add(checked_mul(spec.rank, checked_add(l.in_features, l.out_features)),
                        spec.dora ? l.out_features : 0);
        out.push_back({l, checked_mul(per, l.copies, l.layers)});
      } catch (const CountOverflow&) {
        throw adapter_overflow(spec);
      }
    }
    if (!matched) {
      throw InvalidRequest(
          "lora_targets",
          fmt::format("'{}' matches no linear layer of this {} model", target, arch.model_type),
          fmt::format("q, k, v, o, gate, up, down, all-linear, one of its modules ({}) or a "
                      "regular expression over full module names",
                      module_names(linears)));
    }
  }
  return out;
}

namespace {

bool names_embedding(std::string_view m) {
  return m == "embed_tokens" || m == "wte" || m == "embed_in" || m == "word_embeddings";
}
bool names_head(std::string_view m) { return m == "lm_head" || m == "embed_out" || m == "score"; }

}  // namespace

bool saves_head(const LoraSpec& spec) {
  return std::any_of(spec.modules_to_save.begin(), spec.modules_to_save.end(),
                     [](const std::string& m) { return names_head(m); });
}

std::int64_t modules_to_save_params(const ModelArchitecture& arch, const LoraSpec& spec) {
  std::int64_t total = 0;
  bool embedding = false;  // each module trains once, whichever of its names lists it
  bool head = false;
  for (const std::string& m : spec.modules_to_save) {
    if ((names_embedding(m) && std::exchange(embedding, true)) ||
        (names_head(m) && std::exchange(head, true))) {
      continue;
    }
    if (names_embedding(m)) {
      const std::int64_t rows =
          checked_add(arch.vocab, arch.vision ? arch.vision->extra_token_rows : 0);
      total = checked_add(total, checked_mul(rows, arch.hidden));
    } else if (names_head(m)) {
      const std::int64_t out = head_width(arch);
      const std::int64_t bias = arch.head_bias && arch.head_outputs == 0 ? out : 0;
      total = checked_add(total, checked_add(checked_mul(out, arch.hidden), bias));
    } else {
      throw InvalidRequest(
          "lora_modules_to_save", fmt::format("'{}' is not a module trained in full here", m),
          "embed_tokens (or wte, embed_in, word_embeddings), lm_head (or embed_out, score)");
    }
  }
  return total;
}

std::int64_t lora_trainable_params(const ModelArchitecture& arch, const LoraSpec& spec) {
  std::int64_t total = modules_to_save_params(arch, spec);
  for (const AdaptedLinear& a : lora_adapters(arch, spec)) {
    try {
      total = checked_add(total, a.adapter_params);
    } catch (const CountOverflow&) {
      throw adapter_overflow(spec);
    }
  }
  return total;
}

double nf4_constant_bytes(std::int64_t weights, const QloraOptions& options) {
  const auto blocks = static_cast<double>((weights + options.block_size - 1) / options.block_size);
  if (!options.double_quant) return blocks * 4.0;  // one fp32 absmax per block
  // 8-bit absmax per block, one fp32 constant per double_quant_block of them.
  return blocks * 1.0 + std::ceil(blocks / static_cast<double>(options.double_quant_block)) * 4.0;
}

namespace {

// Bytes of one quantized weight's code: NF4 half a byte, LLM.int8 one.
double code_bytes(const QloraOptions& options) { return options.bits == 8 ? 1.0 : 0.5; }

// One quantized linear's constants: NF4's per-block absmax, or LLM.int8's fp32 scale per output
// row (bitsandbytes Int8Params' SCB).
double constant_bytes(const LinearLayer& l, const QloraOptions& options) {
  if (options.bits == 8) return 4.0 * static_cast<double>(l.out_features);
  return nf4_constant_bytes(l.weight_params(), options);
}

}  // namespace

bool bitsandbytes_quantizes(const LinearLayer& l, const QloraOptions& options) {
  if (l.kind == LinearKind::kLmHead) return false;
  return l.module || (options.quantize_experts && l.place == LinearPlace::kRoutedExpert);
}

double quantized_linear_bytes(const LinearLayer& l, const QloraOptions& options) {
  return static_cast<double>(l.weight_params()) * code_bytes(options) + constant_bytes(l, options);
}

FrozenBaseBytes qlora_base_bytes(const ModelArchitecture& arch, const QloraOptions& options,
                                 double storage_bytes) {
  FrozenBaseBytes out;
  double constants = 0.0;
  for (const LinearLayer& l : model_linears(arch)) {
    if (!bitsandbytes_quantizes(l, options)) continue;
    const double tensors = static_cast<double>(l.copies * l.layers);
    out.quantized_weights += static_cast<double>(l.weight_params()) * tensors;
    constants += constant_bytes(l, options) * tensors;
  }
  out.nf4 = Bytes{out.quantized_weights * code_bytes(options)};
  out.constants = Bytes{constants};
  out.unquantized_params = static_cast<double>(count_params(arch).total) - out.quantized_weights;
  out.unquantized = Bytes{out.unquantized_params * storage_bytes};
  return out;
}

std::vector<AdapterShape> adapter_shapes(const ModelArchitecture& arch, const LoraSpec& spec) {
  std::vector<AdapterShape> out;
  for (const AdaptedLinear& a : lora_adapters(arch, spec)) {
    const LinearLayer& l = a.layer;
    out.push_back({l.in_features, l.out_features, spec.rank, l.copies * l.layers,
                   l.active_copies * l.layers, spec.dora});
  }
  return out;
}

void keep_adapted_inputs(const ModelArchitecture& arch, const LoraSpec& lora, StepDims& d) {
  d.keep_qkv_input = d.keep_o_input = d.keep_mlp_input = d.keep_down_input = false;
  // A dense MLP whose gate, up and down all carry adapters (axolotl's LoRA_MLP patches only those).
  bool gate = false, up = false, down = false;
  for (const AdaptedLinear& a : lora_adapters(arch, lora)) {
    if (a.layer.place != LinearPlace::kDenseMlp) continue;
    gate = gate || a.layer.kind == LinearKind::kGate || a.layer.kind == LinearKind::kGateUp;
    up = up || a.layer.kind == LinearKind::kUp || a.layer.kind == LinearKind::kGateUp;
    down = down || a.layer.kind == LinearKind::kDown;
  }
  d.mlp_fully_adapted = gate && up && down;
  // With lora_dropout each adapter's A saves its own dropped copy instead of the input.
  if (lora.dropout > 0.0) return;
  using K = LinearKind;
  for (const AdaptedLinear& a : lora_adapters(arch, lora)) {
    switch (a.layer.kind) {
      case K::kQuery:
      case K::kKey:
      case K::kValue:
      case K::kQkv:
      case K::kQueryA:
      case K::kKvA:
        d.keep_qkv_input = true;
        break;
      case K::kOutput:
        d.keep_o_input = true;
        break;
      case K::kGate:
        // Gated DeltaNet's in_proj_z / _b / _a read the q/k/v projections' input.
        (a.layer.place == LinearPlace::kAttention ? d.keep_qkv_input : d.keep_mlp_input) = true;
        break;
      case K::kUp:
      case K::kGateUp:
        d.keep_mlp_input = true;
        break;
      case K::kDown:
        d.keep_down_input = true;
        break;
      default:
        break;
    }
  }
}

}  // namespace tb
