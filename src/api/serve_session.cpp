// The session's serving queries: an infer request into a ServingJob and its estimate; a compare
// request into the serving job and the training job the tasks share.
#include <fmt/format.h>

#include "trainbudget/api/session.hpp"
#include "trainbudget/io/model_loader.hpp"

namespace tb::api {

ServingJob Session::serving_job(const EstimateRequest& request,
                                std::vector<Problem>& warnings) const {
  ServingJob job;
  job.params = request.job.params;
  job.setup = request.serving;
  job.system = request.job.system;
  if (request.model.empty()) return job;
  job.model = load(request.model);
  job.params = static_cast<double>(job.model.counts->total);
  for (const std::string& w : job.model.warnings) warnings.push_back({"model", w, ""});
  const std::int64_t positions = job.model.architecture->max_positions;
  if (positions > 0 && job.setup.context > positions) {
    warnings.push_back({"context",
                        fmt::format("{} is longer than the {} positions the model was built for",
                                    job.setup.context, positions),
                        ""});
  }
  return job;
}

InferResult Session::infer(const EstimateRequest& request) const {
  InferResult out;
  const ServingJob job = serving_job(request, out.warnings);
  std::vector<MachineChoice> machines = parse_machine_list(request.machines, catalog_);
  attach_systems(request.job.system, catalog_, machines);
  out.estimate = serving_estimate(job, machines);
  // Without a tensor-parallel degree, how many devices serve it (docs/inference.md).
  if (!request.has("tp")) {
    for (std::size_t i = 0; i < machines.size(); ++i) {
      out.estimate.machines[i].size = serving_size(job, machines[i]);
    }
  }
  return out;
}

CompareResult Session::compare(const EstimateRequest& request) const {
  CompareResult out;
  CompareInputs in;
  in.serving = serving_job(request, out.warnings);
  in.training = request.job;
  in.training.model = in.serving.model;
  in.training.params = in.serving.params;
  in.pretrain_tokens = request.compare.pretrain_tokens;
  in.pretrain_devices = request.compare.pretrain_devices;
  std::vector<MachineChoice> machines = parse_machine_list(request.machines, catalog_);
  attach_systems(in.training.system, catalog_, machines);
  out.comparison = compare_tasks(in, machines);
  return out;
}

}  // namespace tb::api
