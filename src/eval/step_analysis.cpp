// A training step of a known architecture, from activations to what fits.
#include "trainbudget/eval/step_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "trainbudget/model/linear_layers.hpp"

namespace tb {
namespace {

struct Parts {
  ActivationEstimate activations;
  PeakMemory peak;
};

// The largest single trainable tensor: the model's (full training) or the largest adapter
// matrix (A is r x in, B is out x r).
double largest_trainable_tensor(const ModelArchitecture& arch, const StepInputs& in) {
  if (!in.adapters_only) return largest_tensor_params(arch);
  double largest = 0.0;
  for (const AdapterShape& a : in.adapters) {
    largest = std::max(largest, static_cast<double>(a.rank) *
                                    static_cast<double>(std::max(a.in_features, a.out_features)));
  }
  return largest;
}

Parts step_memory(const ModelArchitecture& arch, const TrainingSetup& setup, DType dtype,
                  const StepInputs& in, OptimizerKernel kernel) {
  Parts p;
  ActivationOptions options;
  options.adapters = in.adapters;
  p.activations = estimate_activations(arch, setup, dtype, options);
  PeakInputs peak_in;
  peak_in.resident = in.resident;
  peak_in.gradients = in.gradients;
  peak_in.gradients_persist = setup.grad_accumulation > 1;
  peak_in.optimizer_transient =
      optimizer_step_transient(kernel, largest_trainable_tensor(arch, in), in.trainable_params);
  p.peak = peak_memory(arch, p.activations, peak_in,
                       gradient_layout(arch, in.gradients, in.adapters_only));
  return p;
}

}  // namespace

StepAnalysis analyze_step(const ModelArchitecture& arch, const TrainingSetup& setup,
                          const Recipe& recipe, const StepInputs& inputs) {
  StepAnalysis out;
  out.setup = resolved_setup(setup, arch.max_positions);
  out.activation_dtype = activation_dtype(out.setup, recipe);
  if (arch.max_positions > 0 && out.setup.seq_len > arch.max_positions) {
    out.notes.push_back(
        fmt::format("--seq-len {} is longer than the {} positions the model was built for",
                    out.setup.seq_len, arch.max_positions));
  }
  Parts parts = step_memory(arch, out.setup, out.activation_dtype, inputs, out.optimizer_kernel);
  out.activations = std::move(parts.activations);
  out.peak = std::move(parts.peak);

  FlopsSetup flops_setup;
  flops_setup.seq_len = out.setup.seq_len;
  flops_setup.attention = out.setup.attention;
  flops_setup.recompute = out.setup.recompute;
  flops_setup.causal = out.setup.causal_flops;
  out.flops = inputs.adapters_only ? adapter_training_flops(arch, flops_setup, inputs.adapters)
                                   : full_training_flops(arch, flops_setup);

  if (out.setup.search_fit) {
    const PeakOfSetup peak_of = [&](const TrainingSetup& s) {
      return step_memory(arch, s, out.activation_dtype, inputs, out.optimizer_kernel).peak.peak;
    };
    const std::int64_t seq_limit = arch.max_positions > 0 ? arch.max_positions : kFitSeqLenLimit;
    for (const Bytes capacity : inputs.capacities) {
      out.fits.push_back({largest_micro_batch(out.setup, capacity, peak_of, kFitMicroBatchLimit),
                          longest_sequence(out.setup, capacity, peak_of, seq_limit)});
    }
  }
  return out;
}

}  // namespace tb
