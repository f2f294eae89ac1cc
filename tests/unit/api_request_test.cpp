// The request boundary: the field table's defaults, one problem per bad field (all at once),
// combinations the fields cannot check alone, and JSON request files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {
namespace {

using testing::HasSubstr;

std::vector<Problem> problems_of(const FieldMap& values) {
  try {
    (void)parse_estimate_request(values);
  } catch (const InvalidRequest& e) {
    return e.problems();
  }
  return {};
}

TEST(FieldTable, DefaultsAreTheJobsDefaults) {
  const EstimateRequest r = parse_estimate_request({});
  const TrainingJob plain;
  EXPECT_EQ(r.job.params, plain.params);
  EXPECT_EQ(r.job.tokens, plain.tokens);
  EXPECT_EQ(r.job.method, plain.method);
  EXPECT_EQ(r.job.trainable_fraction, plain.trainable_fraction);
  EXPECT_EQ(r.job.recipe_id, plain.recipe_id);
  EXPECT_EQ(r.job.utilization, plain.utilization);
  EXPECT_EQ(r.job.devices, plain.devices);
  EXPECT_EQ(r.job.zero_stage, plain.zero_stage);
  EXPECT_EQ(r.job.lora.rank, plain.lora.rank);
  EXPECT_EQ(r.job.lora.targets, plain.lora.targets);
  EXPECT_EQ(r.job.setup.micro_batch, plain.setup.micro_batch);
  EXPECT_EQ(r.job.setup.seq_len, plain.setup.seq_len);
  EXPECT_FALSE(r.job.setup.seq_len_given);
  EXPECT_EQ(r.job.setup.attention, plain.setup.attention);
  EXPECT_EQ(r.job.setup.recompute, plain.setup.recompute);
  EXPECT_EQ(r.job.setup.dropout, plain.setup.dropout);
  EXPECT_EQ(r.job.setup.grad_accumulation, plain.setup.grad_accumulation);
  EXPECT_EQ(r.machines, kDefaultMachines);
  EXPECT_EQ(r.format, "table");
  EXPECT_TRUE(r.given.empty());
}

TEST(FieldTable, EveryFieldHasHelpAcceptedValuesAndAUniqueKey) {
  std::set<std::string_view> keys;
  for (const Field& f : estimate_fields()) {
    EXPECT_TRUE(keys.insert(f.key).second) << f.key;
    EXPECT_FALSE(f.help.empty()) << f.key;
    EXPECT_FALSE(f.accepted().empty()) << f.key;
    EXPECT_EQ(f.key.find('-'), std::string_view::npos) << f.key << ": keys use '_'";
    if (f.type != FieldType::kFlag) {
      EXPECT_FALSE(f.value_name.empty()) << f.key;
    }
  }
  EXPECT_GE(keys.size(), 25U);
}

TEST(Request, EveryBadFieldIsReportedAtOnceByKey) {
  const std::vector<Problem> p =
      problems_of({{"micro_batch", "0"}, {"method", "dorra"}, {"params", "-7B"}});
  ASSERT_EQ(p.size(), 3U);
  EXPECT_EQ(p[0].field, "method");  // the map is ordered by key
  EXPECT_EQ(p[0].accepted, "full|lora|qlora|freeze|dora|qdora|galore");
  EXPECT_EQ(p[1].field, "micro_batch");
  EXPECT_THAT(p[1].message, HasSubstr("0 is out of range"));
  EXPECT_EQ(p[2].field, "params");
}

TEST(Request, UnknownKeySuggestsTheClosest) {
  const std::vector<Problem> p = problems_of({{"micro_bach", "2"}});
  ASSERT_EQ(p.size(), 1U);
  EXPECT_EQ(p[0].field, "micro_bach");
  EXPECT_THAT(p[0].message, HasSubstr("did you mean {micro_batch}?"));
  // The CLI renders {key} as a flag, a JSON client as the key.
  EXPECT_EQ(render_problem(p[0], [](const std::string& k) { return "--" + k; }),
            "--micro_bach: is not a field of an estimate request; did you mean --micro_batch?");
}

TEST(Request, StepAndLoraFieldsNeedAModel) {
  const std::vector<Problem> p =
      problems_of({{"seq_len", "4096"}, {"fit", "true"}, {"lora_rank", "8"}, {"method", "lora"}});
  ASSERT_EQ(p.size(), 3U);
  for (const Problem& x : p) EXPECT_THAT(x.message, HasSubstr("needs an architecture ({model})"));
  // A flag set to false is not given.
  EXPECT_TRUE(problems_of({{"fit", "false"}}).empty());
}

TEST(Request, LoraFieldsNeedAnAdapterMethodAndModelExcludesParams) {
  std::vector<Problem> p = problems_of({{"model", "gpt2"}, {"lora_targets", "q"}});
  ASSERT_EQ(p.size(), 1U);
  EXPECT_THAT(p[0].message, HasSubstr("only applies to {method} lora|qlora, not 'full'"));
  p = problems_of({{"model", "gpt2"}, {"params", "7B"}});
  ASSERT_EQ(p.size(), 1U);
  EXPECT_EQ(p[0].field, "params");
  p = problems_of(
      {{"model", "gpt2"}, {"method", "lora"}, {"trainable_fraction", "0.01"}, {"lora_rank", "8"}});
  ASSERT_EQ(p.size(), 1U);
  EXPECT_EQ(p[0].field, "trainable_fraction");
}

TEST(Request, JsonFilesGiveTheSameMapAsFlags) {
  const FieldMap m = field_map_from_json(
      R"({"model": "llama-3.1-8b", "method": "lora", "micro_batch": 2, "dropout": 0.1, "fit": true,
          "lora_targets": ["q", "v"], "explain": false})");
  EXPECT_EQ(m.at("model"), "llama-3.1-8b");
  EXPECT_EQ(m.at("micro_batch"), "2");
  EXPECT_EQ(m.at("dropout"), "0.1");
  EXPECT_EQ(m.at("fit"), "true");
  EXPECT_EQ(m.at("lora_targets"), "q,v");
  const EstimateRequest r = parse_estimate_request(m);
  EXPECT_EQ(r.job.setup.micro_batch, 2);
  EXPECT_TRUE(r.fit);
  EXPECT_FALSE(r.explain);
  EXPECT_THROW((void)field_map_from_json("[1, 2]"), InvalidRequest);
  EXPECT_THROW((void)field_map_from_json("{\"micro_batch\": {\"a\": 1}}"), InvalidRequest);
  EXPECT_THROW((void)field_map_from_json("{not json"), InvalidRequest);
}

TEST(PlanRequest, TargetSetsSplitAtSemicolonsAndPlanKeysStayOutOfEstimates) {
  const EstimateRequest r = parse_plan_request(
      {{"model", "llama-3.1-8b"}, {"lora_target_sets", "q,v;all-linear"}, {"top", "3"}});
  ASSERT_EQ(r.plan.lora_target_sets.size(), 2U);
  EXPECT_EQ(r.plan.lora_target_sets[0], (std::vector<std::string>{"q", "v"}));
  EXPECT_EQ(r.plan.top, 3);
  // The plan's own keys are not estimate fields: an estimate refuses them by name.
  try {
    (void)parse_estimate_request({{"top", "3"}});
    FAIL() << "top accepted by an estimate";
  } catch (const InvalidRequest& e) {
    EXPECT_EQ(e.problems().front().field, "top");
  }
}

}  // namespace
}  // namespace tb::api
