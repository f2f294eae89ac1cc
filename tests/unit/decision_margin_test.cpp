// Decisions a user can act on (issue "Decisions a user can act on"): the margin every proposal
// keeps, host memory as a resource, the verdicts that name the real reason, and FP8's saved
// inputs as Transformer Engine holds them. Each expected value is derived by hand in its comment.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/eval/device_memory.hpp"
#include "trainbudget/eval/memory_margin.hpp"
#include "trainbudget/eval/task_verdict.hpp"
#include "trainbudget/plan/advice.hpp"
#include "trainbudget/plan/planner.hpp"

namespace tb {
namespace {

using testing_models::builtin_machine;
using testing_models::job_for;

// max(band high / peak, 1 + kReservedFraction), or 1 + headroom.
TEST(Margin, IsTheBandOrTheReservedShareWhicheverIsLarger) {
  EXPECT_DOUBLE_EQ(margin_factor(Bytes{20e9}, Bytes{21e9}, std::nullopt), 1.10);  // 1.05 < 1.10
  EXPECT_DOUBLE_EQ(margin_factor(Bytes{20e9}, Bytes{23e9}, std::nullopt), 1.15);  // the band
  EXPECT_DOUBLE_EQ(margin_factor(Bytes{20e9}, Bytes{23e9}, 0.2), 1.2);            // --headroom
  EXPECT_DOUBLE_EQ(margin_factor(Bytes{20e9}, Bytes{23e9}, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(margin_limit(Bytes{22e9}, 1.10).value(), 20e9);
}

// The example: a Llama 3 8B LoRA at 4,096 tokens on a 4090. The fix keeps the margin
// (its peak x the job's margin within the 4090's allocatable memory), where it was 24.4 of 24.5 GB.
TEST(Margin, TheAdviceLeavesTheRoomOfTheMargin) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kLora);
  job.setup.seq_len = 4096;
  job.setup.seq_len_given = true;
  const MachineChoice m = builtin_machine("rtx-4090");
  const std::vector<Advice> advice = plan::advise(job, m);
  ASSERT_FALSE(advice.empty());
  const Recipe& r = find_recipe(job.recipe_id);
  const double margin = job_margin(job, r, layout_of(job, r));
  EXPECT_GE(margin, 1.0 + kReservedFraction);
  const Bytes allocatable = allocatable_capacity(*m.device, 1);
  for (const Advice& a : advice) {
    EXPECT_LE(a.memory * margin, allocatable) << a.kind << ": " << a.summary;
  }
}

// Every row the planner keeps leaves its workload's margin: peak x 1.5 within the capacity.
TEST(Margin, ThePlannerKeepsOnlyLayoutsInsideTheMargin) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.tokens = 1e10;
  const Recipe& r = find_recipe(job.recipe_id);
  std::vector<plan::Workload> w{{make_profile(job, r), "full", 0, 1.5}};
  const MachineChoice h100 = builtin_machine("h100-sxm");
  const ClusterProfile cluster = cluster_of(job, h100, select_rate(*h100.device, DType::kBf16));
  const plan::PlanSpace space = plan::default_space(w.front().profile, 8, cluster.fabric);
  plan::SearchOptions o;
  o.threads = 1;
  o.top = 16;
  const plan::SearchResult tight = plan::search(w, layout_of(job, r), space, 8, 64, cluster, o);
  ASSERT_FALSE(tight.best.empty());
  for (const plan::Candidate& c : tight.best) EXPECT_LE(c.cost.memory * 1.5, cluster.capacity);
  // Without the margin some kept layout uses more than 1/1.5 of the device.
  w.front().margin = 1.0;
  const plan::SearchResult loose = plan::search(w, layout_of(job, r), space, 8, 64, cluster, o);
  bool fuller = false;
  for (const plan::Candidate& c : loose.best) fuller |= c.cost.memory * 1.5 > cluster.capacity;
  EXPECT_TRUE(fuller);
}

// A job between allocatable / margin and allocatable fits only tightly. The test device has no
// CUDA runtime, so allocatable = capacity / 1.03; a capacity of 1.03 x 1.05 x the peak puts the
// peak 5 % under it, inside the 10 % margin.
TEST(Margin, AJobInsideTheMarginFitsTightly) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kLora);
  job.setup.loss = LossSpec{LossImpl::kFused, 1};  // no band: the margin is the reserved 10 %
  job.setup.norm = NormImpl::kFused;
  job.setup.logits_dtype = LogitsDtype::kFp32;
  const Bytes peak = tb::estimate(job, {}).primary.memory.total;
  Device d = testing_models::test_device(peak.value() * 1.03 * 1.05 / kGiga);
  const MachineEstimate m =
      tb::estimate(job, {{&d, std::nullopt, nullptr, {}}}).primary.machines.front();
  EXPECT_TRUE(m.fits);
  EXPECT_EQ(m.verdict, Verdict::kFitsTightly);
  EXPECT_NEAR(m.margin, 1.10, 1e-12);
  d.memory_capacity = peak * (1.03 * 1.15);  // 15 % room: fits
  EXPECT_EQ(tb::estimate(job, {{&d, std::nullopt, nullptr, {}}}).primary.machines.front().verdict,
            Verdict::kFits);
}

