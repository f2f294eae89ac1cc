// The training budget against the seed document, the ZeRO paper and hand-derived values.
#include "trainbudget/eval/estimate.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

Device device(std::string id, double memory_gb, std::vector<std::pair<DType, double>> tflops,
              RateKind kind = RateKind::kSpec) {
  Device d;
  d.id = id;
  d.name = id;
  d.memory_capacity = Bytes{memory_gb * kGiga};
  for (auto [dtype, rate] : tflops) {
    ComputeRate r;
    r.dtype = dtype;
    r.dense = FlopsPerSecond{rate * kTera};
    r.kind = kind;
    r.source = "test";
    d.rates.push_back(r);
  }
  return d;
}

// The seed's four machines, built here so the test does not depend on data/ (a separate test
// checks data/ reproduces the same rows).
struct SeedMachines {
  Device m3 = device("m3", 512, {{DType::kFp32, 19.5}, {DType::kBf16, 21.9}}, RateKind::kMeasured);
  Device h100 = device("h100", 80, {{DType::kBf16, 989.5}, {DType::kFp8, 1979}});
  std::vector<MachineChoice> choices() const {
    return {{&m3, DType::kFp32}, {&m3, DType::kBf16}, {&h100, DType::kBf16}, {&h100, DType::kFp8}};
  }
};

TEST(Estimate, SeedDefaultJobReproducesTheSeedTable) {
  const SeedMachines seed;
  const Estimate e = estimate(TrainingJob{}, seed.choices());
  EXPECT_DOUBLE_EQ(e.primary.memory.total.value(), 112e9);
  EXPECT_DOUBLE_EQ(e.primary.compute.total.value(), 42e18);
  ASSERT_EQ(e.primary.machines.size(), 4U);
  // Printed to one decimal in the seed: 598.3, 532.7, 11.8, 5.9 hours.
  const double expected[] = {598.3, 532.7, 11.8, 5.9};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(fmt::format("{:.1f}", hours(e.primary.machines[i].at_peak)),
              fmt::format("{:.1f}", expected[i]))
        << i;
  }
  EXPECT_NEAR(hours(e.primary.machines[0].at_peak), 42e18 / 19.5e12 / 3600, 1e-9);
}

TEST(Estimate, RealisticUtilizationScalesTime) {
  const SeedMachines seed;
  TrainingJob job;
  job.utilization = 0.5;
  const Estimate e = estimate(job, seed.choices());
  const MachineEstimate& h100 = e.primary.machines[2];
  EXPECT_DOUBLE_EQ(h100.at_utilization.count(), 2.0 * h100.at_peak.count());
}

TEST(Estimate, ZeroPaperPlainDataParallel7_5BIs120GB) {
  // Rajbhandari et al. 2020, Fig. 1 / §3.1: a 7.5B model with mixed-precision Adam needs
  // (2 + 2 + 12) x 7.5B = 120 GB of model states per device under plain data parallelism.
  TrainingJob job;
  job.params = 7.5e9;
  const MemoryEstimate m = testing_models::states_of(job, find_recipe("amp-adam"));
  EXPECT_DOUBLE_EQ(m.total.value(), 120e9);
}

TEST(Estimate, ZeroStagesPartitionWhatThePaperSays) {
  // ZeRO Figure 1 with Psi = 7.5B, Nd = 64: 120, 31.4, 16.6, 1.9 GB per device.
  TrainingJob job;
  job.params = 7.5e9;
  job.devices = 64;
  const double expected[] = {120e9, 30e9 + 90e9 / 64, 15e9 + 105e9 / 64, 120e9 / 64};
  for (int stage = 0; stage <= 3; ++stage) {
    job.zero_stage = stage;
    const MemoryEstimate m = testing_models::states_of(job, find_recipe("amp-adam"));
    EXPECT_DOUBLE_EQ(m.total.value(), expected[stage]) << stage;
    EXPECT_DOUBLE_EQ(m.replica_total().value(), 120e9) << stage;
  }
}

TEST(Estimate, DeepSpeedZero2KeepsHalfGradientsWhole) {
  // estimate_zero2_model_states_mem_needs: 4 Psi + 16 Psi / N; N = 8 -> 6 B/param.
  TrainingJob job;
  job.params = 1e9;
  job.devices = 8;
  job.zero_stage = 2;
  job.recipe_id = "deepspeed";
  EXPECT_DOUBLE_EQ(testing_models::states_of(job, find_recipe("deepspeed")).total.value(), 6e9);
}

