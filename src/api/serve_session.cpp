// The session's serving queries: an infer request into a ServingJob and its estimate.
#include <fmt/format.h>

#include "trainbudget/api/session.hpp"
#include "trainbudget/io/model_loader.hpp"

namespace tb::api {

InferResult Session::infer(const EstimateRequest& request) const {
  InferResult out;
  ServingJob job;
  job.params = request.job.params;
  job.setup = request.serving;
  job.system = request.job.system;
  if (!request.model.empty()) {
    job.model = io::load_model(request.model, models_dir_);
    job.params = static_cast<double>(job.model.counts->total);
    for (const std::string& w : job.model.warnings) out.warnings.push_back({"model", w, ""});
    const std::int64_t positions = job.model.architecture->max_positions;
    if (positions > 0 && job.setup.context > positions) {
      out.warnings.push_back(
          {"context",
           fmt::format("{} is longer than the {} positions the model was built for",
                       job.setup.context, positions),
           ""});
    }
  }
  std::vector<MachineChoice> machines = parse_machine_list(request.machines, catalog_);
  TrainingJob for_systems;
  for_systems.system = request.job.system;
  attach_systems(for_systems, catalog_, machines);
  out.estimate = serving_estimate(job, machines);
  return out;
}

}  // namespace tb::api
