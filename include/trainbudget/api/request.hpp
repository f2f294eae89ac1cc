// An estimate request as values, parsed from a FieldMap through the field table: the training
// job, what to load (a --model), where to run it, and which words to add. Every problem of the
// map is reported at once (InvalidRequest), each naming its key.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trainbudget/api/field.hpp"
#include "trainbudget/io/dataset_text.hpp"
#include "trainbudget/spec/job.hpp"
#include "trainbudget/spec/serving.hpp"

namespace tb::api {

// The plan query's own inputs (plan_fields()).
struct PlanOptions {
  std::string objective{"time"};  // time | cost | energy
  int top{5};
  std::optional<double> deadline_days;
  std::optional<double> budget_usd;
  std::optional<std::int64_t> global_batch;                // sequences per optimizer step
  std::vector<Method> methods;                             // empty: the job's method only
  std::vector<std::int64_t> lora_ranks;                    // empty: the job's rank
  std::vector<std::vector<std::string>> lora_target_sets;  // empty: the job's targets
  std::vector<std::string> recipes;                        // empty: the job's recipe
  int max_devices{4096};
};

// The compare query's own inputs (compare_fields()): the pretraining task's tokens and devices.
struct CompareOptions {
  std::optional<double> pretrain_tokens;  // default: 20 tokens per parameter (Chinchilla)
  std::optional<int> pretrain_devices;    // default: the fewest (powers of two) that fit
};

struct EstimateRequest {
  TrainingJob job;
  std::string model;  // config.json, model folder or preset id; empty: job.params is the model
  // PPO's value and reward models, the same kinds of reference; empty: the policy's model.
  std::string value_model;
  std::string reward_model;
  std::string machines;  // ID[:dtype][,...] or all
  bool fit{false};       // what fits each machine (a plan query)
  bool explain{false};   // every term's formula and value
  // One pass over the data and the passes: tokens = epochs x dataset_tokens when both are known.
  std::optional<double> dataset_tokens;
  double epochs{1.0};
  // Optimizer steps: tokens = steps x the step's sequences x their length (Session, once the
  // model's length is known).
  std::optional<double> steps;
  // Local dataset files whose text gives dataset_tokens at io::kCharactersPerToken (the session
  // says so in a note); the server refuses them.
  std::vector<std::string> dataset_files;
  std::optional<io::DatasetText> dataset_text;  // their counts, summed
  std::string format{"table"};
  bool brief{false};  // the answer section only (not for json, csv)
  std::optional<std::string> hardware_dir;
  PlanOptions plan;                          // plan requests only
  ServingSetup serving;                      // infer and compare requests
  CompareOptions compare;                    // compare requests only
  std::set<std::string, std::less<>> given;  // the keys the request set
  FieldMap values;                           // and their values as given
  // Flags the request gave as false: not set, but a choice the planner keeps.
  std::set<std::string, std::less<>> cleared;
  [[nodiscard]] bool has(std::string_view key) const { return given.contains(key); }
};

// The request a map describes, defaults filled from the field table. Unknown keys are problems
// too, each with the closest known key.
[[nodiscard]] EstimateRequest parse_estimate_request(const FieldMap& values);
// The same for a plan query, through plan_fields().
[[nodiscard]] EstimateRequest parse_plan_request(const FieldMap& values);

// An infer request (infer_fields()) and a compare request (compare_fields()).
[[nodiscard]] EstimateRequest parse_infer_request(const FieldMap& values);
[[nodiscard]] EstimateRequest parse_compare_request(const FieldMap& values);

// A JSON request file's text as a FieldMap: one object, keys from the field table, values as
// JSON strings, numbers or booleans (flags). Throws InvalidRequest for the shape of the file.
[[nodiscard]] FieldMap field_map_from_json(std::string_view json_text);

}  // namespace tb::api
