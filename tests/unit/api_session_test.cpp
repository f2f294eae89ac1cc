// The session: one catalog for many requests, and the fixes a new user asked for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trainbudget/api/session.hpp"
#include "trainbudget/model/lora.hpp"

namespace tb::api {
namespace {

using testing::HasSubstr;

const Session& session() {
  static const Session s{Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

TEST(Session, TrainableFractionWithAModelSolvesTheSmallestRank) {
  const EstimateResult r = session().estimate(
      FieldMap{{"model", "llama-2-7b"}, {"method", "lora"}, {"trainable_fraction", "0.01"}});
  const TrainingJob& job = r.estimate.job;
  // q,v on Llama-2-7B: 32 layers x 2 x r x (4096 + 4096) = 524,288 r parameters; 1 % of
  // 6,738,415,616 is 67,384,156 -> r = 129 (128 gives 67,108,864, just under).
  EXPECT_EQ(job.lora.rank, 129);
  EXPECT_GE(lora_trainable_params(*job.model.architecture, job.lora), 0.01 * job.params);
  LoraSpec smaller = job.lora;
  smaller.rank -= 1;
  EXPECT_LT(lora_trainable_params(*job.model.architecture, smaller), 0.01 * job.params);
  ASSERT_EQ(r.notes.size(), 1U);
  EXPECT_EQ(r.notes[0].field, "trainable_fraction");
  EXPECT_THAT(r.notes[0].message, HasSubstr("rank 129"));
}

TEST(Session, ASequenceLongerThanTheContextWarns) {
  const EstimateResult r =
      session().estimate(FieldMap{{"model", "llama-2-7b"}, {"seq_len", "8192"}});
  ASSERT_EQ(r.warnings.size(), 1U);
  EXPECT_EQ(r.warnings[0].field, "seq_len");
  EXPECT_THAT(r.warnings[0].message, HasSubstr("longer than the 4096 positions"));
}

TEST(Session, AnUnknownMachineNamesTheFieldAndTheClosestIds) {
  try {
    (void)session().estimate(FieldMap{{"machine", "h100"}});
    FAIL() << "no error";
  } catch (const InvalidRequest& e) {
    ASSERT_EQ(e.problems().size(), 1U);
    EXPECT_EQ(e.problems()[0].field, "machine");
    EXPECT_THAT(e.problems()[0].message, HasSubstr("closest known: h100-"));
  }
}

TEST(Session, FitAndExplainAreAddedOnRequest) {
  const EstimateResult plain = session().estimate(FieldMap{{"model", "llama-3.1-8b"}});
  ASSERT_TRUE(plain.estimate.primary.step.has_value());
  EXPECT_TRUE(plain.estimate.primary.step->fits.empty());
  EXPECT_FALSE(plain.estimate.primary.step->explain);
  const EstimateResult asked =
      session().estimate(FieldMap{{"model", "llama-3.1-8b"}, {"fit", "true"}, {"explain", "true"}});
  EXPECT_EQ(asked.estimate.primary.step->fits.size(), asked.estimate.primary.machines.size());
  EXPECT_TRUE(asked.estimate.primary.step->explain);
  // The same numbers with or without the words.
  EXPECT_EQ(plain.estimate.primary.memory.total, asked.estimate.primary.memory.total);
}

}  // namespace
}  // namespace tb::api
