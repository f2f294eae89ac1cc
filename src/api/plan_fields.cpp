// The plan query's own rows of the field table (objective, deadline, budget, the workloads to
// compare), and the plan's table: the estimate's rows a plan takes, then these.
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <vector>

#include "field_accepted.hpp"
#include "field_checks.hpp"
#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/framework.hpp"
#include "trainbudget/spec/limits.hpp"
#include "trainbudget/spec/parallel.hpp"
#include "trainbudget/spec/parse_named.hpp"
#include "trainbudget/spec/quantity_parse.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb::api {
namespace {

using R = EstimateRequest&;
using V = std::string_view;
using checks::choice;
using checks::degree;
using checks::flag;
using checks::text;
using checks::whole;
using namespace accepted;

std::string objectives() { return "time|cost|energy"; }
std::string tops() { return "1..100"; }
std::string days() { return "a number of days > 0"; }
std::string budgets() { return "US dollars > 0"; }
std::string batches() { return "1..1073741824 sequences"; }
std::string method_lists() { return "full,lora,qlora,freeze (a comma-separated list)"; }
std::string rank_lists() { return "ranks 1..65536, e.g. 8,16,64"; }
std::string recipe_lists() { return "recipe ids, comma-separated (trainbudget recipes)"; }
std::string target_sets() { return "target lists separated by ';', e.g. q,v;all-linear"; }

// The plan query's own rows; the rest of a plan request is the estimate's table.
const std::array kPlanFields{
    Field{"objective", FieldType::kChoice, "WHAT", "", "time",
          "Rank candidates by time (hours), cost (devices x hours x price; device-hours without "
          "a price) or energy (kWh)",
          objectives,
          [](V v, R r) {
            r.plan.objective = choice(v, "objective", {"time", "cost", "energy"});
          },
          "plan"},
    Field{"top", FieldType::kInteger, "K", "candidates", "5", "How many candidates to print", tops,
          [](V v, R r) { r.plan.top = static_cast<int>(whole(v, "top", 100.0)); }, "plan"},
    Field{"deadline_days", FieldType::kNumber, "D", "days", "",
          "Keep only layouts that finish within D days; without {devices}, find the fewest "
          "devices (powers of two) that do, or with {objective} cost the cheapest",
          days,
          [](V v, R r) {
            r.plan.deadline_days = parse_number_in(v, "deadline_days", 0.0, 1e6, false);
          },
          "plan"},
    Field{"budget_usd", FieldType::kNumber, "USD", "dollars", "",
          "Keep only layouts that cost at most this (needs a price: the catalog's or {price}); "
          "without {devices}, search the device counts",
          budgets,
          [](V v, R r) { r.plan.budget_usd = parse_number_in(v, "budget_usd", 0.0, 1e15, false); },
          "plan"},
    Field{"global_batch", FieldType::kInteger, "SEQUENCES", "sequences per step", "",
          "Sequences per optimizer step = dp x micro_batch x grad_accum; default: 2^20 tokens / "
          "seq_len, at least one per data-parallel replica, a multiple of the device count; "
          "preference objectives: pairs; grpo, rloo, ppo: completions, a multiple of "
          "num_generations (default micro_batch x devices)",
          batches, [](V v, R r) { r.plan.global_batch = whole(v, "global_batch", 1073741824.0); },
          "plan"},
    Field{"methods", FieldType::kList, "LIST", "", "",
          "Fine-tuning methods to search as well as layouts (e.g. full,lora,qlora); default: "
          "{method} only",
          method_lists,
          [](V v, R r) {
            r.plan.methods.clear();
            for (const std::string_view m : split_comma_list(v, "methods", method_lists())) {
              r.plan.methods.push_back(parse_method(m));
            }
          },
          "plan"},
    Field{"lora_ranks", FieldType::kList, "LIST", "", "",
          "LoRA/QLoRA ranks to search (needs {model}); default: {lora_rank}", rank_lists,
          [](V v, R r) {
            r.plan.lora_ranks.clear();
            for (const std::string_view k : split_comma_list(v, "lora_ranks", rank_lists())) {
              r.plan.lora_ranks.push_back(whole(k, "lora_ranks", 65536.0));
            }
          },
          "plan"},
    Field{"lora_target_sets", FieldType::kText, "SETS", "", "",
          "LoRA/QLoRA target sets to search, ';' between sets (e.g. 'q,v;all-linear'; needs "
          "{model}); default: {lora_targets}",
          target_sets,
          [](V v, R r) {
            r.plan.lora_target_sets.clear();
            std::size_t at = 0;
            while (at <= v.size()) {
              const std::size_t end = std::min(v.find(';', at), v.size());
              r.plan.lora_target_sets.push_back(parse_lora_targets(v.substr(at, end - at)));
              at = end + 1;
            }
          },
          "plan"},
    Field{"recipes", FieldType::kList, "LIST", "", "",
          "Optimizer recipes to search (e.g. amp-adam,adam-8bit); default: {recipe}", recipe_lists,
          [](V v, R r) {
            r.plan.recipes.clear();
            for (const std::string_view id : split_comma_list(v, "recipes", recipe_lists())) {
              r.plan.recipes.emplace_back(find_recipe(id).id);
            }
          },
          "plan"},
    Field{"max_devices", FieldType::kInteger, "N", "devices", "4096",
          "Largest device count tried when {deadline_days} or {budget_usd} searches the count",
          devices_range,
          [](V v, R r) { r.plan.max_devices = static_cast<int>(whole(v, "max_devices", 1e6)); },
          "plan"},
};

// Estimate rows a plan request takes too: all but the per-estimate words (--fit, --explain).
std::vector<Field> plan_table() {
  std::vector<Field> out;
  for (const Field& f : estimate_fields()) {
    if (f.key == "fit" || f.key == "explain") continue;
    out.push_back(f);
  }
  out.insert(out.end(), kPlanFields.begin(), kPlanFields.end());
  return out;
}

}  // namespace

std::span<const Field> plan_fields() {
  static const std::vector<Field> table = plan_table();
  return table;
}

}  // namespace tb::api
