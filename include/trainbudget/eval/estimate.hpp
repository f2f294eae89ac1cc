// The estimate view: memory, FLOPs, hours per machine and a verdict for a job. The numbers come
// from make_profile() and evaluate(); this file only arranges them, with codes where a row needs
// words (report/estimate_words.hpp). Results own their data (no pointers into the catalog).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/eval/device_memory.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/gemm_efficiency.hpp"
#include "trainbudget/eval/goodput.hpp"
#include "trainbudget/eval/note.hpp"
#include "trainbudget/eval/rollout.hpp"
#include "trainbudget/eval/step_analysis.hpp"
#include "trainbudget/eval/time_band.hpp"
#include "trainbudget/spec/enum_names.hpp"
#include "trainbudget/spec/hardware.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/machine_choice.hpp"
#include "trainbudget/spec/recipe.hpp"
#include "trainbudget/units/units.hpp"

namespace tb {

struct MemoryComponent {
  std::string
      key;  // JSON key: weights, gradients, optimizer_states, master_weights, frozen_weights
  std::string label;  // the state term's label with dtype (empty for activations: report words it)
  double bytes_per_param{0.0};
  double params{0.0};   // how many parameters this component is kept for
  Bytes bytes;          // per device (the most loaded pipeline stage)
  int sharded_over{1};  // data-parallel ranks ZeRO partitions it over, 1 = replicated
  Bytes replica;        // a full replica: no partitioning of any kind
  Bytes host;           // moved to host memory by offload (per device)
};

struct MemoryEstimate {
  std::vector<MemoryComponent> components;
  Bytes total;
  bool activations_included{false};

  // Sum of the components with this key (a recipe may split one kind over two rows).
  [[nodiscard]] Bytes by_key(std::string_view key) const;
  // What one device would hold without any partitioning (a full replica).
  [[nodiscard]] Bytes replica_total() const;
  int stage{0};      // the pipeline stage the rows are for
  Bytes host_total;  // per device, in host memory (offload)
};

// How the FLOPs per token were counted (report/estimate_words.hpp words it).
enum class FlopsBasis : std::uint8_t {
  kSixN,                // 6 N: forward 2N + backward 4N
  kAdaptersN,           // 4 N_base + 6 N_adapter
  kFreezeN,             // 2 N + 4 N_trained
  kArchitecture,        // GEMMs + attention at the layout's sequence, x 3
  kArchitectureFrozen,  // frozen GEMMs x 2, attention and adapters x 3
};

struct ComputeEstimate {
  double flops_per_token{0.0};
  double flops_per_token_6n{0.0};  // the seed's 6N reference, always shown beside
  Flops total;
  FlopsBasis basis{FlopsBasis::kSixN};
};

// Why a job does or does not fit one device's memory.
enum class Fit {
  kFits,           // the model states fit
  kNeedsLora,      // full fine-tune does not fit, the LoRA alternative does
  kNeedsSharding,  // neither fits one device: shard over devices_to_fit (ZeRO-3/FSDP)
};

// The one verdict every format reads (text, JSON, CSV, Markdown, HTML, the page): whether the
// allocated peak fits the usable memory, tightly when the device total with the allocator's cache
// does not, and whether it could be judged at all (a bare parameter count has no activations).
enum class Verdict {
  kFits,
  kFitsTightly,
  kDoesNotFit,
  kStatesFit,  // the model states fit; activations not counted (no architecture)
  kNoNetwork,  // more devices than a node of its system holds, and no network between nodes
};

template <>
struct EnumNames<Verdict> {
  static constexpr std::array<std::pair<Verdict, std::string_view>, 5> kNames{
      {{Verdict::kFits, "fits"},
       {Verdict::kFitsTightly, "fits_tightly"},
       {Verdict::kDoesNotFit, "does_not_fit"},
       {Verdict::kStatesFit, "states_fit_activations_not_counted"},
       {Verdict::kNoNetwork, "no_network_between_nodes"}}};
};

template <>
struct EnumNames<Fit> {
  static constexpr std::array<std::pair<Fit, std::string_view>, 3> kNames{
      {{Fit::kFits, "fits"},
       {Fit::kNeedsLora, "needs_lora"},
       {Fit::kNeedsSharding, "needs_sharding"}}};
};

// One change to a job, found by the planner (plan/advice.hpp): what changes, as field keys and
// values (the front end spells them as flags), and what it gives.
struct Advice {
  // "smallest", "same_method" (faster, keeps the method), "fastest", or "unbound" (a job that
  // fits but waits on communication or the pipeline: the change that frees its step)
  std::string kind;
  std::string summary;  // "recompute full, micro-batch 1 x grad-accum 8"
  std::vector<std::pair<std::string, std::string>> changes;  // key, value
  Bytes memory;
  double hours{0.0};
  int devices{1};
  double mfu{0.0};  // the changed job's
};

// The same per-device work on more devices of the same fabric (weak scaling: each added
// data-parallel replica brings its own micro-batches).
struct ScalePoint {
  int devices{1};
  Seconds step{0.0};
  Seconds exposed_comm{0.0};
  double mfu{0.0};
  double tokens_per_second{0.0};
  double hours{0.0};
  Bound bound{Bound::kCompute};
};

struct MachineEstimate {
  Device device;
  DType dtype{DType::kBf16};   // the rate actually used
  DType wanted{DType::kBf16};  // recipe's compute dtype, or the user's :dtype override
  bool dtype_overridden{false};
  DType recipe_dtype{DType::kBf16};  // what the recipe computes in
  std::optional<ComputeRate> rate;   // the rate used; none when the device has no rate
  double utilization{0.0};
  int devices{1};
  Seconds at_peak{0.0};         // 100 % utilization, ideal scaling over `devices`
  Seconds at_utilization{0.0};  // at `utilization`
  bool fits{false};
  Fit fit{Fit::kFits};  // the rule of thumb without advice: which way a miss could be fixed
  Verdict verdict{Verdict::kDoesNotFit};
  int devices_to_fit{1};             // devices needed if model states are fully sharded (ZeRO-3)
  bool devices_with_rollout{false};  // online RL: devices_to_fit counts the round's peak
  // The LoRA alternative's allocated peak on this machine (online RL: with its own round).
  std::optional<Bytes> lora_peak;
  std::optional<Dollars> cost_usd;   // at_utilization x devices x price, where a price is known
  bool price_given{false};           // --price replaced the catalog's
  std::optional<double> energy_kwh;  // devices x TDP x at_utilization x PUE, where a TDP is known
  // The step-time model: its terms, the GEMM efficiency it ran at and where that came from, the
  // system (node shape) it communicated over, and what it had to assume.
  StepTime time;
  TimeBand time_band;  // the step's low and high ends (time_band.hpp)
  Goodput goodput;     // wall-clock from at_utilization (goodput.hpp)
  GemmEfficiency gemm;
  std::string system_id;  // empty: no system, the device's interconnect alone
  int node_devices{0};    // devices a node of the system holds (0: no nodes)
  std::string system_name;
  std::vector<Note> assumptions;
  std::vector<Advice> advice;     // when it does not fit: the smallest and the fastest change
  Bytes host_per_node;            // offload: host memory per device x the devices of a node
  Bytes host_memory;              // the node's host RAM it is held against; 0 unknown
  MemoryNumbers numbers;          // for this device: with the CUDA runtime or without
  Bytes usable;                   // what the device lets a process use (Apple: Metal's cap)
  Bytes allocatable;              // what the allocated peak may reach: allocatable_capacity()
  bool fits_device_total{false};  // numbers.device_total <= usable
  // The margin a proposal keeps (eval/memory_margin.hpp) and what its allocated peak may then
  // reach: allocatable / margin. A job over it fits only tightly, and advice offers the room.
  double margin{1.0};
  Bytes limit;
  std::vector<ScalePoint> scaling;  // the layout on 1x, 2x, 4x ... 32x the devices
  // Online RL: the generation round beside the step; its peak and round time replace the
  // step's in `numbers`, `fits` and the hours (eval/rollout.hpp).
  std::optional<RolloutCost> rollout;
  RolloutLimits rollout_limits;  // online RL: the longest completion and largest micro-batch

