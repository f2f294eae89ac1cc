// MoE parallel folding (Megatron-Core's expert_tensor_parallel_size, parallel_state.py): the
// expert grid etp x ep x edp fills the tp x cp x dp ranks, so expert parallelism may run over the
// tensor-parallel ranks. The rules, the memory by hand, who runs it, and the planner's search.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/layout_rules.hpp"
#include "trainbudget/eval/runner_rules.hpp"
#include "trainbudget/plan/planner.hpp"

namespace tb {
namespace {

using testing_models::job_for;

struct Mixtral {  // 8 experts, 32 heads
  TrainingJob job = job_for("mixtral-8x7b-v0.1.json", Method::kFull);
  Recipe recipe = find_recipe("amp-adam");
  ModelProfile profile = make_profile(job, recipe);
  Layout base = layout_of(job, recipe);
};

Layout on(const Layout& base, int devices, int tp, int ep, int etp) {
  Layout l = base;
  l.devices = devices;
  l.parallel.tp = tp;
  l.parallel.ep = ep;
  l.parallel.etp = etp;
  l.parallel.sequence_parallel = tp > 1;
  return l;
}

TEST(ExpertFolding, EpTimesEtpMustDivideTensorTimesContextTimesDataRanks) {
  const Mixtral m;
  // 16 devices at tp 4: dp x cp = 4, so ep 8 over the data-parallel ranks alone does not fit.
  EXPECT_EQ(first_violation(m.profile, on(m.base, 16, 4, 8, 0)), LayoutRule::kExpertRanks);
  // Folded: ep 8 over tp x dp = 16 with whole experts (etp 1), or experts halved (etp 2).
  EXPECT_EQ(first_violation(m.profile, on(m.base, 16, 4, 8, 1)), LayoutRule::kOk);
  EXPECT_EQ(first_violation(m.profile, on(m.base, 16, 4, 8, 2)), LayoutRule::kOk);
  // etp 4 is tp: unfolded, ep 8 over dp x cp = 4 again; 8 x 8 = 64 ranks are more than 16.
  EXPECT_EQ(first_violation(m.profile, on(m.base, 16, 4, 8, 4)), LayoutRule::kExpertRanks);
  const Layout wide = on(m.base, 16, 4, 8, 8);
  EXPECT_EQ(first_violation(m.profile, wide), LayoutRule::kExpertRanks);
  const std::vector<Problem> p = layout_problems(m.profile, wide);
  ASSERT_FALSE(p.empty());
  EXPECT_NE(p.front().message.find("ep x etp = 8 x 8"), std::string::npos) << p.front().message;
  // A dense model has no experts to split.
  const TrainingJob llama = job_for("meta-llama-3-8b.json", Method::kFull);
  const ModelProfile dense = make_profile(llama, m.recipe);
  EXPECT_EQ(first_violation(dense, on(layout_of(llama, m.recipe), 8, 2, 1, 1)),
            LayoutRule::kExperts);
}

// ZeRO-0 at tp 2 on 8 devices: dense rows over tp, expert rows over etp x ep. Unfolded ep 4
// (A) and folded ep 8 at etp 1 (B) both split the experts 8 ways; folded ep 4 at etp 1 (C) 4
// ways. So C - A is an eighth of the expert bytes, and one device's whole replica is
// dense + expert = 2 (A - (C - A)) + 8 (C - A).
TEST(ExpertFolding, ExpertStatesSplitOverEtpTimesEp) {
  const Mixtral m;
  const ClusterProfile none{};
  const double a = evaluate(m.profile, on(m.base, 8, 2, 4, 0), none).states.value();
  const double b = evaluate(m.profile, on(m.base, 8, 2, 8, 1), none).states.value();
  const double c = evaluate(m.profile, on(m.base, 8, 2, 4, 1), none).states.value();
  const double whole = evaluate(m.profile, m.base, none).states.value();
  EXPECT_DOUBLE_EQ(a, b);
  EXPECT_GT(c, a);
  EXPECT_NEAR(2.0 * a + 6.0 * (c - a), whole, whole * 1e-12);
  // The expert data-parallel group: tp x cp x dp over etp x ep (parallel_state.py).
  EXPECT_EQ(on(m.base, 8, 2, 4, 0).expert_shards(), 1);
  EXPECT_EQ(on(m.base, 8, 2, 4, 1).expert_shards(), 2);
  EXPECT_EQ(on(m.base, 8, 2, 8, 1).expert_shards(), 1);
}

// deepspeed/utils/groups.py cuts expert groups from the data-parallel groups; Megatron-Core
// folds them.
TEST(ExpertFolding, MegatronRunsItAndDeepSpeedDoesNot) {
  const Mixtral m;
  Layout l = on(m.base, 16, 4, 8, 1);
  l.zero_stage = 1;
  EXPECT_TRUE(runs(Runner::kMegatron, m.profile, l));
  EXPECT_FALSE(runs(Runner::kDeepspeed, m.profile, l));
  EXPECT_NE(refusal(Runner::kDeepspeed, m.profile, l).find("groups.py"), std::string::npos);
}

// On one node of 8 with tp 8 (every head split), only a folded layout can spread the experts:
// the planner, pinned to tp 8, finds one.
TEST(ExpertFolding, ThePlannerSearchesFoldedLayouts) {
  Mixtral m;
  m.job.tokens = 1e9;
  const std::vector<plan::Workload> workloads{{m.profile, "full", 0}};
  const MachineChoice h100 = testing_models::builtin_machine("h100-sxm");
  const ClusterProfile cluster = cluster_of(m.job, h100, select_rate(*h100.device, DType::kBf16));
  plan::PlanSpace space = plan::default_space(m.profile, 8, cluster.fabric);
  ASSERT_EQ(space.etp, (std::vector<int>{0, 1}));
  space.tp = {8};
  space.pp = {1};
  space.cp = {1};
  plan::SearchOptions o;
  o.threads = 1;
  o.top = 256;
  const plan::SearchResult found = plan::search(workloads, m.base, space, 8, 64, cluster, o);
  bool folded = false;
  for (const plan::Candidate& c : found.best) {
    EXPECT_EQ(first_violation(m.profile, c.layout), LayoutRule::kOk);
    folded = folded || (c.layout.parallel.ep > 1 && c.layout.parallel.etp == 1);
  }
  EXPECT_TRUE(folded);
}

}  // namespace
}  // namespace tb
