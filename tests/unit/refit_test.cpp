// A colocated engine's refit (src/eval/refit.cpp; docs/rl.md, "Refit") against hand-derived
// values on DGX H100's fabric: NVLink 450 GB/s at 0.8 of it for collectives, 8 NICs of 50 GB/s
// at 0.94 across nodes.
#include "trainbudget/eval/refit.hpp"

#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/spec/layout.hpp"

namespace tb {
namespace {

const Fabric& dgx() {
  static const Fabric f = testing_models::builtin_catalog().system_at("dgx-h100", "system").fabric;
  return f;
}

TrainingJob megatron(const char* config) {
  TrainingJob job = testing_models::job_for(config, Method::kFull);
  job.setup.framework = Framework::kMegatron;
  return job;
}

Layout layout(int devices, int tp, int pp) {
  Layout l;
  l.devices = devices;
  l.parallel.tp = tp;
  l.parallel.pp = pp;
  return l;
}

// Data parallel only: every device holds the whole model, no gather; the refit is the engine's
// weights at 3.2 GB/s (NeMo RL v0.3's 8B row: 16.06 GB in 5 s).
TEST(Refit, DataParallelOnlyGathersNothing) {
  const TrainingJob job = megatron("meta-llama-3-8b.json");
  EXPECT_EQ(refit_gather(job, layout(8, 1, 1), dgx()).count(), 0.0);
  EXPECT_NEAR(colocated_refit(job, layout(8, 1, 1), dgx(), Bytes{16.06e9}).count(), 16.06e9 / 3.2e9,
              1e-12);
  // A trainer whose weights are whole on each device (the hf profile) gathers nothing either.
  TrainingJob hf = job;
  hf.setup.framework = Framework::kHf;
  EXPECT_EQ(refit_gather(hf, layout(16, 4, 2), dgx()).count(), 0.0);
}

// tp 4 x pp 2 on 64 devices: the tensor-parallel all-gather of the 16-bit weights in a node,
// 3 steps of a quarter at 360 GB/s (3 x 0.6 us of latency), then the broadcast across the two
// stages, 32 devices apart (other nodes: one NIC, 47 GB/s; ceil(log2 2) x 2.7 us), each call
// with NCCL's 6.6 us.
TEST(Refit, MegatronGathersEveryTensorWhole) {
  const TrainingJob job = megatron("meta-llama-3-8b.json");
  const double bytes = job.params * 2.0;
  const double gather = 6.6e-6 + 3 * 0.6e-6 + bytes * 0.75 / 360e9;
  const double broadcast = 6.6e-6 + 2.7e-6 + bytes / 47e9;
  // Two calls for the experts' shards over a group of one cost nothing.
  EXPECT_NEAR(refit_gather(job, layout(64, 4, 2), dgx()).count(), gather + broadcast, 1e-9);
}

}  // namespace
}  // namespace tb