// Llama 3 8B full with the optimizer offloaded at ZeRO-1 on the 8 A100s of a DGX A100: each
// process offloads its bf16 gradients (2 B x 8.03e9) and its eighth of the fp32 moments and master
// (12 B x 8.03e9 / 8), about 28 GB, some 225 GB a node: under the DGX's 2,048 GB. With
// --host-memory at half of what the node offloads, it does not fit.
TEST(HostMemory, OffloadPastTheHostsRamDoesNotFit) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.devices = 8;
  job.zero_stage = 1;
  job.parallel.offload = Offload::kOptimizer;
  const MachineChoice a100 = builtin_machine("a100-sxm-80gb");
  ASSERT_NE(a100.system, nullptr);
  MachineEstimate m = tb::estimate(job, {a100}).primary.machines.front();
  EXPECT_GT(m.host_per_node.value(), 0.0);
  EXPECT_DOUBLE_EQ(m.host_memory.value(), 2048e9);
  EXPECT_LE(m.host_per_node, m.host_memory);
  job.host_memory = Bytes{m.host_per_node.value() * 0.5};
  m = tb::estimate(job, {a100}).primary.machines.front();
  EXPECT_FALSE(m.fits);
  EXPECT_EQ(m.verdict, Verdict::kDoesNotFit);
}

// The DGX A100 puts two GPUs behind each PCIe switch's x16 uplink (31 GB/s): each of a pair
// offloading at once gets 15.5 GB/s; one device alone keeps the whole link.
TEST(HostMemory, DevicesBehindOneHostLinkShareIt) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  const MachineChoice a100 = builtin_machine("a100-sxm-80gb");
  const ComputeRate* rate = select_rate(*a100.device, DType::kBf16);
  job.devices = 8;
  EXPECT_DOUBLE_EQ(cluster_of(job, a100, rate).fabric.host.bandwidth.value(), 15.5e9);
  EXPECT_DOUBLE_EQ(cluster_of(job, a100, rate).host_capacity.value(), 2048e9 / 8);
  job.devices = 1;
  EXPECT_DOUBLE_EQ(cluster_of(job, a100, rate).fabric.host.bandwidth.value(), 31e9);
}

// Eight 4090s on the 4-GPU PCIe box with no network: not a memory verdict, and no time.
TEST(Verdict, MoreDevicesThanANodeWithoutANetworkSaysSo) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kLora);
  job.devices = 8;
  job.zero_stage = 3;
  const MachineEstimate m =
      tb::estimate(job, {builtin_machine("rtx-4090")}).primary.machines.front();
  EXPECT_EQ(m.verdict, Verdict::kNoNetwork);
  EXPECT_EQ(m.node_devices, 4);
  EXPECT_FALSE(m.fits);
}

