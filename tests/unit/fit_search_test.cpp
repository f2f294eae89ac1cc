// The largest micro-batch and longest sequence that fit, against brute force and by hand.
#include "trainbudget/plan/fit_search.hpp"

#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/evaluate.hpp"

namespace tb {
namespace {

// A peak that is 10 GB of states plus 1 GB per sequence of 1024 tokens, counting calls.
struct LinearPeak {
  int* calls;
  Bytes operator()(const Layout& s) const {
    ++*calls;
    return Bytes{10e9 + 1e9 * static_cast<double>(s.micro_batch) * static_cast<double>(s.seq_len) /
                            1024.0};
  }
};

TEST(FitSearch, LargestMicroBatchMatchesBruteForceInFewCalls) {
  int calls = 0;
  Layout base;
  base.seq_len = 1024;
  // 80 GB: 10 + b <= 80 -> b = 70.
  const FitResult r = largest_micro_batch(base, Bytes{80e9}, LinearPeak{&calls}, 4096);
  EXPECT_EQ(r.value, 70);
  EXPECT_FALSE(r.at_limit);
  EXPECT_LE(calls, 2 * 13 + 1);
  for (std::int64_t cap : {10, 11, 12, 17, 33, 64, 65}) {
    int n = 0;
    const FitResult x =
        largest_micro_batch(base, Bytes{static_cast<double>(cap) * 1e9}, LinearPeak{&n}, 4096);
    EXPECT_EQ(x.value, cap - 10) << cap;
  }
}

TEST(FitSearch, ReportsTheLimitAndTheNothingFitsCase) {
  int calls = 0;
  Layout base;
  base.seq_len = 1024;
  const FitResult capped = largest_micro_batch(base, Bytes{1e15}, LinearPeak{&calls}, 256);
  EXPECT_EQ(capped.value, 256);
  EXPECT_TRUE(capped.at_limit);
  const FitResult none = largest_micro_batch(base, Bytes{9e9}, LinearPeak{&calls}, 256);
  EXPECT_EQ(none.value, 0);
}

TEST(FitSearch, LongestSequenceInStepsOf128) {
  int calls = 0;
  Layout base;
  base.micro_batch = 2;
  // 10 + 2 s / 1024 <= 50 GB -> s <= 20480: a multiple of 128 exactly.
  FitResult r = longest_sequence(base, Bytes{50e9}, LinearPeak{&calls}, 131072);
  EXPECT_EQ(r.value, 20480);
  // 10 + 2 s / 1024 <= 30.1 GB -> s <= 10291.2: rounds down to 10240.
  r = longest_sequence(base, Bytes{30.1e9}, LinearPeak{&calls}, 131072);
  EXPECT_EQ(r.value, 10240);
  EXPECT_EQ(r.value % kSeqLenStep, 0);
  // Limit fits: reported as the limit, even when it is not a multiple of 128.
  r = longest_sequence(base, Bytes{1e15}, LinearPeak{&calls}, 1000);
  EXPECT_EQ(r.value, 1000);
  EXPECT_TRUE(r.at_limit);
  // Below one step: exact. 10 + 2 s / 1024 <= 10.1 GB -> s <= 51.2.
  r = longest_sequence(base, Bytes{10.1e9}, LinearPeak{&calls}, 4096);
  EXPECT_EQ(r.value, 51);
}

// The query over layouts through evaluate(): the largest micro-batch's peak fits and the next
// one's does not.
TEST(FitSearch, FitOnFindsTheBoundaryOfTheEvaluatedPeak) {
  const TrainingJob job = testing_models::job_for("llama-2-7b-hf.json", Method::kLora);
  const Recipe& recipe = find_recipe(job.recipe_id);
  const ModelProfile profile = make_profile(job, recipe);
  const Layout layout = layout_of(job, recipe);
  const Bytes capacity{40e9};
  const MachineFit fit = fit_on(profile, layout, capacity);
  ASSERT_GT(fit.micro_batch.value, 1);
  Layout at = layout;
  at.micro_batch = fit.micro_batch.value;
  EXPECT_LE(evaluate(profile, at, ClusterProfile{}).memory, capacity);
  at.micro_batch += 1;
  EXPECT_GT(evaluate(profile, at, ClusterProfile{}).memory, capacity);
  // Llama-2-7B's context is 4096 tokens: the search stops there.
  EXPECT_EQ(fit.seq_len.limit, 4096);
}

// The pre-check never rejects what evaluate() accepts: it is a lower bound of the peak.
TEST(Precheck, RejectsOnlyWhatEvaluateRejects) {
  const TrainingJob job = testing_models::job_for("llama-2-7b-hf.json", Method::kFull);
  const Recipe& recipe = find_recipe(job.recipe_id);
  const ModelProfile profile = make_profile(job, recipe);
  int rejected = 0;
  for (const double gib : {16.0, 40.0, 80.0, 120.0, 141.0}) {
    for (const int zero : {0, 3}) {
      for (const std::int64_t b : {1, 4, 16}) {
        Layout l = layout_of(job, recipe);
        l.devices = 8;
        l.zero_stage = zero;
        l.micro_batch = b;
        ClusterProfile c;
        c.capacity = Bytes{gib * kGibi};
        if (precheck(profile, l, c) == Status::kOutOfMemory) {
          ++rejected;
          EXPECT_EQ(evaluate(profile, l, c).status, Status::kOutOfMemory) << gib << " " << zero;
        }
      }
    }
  }
  // 16 B/param x 6.74e9 = 108 GB of states: no replica fits in 16, 40 or 80 GiB.
  EXPECT_EQ(rejected, 9);
}

}  // namespace
}  // namespace tb
