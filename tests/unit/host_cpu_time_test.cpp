// A system's host CPU time over the x86 host's the dispatch and engine figures were measured on
// ([host] cpu_time_ratio, docs/systems.md): a Grace host (gb200-nvl72, 2.75: TransformerEngine
// issue #2053, a bf16 Linear forward's CPU time 37.08 us on GB200 against 13.48 on a DGX H100)
// issues eager kernels and runs vLLM's host work between decode steps 2.75x slower.
#include <gtest/gtest.h>

#include "rollout_jobs.hpp"
#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"

namespace tb {
namespace {

using rollout_jobs::grpo;
using rollout_jobs::on;
using testing_models::builtin_machine;

TEST(HostCpuTime, AGraceHostDispatchesEagerKernelsSlower) {
  const TrainingJob job = testing_models::job_for("meta-llama-3-8b.json", Method::kFull);
  const MachineChoice m = builtin_machine("gb200");
  ASSERT_NE(m.system, nullptr);
  EXPECT_DOUBLE_EQ(m.system->host_cpu_time, 2.75);
  const ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  const auto eager = static_cast<std::size_t>(Dispatch::kEager);
  const auto compiled = static_cast<std::size_t>(Dispatch::kCompiled);
  EXPECT_DOUBLE_EQ(c.host_cpu_time, 2.75);
  EXPECT_DOUBLE_EQ(c.kernels.dispatch_s[eager], 2.75 * m.kernels.dispatch_s[eager]);
  // The compiled and fused figures were measured on a GB200 (tritonbench PR #1017): as they are.
  EXPECT_DOUBLE_EQ(c.kernels.dispatch_s[compiled], m.kernels.dispatch_s[compiled]);
  // An x86 host (dgx-b200) keeps the eager figure as measured.
  const MachineChoice x86 = builtin_machine("b200");
  ASSERT_NE(x86.system, nullptr);
  const ClusterProfile b = cluster_of(job, x86, select_rate(*x86.device, DType::kBf16));
  EXPECT_DOUBLE_EQ(b.host_cpu_time, 1.0);
  EXPECT_DOUBLE_EQ(b.kernels.dispatch_s[eager], x86.kernels.dispatch_s[eager]);
}

// The same job on the same GB200 with its system's ratio set back to 1: 256 decode steps, each
// waiting 1.75 x 5 ms more of the engine's host work; the device's work (the band's low end) is
// the same, and the band's high end takes 2.75 x 13 ms a step.
TEST(HostCpuTime, AGraceHostTakesLongerOverTheEnginesHostWork) {
  const TrainingJob job = grpo(Method::kLora, RolloutEngine::kColocate);
  const MachineChoice grace = builtin_machine("gb200");
  ASSERT_NE(grace.system, nullptr);
  System x86 = *grace.system;
  x86.host_cpu_time = 1.0;
  MachineChoice reference = grace;
  reference.system = &x86;
  const Estimate ge = estimate(job, {grace});
  const Estimate re = estimate(job, {reference});
  const RolloutCost& g = *on(ge).rollout;
  const RolloutCost& r = *on(re).rollout;
  EXPECT_DOUBLE_EQ(r.decode_host.count(), 5e-3);
  EXPECT_DOUBLE_EQ(g.decode_host.count(), 2.75 * 5e-3);
  EXPECT_DOUBLE_EQ(g.decode_host_high.count(), 2.75 * 13e-3);
  EXPECT_DOUBLE_EQ(g.generation_low.count(), r.generation_low.count());
  EXPECT_NEAR(g.generation.count() - r.generation.count(), 256.0 * 1.75 * 5e-3, 1e-9);
}

}  // namespace
}  // namespace tb
