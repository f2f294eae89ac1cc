// Megatron-Core's uneven pipeline split (num_layers_in_first_pipeline_stage and
// num_layers_in_last_pipeline_stage, transformer_block.py get_num_layers_to_build): the stage
// bounds by hand, the rule with its words, and the middle stage that then sets the memory and
// the pipeline's pace.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/layout_rules.hpp"
#include "trainbudget/eval/runner_rules.hpp"

namespace tb {
namespace {

using testing_models::job_for;

Parallelism split(int pp, int first, int last) {
  Parallelism x;
  x.pp = pp;
  x.first_stage_layers = first;
  x.last_stage_layers = last;
  return x;
}

// DeepSeek-V3's 61 layers as NeMo RL's recipe splits them over 16 stages (3 first, 2 last, 4
// each between), Qwen3-235B's 94 over 8 (11, 11, 12 each), and one edge given alone.
TEST(UnevenStages, TheEdgesTakeTheirLayersAndTheRestSplitEvenly) {
  const Parallelism dsv3 = split(16, 3, 2);
  EXPECT_EQ(stage_bounds(61, dsv3, 0).begin, 0);
  EXPECT_EQ(stage_bounds(61, dsv3, 0).end, 3);
  EXPECT_EQ(stage_bounds(61, dsv3, 1).begin, 3);
  EXPECT_EQ(stage_bounds(61, dsv3, 1).end, 7);
  EXPECT_EQ(stage_bounds(61, dsv3, 14).end, 59);
  EXPECT_EQ(stage_bounds(61, dsv3, 15).begin, 59);
  EXPECT_EQ(stage_bounds(61, dsv3, 15).end, 61);
  const Parallelism qwen = split(8, 11, 11);
  EXPECT_EQ(stage_bounds(94, qwen, 1).end - stage_bounds(94, qwen, 1).begin, 12);
  EXPECT_EQ(stage_bounds(94, qwen, 7).begin, 83);
  const Parallelism first_only = split(3, 2, 0);
  EXPECT_EQ(stage_bounds(10, first_only, 1).begin, 2);
  EXPECT_EQ(stage_bounds(10, first_only, 1).end, 6);
  EXPECT_EQ(stage_bounds(10, first_only, 2).end, 10);
  // Unset, the even split: 126 layers over 16, one more on the first 14.
  const Parallelism even = split(16, 0, 0);
  EXPECT_EQ(stage_bounds(126, even, 13).end - stage_bounds(126, even, 13).begin, 8);
  EXPECT_EQ(stage_bounds(126, even, 14).end - stage_bounds(126, even, 14).begin, 7);
  EXPECT_EQ(stage_bounds(126, even, 15).end, 126);
}

struct Llama {  // 32 layers, 32 heads
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  Recipe recipe = find_recipe("amp-adam");
  ModelProfile profile = make_profile(job, recipe);
  Layout base = layout_of(job, recipe);
  Layout on(int pp, int first, int last) const {
    Layout l = base;
    l.devices = pp;
    l.grad_accum = 8;
    l.parallel.pp = pp;
    l.parallel.first_stage_layers = first;
    l.parallel.last_stage_layers = last;
    return l;
  }
};

TEST(UnevenStages, TheLayersLeftMustSplitEvenlyOverTheOtherStages) {
  const Llama m;
  EXPECT_EQ(first_violation(m.profile, m.on(4, 6, 6)), LayoutRule::kOk);    // 20 over 2
  EXPECT_EQ(first_violation(m.profile, m.on(4, 5, 0)), LayoutRule::kOk);    // 27 over 3
  EXPECT_EQ(first_violation(m.profile, m.on(2, 20, 12)), LayoutRule::kOk);  // the edges are all
  EXPECT_EQ(first_violation(m.profile, m.on(4, 5, 6)), LayoutRule::kStageLayers);    // 21 over 2
  EXPECT_EQ(first_violation(m.profile, m.on(2, 20, 10)), LayoutRule::kStageLayers);  // 2 left
  EXPECT_EQ(first_violation(m.profile, m.on(4, 16, 15)), LayoutRule::kStageLayers);  // 1 over 2
  Layout interleaved = m.on(4, 6, 6);
  interleaved.parallel.virtual_stages = 2;
  EXPECT_EQ(first_violation(m.profile, interleaved), LayoutRule::kStageLayers);
  // Who runs it: Megatron-Core and torchtitan (module_fqns_per_model_part) take the counts;
  // DeepSpeed's PipelineModule splits by its partition_method instead.
  EXPECT_TRUE(runs(Runner::kMegatron, m.profile, m.on(4, 6, 6)));
  EXPECT_TRUE(runs(Runner::kFsdp, m.profile, m.on(4, 6, 6)));
  EXPECT_FALSE(runs(Runner::kDeepspeed, m.profile, m.on(4, 6, 6)));
  EXPECT_TRUE(runs(Runner::kDeepspeed, m.profile, m.on(4, 0, 0)));
  const std::vector<Problem> p = layout_problems(m.profile, m.on(4, 5, 6));
  ASSERT_EQ(p.size(), 1U);
  EXPECT_EQ(p[0].field, "first_stage_layers");
  EXPECT_NE(p[0].message.find("leaves 21 of the model's 32 decoder layers to 2 other stages"),
            std::string::npos);
}

// 32 layers over 4 stages as 6, 10, 10, 6: stage 1 runs 10 layers with 3 micro-batches in flight
// under 1F1B (pp - 1), 30 layers' worth of activations against stage 0's 6 x 4 = 24, so it is
// the one reported; the even split's 8 per stage holds 32 on stage 0. The time by hand below.
TEST(UnevenStages, AMiddleStageCanHoldTheMostAndSetThePace) {
  const Llama m;
  const StepCost one = evaluate(m.profile, m.base, ClusterProfile{});
  const StepCost uneven = evaluate(m.profile, m.on(4, 6, 6), ClusterProfile{});
  ASSERT_EQ(uneven.stage, 1);
  EXPECT_NEAR(uneven.layers_saved / one.layers_saved, 30.0 / 32.0, 1e-12);
  // The edges at the even split's own 8 layers change the memory not at all and the step by
  // the per-stage terms alone: they then take the slowest stage (the last, with the head)
  // where the even split takes the first.
  const MachineChoice h100 = testing_models::builtin_machine("h100-sxm");
  const ClusterProfile c = cluster_of(m.job, h100, select_rate(*h100.device, DType::kBf16));
  const StepCost even = evaluate(m.profile, m.on(4, 0, 0), c);
  const StepCost same = evaluate(m.profile, m.on(4, 8, 8), c);
  EXPECT_DOUBLE_EQ(same.memory.value(), even.memory.value());
  EXPECT_DOUBLE_EQ(same.time.micro_batch.count(), even.time.micro_batch.count());
  EXPECT_NEAR(same.time.step.count() / even.time.step.count(), 1.0, 1e-6);
  // Middle stages of 14, 12 and 10 layers (edges of 2, 4 and 6, each with its embedding or head
  // lighter than the middle): the slowest stage is a middle one, so two layers more on it add
  // two layers' forward and backward to the micro-batch, exactly.
  const StepCost m14 = evaluate(m.profile, m.on(4, 2, 2), c);
  const StepCost m12 = evaluate(m.profile, m.on(4, 4, 4), c);
  const StepCost m10 = evaluate(m.profile, m.on(4, 6, 6), c);
  const double layer = (m12.time.layer_forward + m12.time.layer_backward).count();
  EXPECT_NEAR((m14.time.micro_batch - m12.time.micro_batch).count(), 2.0 * layer, 1e-9);
  EXPECT_NEAR((m12.time.micro_batch - m10.time.micro_batch).count(), 2.0 * layer, 1e-9);
  EXPECT_NEAR(m10.time.micro_batch.count(), 10.0 * layer, 1e-9);
  // Llama 3's reason for the split: the even split's last stage runs 8 layers and the head (a
  // 4096 x 128,256 GEMM and its loss), slower than any stage of 6, 10, 10, 6.
  EXPECT_LT(m10.time.micro_batch.count(), even.time.micro_batch.count());
}

// torchtitan's split (_generate_llm_fqn_per_model_part, the embedding and the output a layer
// each): Llama 3.1 405B's 126 layers over 8 stages as 15, 6 x 16 and 15 (128 effective, 16 a
// stage), Llama 3 8B's 32 over 4 as 8, 9, 8, 7 (34 effective: 9, 9, 8, 8, one off each edge);
// given edge counts take Megatron-Core's rule; interleaving, or a stage of one effective layer,
// keeps the even split. On Llama 3 8B the step then runs at the pace of 7, 9, 9, 7's: each
// split's slowest stage is its 9-layer middle one or its 7 layers with the head.
TEST(UnevenStages, TorchtitansSplitCountsTheEmbeddingAndTheOutput) {
  Parallelism x;
  x.pp = 8;
  x.edge_layers = true;
  ASSERT_TRUE(edge_weighted_stages(126, x));
  EXPECT_EQ(stage_bounds(126, x, 0).end, 15);
  for (int i = 1; i < 7; ++i) {
    EXPECT_EQ(stage_bounds(126, x, i).end - stage_bounds(126, x, i).begin, 16) << i;
  }
  EXPECT_EQ(stage_bounds(126, x, 7).begin, 111);
  EXPECT_EQ(stage_bounds(126, x, 7).end, 126);
  x.pp = 4;
  const int sizes[] = {8, 9, 8, 7};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(stage_bounds(32, x, i).end - stage_bounds(32, x, i).begin, sizes[i]) << i;
  }
  EXPECT_EQ(stage_bounds(32, x, 3).end, 32);
  x.first_stage_layers = 6;
  x.last_stage_layers = 6;
  EXPECT_FALSE(edge_weighted_stages(32, x));
  EXPECT_EQ(stage_bounds(32, x, 1).end - stage_bounds(32, x, 1).begin, 10);
  x.first_stage_layers = x.last_stage_layers = 0;
  x.virtual_stages = 2;
  EXPECT_FALSE(edge_weighted_stages(32, x));
  EXPECT_EQ(stage_bounds(32, x, 0).end, 8);
  x.virtual_stages = 1;
  x.pp = 17;  // 34 effective layers: 2 a stage, so the edges keep one decoder layer
  EXPECT_TRUE(edge_weighted_stages(32, x));
  x.pp = 18;  // 1 a stage: an edge would hold none
  EXPECT_FALSE(edge_weighted_stages(32, x));

  const Llama m;
  const MachineChoice h100 = testing_models::builtin_machine("h100-sxm");
  const ClusterProfile c = cluster_of(m.job, h100, select_rate(*h100.device, DType::kBf16));
  Layout titan = m.on(4, 0, 0);
  titan.parallel.edge_layers = true;
  const StepCost split = evaluate(m.profile, titan, c);
  const StepCost m9 = evaluate(m.profile, m.on(4, 7, 7), c);  // middles of 9
  EXPECT_NEAR(split.time.micro_batch.count(), m9.time.micro_batch.count(), 1e-9);
}

}  // namespace
}  // namespace tb
