// The search: every layout of a space for every workload (a model profile under a method and
// recipe), the cheap precheck first (timeloop's PreEvaluationCheck), evaluate() for the rest,
// the best k by the objective kept, and the nearest misses kept with their reason. Threads
// split the grid; the library does no I/O (progress is a callback).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/plan/space.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::plan {

enum class Objective : std::uint8_t { kTime, kCost, kEnergy };

// One workload the planner may pick: the model under a method and recipe, with its words.
struct Workload {
  ModelProfile profile;
  std::string label;  // "full fine-tune, amp-adam", "LoRA r16 on q,v, amp-adam"
  std::size_t index{0};
  // The margin its layouts keep (eval/memory_margin.hpp): a layout fits when its peak x margin
  // is within the device's capacity. 1: the capacity itself.
  double margin{1.0};
};

struct SearchOptions {
  Objective objective{Objective::kTime};
  std::size_t top{5};
  std::size_t misses{3};
  std::optional<double> deadline_hours;  // keep only what finishes within
  std::optional<double> budget_usd;      // keep only what costs at most
  unsigned threads{0};                   // 0: every core
  bool precheck{true};                   // drop states-overflow layouts before evaluate()
  // A fitting full-recompute layout is tried with fewer recomputed layers per stage (Megatron-LM's
  // block method), keeping the fewest that fit: the fastest of its kind.
  bool block_recompute{true};
  // A layout whose peak overflows the device is tried with its activations offloaded to the host.
  bool offload_activations{true};
  // A fitting layout with tp > 1 is tried with its tensor-parallel collectives overlapped.
  bool overlap_tp{true};
  // Asked before each chunk of layouts, from every searching thread at once: true abandons the
  // search (SearchCancelled). The server's: the client left, or the request ran past its time.
  std::function<bool()> stop;
};

// A search that options.stop ended before it finished.
class SearchCancelled : public Error {
 public:
  SearchCancelled() : Error("the search was stopped before it finished") {}
};

// Why a layout was not kept.
enum class Miss : std::uint8_t {
  kStates,      // the model states alone exceed the device (precheck)
  kPeak,        // the peak over the step exceeds it
  kDeadline,    // fits, but finishes after the deadline
  kBudget,      // fits, but costs more than the budget
  kHostMemory,  // fits the device, but what it offloads exceeds the host's memory
};

struct Candidate {
  std::size_t workload{0};
  Layout layout;
  StepCost cost;           // the evaluation, whole
  double hours{0.0};       // the run
  double usd{0.0};         // devices x hours x price; 0 without a price
  double kwh{0.0};         // devices x TDP x hours x PUE / 1000; 0 without a TDP
  double score{0.0};       // by the objective; lower is better
  Miss miss{Miss::kPeak};  // for near misses
  int alike{0};            // others of its layout family found and folded into it (the plan)
};

struct SearchStats {
  std::uint64_t layouts{0};     // evaluated or prechecked
  std::uint64_t prechecked{0};  // dropped by precheck
  std::uint64_t evaluated{0};
  std::uint64_t fit{0};
  std::uint64_t kept{0};  // fit and within deadline and budget
  // Further evaluations of fitting full-recompute layouts with fewer recomputed layers.
  std::uint64_t recompute_tries{0};
  // Further evaluations of layouts that overflow with their activations offloaded to the host.
  std::uint64_t offload_tries{0};
  // Further evaluations of fitting tp > 1 layouts with the tensor-parallel collectives overlapped.
  std::uint64_t overlap_tries{0};
  GridStats grid;
  double seconds{0.0};
  unsigned threads{1};
};

struct SearchResult {
  std::vector<Candidate> best;    // by score, at most top
  std::vector<Candidate> misses;  // the nearest misses: smallest overshoot first
  // Of the layouts that fit but finish past the deadline or cost past the budget, the one that
  // overshoots least (at most one): what the plan says when nothing is kept.
  std::vector<Candidate> over;
  SearchStats stats;
};

// Called about five times a second from one reporting thread (never two calls at once) with
// the layouts done and the total, and once at the end.
using Progress = std::function<void(std::uint64_t done, std::uint64_t total)>;
using Stop = std::function<bool()>;

[[nodiscard]] SearchResult search(std::span<const Workload> workloads, const Layout& base,
                                  const PlanSpace& space, int devices, std::int64_t global_batch,
                                  const ClusterProfile& cluster, const SearchOptions& options,
                                  const Progress& progress = {});

// The score of one evaluation under the objective (and its hours, dollars, kWh).
void score(Candidate& c, const ClusterProfile& cluster, Objective objective) noexcept;

}  // namespace tb::plan

template <>
struct tb::EnumNames<tb::plan::Miss> {
  static constexpr std::array<std::pair<tb::plan::Miss, std::string_view>, 5> kNames{
      {{tb::plan::Miss::kStates, "model_states_exceed_memory"},
       {tb::plan::Miss::kPeak, "peak_exceeds_memory"},
       {tb::plan::Miss::kDeadline, "misses_deadline"},
       {tb::plan::Miss::kBudget, "over_budget"},
       {tb::plan::Miss::kHostMemory, "host_memory_exceeded"}}};
};

template <>
struct tb::EnumNames<tb::plan::Objective> {
  static constexpr std::array<std::pair<tb::plan::Objective, std::string_view>, 3> kNames{
      {{tb::plan::Objective::kTime, "time"},
       {tb::plan::Objective::kCost, "cost"},
       {tb::plan::Objective::kEnergy, "energy"}}};
};
