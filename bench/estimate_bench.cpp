// How fast an estimate is: the pure estimate, the catalog load, estimate + JSON report, the
// serving budget and the verdict by task.
#include <benchmark/benchmark.h>

#include <sstream>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/inference.hpp"
#include "trainbudget/eval/task_verdict.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/catalog.hpp"

namespace {

tb::HardwareCatalog catalog() {
  return tb::io::load_catalog(tb::io::default_catalog_sources(std::nullopt));
}

void BM_EstimateDefaultJob(benchmark::State& state) {
  const tb::HardwareCatalog cat = catalog();
  const auto machines = tb::parse_machine_list(tb::kDefaultMachines, cat);
  const tb::TrainingJob job;
  for (auto _ : state) benchmark::DoNotOptimize(tb::estimate(job, machines));
}
BENCHMARK(BM_EstimateDefaultJob);

void BM_EstimateAllMachines(benchmark::State& state) {
  const tb::HardwareCatalog cat = catalog();
  const auto machines = tb::parse_machine_list("all", cat);
  const tb::TrainingJob job;
  for (auto _ : state) benchmark::DoNotOptimize(tb::estimate(job, machines));
}
BENCHMARK(BM_EstimateAllMachines);

// With an architecture: activations, the peak over phases and the memory band (each framework
// field not given re-evaluated at its values: 8 more profiles and evaluations).
void BM_EstimateLlama8bWithBand(benchmark::State& state) {
  const tb::HardwareCatalog cat = catalog();
  const auto machines = tb::parse_machine_list(tb::kDefaultMachines, cat);
  tb::TrainingJob job;
  job.model = tb::io::load_model("llama-3.1-8b", tb::io::data_dir() / "models");
  job.params = static_cast<double>(job.model.counts->total);
  job.method = tb::Method::kLora;
  for (auto _ : state) benchmark::DoNotOptimize(tb::estimate(job, machines));
}
BENCHMARK(BM_EstimateLlama8bWithBand);

// The serving budget of llama-3.1-8b in Q4_K_M on the seed's pair (weights tensor by tensor,
// KV cache, prefill and decode, the concurrency and context searches).
void BM_InferLlama8bQ4KM(benchmark::State& state) {
  const tb::HardwareCatalog cat = catalog();
  const auto machines = tb::parse_machine_list("m3-ultra,h100-sxm", cat);
  tb::ServingJob job;
  job.model = tb::io::load_model("llama-3.1-8b", tb::io::data_dir() / "models");
  job.params = static_cast<double>(job.model.counts->total);
  job.setup.weights = tb::WeightFormat::kGgufQ4_K_M;
  for (auto _ : state) benchmark::DoNotOptimize(tb::serving_estimate(job, machines));
}
BENCHMARK(BM_InferLlama8bQ4KM);

// The verdict by task for llama-3.1-70b on the seed's pair: serve, three fine-tunes and
// pretraining, each training task searching the fewest devices that hold it.
void BM_CompareLlama70b(benchmark::State& state) {
  const tb::HardwareCatalog cat = catalog();
  auto machines = tb::parse_machine_list("m3-ultra,h100-sxm", cat);
  for (auto& m : machines) m.system = cat.system_for(m.device->id);
  tb::CompareInputs in;
  in.serving.model = tb::io::load_model("llama-3.1-70b", tb::io::data_dir() / "models");
  in.serving.params = static_cast<double>(in.serving.model.counts->total);
  in.training.model = in.serving.model;
  in.training.params = in.serving.params;
  in.training.setup.recompute = tb::Recompute::kFull;
  for (auto _ : state) benchmark::DoNotOptimize(tb::compare_tasks(in, machines));
}
BENCHMARK(BM_CompareLlama70b)->Unit(benchmark::kMillisecond);

void BM_LoadCatalog(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(catalog());
}
BENCHMARK(BM_LoadCatalog);

// The compiled-in catalog with every device read (hardware list, --machine all): what the load
// cost before devices were read on first use.
void BM_LoadCatalogEveryDevice(benchmark::State& state) {
  for (auto _ : state) {
    const tb::HardwareCatalog c = catalog();
    benchmark::DoNotOptimize(c.devices().size());
  }
}
BENCHMARK(BM_LoadCatalogEveryDevice);

// The same catalog read from data/'s files (the compiled-in one above opens none).
void BM_LoadCatalogFromFiles(benchmark::State& state) {
  tb::io::CatalogSources sources;
  sources.builtin_dir = tb::io::data_dir() / "hardware";
  for (auto _ : state) benchmark::DoNotOptimize(tb::io::load_catalog(sources));
}
BENCHMARK(BM_LoadCatalogFromFiles);

void BM_EstimateAndReportJson(benchmark::State& state) {
  const tb::HardwareCatalog cat = catalog();
  const auto machines = tb::parse_machine_list(tb::kDefaultMachines, cat);
  for (auto _ : state) {
    std::ostringstream out;
    tb::report::write(tb::estimate(tb::TrainingJob{}, machines), tb::report::Format::kJson, out);
    benchmark::DoNotOptimize(out.str());
  }
}
BENCHMARK(BM_EstimateAndReportJson);

}  // namespace

BENCHMARK_MAIN();
