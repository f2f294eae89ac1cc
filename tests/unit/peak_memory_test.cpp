// Peak memory as the maximum over the phases of a step, walked by hand for small cases and
// checked for the phase that wins in known regimes.
#include "trainbudget/eval/peak_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "test_models.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/report/estimate_words.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb {
namespace {

const std::filesystem::path kConfigs = std::filesystem::path{TB_TEST_DIR} / "data" / "hf_configs";

ModelArchitecture config(const std::string& name) { return io::load_hf_config(kConfigs / name); }

ModelArchitecture tiny() {
  ModelArchitecture a;
  a.model_type = "llama";
  a.hidden = 8;
  a.num_layers = 2;
  a.vocab = 16;
  a.max_positions = 64;
  a.attention.num_heads = 2;
  a.attention.num_kv_heads = 2;
  a.attention.head_dim = 4;
  a.mlp.intermediate = 16;
  return a;
}

// Full fine-tune of Llama-2-7B under amp-adam (16 B/param: 2 weights, 2 grads, 12 states).
struct Job {
  TrainingJob job = testing_models::job_for("llama-2-7b-hf.json", Method::kFull);
  ModelArchitecture arch = *job.model.architecture;
  double params = job.params;
  PeakMemory run(std::int64_t b, Recompute recompute = Recompute::kNone,
                 bool persist = false) const {
    const Recipe& recipe = find_recipe("amp-adam");
    Layout layout = layout_of(job, recipe);
    layout.micro_batch = b;
    layout.recompute = recompute;
    layout.grad_accum = persist ? 4 : 1;
    return describe_peak(evaluate(make_profile(job, recipe), layout, ClusterProfile{}));
  }
};

TEST(PeakMemory, WalksEveryMomentOfBackwardAndKeepsTheWorst) {
  const ModelArchitecture arch = tiny();
  TrainingSetup setup;
  setup.seq_len = 32;
  setup.attention = AttentionImpl::kEager;
  const ActivationEstimate acts = estimate_activations(arch, setup, DType::kBf16);
  // A profile with hand-set states and gradient layout: 1000 B resident, 600 B of gradients
  // landing 100 (head), 250 (top layer), 150 (bottom layer), 100 (embedding).
  TrainingJob job = testing_models::job_for("llama-2-7b-hf.json", Method::kFull);
  job.model.architecture = arch;
  ModelProfile p = make_profile(job, find_recipe("amp-adam"));
  p.states = {{StateKey::kWeights, "w", BytesPerParam{}, Params{}, Bytes{1000.0}, 3},
              {StateKey::kGradients, "g", BytesPerParam{}, Params{}, Bytes{600.0}, 2}};
  p.layer_gradient_share = {150.0 / 600.0, 250.0 / 600.0};
  p.head_gradient_share = 100.0 / 600.0;
  p.embedding_gradient_share = 100.0 / 600.0;
  p.largest_trainable_tensor = 0.0;
  Layout layout;
  layout.seq_len = 32;
  layout.attention = AttentionImpl::kEager;
  const PeakMemory peak = describe_peak(evaluate(p, layout, ClusterProfile{}));
  const LayerActivations& layer = acts.layer_kinds[0];
  const double r = 1000.0;
  const double head = r + 100 + acts.saved.value() + acts.logits_gradient.value();
  const double top = r + 100 + 250 + acts.layers_total.value() + layer.backward_workspace.value();
  const double bottom =
      r + 100 + 250 + 150 + layer.per_layer.value() + layer.backward_workspace.value();
  const double embedding = r + 600;
  EXPECT_DOUBLE_EQ(peak.phase(Phase::kBackward).total.value(),
                   std::max({head, top, bottom, embedding}));
  EXPECT_DOUBLE_EQ(peak.phase(Phase::kForwardEnd).total.value(), r + acts.saved.value());
  EXPECT_DOUBLE_EQ(peak.phase(Phase::kOptimizerStep).total.value(), r + 600);
  EXPECT_EQ(peak.phases.size(), 3U);
}

TEST(PeakMemory, SmallBatchFullFineTunePeaksAtTheOptimizerStep) {
  // b = 1, s = 2048: ~10.5 GB of activations against 13.5 GB of gradients plus the Adam
  // temporary (sqrt(v) and its quotient, 2 x 4 x 32000 x 4096 B for the embedding table, the
  // largest tensor).
  const Job job;
  const PeakMemory p = job.run(1);
  EXPECT_EQ(p.peak_phase, Phase::kOptimizerStep);
  EXPECT_DOUBLE_EQ(p.peak.value(), 16.0 * job.params + 2.0 * 4.0 * 32000 * 4096);
  EXPECT_EQ(enum_name(p.peak_phase), "optimizer_step");
}

TEST(PeakMemory, LargeBatchPeaksAtTheStartOfBackward) {
  const Job job;
  const PeakMemory p = job.run(8);
  EXPECT_EQ(p.peak_phase, Phase::kBackward);
  EXPECT_EQ(p.phase(Phase::kBackward).layer, kBackwardAtHead);
  EXPECT_EQ(report::moment_text(p.phase(Phase::kBackward)), "backward of the loss and LM head");
  EXPECT_GT(p.peak, p.phase(Phase::kForwardEnd).total);
  EXPECT_EQ(enum_name(Phase::kBackward), "backward");
}

TEST(PeakMemory, AccumulatedGradientsAreHeldThroughForward) {
  const Job job;
  const PeakMemory once = job.run(4);
  const PeakMemory accumulating = job.run(4, Recompute::kNone, true);
  EXPECT_DOUBLE_EQ(
      (accumulating.phase(Phase::kForwardEnd).total - once.phase(Phase::kForwardEnd).total).value(),
      2.0 * job.params);
}

TEST(PeakMemory, FullRecomputeHoldsCheckpointsPlusOneLayer) {
  const Job job;
  const PeakMemory p = job.run(8, Recompute::kFull);
  TrainingSetup setup;
  setup.micro_batch = 8;
  setup.recompute = Recompute::kFull;
  const ActivationEstimate acts = estimate_activations(job.arch, setup, DType::kBf16);
  EXPECT_DOUBLE_EQ(acts.layers_total.value(), 32.0 * 8 * 2048 * 4096 * 2);
  EXPECT_LT(p.peak, job.run(8).peak);
  EXPECT_DOUBLE_EQ(p.phase(Phase::kForwardEnd).activations.value(), acts.saved.value());
}

TEST(PeakMemory, OptimizerTransientByKernel) {
  // fp32 moments (4 B): per-tensor holds sqrt(v) and its quotient, two copies of the largest
  // tensor; foreach one copy of every trainable parameter; fused nothing.
  EXPECT_EQ(optimizer_step_transient(OptimizerKernel::kFused, 1e8, 7e9, 4.0).value(), 0.0);
  EXPECT_EQ(optimizer_step_transient(OptimizerKernel::kPerTensor, 1e8, 7e9, 4.0).value(), 8e8);
  EXPECT_EQ(optimizer_step_transient(OptimizerKernel::kForeach, 1e8, 7e9, 4.0).value(), 28e9);
  // bf16 moments (pure-bf16-adam): half; SGD without a second moment: none.
  EXPECT_EQ(optimizer_step_transient(OptimizerKernel::kForeach, 1e8, 7e9, 2.0).value(), 14e9);
  EXPECT_EQ(optimizer_step_transient(OptimizerKernel::kPerTensor, 1e8, 7e9, 0.0).value(), 0.0);
  EXPECT_EQ(adam_moment_bytes(find_recipe("amp-adam")), 4.0);
  EXPECT_EQ(adam_moment_bytes(find_recipe("pure-bf16-adam")), 2.0);
  EXPECT_EQ(adam_moment_bytes(find_recipe("sgd-momentum")), 0.0);
  EXPECT_EQ(largest_tensor_params(config("llama-2-7b-hf.json")), 32000.0 * 4096);
  // Llama-3-8B: the 128256 x 4096 table is larger than any projection.
  EXPECT_EQ(largest_tensor_params(config("meta-llama-3-8b.json")), 128256.0 * 4096);
}

TEST(PeakMemory, GradientSharesCoverTheModelAndFollowTying) {
  const ModelProfile llama = make_profile(
      testing_models::job_for("llama-2-7b-hf.json", Method::kFull), find_recipe("amp-adam"));
  double sum = llama.head_gradient_share + llama.embedding_gradient_share;
  for (const double share : llama.layer_gradient_share) sum += share;
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_EQ(llama.layer_gradient_share.size(), 32U);
  EXPECT_GT(llama.embedding_gradient_share, 0.0);
  const ModelProfile gpt2 =
      make_profile(testing_models::job_for("gpt2.json", Method::kFull), find_recipe("amp-adam"));
  EXPECT_EQ(gpt2.embedding_gradient_share, 0.0);
  // LoRA: gradients only for adapters, split evenly over the layers by evaluate().
  const ModelProfile lora = make_profile(
      testing_models::job_for("llama-2-7b-hf.json", Method::kLora), find_recipe("amp-adam"));
  EXPECT_TRUE(lora.adapters_only);
  EXPECT_TRUE(lora.layer_gradient_share.empty());
}

}  // namespace
}  // namespace tb
