// Block recomputation (Megatron-LM's recompute_method block, recompute_num_layers N): the first
// N decoder layers of each pipeline stage recompute and the others keep every activation. The
// ends are exact (N = every layer is full recomputation, N = 0 is none) and a stage's saved
// activations, hardware FLOPs and compute are linear in N between them (hand-derived: identical
// layers each keep either the checkpoint or everything).
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/plan/planner.hpp"

namespace tb {
namespace {

using testing_models::job_for;

struct Trial {
  StepCost cost;
  Layout layout;
};

Trial run(Recompute mode, std::int64_t layers, int pp = 1) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.seq_len = 4096;
  job.setup.seq_len_given = true;
  job.setup.micro_batch = 2;
  job.setup.grad_accumulation = 4;
  job.setup.recompute = mode;
  job.setup.recompute_layers = layers;
  job.devices = 8 * pp;
  job.parallel.pp = pp;
  job.zero_stage = 3;
  const Recipe& r = find_recipe(job.recipe_id);
  const MachineChoice m = testing_models::builtin_machine("h100-sxm");
  const ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  const Layout l = layout_of(job, r);
  return {evaluate(make_profile(job, r), l, c), l};
}

TEST(BlockRecompute, EveryLayerIsFullAndNoLayerIsNone) {
  const Trial full = run(Recompute::kFull, kAllLayers);
  const Trial all = run(Recompute::kFull, 32);
  const Trial more = run(Recompute::kFull, 40);  // past the stage's 32 layers: all of them
  EXPECT_DOUBLE_EQ(all.cost.memory.value(), full.cost.memory.value());
  EXPECT_DOUBLE_EQ(all.cost.time.step.count(), full.cost.time.step.count());
  EXPECT_DOUBLE_EQ(more.cost.memory.value(), full.cost.memory.value());
  const Trial none = run(Recompute::kNone, kAllLayers);
  const Trial zero = run(Recompute::kFull, 0);
  EXPECT_DOUBLE_EQ(zero.cost.layers_saved.value(), none.cost.layers_saved.value());
  EXPECT_NEAR(zero.cost.memory.value(), none.cost.memory.value(), 1.0);
  EXPECT_NEAR(zero.cost.hardware_per_token.value(), none.cost.hardware_per_token.value(),
              1e-9 * none.cost.hardware_per_token.value());
  EXPECT_NEAR(zero.cost.time.compute.count(), none.cost.time.compute.count(),
              1e-12 + 1e-9 * none.cost.time.compute.count());
}

TEST(BlockRecompute, HalfTheLayersIsHalfWayInActivationsFlopsAndCompute) {
  const Trial none = run(Recompute::kFull, 0);
  const Trial half = run(Recompute::kFull, 16);
  const Trial all = run(Recompute::kFull, 32);
  const auto mid = [](double a, double b) { return (a + b) / 2.0; };
  EXPECT_NEAR(half.cost.layers_saved.value(),
              mid(none.cost.layers_saved.value(), all.cost.layers_saved.value()), 1.0);
  EXPECT_NEAR(half.cost.hardware_per_token.value(),
              mid(none.cost.hardware_per_token.value(), all.cost.hardware_per_token.value()),
              1e-9 * all.cost.hardware_per_token.value());
  EXPECT_NEAR(half.cost.time.compute.count(),
              mid(none.cost.time.compute.count(), all.cost.time.compute.count()),
              1e-9 * all.cost.time.compute.count());
  // Full recomputation of every layer reruns each layer's forward: 8N of FLOPs per token on
  // the GEMMs against 6N, so the ends differ by about a third.
  EXPECT_GT(all.cost.time.compute / none.cost.time.compute, 1.2);
  EXPECT_LT(half.cost.memory, none.cost.memory);
  EXPECT_GT(half.cost.memory, all.cost.memory);
}

TEST(BlockRecompute, CountsPerPipelineStage) {
  // pp 4: 8 layers a stage; 2 of them recompute in each, 8 of the 32 in all.
  const Trial none = run(Recompute::kFull, 0, 4);
  const Trial two = run(Recompute::kFull, 2, 4);
  const Trial all = run(Recompute::kFull, kAllLayers, 4);
  const double share =
      (two.cost.hardware_per_token.value() - none.cost.hardware_per_token.value()) /
      (all.cost.hardware_per_token.value() - none.cost.hardware_per_token.value());
  EXPECT_NEAR(share, 8.0 / 32.0, 1e-9);
}

}  // namespace
}  // namespace tb