  [[nodiscard]] bool dtype_fell_back() const { return dtype != wanted; }
};

// What a scenario trains, for its label ("DPO, LoRA (rank 16, q,v)", "pretraining").
struct ScenarioName {
  Objective objective{Objective::kSft};
  Method method{Method::kFull};
  JobKind kind{JobKind::kFineTuning};
  std::int64_t lora_rank{0};
  bool by_targets{false};  // with an architecture: adapters named by rank and targets
  std::vector<std::string> lora_targets;
  std::vector<std::string> modules_to_save{};  // trained in full beside them (LoraSpec)
  double trainable_fraction{0.0};              // without one: named by the fraction trained
  bool dora{false};                            // the adapters are DoRA's (LoraSpec::dora)
  int qlora_bits{4};                           // QLoRA's base: 4 (NF4) or 8 (LLM.int8)
  std::int64_t galore_rank{0};  // a full fine-tune's GaLore rank (TrainingJob::galore_rank)
};

struct Scenario {
  ScenarioName name;
  Method method{Method::kFull};
  double params_total{0.0};
  double params_trainable{0.0};
  MemoryEstimate memory;
  ComputeEstimate compute;
  std::vector<MachineEstimate> machines;
  std::optional<StepAnalysis> step;  // with an architecture: activations, peak, arch FLOPs
  bool explain{false};   // the explain field: every term listed (a bare count: its states)
  ModelProfile profile;  // what was evaluated, kept for queries over layouts (plan/)
  Layout layout;
  Bytes comm_buffers;  // ZeRO buffers inside the peak
  Bytes host_per_device;
  Bytes host_per_node;  // all devices on one host (machines refine it by their system)
  // The three memory numbers on a CUDA device (docs/memory-numbers.md); machines[] hold their
  // own for their device kind.
  MemoryNumbers numbers;
};

struct Estimate {
  TrainingJob job;
  Recipe recipe;  // a copy; its text fields view the static recipe table
  Scenario primary;
  std::optional<Scenario> lora_alternative;  // present when the job is a full fine-tune
};

// The layout a job asks for: its devices and ZeRO stage, and its step knobs with the defaults
// resolved (the sequence length capped by the model's context, the recipe's activation dtype).
[[nodiscard]] Layout layout_of(const TrainingJob& job, const Recipe& recipe);

// The model states per device of a pipeline stage under the layout, one row per state term, with
// their labels (no activations).
[[nodiscard]] MemoryEstimate states_view(const ModelProfile& profile, const Layout& layout,
                                         int stage = 0);

// The cluster one machine of the job runs on: its device's capacity and rate, the system's
// fabric (or the device's interconnect), the job's overlap, power, PUE and price.
[[nodiscard]] ClusterProfile cluster_of(const TrainingJob& job, const MachineChoice& choice,
                                        const ComputeRate* rate,
                                        std::vector<Note>* assumptions = nullptr);

// The whole budget for the job on the given machines (validated first).
[[nodiscard]] Estimate estimate(const TrainingJob& job, const std::vector<MachineChoice>& machines);

}  // namespace tb
