// A run's length as optimizer steps (issue 41): the steps field and the configs' max_steps, as
// transformers' Trainer reads it (max_steps > 0 overrides num_train_epochs). Values by hand.
#include <gtest/gtest.h>

#include <string>

#include "trainbudget/api/session.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::api {
namespace {

const Session& session() {
  static const Session s{Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

// 100 steps x 2 sequences x 4 micro-batches x 4 data-parallel ranks (8 devices over tp 2) x 2,048
// tokens = 6,553,600 tokens.
TEST(Steps, TokensAreStepsTimesTheGlobalBatch) {
  FieldMap m{
      {"model", "llama-3.1-8b"}, {"machine", "h100-sxm"}, {"steps", "100"}, {"micro_batch", "2"},
      {"grad_accum", "4"},       {"devices", "8"},        {"tp", "2"},      {"seq_len", "2048"}};
  const EstimateResult r = session().estimate(m);
  EXPECT_DOUBLE_EQ(r.estimate.job.tokens, 6'553'600.0);
  bool said = false;
  for (const Problem& n : r.notes) said = said || n.field == "steps";
  EXPECT_TRUE(said);
  // Without seq_len, the default length (2048 within Llama 3.1's 131,072 positions).
  m.erase("seq_len");
  EXPECT_DOUBLE_EQ(session().estimate(m).estimate.job.tokens, 6'553'600.0);
}

TEST(Steps, TokensAndStepsTogetherAreRefused) {
  const FieldMap m{{"model", "llama-3.1-8b"}, {"steps", "100"}, {"tokens", "1e9"}};
  try {
    (void)session().estimate(m);
    ADD_FAILURE() << "accepted";
  } catch (const InvalidRequest& e) {
    EXPECT_EQ(e.problems().front().field, "steps");
  }
}

// transformers' TrainingArguments and axolotl: a positive max_steps is the run's length; -1 (the
// Trainer's default) leaves it to the epochs.
TEST(Steps, ConfigsMaxStepsBecomesSteps) {
  const TrainingConfig hf = parse_training_config(
      R"({"model_name_or_path": "x", "per_device_train_batch_size": 2, "max_steps": 500})",
      "/nonexistent");
  EXPECT_EQ(hf.values.at("steps"), "500");
  const TrainingConfig none = parse_training_config(
      R"({"model_name_or_path": "x", "per_device_train_batch_size": 2, "max_steps": -1})",
      "/nonexistent");
  EXPECT_FALSE(none.values.contains("steps"));
  const TrainingConfig axolotl = parse_training_config(
      "base_model: x\nmicro_batch_size: 2\nsequence_len: 1024\nmax_steps: 30\nnum_epochs: 3\n",
      "/nonexistent");
  EXPECT_EQ(axolotl.values.at("steps"), "30");
}

}  // namespace
}  // namespace tb::api
