// The estimate with an architecture: activations and the peak over phases in the memory,
// FLOPs from the architecture in the compute (docs/activations.md).
#include <fmt/format.h>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/model/lora.hpp"

namespace tb {
namespace {

std::string activation_label(const StepAnalysis& step) {
  const TrainingSetup& s = step.setup;
  return fmt::format("activations ({}; b={}, s={}, {} attention, recompute {})",
                     dtype_name(step.activation_dtype), s.micro_batch, s.seq_len,
                     attention_name(s.attention), recompute_name(s.recompute));
}

std::string flops_formula(Method method, const StepAnalysis& step) {
  const std::string attention = fmt::format("attention at s={}{}", step.setup.seq_len,
                                            step.setup.causal_flops ? ", causal" : "");
  if (uses_adapters(method)) {
    return fmt::format(
        "from the architecture: frozen GEMMs x 2 (forward + activation gradient), {} and "
        "adapters x 3 (forward + backward)",
        attention);
  }
  return fmt::format("from the architecture: GEMMs + {}, x 3 (forward + backward)", attention);
}

}  // namespace

void apply_step_analysis(const TrainingJob& job, const Recipe& recipe,
                         const std::vector<MachineChoice>& machines, Scenario& scenario) {
  const ModelArchitecture& arch = *job.model.architecture;
  StepInputs in;
  in.adapters_only = uses_adapters(job.method);
  if (in.adapters_only) in.adapters = adapter_shapes(arch, job.lora);
  in.trainable_params = scenario.params_trainable;
  in.gradients = scenario.memory.by_key("gradients");
  in.resident = scenario.memory.total - in.gradients;
  for (const MachineChoice& m : machines) in.capacities.push_back(m.device->memory_capacity);
  StepAnalysis step = analyze_step(arch, job.setup, recipe, in);

  MemoryEstimate& memory = scenario.memory;
  memory.components.push_back(
      {"activations", activation_label(step), 0.0, 0.0, step.activations.saved, 1});
  memory.total = step.peak.peak;
  memory.activations_included = true;

  if (job.method != Method::kFreeze) {
    ComputeEstimate& compute = scenario.compute;
    compute.flops_per_token = step.flops.model_per_token;
    compute.flops_per_token_6n = step.flops.reference_6n;
    compute.total = Flops{compute.flops_per_token * job.tokens};
    compute.formula = flops_formula(job.method, step);
  }
  scenario.step = std::move(step);
}

}  // namespace tb
