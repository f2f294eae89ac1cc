// How fast the hot path is: evaluate() for one layout of a model with its architecture
// (activations, peak over phases, FLOPs; one device), the planner's unit of work.
#include <benchmark/benchmark.h>

#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/model/profile.hpp"

namespace {

tb::TrainingJob preset_job(const char* id) {
  tb::TrainingJob job;
  job.model = tb::io::load_model(id, tb::io::data_dir() / "models");
  job.params = static_cast<double>(job.model.counts->total);
  return job;
}

void evaluate_preset(benchmark::State& state, const char* id) {
  const tb::TrainingJob job = preset_job(id);
  const tb::ModelProfile profile = tb::make_profile(job, tb::find_recipe(job.recipe_id));
  tb::Layout layout;
  layout.seq_len = 4096;
  tb::ClusterProfile h100;
  h100.capacity = tb::Bytes{80.0 * tb::kGibi};
  h100.rate = tb::FlopsPerSecond{989.5e12};
  h100.gemm_efficiency = 0.803;
  std::int64_t b = 1;
  for (auto _ : state) {
    layout.micro_batch = b;  // a new point each time, as the planner walks a space
    b = b == 8 ? 1 : b + 1;
    benchmark::DoNotOptimize(tb::evaluate(profile, layout, h100));
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Evaluate(benchmark::State& state) { evaluate_preset(state, "llama-3.1-70b"); }
BENCHMARK(BM_Evaluate);

void BM_EvaluateDeepseekV3(benchmark::State& state) { evaluate_preset(state, "deepseek-v3"); }
BENCHMARK(BM_EvaluateDeepseekV3);

void BM_MakeProfile(benchmark::State& state) {
  const tb::TrainingJob job = preset_job("llama-3.1-70b");
  for (auto _ : state) {
    benchmark::DoNotOptimize(tb::make_profile(job, tb::find_recipe(job.recipe_id)));
  }
}
BENCHMARK(BM_MakeProfile);

}  // namespace
