// The front ends' one door: a Session loads the hardware catalog once and answers requests
// with results that own their data. The CLI, scripts (JSON request files) and the coming web
// page call it with the same field keys and get the same numbers.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/inference.hpp"
#include "trainbudget/eval/kernel_time.hpp"
#include "trainbudget/eval/task_verdict.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/plan/plan_report.hpp"
#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {

struct Sources {
  std::filesystem::path data_dir;                     // data/: hardware/ and models/
  std::optional<std::filesystem::path> hardware_dir;  // an extra device folder
  bool user_config{true};  // also read $XDG_CONFIG_HOME/trainbudget/hardware
  // false for the server: a request's model is a preset, a cached repo id or a config.json's
  // text, never a path on this machine (docs/serve.md).
  bool model_paths{true};
  // A repo id found nowhere here is fetched from the Hugging Face Hub (the CLI; docs/models.md,
  // "From the Hub"), `fetch_progress` hearing of a slow fetch.
  bool hub_fetch{false};
  io::FetchProgress fetch_progress{};
};

struct EstimateResult {
  Estimate estimate;
  // Things worth saying that are not errors, each naming its field ("seq_len: 8192 is longer
  // than the 4096 positions the model was built for").
  std::vector<Problem> warnings;
  std::vector<Problem> notes;  // how a value was resolved (a rank solved from a fraction)
};

// Each machine's system: the one the request names (which must be built from that machine's
// device), else the first system of its device. Throws InvalidRequest naming system.
void attach_systems(const std::string& system, const HardwareCatalog& catalog,
                    std::vector<MachineChoice>& machines);

struct PlanResult {
  plan::PlanReport report;
  std::vector<Problem> warnings;
  std::vector<Problem> notes;
};

struct InferResult {
  ServingEstimate estimate;
  std::vector<Problem> warnings;
  std::vector<Problem> notes;
};

struct CompareResult {
  TaskComparison comparison;
  std::vector<Problem> warnings;
  std::vector<Problem> notes;
};

class Session {
 public:
  explicit Session(const Sources& sources);

  [[nodiscard]] const HardwareCatalog& catalog() const { return catalog_; }

  // The estimate a request asks for; throws InvalidRequest listing every problem.
  [[nodiscard]] EstimateResult estimate(const EstimateRequest& request) const;
  // The distinct GEMM shapes one micro-batch of the request's job launches on one device
  // (`trainbudget measure --step`); the request needs a model with an architecture.
  [[nodiscard]] std::vector<GemmDims> step_gemm_shapes(const EstimateRequest& request) const;
  [[nodiscard]] EstimateResult estimate(const FieldMap& values) const {
    return estimate(parse_estimate_request(values));
  }

  // The layouts (and, asked for, the methods and recipes) that fit the machine, best first; with
  // several machines, each planned and all ranked together (plan_session.cpp). Throws
  // InvalidRequest listing every problem.
  // `stop` (asked between chunks of layouts) abandons the search: plan::SearchCancelled.
  [[nodiscard]] PlanResult plan(const EstimateRequest& request, const plan::Progress& progress = {},
                                const plan::Stop& stop = {}) const;

  // The serving budget of an infer request on its machines (serve_session.cpp).
  [[nodiscard]] InferResult infer(const EstimateRequest& request) const;
  [[nodiscard]] InferResult infer(const FieldMap& values) const {
    return infer(parse_infer_request(values));
  }

  // Each task (serve, QLoRA, LoRA, full fine-tune, pretraining) on each machine, and which
  // machine wins it (serve_session.cpp).
  [[nodiscard]] CompareResult compare(const EstimateRequest& request) const;
  [[nodiscard]] CompareResult compare(const FieldMap& values) const {
    return compare(parse_compare_request(values));
  }

 private:
  [[nodiscard]] PlanResult plan_each(const EstimateRequest& request,
                                     const std::vector<MachineChoice>& machines,
                                     const plan::Progress& progress, const plan::Stop& stop) const;
  // Loads request.model into the job (counts, warnings, the rank a fraction asks for).
  void resolve_model(EstimateRequest& request, EstimateResult& out) const;
  [[nodiscard]] ModelSource critic_model(const std::string& given, std::string_view field,
                                         EstimateResult& out) const;
  // The serving job of an infer or compare request, its model loaded.
  [[nodiscard]] ServingJob serving_job(const EstimateRequest& request,
                                       std::vector<Problem>& warnings) const;
  // Loads a model as the sources allow (paths, the Hub).
  [[nodiscard]] ModelSource load(const std::string& spec) const;
  std::filesystem::path models_dir_;
  bool model_paths_{true};
  bool hub_fetch_{false};
  io::FetchProgress fetch_progress_;
  HardwareCatalog catalog_;
};

}  // namespace tb::api
