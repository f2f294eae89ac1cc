// What a plan query found, as a result that owns its data: the ranked candidates (each a whole
// estimate of its layout, so that a candidate prints the same numbers `estimate` would), the
// nearest misses with their reasons, and what the search did. The views arrange it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/runner_rules.hpp"
#include "trainbudget/plan/planner.hpp"

namespace tb::plan {

struct PlanCandidate {
  int rank{1};
  std::string machine_id;  // the device type it runs on
  std::string workload;    // method, rank, recipe in words
  Estimate estimate;       // the candidate's layout estimated on the plan's machine
  double hours{0.0}, usd{0.0}, kwh{0.0};
  int alike{0};  // layouts of the same family (dp/cp and micro-batch variants) folded into it
  Runner runner{Runner::kMegatron};  // the framework that runs it (eval/runner_rules.hpp)
  // The estimate request that reproduces it, by field key (the front end spells the flags).
  std::map<std::string, std::string> apply;
};

struct PlanMiss {
  std::string workload;
  Layout layout;
  Miss miss{Miss::kPeak};
  Bytes memory;        // the peak (or the states alone, for kStates)
  Bytes capacity;      // what the device allows (the allocatable memory)
  double margin{1.0};  // the workload's margin: a layout fits when memory x margin <= capacity
  Phase phase{Phase::kForwardEnd};
  Bytes states, activations, buffers;
  double hours{0.0}, usd{0.0};
};

enum class PlanMode : std::uint8_t {
  kFixed,     // the devices given: the best layouts on them
  kFewest,    // the fewest devices (whole nodes) whose best layout meets the deadline/budget
  kCheapest,  // over every device count, the lowest objective within the deadline/budget
};

struct PlanReport {
  std::string model;  // name or count
  double tokens{0.0};
  std::string machine_id, machine_name, system_id;  // several: ids and names joined
  int machines{1};                                  // device types planned and ranked together
  Objective objective{Objective::kTime};
  PlanMode mode{PlanMode::kFixed};
  std::optional<double> deadline_days, budget_usd;
  std::vector<int> device_counts;  // tried, in order
  int devices{1};                  // of the best candidate (or the last tried)
  std::int64_t global_batch{0};    // examples (a preference objective's pairs) per step
  std::int64_t seq_len{0};
  // Rows one example puts through the model (2 for DPO-style pairs): the layouts count rows,
  // the text and the flags to paste count examples.
  int rows_per_example{1};
  std::vector<std::string> workloads;
  std::vector<PlanCandidate> candidates;
  std::vector<PlanMiss> misses;
  // When nothing met the deadline or budget: the layout that fits and comes closest (the
  // cheapest, or the fastest), over every device count tried.
  std::optional<PlanMiss> closest_miss;
  SearchStats stats;  // summed over the device counts tried
  std::vector<std::string> notes;
};

}  // namespace tb::plan

template <>
struct tb::EnumNames<tb::plan::PlanMode> {
  static constexpr std::array<std::pair<tb::plan::PlanMode, std::string_view>, 3> kNames{
      {{tb::plan::PlanMode::kFixed, "fixed_devices"},
       {tb::plan::PlanMode::kFewest, "fewest_devices"},
       {tb::plan::PlanMode::kCheapest, "best_over_device_counts"}}};
};
