// Each framework's refusals (src/eval/runner_rules.cpp, docs/frameworks.md "Who runs the
// layout"), one test per framework, each rule against the framework's own code, and the planner
// searching only what `--framework` runs.
#include "trainbudget/eval/runner_rules.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_models.hpp"
#include "trainbudget/plan/planner.hpp"

namespace tb {
namespace {

using testing_models::job_for;

ModelProfile llama() {
  const TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  return make_profile(job, find_recipe(job.recipe_id));
}

Layout layout(int devices, int tp, int pp, int zero) {
  Layout l;
  l.devices = devices;
  l.parallel.tp = tp;
  l.parallel.pp = pp;
  l.zero_stage = zero;
  l.grad_accum = 8;
  return l;
}

// deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline
// parallelism"; pipe/schedule.py has no interleaved schedule; zero/offload_config.py: optimizer
// offload "Valid with stage 1, 2, and 3"; engine.py: "Native DeepSpeed MoE is not supported with
// ZeRO Stage 3".
TEST(RunnerRules, DeepSpeedPipelinesOnlyUpToZeroOneAndOffloadsFromZeroOne) {
  const ModelProfile p = llama();
  EXPECT_TRUE(runs(Runner::kDeepspeed, p, layout(16, 2, 2, 1)));
  EXPECT_FALSE(runs(Runner::kDeepspeed, p, layout(16, 2, 2, 2)));
  EXPECT_FALSE(runs(Runner::kDeepspeed, p, layout(16, 2, 2, 3)));
  EXPECT_TRUE(runs(Runner::kDeepspeed, p, layout(16, 1, 1, 3)));
  Layout v = layout(16, 1, 4, 0);
  v.parallel.virtual_stages = 2;
  EXPECT_FALSE(runs(Runner::kDeepspeed, p, v));
  Layout off = layout(8, 1, 1, 0);
  off.parallel.offload = Offload::kOptimizer;
  EXPECT_FALSE(runs(Runner::kDeepspeed, p, off));
  off.zero_stage = 1;
  EXPECT_TRUE(runs(Runner::kDeepspeed, p, off));
  Layout cp = layout(8, 1, 1, 1);
  cp.parallel.cp = 2;
  EXPECT_FALSE(runs(Runner::kDeepspeed, p, cp));
  Layout moe = layout(8, 1, 1, 3);
  moe.parallel.ep = 2;
  EXPECT_FALSE(runs(Runner::kDeepspeed, p, moe));
  EXPECT_NE(refusal(Runner::kDeepspeed, p, layout(16, 2, 2, 2)).find("pipe/engine.py"),
            std::string::npos);
}

// megatron/core/optimizer/__init__.py: optimizer offload only with the distributed optimizer;
// transformer_config.py: no activation offload with pipelining or recomputation;
// arguments.py: interleaving needs pp > 2; no parameter offload.
TEST(RunnerRules, MegatronOffloadsTheOptimizerOnlyWithTheDistributedOptimizer) {
  const ModelProfile p = llama();
  EXPECT_TRUE(runs(Runner::kMegatron, p, layout(16, 2, 2, 1)));
  EXPECT_FALSE(runs(Runner::kMegatron, p, layout(16, 2, 2, 3)));
  EXPECT_TRUE(runs(Runner::kMegatron, p, layout(16, 2, 1, 3)));  // Megatron-FSDP
  Layout off = layout(8, 1, 1, 0);
  off.parallel.offload = Offload::kOptimizer;
  EXPECT_FALSE(runs(Runner::kMegatron, p, off));
  off.zero_stage = 1;
  EXPECT_TRUE(runs(Runner::kMegatron, p, off));
  off.parallel.offload = Offload::kParams;
  off.zero_stage = 3;
  EXPECT_FALSE(runs(Runner::kMegatron, p, off));
  Layout act = layout(16, 2, 2, 1);
  act.offload_activations = true;
  EXPECT_FALSE(runs(Runner::kMegatron, p, act));
  act.parallel.pp = 1;
  EXPECT_TRUE(runs(Runner::kMegatron, p, act));
  act.recompute = Recompute::kFull;
  EXPECT_FALSE(runs(Runner::kMegatron, p, act));
  Layout v = layout(16, 1, 2, 1);
  v.parallel.virtual_stages = 2;
  EXPECT_FALSE(runs(Runner::kMegatron, p, v));
  v.parallel.pp = 4;
  EXPECT_TRUE(runs(Runner::kMegatron, p, v));
}

// torchtitan/distributed/fsdp.py: DDP or FSDP (no ZeRO-1); CPUOffloadPolicy moves weights,
// gradients and optimizer states together.
TEST(RunnerRules, FsdpHasNoZeroOneAndOffloadsEverythingOrNothing) {
  const ModelProfile p = llama();
  EXPECT_TRUE(runs(Runner::kFsdp, p, layout(16, 2, 2, 2)));
  EXPECT_FALSE(runs(Runner::kFsdp, p, layout(16, 2, 2, 1)));
  Layout off = layout(8, 1, 1, 3);
  off.parallel.offload = Offload::kOptimizer;
  EXPECT_FALSE(runs(Runner::kFsdp, p, off));
  off.parallel.offload = Offload::kParams;
  EXPECT_TRUE(runs(Runner::kFsdp, p, off));
  Layout act = layout(8, 1, 1, 3);
  act.offload_activations = true;
  EXPECT_FALSE(runs(Runner::kFsdp, p, act));
}

// accelerate/accelerator.py: "Pipeline parallelism is currently not supported in Accelerate."
TEST(RunnerRules, TheHfTrainerRunsDataParallelismWithZeroAndOffload) {
  const ModelProfile p = llama();
  EXPECT_TRUE(runs(Runner::kAccelerate, p, layout(8, 1, 1, 3)));
  EXPECT_FALSE(runs(Runner::kAccelerate, p, layout(8, 1, 2, 1)));
  EXPECT_FALSE(runs(Runner::kAccelerate, p, layout(8, 2, 1, 1)));
  Layout off = layout(8, 1, 1, 2);
  off.parallel.offload = Offload::kOptimizer;
  EXPECT_TRUE(runs(Runner::kAccelerate, p, off));
}

TEST(RunnerRules, GenericNamesTheFirstFrameworkThatRunsIt) {
  const ModelProfile p = llama();
  const std::span<const Runner> any = runners_of(Framework::kGeneric);
  // Every runner but unsloth's, which only --framework unsloth names.
  ASSERT_EQ(any.size(), kRunners - 1);
  EXPECT_EQ(std::ranges::find(any, Runner::kUnsloth), any.end());
  EXPECT_EQ(runner_for(any, p, layout(16, 2, 2, 1)), Runner::kMegatron);
  // ZeRO-2 under pipelining: torchtitan's FSDP without resharding after forward.
  EXPECT_EQ(runner_for(any, p, layout(16, 2, 2, 2)), Runner::kFsdp);
  Layout none = layout(16, 2, 2, 1);
  none.parallel.offload = Offload::kOptimizer;
  none.zero_stage = 0;
  EXPECT_EQ(runner_for(any, p, none), std::nullopt);
  EXPECT_EQ(runners_of(Framework::kDeepspeed).size(), 1U);
  EXPECT_EQ(runners_of(Framework::kTorchtitan).front(), Runner::kFsdp);
  EXPECT_EQ(runners_of(Framework::kHf).front(), Runner::kAccelerate);
}

// unsloth/_gpu_init.py at 015bdef: "Multi-GPU is not yet supported"; its gradient checkpointing
// wraps every decoder layer, and its offload moves those checkpoints (the layer inputs).
TEST(RunnerRules, UnslothRunsOneGpuWithEveryLayerCheckpointed) {
  const ModelProfile p = llama();
  ASSERT_EQ(runners_of(Framework::kUnsloth).size(), 1U);
  EXPECT_EQ(runners_of(Framework::kUnsloth).front(), Runner::kUnsloth);
  Layout one = layout(1, 1, 1, 0);
  EXPECT_TRUE(runs(Runner::kUnsloth, p, one));
  EXPECT_FALSE(runs(Runner::kUnsloth, p, layout(2, 1, 1, 0)));
  EXPECT_EQ(refusal(Runner::kUnsloth, p, layout(8, 1, 1, 3)),
            "unsloth trains on one GPU (unsloth/_gpu_init.py: multi-GPU is not yet supported)");
  one.offload_activations = true;
  EXPECT_FALSE(runs(Runner::kUnsloth, p, one));
  one.recompute = Recompute::kFull;
  EXPECT_TRUE(runs(Runner::kUnsloth, p, one));
  one.recompute = Recompute::kSelective;
  one.offload_activations = false;
  EXPECT_FALSE(runs(Runner::kUnsloth, p, one));
}

// `--framework deepspeed` searches only what DeepSpeed runs: no kept layout pipelines above
// ZeRO-1 or interleaves, and each one passes DeepSpeed's rules.
TEST(RunnerRules, APlanForOneFrameworkKeepsOnlyWhatItRuns) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.tokens = 1e10;
  const Recipe& r = find_recipe(job.recipe_id);
  const std::vector<plan::Workload> workloads{{make_profile(job, r), "full", 0}};
  const MachineChoice h100 = testing_models::builtin_machine("h100-sxm");
  const ClusterProfile cluster = cluster_of(job, h100, select_rate(*h100.device, DType::kBf16));
  for (const Framework f : {Framework::kDeepspeed, Framework::kMegatron, Framework::kFsdp}) {
    plan::PlanSpace space = plan::default_space(workloads.front().profile, 16, cluster.fabric);
    const std::span<const Runner> runners = runners_of(f);
    space.runners.assign(runners.begin(), runners.end());
    plan::SearchOptions o;
    o.threads = 1;
    o.top = 64;
    const plan::SearchResult found =
        plan::search(workloads, layout_of(job, r), space, 16, 256, cluster, o);
    ASSERT_FALSE(found.best.empty()) << enum_name(f);
    EXPECT_GT(found.stats.grid.runners, 0U) << enum_name(f);
    for (const plan::Candidate& c : found.best) {
      EXPECT_TRUE(runs(runners.front(), workloads.front().profile, c.layout))
          << enum_name(f) << ": " << refusal(runners.front(), workloads.front().profile, c.layout);
    }
  }
}

}  // namespace
}  // namespace tb