TEST(Estimate, ShardingDecidesTheFit) {
  const Device h100 = device("h100", 80, {{DType::kBf16, 989.5}});
  TrainingJob job;
  job.devices = 2;
  EXPECT_FALSE(estimate(job, {{&h100, std::nullopt}}).primary.machines[0].fits);
  job.zero_stage = 3;
  const MachineEstimate m = estimate(job, {{&h100, std::nullopt}}).primary.machines[0];
  EXPECT_TRUE(m.fits);  // 112 GB / 2 = 56 GB per device
  EXPECT_EQ(m.devices_to_fit, 2);
}

TEST(Estimate, MemoryComponentsOfFullFineTune) {
  const MemoryEstimate m = testing_models::states_of(TrainingJob{}, find_recipe("amp-adam"));
  EXPECT_DOUBLE_EQ(m.by_key("weights").value(), 14e9);
  EXPECT_DOUBLE_EQ(m.by_key("gradients").value(), 14e9);
  EXPECT_DOUBLE_EQ(m.by_key("optimizer_states").value(), 56e9);
  EXPECT_DOUBLE_EQ(m.by_key("master_weights").value(), 28e9);
  EXPECT_DOUBLE_EQ(m.by_key("frozen_weights").value(), 0.0);
  EXPECT_FALSE(m.activations_included);
}

TEST(Estimate, LoraAtTwoPercentKeepsTheBaseFrozen) {
  // 7B frozen in bf16 (14 GB) + 140M adapters x 16 B (2.24 GB) = 16.24 GB.
  TrainingJob job;
  job.method = Method::kLora;
  const MemoryEstimate m = testing_models::states_of(job, find_recipe("amp-adam"));
  EXPECT_DOUBLE_EQ(m.by_key("frozen_weights").value(), 14e9);
  EXPECT_NEAR(m.total.value(), 16.24e9, 1.0);
  // 4N + 6 x 0.02N = 4.12N per token.
  const ComputeEstimate c = testing_models::formula_compute(job);
  EXPECT_NEAR(c.flops_per_token, 4.12 * 7e9, 1.0);
  EXPECT_DOUBLE_EQ(c.flops_per_token_6n, 42e9);
}

TEST(Estimate, FreezeTrainsOnlyTheTopFraction) {
  TrainingJob job;
  job.method = Method::kFreeze;
  job.trainable_fraction = 0.25;
  const MemoryEstimate m = testing_models::states_of(job, find_recipe("amp-adam"));
  // 1.75B trained x 16 B + 5.25B frozen x 2 B.
  EXPECT_DOUBLE_EQ(m.total.value(), 1.75e9 * 16 + 5.25e9 * 2);
  EXPECT_DOUBLE_EQ(testing_models::formula_compute(job).flops_per_token, 2 * 7e9 + 4 * 1.75e9);
}

TEST(Estimate, FullFineTuneIsSixFlopsPerParamPerToken) {
  EXPECT_DOUBLE_EQ(flops_per_token_full(Params{7e9}).value(), 42e9);
  EXPECT_DOUBLE_EQ(flops_per_token_lora(Params{7e9}, Params{0.0}).value(), 28e9);
  // Freezing nothing = full.
  EXPECT_DOUBLE_EQ(flops_per_token_freeze(Params{7e9}, Params{7e9}).value(), 42e9);
}

TEST(Estimate, VerdictSaysLoraWhenOnlyLoraFits) {
  const SeedMachines seed;
  const Estimate e = estimate(TrainingJob{}, seed.choices());
  const MachineEstimate& m3 = e.primary.machines[0];
  const MachineEstimate& h100 = e.primary.machines[2];
  EXPECT_TRUE(m3.fits);
  EXPECT_EQ(m3.fit, Fit::kFits);
  EXPECT_FALSE(h100.fits);
  EXPECT_EQ(h100.fit, Fit::kNeedsLora);
  EXPECT_EQ(h100.devices_to_fit, 2);  // ceil(112 / 80)
  ASSERT_TRUE(e.lora_alternative.has_value());
  EXPECT_TRUE(e.lora_alternative->machines[2].fits);
}

