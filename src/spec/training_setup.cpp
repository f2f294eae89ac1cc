// Names, parsing and validation of the per-step knobs.
#include "trainbudget/spec/training_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"
#include "trainbudget/spec/parse_named.hpp"

namespace tb {
namespace {}  // namespace

AttentionImpl parse_attention(std::string_view text) {
  if (const auto a = enum_from_name<AttentionImpl>(text)) return *a;
  throw InvalidRequest("attention",
                       fmt::format("unknown attention '{}'{}", excerpt(text),
                                   did_you_mean(text, names_of<AttentionImpl>())),
                       enum_choices<AttentionImpl>());
}

Recompute parse_recompute(std::string_view text) {
  if (const auto r = enum_from_name<Recompute>(text)) return *r;
  throw InvalidRequest(
      "recompute",
      fmt::format("unknown mode '{}'{}", excerpt(text), did_you_mean(text, names_of<Recompute>())),
      enum_choices<Recompute>());
}

DType parse_activation_dtype(std::string_view text) {
  const std::optional<DType> d = enum_from_name<DType>(text);
  if (d && (*d == DType::kBf16 || *d == DType::kFp16 || *d == DType::kFp32)) return *d;
  throw InvalidRequest("activation_dtype",
                       fmt::format("unknown dtype '{}'{}", excerpt(text),
                                   did_you_mean(text, {"bf16", "fp16", "fp32"})),
                       "bf16|fp16|fp32");
}

DType activation_dtype(const TrainingSetup& setup, const Recipe& recipe) {
  if (setup.activation_dtype) return *setup.activation_dtype;
  switch (recipe.compute_dtype) {
    case DType::kBf16:
    case DType::kFp16:
      return recipe.compute_dtype;
    case DType::kFp8:
    case DType::kFp4:
      return DType::kBf16;
    case DType::kFp64:
    case DType::kFp32:
    case DType::kTf32:
      return DType::kFp32;
  }
  return DType::kBf16;
}

double activation_bytes(DType dtype) {
  switch (dtype) {
    case DType::kBf16:
    case DType::kFp16:
      return 2.0;
    case DType::kFp32:
    case DType::kTf32:
      return 4.0;
    case DType::kFp64:
      return 8.0;
    case DType::kFp8:
      return 1.0;
    case DType::kFp4:
      return 0.5;
  }
  return 2.0;
}

void validate(const TrainingSetup& setup) {
  if (setup.micro_batch < 1 || setup.micro_batch > kMaxMicroBatch) {
    throw InvalidRequest("micro_batch", fmt::format("{} is out of range", setup.micro_batch),
                         fmt::format("1..{}", kMaxMicroBatch));
  }
  if (setup.seq_len < 1 || setup.seq_len > kMaxSeqLen) {
    throw InvalidRequest("seq_len", fmt::format("{} is out of range", setup.seq_len),
                         fmt::format("1..{} tokens", kMaxSeqLen));
  }
  if (!std::isfinite(setup.dropout) || setup.dropout < 0.0 || setup.dropout >= 1.0) {
    throw InvalidRequest("dropout", fmt::format("{} is out of range", setup.dropout),
                         "a probability in [0, 1) (0: no dropout)");
  }
  if (setup.activation_dtype) {
    const DType d = *setup.activation_dtype;
    if (d != DType::kBf16 && d != DType::kFp16 && d != DType::kFp32) {
      throw InvalidRequest("activation_dtype",
                           fmt::format("{} is not an activation dtype", enum_name(d)),
                           "bf16|fp16|fp32");
    }
  }
  if (setup.grad_accumulation < 1 || setup.grad_accumulation > kMaxGradAccum) {
    throw InvalidRequest("grad_accum", fmt::format("{} is out of range", setup.grad_accumulation),
                         fmt::format("1..{}", kMaxGradAccum));
  }
}

TrainingSetup resolved_setup(const TrainingSetup& setup, std::int64_t max_positions) {
  TrainingSetup out = setup;
  if (!setup.seq_len_given && max_positions > 0) {
    out.seq_len = std::min(kDefaultSeqLen, max_positions);
  }
  const FrameworkProfile& f = framework_profile(setup.framework);
  if (!setup.attention_given) {
    out.attention = f.eager_attention ? AttentionImpl::kEager : AttentionImpl::kFlash;
  }
  if (!out.loss) out.loss = f.loss;
  if (!out.logits_dtype) out.logits_dtype = f.logits;
  // Liger's RMSNorm is one kernel that keeps the input and the fp32 rstd (casting_mode llama).
  if (!out.norm) out.norm = setup.liger ? NormImpl::kFused : f.norm;
  if (!out.optimizer_kernel) out.optimizer_kernel = f.optimizer;
  if (!out.grad_accumulation_kernel) out.grad_accumulation_kernel = f.grad_accumulation;
  if (!out.attention_kernel) out.attention_kernel = f.attention_kernel;
  return out;
}

}  // namespace tb
