// The gate of the engine change: every number the estimate reports equals, bit for bit, what
// evaluate() computes from the model profile, over every shipped preset, every method, a
// spread of layouts and every catalog device.
#include <gtest/gtest.h>

#include <filesystem>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/model/profile.hpp"

namespace tb {
namespace {

const std::filesystem::path kData{TB_TEST_DATA_DIR};

struct Knobs {
  std::int64_t micro_batch, seq_len;
  AttentionImpl attention;
  Recompute recompute;
  double dropout;
  std::int64_t grad_accum;
  int devices, zero;
  bool causal;
};

constexpr Knobs kKnobs[] = {
    {1, 0, AttentionImpl::kFlash, Recompute::kNone, 0.0, 1, 1, 0, false},
    {3, 4096, AttentionImpl::kEager, Recompute::kNone, 0.1, 1, 1, 0, false},
    {2, 1024, AttentionImpl::kFlash, Recompute::kSelective, 0.0, 4, 8, 3, true},
    {1, 8192, AttentionImpl::kEager, Recompute::kFull, 0.0, 1, 4, 2, false},
    {8, 512, AttentionImpl::kEager, Recompute::kSelective, 0.1, 2, 2, 1, true},
    {1, 2048, AttentionImpl::kFlash, Recompute::kFull, 0.1, 1, 64, 3, false},
};

Layout layout_of(const TrainingJob& job, const Recipe& recipe) {
  const TrainingSetup s =
      resolved_setup(job.setup, job.model.architecture ? job.model.architecture->max_positions : 0);
  Layout l;
  l.devices = job.devices;
  l.zero_stage = job.zero_stage;
  l.micro_batch = s.micro_batch;
  l.grad_accum = s.grad_accumulation;
  l.seq_len = s.seq_len;
  l.attention = s.attention;
  l.recompute = s.recompute;
  l.activation_dtype = activation_dtype(s, recipe);
  l.dropout = s.dropout;
  l.causal_flops = s.causal_flops;
  return l;
}

void expect_same(const Scenario& old, const TrainingJob& job, const Recipe& recipe,
                 const std::vector<MachineChoice>& machines, std::optional<Bytes> lora_total) {
  const ModelProfile profile = make_profile(job, recipe);
  const Layout layout = layout_of(job, recipe);
  EXPECT_EQ(old.params_trainable, profile.trainable);
  for (std::size_t i = 0; i < machines.size(); ++i) {
    const MachineEstimate& m = old.machines[i];
    ClusterProfile cluster{m.device->memory_capacity, m.rate ? m.rate->dense : FlopsPerSecond{0.0},
                           job.utilization};
    const StepCost c = evaluate(profile, layout, cluster);
    SCOPED_TRACE(m.device->id);
    ASSERT_EQ(old.memory.total.value(), c.memory.value());
    ASSERT_EQ(old.memory.replica_total().value(), c.replica.value());
    ASSERT_EQ(old.compute.flops_per_token, c.flops_per_token);
    ASSERT_EQ(old.compute.flops_per_token_6n, c.reference_6n);
    ASSERT_EQ(old.compute.total.value(), c.total.value());
    ASSERT_EQ(m.at_peak.count(), c.at_peak.count());
    ASSERT_EQ(m.at_utilization.count(), c.at_utilization.count());
    ASSERT_EQ(m.fits, c.status == Status::kFits);
    ASSERT_EQ(m.devices_to_fit, c.devices_to_fit);
    (void)lora_total;
    if (!old.step) continue;
    const StepAnalysis& s = *old.step;
    ASSERT_EQ(s.activations.saved.value(), c.saved.value());
    ASSERT_EQ(s.activations.logits_gradient.value(), c.logits_gradient.value());
    ASSERT_EQ(s.peak.peak.value(), c.memory.value());
    ASSERT_EQ(s.peak.peak_phase, c.peak_phase);
    for (const PhaseMemory& p : s.peak.phases) {
      const PhaseCost& q = c.phases[static_cast<std::size_t>(p.phase)];
      ASSERT_EQ(p.total.value(), q.total.value()) << phase_key(p.phase);
      ASSERT_EQ(p.gradients.value(), q.gradients.value()) << phase_key(p.phase);
      ASSERT_EQ(p.activations.value(), q.activations.value()) << phase_key(p.phase);
      ASSERT_EQ(p.transient.value(), q.transient.value()) << phase_key(p.phase);
    }
    ASSERT_EQ(s.flops.hardware_per_token, c.flop_terms.hardware_per_token);
    ASSERT_EQ(s.flops.model_per_token, c.flop_terms.model_per_token);
    for (const LayerActivations& kind : s.activations.layer_kinds) {
      const LayerKindBytes& k = kind.moe ? c.moe : c.dense;
      ASSERT_EQ(kind.per_layer.value(), k.per_layer.value());
      ASSERT_EQ(kind.recompute_transient.value(), k.recompute_transient.value());
      ASSERT_EQ(kind.backward_workspace.value(), k.backward_workspace.value());
    }
  }
}

TEST(EvaluateGate, EveryPresetMethodAndLayoutGivesTheEstimatesNumbersExactly) {
  const HardwareCatalog catalog = io::load_catalog(io::CatalogSources{kData / "hardware", {}});
  std::vector<MachineChoice> machines;
  for (const Device& d : catalog.devices()) machines.push_back({&d, std::nullopt});
  machines.push_back({catalog.find("h100-sxm"), DType::kFp8});
  int cases = 0;
  for (const io::ModelPreset& preset : io::load_model_presets(kData / "models")) {
    for (const Method method : {Method::kFull, Method::kLora, Method::kQlora, Method::kFreeze}) {
      for (const Knobs& k : kKnobs) {
        SCOPED_TRACE(preset.id + " " + std::string{method_name(method)});
        TrainingJob job;
        job.model.kind = "preset";
        job.model.architecture = preset.architecture;
        job.model.counts = count_params(preset.architecture);
        job.params = static_cast<double>(job.model.counts->total);
        job.method = method;
        job.trainable_fraction = 0.1;
        job.devices = k.devices;
        job.zero_stage = k.zero;
        job.setup.micro_batch = k.micro_batch;
        if (k.seq_len > 0) {
          job.setup.seq_len = k.seq_len;
          job.setup.seq_len_given = true;
        }
        job.setup.attention = k.attention;
        job.setup.recompute = k.recompute;
        job.setup.dropout = k.dropout;
        job.setup.grad_accumulation = k.grad_accum;
        job.setup.causal_flops = k.causal;
        if (method == Method::kLora) job.lora.targets = {"all-linear"};
        if (method == Method::kFreeze) job.recipe_id = "deepspeed";
        const Estimate old = estimate(job, machines);
        const Recipe& recipe = find_recipe(job.recipe_id);
        std::optional<Bytes> lora_total;
        if (old.lora_alternative) {
          TrainingJob lora = job;
          lora.method = Method::kLora;
          expect_same(*old.lora_alternative, lora, recipe, machines, std::nullopt);
        }
        expect_same(old.primary, job, recipe, machines, lora_total);
        if (::testing::Test::HasFatalFailure()) return;
        ++cases;
      }
    }
  }
  EXPECT_GE(cases, 4 * 6 * 40);
}

TEST(EvaluateGate, CountJobsGiveTheEstimatesNumbersExactly) {
  const HardwareCatalog catalog = io::load_catalog(io::CatalogSources{kData / "hardware", {}});
  std::vector<MachineChoice> machines;
  for (const Device& d : catalog.devices()) machines.push_back({&d, std::nullopt});
  for (const Method method : {Method::kFull, Method::kLora, Method::kQlora, Method::kFreeze}) {
    for (const char* recipe_id : {"amp-adam", "deepspeed", "adam-8bit", "fp8-amp"}) {
      for (const int zero : {0, 1, 2, 3}) {
        TrainingJob job;
        job.params = 70e9;
        job.tokens = 2e12;
        job.method = method;
        job.recipe_id = recipe_id;
        job.devices = 16;
        job.zero_stage = zero;
        const Estimate old = estimate(job, machines);
        const Recipe& recipe = find_recipe(job.recipe_id);
        if (old.lora_alternative) {
          TrainingJob lora = job;
          lora.method = Method::kLora;
          expect_same(*old.lora_alternative, lora, recipe, machines, std::nullopt);
        }
        expect_same(old.primary, job, recipe, machines, std::nullopt);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace tb