TEST(Estimate, VerdictSaysShardWhenNothingFits) {
  const Device small = device("small", 10, {{DType::kBf16, 100}});
  TrainingJob job;
  job.params = 70e9;
  const Estimate e = estimate(job, {{&small, std::nullopt}});
  EXPECT_EQ(e.primary.machines[0].fit, Fit::kNeedsSharding);
  // 1120 GB over what each 10 GB device may allocate: 10 / 1.03 (the fragmentation floor,
  // docs/memory-numbers.md; no CUDA runtime for a device of no vendor) -> 115.4 -> 116.
  EXPECT_EQ(e.primary.machines[0].devices_to_fit, 116);
}

TEST(Estimate, DevicesScaleTimeIdeally) {
  const SeedMachines seed;
  TrainingJob job;
  job.devices = 8;
  const Estimate e = estimate(job, seed.choices());
  EXPECT_NEAR(hours(e.primary.machines[2].at_peak), 42e18 / (8 * 989.5e12) / 3600, 1e-9);
  EXPECT_FALSE(e.primary.machines[2].fits);  // plain data parallel: a full replica per device
}

TEST(Estimate, RecipeDtypePicksTheRateAndFallsBack) {
  const Device fp32_only = device("old", 16, {{DType::kFp32, 10}});
  const Device h100 = device("h100", 80, {{DType::kFp32, 67}, {DType::kBf16, 989.5}});
  TrainingJob job;
  const Estimate bf16 = estimate(job, {{&h100, std::nullopt}, {&fp32_only, std::nullopt}});
  EXPECT_EQ(bf16.primary.machines[0].dtype, DType::kBf16);
  EXPECT_FALSE(bf16.primary.machines[0].dtype_fell_back());
  EXPECT_EQ(bf16.primary.machines[1].dtype, DType::kFp32);
  EXPECT_TRUE(bf16.primary.machines[1].dtype_fell_back());
  job.recipe_id = "fp32-adam";
  const Estimate fp32 = estimate(job, {{&h100, std::nullopt}});
  EXPECT_EQ(fp32.primary.machines[0].dtype, DType::kFp32);
  EXPECT_NEAR(hours(fp32.primary.machines[0].at_peak), 42e18 / 67e12 / 3600, 1e-9);
}

TEST(Estimate, NoRateMeansNoTimeButStillAFitCheck) {
  const Device fp64_only = device("hpc", 40, {{DType::kFp64, 10}});
  const Estimate e = estimate(TrainingJob{}, {{&fp64_only, std::nullopt}});
  EXPECT_FALSE(e.primary.machines[0].rate.has_value());
  EXPECT_FALSE(e.primary.machines[0].fits);
}

TEST(Estimate, CostUsesThePriceWhenKnown) {
  Device priced = device("rent", 80, {{DType::kBf16, 1000}});
  priced.price = Price{DollarsPerHour{2.0}, "2026-01-01", "test"};
  TrainingJob job;
  job.utilization = 1.0;
  job.devices = 2;
  const Estimate e = estimate(job, {{&priced, std::nullopt}});
  // 42e18 / 2e15 = 21000 s = 5.8333 h wall, x 2 devices x $2.
  ASSERT_TRUE(e.primary.machines[0].cost_usd.has_value());
  EXPECT_NEAR(e.primary.machines[0].cost_usd->value(), 21000.0 / 3600.0 * 2 * 2.0, 1e-9);
}

TEST(Estimate, InvalidJobsAreRejectedByTheLibraryToo) {
  const auto rejects = [](auto mutate, const char* field) {
    TrainingJob job;
    mutate(job);
    try {
      (void)estimate(job, {});
      ADD_FAILURE() << field;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  rejects([](TrainingJob& j) { j.params = -1; }, "params");
  rejects([](TrainingJob& j) { j.params = std::nan(""); }, "params");
  rejects([](TrainingJob& j) { j.tokens = 0; }, "tokens");
  rejects([](TrainingJob& j) { j.utilization = 0; }, "utilization");
  rejects([](TrainingJob& j) { j.utilization = 1.1; }, "utilization");
  rejects([](TrainingJob& j) { j.trainable_fraction = 0; }, "trainable_fraction");
  rejects([](TrainingJob& j) { j.devices = 0; }, "devices");
  rejects([](TrainingJob& j) { j.recipe_id = "nope"; }, "recipe");
  rejects([](TrainingJob& j) { j.zero_stage = 4; }, "zero");
}

}  // namespace
}  // namespace tb
