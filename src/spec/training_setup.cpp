// Names, parsing and validation of the per-step knobs.
#include "trainbudget/spec/training_setup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

// Beyond these a value is a typo, not a job: 2^20 sequences per micro-batch, 2^24 tokens per
// sequence (16M, past every published context window).
constexpr std::int64_t kMaxMicroBatch = std::int64_t{1} << 20;
constexpr std::int64_t kMaxSeqLen = std::int64_t{1} << 24;
constexpr std::int64_t kMaxAccumulation = std::int64_t{1} << 20;

}  // namespace

std::string_view attention_name(AttentionImpl impl) {
  switch (impl) {
    case AttentionImpl::kEager:
      return "eager";
    case AttentionImpl::kFlash:
      return "flash";
  }
  return "flash";
}

std::string_view recompute_name(Recompute mode) {
  switch (mode) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "none";
}

AttentionImpl parse_attention(std::string_view text) {
  if (text == "eager") return AttentionImpl::kEager;
  if (text == "flash") return AttentionImpl::kFlash;
  throw InvalidArgument(
      fmt::format("--attention: unknown attention '{}'; accepted: eager|flash", text));
}

Recompute parse_recompute(std::string_view text) {
  if (text == "none") return Recompute::kNone;
  if (text == "selective") return Recompute::kSelective;
  if (text == "full") return Recompute::kFull;
  throw InvalidArgument(
      fmt::format("--recompute: unknown mode '{}'; accepted: none|selective|full", text));
}

DType parse_activation_dtype(std::string_view text) {
  const std::optional<DType> d = parse_dtype(text);
  if (d && (*d == DType::kBf16 || *d == DType::kFp16 || *d == DType::kFp32)) return *d;
  throw InvalidArgument(
      fmt::format("--activation-dtype: unknown dtype '{}'; accepted: bf16|fp16|fp32", text));
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

void validate(const TrainingSetup& setup, bool has_architecture) {
  if (setup.flags_given && !has_architecture) {
    throw InvalidArgument(
        "--micro-batch/--seq-len/--attention/--recompute/--activation-dtype/--dropout/"
        "--grad-accum/--causal-flops/--fit/--explain: need an architecture (--model) to size "
        "activations and FLOPs; a bare --params counts model states only");
  }
  if (setup.micro_batch < 1 || setup.micro_batch > kMaxMicroBatch) {
    throw InvalidArgument(fmt::format("--micro-batch: {} is out of range; expected 1..{}",
                                      setup.micro_batch, kMaxMicroBatch));
  }
  if (setup.seq_len < 1 || setup.seq_len > kMaxSeqLen) {
    throw InvalidArgument(fmt::format("--seq-len: {} is out of range; expected 1..{} tokens",
                                      setup.seq_len, kMaxSeqLen));
  }
  if (!std::isfinite(setup.dropout) || setup.dropout < 0.0 || setup.dropout >= 1.0) {
    throw InvalidArgument(fmt::format(
        "--dropout: {} is out of range; expected a probability in [0, 1) (0: no dropout)",
        setup.dropout));
  }
  if (setup.activation_dtype) {
    const DType d = *setup.activation_dtype;
    if (d != DType::kBf16 && d != DType::kFp16 && d != DType::kFp32) {
      throw InvalidArgument(
          fmt::format("--activation-dtype: {} is not an activation dtype; accepted: bf16|fp16|fp32",
                      dtype_name(d)));
    }
  }
  if (setup.grad_accumulation < 1 || setup.grad_accumulation > kMaxAccumulation) {
    throw InvalidArgument(fmt::format("--grad-accum: {} is out of range; expected 1..{}",
                                      setup.grad_accumulation, kMaxAccumulation));
  }
}

TrainingSetup resolved_setup(const TrainingSetup& setup, std::int64_t max_positions) {
  TrainingSetup out = setup;
  if (!setup.seq_len_given && max_positions > 0) {
    out.seq_len = std::min(kDefaultSeqLen, max_positions);
  }
  return out;
}

}  // namespace tb
