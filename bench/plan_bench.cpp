// How fast the planner is: layouts evaluated per second on one thread (the target is
// 1,000,000 per core; Calculon reports 36-86 a second), and a whole plan for a 70B model on
// 1,024 H100s with every core.
#include <benchmark/benchmark.h>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/plan/planner.hpp"

namespace {

struct Setup {
  tb::TrainingJob job;
  tb::plan::Workload workload;
  tb::ClusterProfile cluster;
  tb::Layout base;
};

Setup setup_70b() {
  Setup s;
  s.job.model = tb::io::load_model("llama-3.1-70b", tb::io::data_dir() / "models");
  s.job.params = static_cast<double>(s.job.model.counts->total);
  s.job.tokens = 1e12;
  s.job.setup.seq_len = 4096;
  s.job.setup.seq_len_given = true;
  const tb::Recipe& recipe = tb::find_recipe(s.job.recipe_id);
  s.workload.profile = tb::make_profile(s.job, recipe);
  s.base = tb::layout_of(s.job, recipe);
  const tb::HardwareCatalog catalog = tb::io::load_catalog({tb::io::data_dir() / "hardware", {}});
  tb::MachineChoice h100{catalog.find("h100-sxm"), std::nullopt, catalog.system_for("h100-sxm")};
  s.cluster = tb::cluster_of(s.job, h100, tb::select_rate(*h100.device, tb::DType::kBf16));
  return s;
}

// The search over the 70B / 1,024-GPU space, `threads` threads (0: every core), as layouts/s.
void run_search(benchmark::State& state, unsigned threads) {
  const Setup s = setup_70b();
  const tb::plan::PlanSpace space =
      tb::plan::default_space(s.workload.profile, 1024, s.cluster.fabric);
  tb::plan::SearchOptions o;
  o.threads = threads;
  std::uint64_t layouts = 0;
  for (auto _ : state) {
    const auto r = tb::plan::search({&s.workload, 1}, s.base, space, 1024, 1024, s.cluster, o);
    layouts += r.stats.layouts;
    benchmark::DoNotOptimize(r.best.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(layouts));
}

// One thread: the search's own rate (grid, precheck, evaluate, keep).
void BM_PlanLayoutsPerSecondOneThread(benchmark::State& state) { run_search(state, 1); }
BENCHMARK(BM_PlanLayoutsPerSecondOneThread)->Unit(benchmark::kMillisecond);

// Every core: the whole plan for a 70B model on 1,024 GPUs.
void BM_Plan70bOn1024AllCores(benchmark::State& state) { run_search(state, 0); }
BENCHMARK(BM_Plan70bOn1024AllCores)->Unit(benchmark::kMillisecond);

}  // namespace