// compare: an 8B full fine-tune on 4090s stops at the box's 4 devices, naming the network.
TEST(Verdict, CompareStopsAtTheNodeOfASystemWithoutANetwork) {
  CompareInputs in;
  in.training = job_for("meta-llama-3-8b.json", Method::kFull);
  const TaskComparison c = compare_tasks(in, {builtin_machine("rtx-4090")});
  bool seen = false;
  for (const TaskResult& t : c.tasks) {
    if (t.task != Task::kFull) continue;
    seen = true;
    ASSERT_EQ(t.machines.size(), 1U);
    EXPECT_EQ(t.machines.front().devices, 0);
    EXPECT_EQ(t.machines.front().node_limit, 4);
    EXPECT_EQ(t.machines.front().system_id, "pcie-4x-rtx-4090");
  }
  EXPECT_TRUE(seen);
}

// compare: a 70B GRPO on the policy's generate() fits on no number of H100s, and the words say
// why -- generation gathers the whole model's bf16 weights (141 GB) on every device under ZeRO-3.
TEST(Verdict, GrpoOnGenerateSaysItGathersTheWholeModel) {
  CompareInputs in;
  in.training = job_for("llama-3.1-70b.json", Method::kLora);
  const TaskComparison c = compare_tasks(in, {builtin_machine("h100-sxm")});
  bool seen = false;
  for (const TaskResult& t : c.tasks) {
    if (t.task != Task::kGrpo) continue;
    seen = true;
    const TaskMachine& m = t.machines.front();
    EXPECT_EQ(m.devices, 0);
    EXPECT_TRUE(m.gathers_whole_model);
    EXPECT_NEAR(m.memory.value(), 2.0 * in.training.params, 1.0);
  }
  EXPECT_TRUE(seen);
}

// Transformer Engine saves a trainable linear's input in FP8 (1 byte), the rest stays 16-bit:
// under an fp8 recipe the qkv input row of a Llama 3 8B layer (b s h = 1 x 4096 x 4096) is
// 16.8 MB instead of 33.6 MB; a LoRA base saves none, its adapters stay 16-bit.
TEST(Fp8Memory, ALinearsSavedInputIsOneByte) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.recipe_id = "fp8-amp";
  const ModelProfile fp8 = make_profile(job, find_recipe("fp8-amp"));
  EXPECT_TRUE(fp8.shape.fp8_inputs);
  job.recipe_id = "amp-adam";
  const ModelProfile bf16 = make_profile(job, find_recipe("amp-adam"));
  EXPECT_FALSE(bf16.shape.fp8_inputs);
  const StepDims a = with_step(fp8.shape, 1, 4096, DType::kBf16, AttentionImpl::kFlash, 0.0, false);
  const StepDims b =
      with_step(bf16.shape, 1, 4096, DType::kBf16, AttentionImpl::kFlash, 0.0, false);
  EXPECT_DOUBLE_EQ(element_bytes(ElementBytes::kLinearInput, a), 1.0);
  EXPECT_DOUBLE_EQ(element_bytes(ElementBytes::kLinearInput, b), 2.0);
  const double saved = (layer_kind_bytes(b, Recompute::kNone).per_layer -
                        layer_kind_bytes(a, Recompute::kNone).per_layer)
                           .value();
  // qkv, o-proj, gate/up and down inputs: (h + h + h + i) x b s x 1 byte = (3 x 4096 + 14336) x
  // 4096 = 108.0 MB less.
  EXPECT_DOUBLE_EQ(saved, (3.0 * 4096 + 14336) * 4096);
  TrainingJob lora = job_for("meta-llama-3-8b.json", Method::kLora);
  lora.recipe_id = "fp8-amp";
  EXPECT_FALSE(make_profile(lora, find_recipe("fp8-amp")).shape.fp8_inputs);
}

}  // namespace
}  // namespace tb
