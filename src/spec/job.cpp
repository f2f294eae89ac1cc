// Training-job names and validation.
#include "trainbudget/spec/job.hpp"

#include <fmt/format.h>

#include <cmath>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb {

std::string_view method_name(Method method) {
  switch (method) {
    case Method::kFull:
      return "full";
    case Method::kLora:
      return "lora";
    case Method::kQlora:
      return "qlora";
    case Method::kFreeze:
      return "freeze";
  }
  return "full";
}

Method parse_method(std::string_view text) {
  if (text == "full") return Method::kFull;
  if (text == "lora") return Method::kLora;
  if (text == "qlora") return Method::kQlora;
  if (text == "freeze") return Method::kFreeze;
  throw InvalidArgument(
      fmt::format("--method: unknown method '{}'; accepted: full|lora|qlora|freeze", text));
}

void validate(const TrainingJob& job) {
  const auto positive_finite = [](double v) { return std::isfinite(v) && v > 0.0; };
  if (!positive_finite(job.params)) {
    throw InvalidArgument(fmt::format("--params: {} must be a positive finite count", job.params));
  }
  if (!positive_finite(job.tokens)) {
    throw InvalidArgument(fmt::format("--tokens: {} must be a positive finite count", job.tokens));
  }
  if (!std::isfinite(job.trainable_fraction) || job.trainable_fraction <= 0.0 ||
      job.trainable_fraction > 1.0) {
    throw InvalidArgument(
        fmt::format("--trainable-fraction: {} is out of range; expected a value in (0, 1]",
                    job.trainable_fraction));
  }
  if (!std::isfinite(job.utilization) || job.utilization <= 0.0 || job.utilization > 1.0) {
    throw InvalidArgument(fmt::format(
        "--utilization: {} is out of range; expected a value in (0, 1]", job.utilization));
  }
  if (job.devices < 1) {
    throw InvalidArgument(fmt::format("--devices: {} must be at least 1", job.devices));
  }
  if (job.zero_stage < 0 || job.zero_stage > 3) {
    throw InvalidArgument(
        fmt::format("--zero: {} is not a ZeRO stage; accepted: 0|1|2|3", job.zero_stage));
  }
  (void)find_recipe(job.recipe_id);  // throws naming --recipe
  if (job.lora_given && !job.model.architecture) {
    throw InvalidArgument(
        "--lora-rank/--lora-targets: need an architecture (--model) to count adapters; with a "
        "bare --params use --trainable-fraction");
  }
  if (job.lora_given && !uses_adapters(job.method)) {
    throw InvalidArgument(
        fmt::format("--lora-rank/--lora-targets: only apply to --method lora|qlora, not '{}'",
                    method_name(job.method)));
  }
  if (job.lora.rank < 1) {
    throw InvalidArgument(fmt::format("--lora-rank: {} must be at least 1", job.lora.rank));
  }
  validate(job.setup, job.model.architecture.has_value());
}

}  // namespace tb
