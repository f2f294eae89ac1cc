// The kernel-by-kernel clock against hand-derived values: wave quantisation, the attention
// table's interpolation, fp8 on the linear GEMMs only, QLoRA's dequantisation, eager launches,
// and a layout that needs a network a system does not have.
#include "trainbudget/eval/kernel_time.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/kernel_cost.hpp"
#include "trainbudget/eval/layout_rules.hpp"
#include "trainbudget/eval/time_band.hpp"
#include "trainbudget/io/hardware_loader.hpp"

namespace tb {
namespace {

using testing_models::job_for;

const HardwareCatalog& catalog() { return testing_models::builtin_catalog(); }
MachineChoice machine(const char* id) { return testing_models::builtin_machine(id); }

StepCost run(const TrainingJob& job, const char* device, DType dtype) {
  const Recipe& r = find_recipe(job.recipe_id);
  const MachineChoice m = machine(device);
  const ClusterProfile c = cluster_of(job, m, select_rate(*m.device, dtype));
  return evaluate(make_profile(job, r), layout_of(job, r), c);
}

TEST(KernelCost, WaveQuantisationByHand) {
  KernelCosts k;
  k.compute_units = 132;
  k.tile_m = 128;
  k.tile_n = 256;
  // 8192 x 4096: 64 x 16 = 1024 tiles of 128 x 256 = 7.76 waves -> 8; the transposed tile
  // gives 32 x 32 = 1024 too; the half tile 64 x 32 = 2048 -> 15.5 -> 16 waves.
  // m n / (waves units tm tn) = 33554432 / (8 x 132 x 32768) = 0.97.
  EXPECT_NEAR(wave_efficiency(8192, 4096, k), 33554432.0 / (8.0 * 132.0 * 32768.0), 1e-12);
  // 128 x 256: one large tile fills 1 / 132 of the device; two half tiles (128 x 128) fill
  // 2 / 132, the best of the three.
  EXPECT_NEAR(wave_efficiency(128, 256, k), 2.0 / 132.0, 1e-12);
  k.compute_units = 0;
  EXPECT_EQ(wave_efficiency(100, 100, k), 1.0);
}

TEST(KernelCost, BatchedGemmsShareTheirWaves) {
  KernelCosts k;
  k.compute_units = 108;  // A100
  k.tile_m = 128;
  k.tile_n = 256;
  // QK^T of one head at s 2048, d 96: 2048 x 2048 is 16 x 8 = 128 large tiles (2 waves on 108
  // SMs, 0.593) or 256 half tiles of 128 x 128 (3 waves): 4194304 / (3 x 108 x 16384) = 0.790,
  // the best alone.
  EXPECT_NEAR(wave_efficiency(2048, 2048, k), 4194304.0 / (3.0 * 108.0 * 16384.0), 1e-12);
  // 384 heads in one grid: 98304 half tiles, 910.2 -> 911 waves: 384 x 4194304 / (911 x 108 x
  // 16384) = 0.999.
  EXPECT_NEAR(wave_efficiency(2048, 2048, k, 384.0), 384.0 * 4194304.0 / (911.0 * 108.0 * 16384.0),
              1e-12);
  // AV at d_v 96: 2048 x 96 fills one column of tiles; alone the half tile (128 x 128) gives
  // 16 tiles in one wave, 196608 / (108 x 16384) = 0.111; 384 of them take 6144 tiles,
  // 56.9 -> 57 waves: 384 x 196608 / (57 x 108 x 16384) = 0.749.
  EXPECT_NEAR(wave_efficiency(2048, 96, k), 196608.0 / (108.0 * 16384.0), 1e-12);
  EXPECT_NEAR(wave_efficiency(2048, 96, k, 384.0), 384.0 * 196608.0 / (57.0 * 108.0 * 16384.0),
              1e-12);
  // A batch of one is the single GEMM.
  EXPECT_EQ(wave_efficiency(8192, 4096, k, 1.0), wave_efficiency(8192, 4096, k));
}

TEST(KernelCost, AttentionTableInterpolatesInLogSequence) {
  const KernelCosts h100 = catalog().kernel_costs("h100-sxm");
  ASSERT_TRUE(h100.flash2.present);
  // hopper.toml FA2 forward, head dim 128: 298 at 2k, 319 at 4k; 2896 is half-way in log2.
  EXPECT_NEAR(attention_efficiency(h100.flash2, 128, 2048, false), 298.0 / 989.5, 1e-12);
  EXPECT_NEAR(attention_efficiency(h100.flash2, 128, 2048.0 * std::sqrt(2.0), false),
              (298.0 + 319.0) / 2.0 / 989.5, 1e-9);
  // Clamped at the ends; head dim 96 takes the nearer 128 (log distance).
  EXPECT_NEAR(attention_efficiency(h100.flash2, 128, 100, false), 191.0 / 989.5, 1e-12);
  EXPECT_NEAR(attention_efficiency(h100.flash2, 128, 1e6, true), 325.3 / 989.5, 1e-12);
  EXPECT_NEAR(attention_efficiency(h100.flash2, 96, 512, false), 191.0 / 989.5, 1e-12);
}

// FlashAttention 1.x has its own published rate (hopper.toml, ampere.toml: the FlashAttention-2
// paper's "FlashAttention" bars, forward+backward, both directions); a class without the table
// (Blackwell) prices it as FlashAttention-2. attention_kernel reaches the kernels through the
// profile.
TEST(KernelCost, FlashAttentionOneRunsAtItsOwnPublishedRate) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.attention_kernel = AttentionKernel::kFlash1;
  EXPECT_EQ(make_profile(job, find_recipe(job.recipe_id)).attention_kernel,
            AttentionKernel::kFlash1);
  const auto cluster = [&](const char* device) {
    const MachineChoice m = machine(device);
    return cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  };
  const AnalyticKernelCost cost;
  // 32 heads, 2048 causal queries against the mean 1024.5 keys, d 128: 2 x 32 x 2048 x 1024.5 x
  // 256 FLOPs forward, at 108 TFLOP/s (H100, d 128, 2k) and 69 (A100).
  const double flops = 2.0 * 32 * 2048 * 1024.5 * 256;
  const AttentionShape one{32, 2048, 1024.5, 128, 128, 2048, AttentionKernel::kFlash1};
  EXPECT_NEAR(cost.attention(one, false, cluster("h100-sxm")).count(), flops / 108e12, 1e-12);
  EXPECT_NEAR(cost.attention(one, true, cluster("h100-sxm")).count(), 2.5 * flops / 108e12, 1e-12);
  EXPECT_NEAR(cost.attention(one, false, cluster("a100-sxm-80gb")).count(), flops / 69e12, 1e-12);
  AttentionShape two = one;
  two.kernel = AttentionKernel::kFlash2;
  EXPECT_NEAR(cost.attention(two, false, cluster("h100-sxm")).count(), flops / 298e12, 1e-12);
  EXPECT_EQ(cost.attention(one, false, cluster("b200")).count(),
            cost.attention(two, false, cluster("b200")).count());
}

TEST(KernelTime, Fp8SpeedsUpTheLinearGemmsOnly) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.seq_len = 4096;
  job.setup.seq_len_given = true;
  const StepCost bf16 = run(job, "h100-sxm", DType::kBf16);
  const StepCost fp8 = run(job, "h100-sxm", DType::kFp8);
  // Attention stays at the 16-bit rate; the GEMMs speed up by less than the 1402.6 / 794.5
  // ceilings' 1.77 (the LM head stays 16-bit) and the step by less than that.
  EXPECT_DOUBLE_EQ(fp8.time.attention.count(), bf16.time.attention.count());
  const double gemm = bf16.time.gemm / fp8.time.gemm;
  EXPECT_GT(gemm, 1.4);
  EXPECT_LT(gemm, 1402.6 / 794.5);
  const double step = bf16.time.step / fp8.time.step;
  EXPECT_GT(step, 1.1);
  EXPECT_LT(step, gemm);
}

TEST(KernelTime, QloraIsSlowerThanLora) {
  TrainingJob lora = job_for("meta-llama-3-8b.json", Method::kLora);
  TrainingJob qlora = job_for("meta-llama-3-8b.json", Method::kQlora);
  const StepCost a = run(lora, "rtx-4090", DType::kBf16);
  const StepCost b = run(qlora, "rtx-4090", DType::kBf16);
  // The same FLOPs, plus two dequantisations of every NF4 weight per micro-batch.
  EXPECT_DOUBLE_EQ(a.hardware_per_token.value(), b.hardware_per_token.value());
  EXPECT_GT(b.time.memory_bound, a.time.memory_bound);
  EXPECT_GT(b.time.step, a.time.step);
}

TEST(KernelTime, EagerLaunchesMoreKernelsThanFused) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.framework = Framework::kHf;
  const StepCost eager = run(job, "h100-sxm", DType::kBf16);
  job.setup.framework = Framework::kMegatron;
  const StepCost fused = run(job, "h100-sxm", DType::kBf16);
  EXPECT_GT(eager.time.kernels, fused.time.kernels);
  EXPECT_GT(eager.time.memory_bound, fused.time.memory_bound);
}

// torch.optim's AdamW without fused=True runs its update one op at a time: 20 passes over a
// parameter's fp32 rows (the weight 4, the gradient 2, the moments 3 and 5, the moment-sized
// temporaries 6) against the fused kernel's 7 (docs/time.md, "The optimizer step"), plus 8
// launches per trainable tensor when it loops over them.
TEST(KernelTime, AnUnfusedAdamStepMovesTwentyPassesAndLaunchesPerTensor) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.recipe_id = "fp32-adam";
  job.setup.optimizer_kernel = OptimizerKernel::kFused;
  const StepCost fused = run(job, "h100-sxm", DType::kBf16);
  job.setup.optimizer_kernel = OptimizerKernel::kForeach;
  const StepCost foreach = run(job, "h100-sxm", DType::kBf16);
  job.setup.optimizer_kernel = OptimizerKernel::kPerTensor;
  const StepCost loop = run(job, "h100-sxm", DType::kBf16);
  // Four bytes a row: fused 7 x 4 = 28 bytes per parameter, unfused 20 x 4 = 80.
  EXPECT_NEAR(foreach.time.optimizer / fused.time.optimizer, 80.0 / 28.0, 1e-9);
  // 32 layers x (7 linears + 2 norms) + the final norm, the embedding and the LM head.
  const ModelProfile p = make_profile(job, find_recipe(job.recipe_id));
  EXPECT_DOUBLE_EQ(p.trainable_tensors, 32.0 * 9.0 + 3.0);
  const double launch = catalog().kernel_costs("h100-sxm").launch_gap_s;
  EXPECT_NEAR((loop.time.optimizer - foreach.time.optimizer).count(), 8.0 * 291.0 * launch, 1e-12);
  // LoRA: two tensors (A and B) per adapted matrix.
  TrainingJob lora = job_for("meta-llama-3-8b.json", Method::kLora);
  EXPECT_DOUBLE_EQ(make_profile(lora, find_recipe(lora.recipe_id)).trainable_tensors,
                   2.0 * 32.0 * static_cast<double>(lora.lora.targets.size()));
}

TEST(KernelTime, NoLayoutCrossesAMissingNetwork) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kLora);
  job.zero_stage = 3;
  job.devices = 8;
  const StepCost cost = run(job, "rtx-4090", DType::kBf16);
  EXPECT_EQ(cost.status, Status::kNoNetwork);
  job.devices = 4;
  EXPECT_NE(run(job, "rtx-4090", DType::kBf16).status, Status::kNoNetwork);
}

// 2021 Megatron-LM's pipeline sends (Narayanan et al. 2021, sec. 4.1): each TP rank sends 1/tp
// of the boundary activation across and the receiving stage all-gathers it; blocking
// (overlap_pp 0), every send is exposed.
TEST(KernelTime, ScatterGatherSendsATpthAcrossAndGathersItInside) {
  TrainingJob job = job_for("llama-2-7b-hf.json", Method::kFull);
  job.devices = 32;
  job.parallel.tp = 8;
  job.parallel.pp = 2;
  job.setup.micro_batch = 2;
  job.setup.seq_len = 2048;
  job.setup.seq_len_given = true;
  job.setup.grad_accumulation = 4;
  job.overlap.pp = 0.0;
  const MachineChoice m = machine("a100-sxm-80gb");
  ASSERT_NE(m.system, nullptr);
  const Recipe& r = find_recipe(job.recipe_id);
  const ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  const ModelProfile p = make_profile(job, r);
  Layout l = layout_of(job, r);
  const auto pp = static_cast<std::size_t>(CommKind::kPipeline);
  const StepCost whole = evaluate(p, l, c);
  l.parallel.pp_scatter_gather = true;
  const StepCost split = evaluate(p, l, c);
  // b s h x 2 bytes = 2 x 2048 x 4096 x 2; the pair of stages sits across nodes (stride
  // tp x dp = 16); the gather is over the 8 TP ranks of a node.
  const CommModel& comm = default_comm_model();
  const Bytes msg{2.0 * 2048.0 * 4096.0 * 2.0};
  const Group across{2, 16};
  const Seconds one = comm.time(Collective::kSendRecv, msg, across, c.fabric);
  const Seconds scattered = comm.time(Collective::kSendRecv, msg / 8.0, across, c.fabric) +
                            comm.time(Collective::kAllGather, msg, Group{8, 1}, c.fabric);
  const double sends = 2.0 * 4.0;  // forward and back, for each of the 4 micro-batches
  EXPECT_NEAR(whole.time.comm[pp].exposed.count(), one.count() * sends, 1e-12);
  EXPECT_NEAR(split.time.comm[pp].exposed.count(), scattered.count() * sends, 1e-12);
  EXPECT_LT(split.time.comm[pp].exposed, whole.time.comm[pp].exposed);
  // Sequence parallelism splits the sends already: the flag changes nothing then.
  l.parallel.sequence_parallel = true;
  const StepCost sp_split = evaluate(p, l, c);
  l.parallel.pp_scatter_gather = false;
  EXPECT_EQ(evaluate(p, l, c).time.step, sp_split.time.step);
  // Without tensor or pipeline parallelism there is nothing to scatter: a problem naming it.
  l.parallel.pp = 1;
  l.parallel.pp_scatter_gather = true;
  const std::vector<Problem> bad = layout_problems(p, l);
  ASSERT_FALSE(bad.empty());
  EXPECT_EQ(bad.front().field, "pp_scatter_gather");
}

TEST(KernelCost, TheMeasuredBackendPricesAGemmAtItsNearestTimedShape) {
  const std::vector<MeasuredGemm> table{{512, 256, 256, DType::kFp32, FlopsPerSecond{1e11}},
                                        {512, 8192, 256, DType::kFp32, FlopsPerSecond{2e11}},
                                        {512, 8192, 256, DType::kBf16, FlopsPerSecond{9e11}}};
  ClusterProfile c;
  c.rate = c.rate_16 = FlopsPerSecond{5e11};
  c.gemm_table = &table;
  c.gemm_dtype = DType::kFp32;
  const KernelCostModel& model = kernel_cost_model_for(c);
  // The same shape: 2 m n k at its own rate, times the count.
  EXPECT_DOUBLE_EQ(model.gemm({512, 256, 256, 3.0, false}, c).count(),
                   3.0 * 2.0 * 512 * 256 * 256 / 1e11);
  // 512 x 4096 x 256 is nearer the wide shape (log 2 away) than the narrow one (log 16): its
  // rate, never the bf16 row's.
  EXPECT_DOUBLE_EQ(model.gemm({512, 4096, 256, 1.0, false}, c).count(),
                   2.0 * 512 * 4096 * 256 / 2e11);
  // Without a table: the analytic backend.
  c.gemm_table = nullptr;
  EXPECT_EQ(&kernel_cost_model_for(c), &default_kernel_cost_model());
}

// glibc maps a tensor of 32 MiB or more afresh at each allocation (data/kernels/cpu.toml), so
// its first write pays the measured first-touch rate; below that size, or on a device with a
// caching allocator (no threshold), nothing.
TEST(KernelCost, FreshTensorsPayTheFirstTouchRateFromTheThreshold) {
  ClusterProfile c;
  c.first_touch_bandwidth = BytesPerSecond{2e9};
  EXPECT_EQ(fresh_tensor_time(64.0 * 1048576.0, 3.0, c).count(), 0.0);  // no threshold
  c.kernels.fresh_tensor_bytes = 32.0 * 1048576.0;
  EXPECT_EQ(fresh_tensor_time(32.0 * 1048576.0 - 1.0, 3.0, c).count(), 0.0);
  EXPECT_DOUBLE_EQ(fresh_tensor_time(32.0 * 1048576.0, 3.0, c).count(), 3.0 * 33554432.0 / 2e9);
  // A pass whose largest tensor is 16 MiB: glibc's thresholds settle there, so 16 MiB comes
  // back fresh and 16 MiB less a byte does not.
  EXPECT_DOUBLE_EQ(fresh_tensor_time(16.0 * 1048576.0, 2.0, c, 16.0 * 1048576.0).count(),
                   2.0 * 16777216.0 / 2e9);
  EXPECT_EQ(fresh_tensor_time(16.0 * 1048576.0 - 1.0, 2.0, c, 16.0 * 1048576.0).count(), 0.0);
  // A pass with a larger tensor keeps the class's 32 MiB.
  EXPECT_EQ(fresh_tensor_time(20.0 * 1048576.0, 1.0, c, 64.0 * 1048576.0).count(), 0.0);
  c.first_touch_bandwidth = BytesPerSecond{0.0};  // not measured
  EXPECT_EQ(fresh_tensor_time(64.0 * 1048576.0, 1.0, c).count(), 0.0);
}

// An fp32 AdamW job through eager PyTorch with eager attention at b x s, priced on H100's rates
// with the cpu class's 32 MiB threshold and no host dispatch (on a CPU the thread runs its own
// work): the step without a first-touch rate (`cached`) and at 2 GB/s (`fresh`).
struct FreshPair {
  StepCost cached, fresh;
};
FreshPair eager_cpu_steps(TrainingJob job, std::int64_t b, std::int64_t s) {
  job.recipe_id = "fp32-adam";
  job.setup.framework = Framework::kPytorch;
  job.setup.micro_batch = b;
  job.setup.seq_len = s;
  job.setup.seq_len_given = true;
  job.setup.attention = AttentionImpl::kEager;
  job.setup.attention_given = true;
  const Recipe& r = find_recipe(job.recipe_id);
  const MachineChoice m = machine("h100-sxm");
  ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  c.kernels.fresh_tensor_bytes = 32.0 * 1048576.0;
  c.kernels.dispatch_s.fill(0.0);
  FreshPair out;
  out.cached = evaluate(make_profile(job, r), layout_of(job, r), c);
  c.first_touch_bandwidth = BytesPerSecond{2e9};
  out.fresh = evaluate(make_profile(job, r), layout_of(job, r), c);
  return out;
}

// Llama 3 8B through eager PyTorch in fp32 at b 1, s 1024 on a CPU profile: every tensor of
// 32 MiB or more is written at the first-touch rate. By hand, per micro-batch: each layer's
// scores (32 heads x 1024 x 1024 x 4 B = 128 MiB) four times forward (QK^T, scaled, masked,
// probabilities) and three times backward (their gradient, softmax's, the scale's): 32 x 7; the
// logits (1024 x 128256 x 4 B) from the head and log_softmax forward, nll's zeroed buffer and
// log_softmax's gradient backward: 4; the head's and the embedding's weight gradients (4096 x
// 128256 x 4 B): 2. The unfused AdamW step adds sqrt's and the division's temporaries for both
// tables: 4.
TEST(KernelTime, EagerCpuStepsPayFirstTouchForTensorsFromTheMmapThreshold) {
  const auto [cached, fresh] =
      eager_cpu_steps(job_for("meta-llama-3-8b.json", Method::kFull), 1, 1024);
  const double scores = 32.0 * 1024.0 * 1024.0 * 4.0;
  const double logits = 1024.0 * 128256.0 * 4.0;
  const double table = 4096.0 * 128256.0 * 4.0;
  EXPECT_NEAR((fresh.time.micro_batch - cached.time.micro_batch).count(),
              (32.0 * 7.0 * scores + 4.0 * logits + 2.0 * table) / 2e9, 1e-9);
  EXPECT_NEAR((fresh.time.optimizer - cached.time.optimizer).count(), 4.0 * table / 2e9, 1e-9);
}

// The real-step harness's llama-mha (h 256, 8 heads, 4 layers, vocabulary 8,192) in fp32 at b 2,
// s 256 through eager PyTorch on a CPU profile: the largest tensor of the pass is the logits,
// 512 x 8,192 x 4 B = 16 MiB, below glibc's 32 MiB ceiling, so the thresholds settle at 16 MiB
// and only logit-sized tensors come back fresh. By hand, per micro-batch: the head's output and
// log_softmax's forward, nll's zeroed buffer and log_softmax's gradient backward, 4 x 16 MiB;
// the scores (2 x 8 x 256 x 256 x 4 B = 4 MiB) and the vocabulary tables' gradients (8 MiB)
// stay below it, and so do the optimizer's temporaries.
TEST(KernelTime, EagerCpuStepsPayFirstTouchFromTheirLargestTensorBelowTheCeiling) {
  TrainingJob job;
  job.model.kind = "config";
  job.model.architecture = io::load_hf_config(std::filesystem::path{TB_TEST_DIR} / "realstep" /
                                              "configs" / "llama-mha.json");
  job.model.counts = count_params(*job.model.architecture);
  job.params = static_cast<double>(job.model.counts->total);
  job.method = Method::kFull;
  const auto [cached, fresh] = eager_cpu_steps(job, 2, 256);
  EXPECT_NEAR((fresh.time.micro_batch - cached.time.micro_batch).count(), 4.0 * 16777216.0 / 2e9,
              1e-12);
  EXPECT_EQ((fresh.time.optimizer - cached.time.optimizer).count(), 0.0);
}

// Liger Kernel (use_liger_kernel) on transformers' Llama 3 8B at b 1, s 1024, norms fused in
// both: RoPE becomes one kernel (q and k read and written once, 2 passes where rotate_half makes
// 10) and SiLU x up one kernel (3 passes where silu then mul make 5), so by hand one layer's
// forward moves 8 x (4,096 + 1,024) x 2 + 2 x 14,336 x 2 = 139,264 fewer bytes a token; and the
// activation's output is not saved (the fused backward recomputes it): b s i e = 1,024 x
// 14,336 x 2 bytes fewer a layer.
TEST(KernelTime, LigerFusesRopeAndSwigluAndDropsTheActivationOutput) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.framework = Framework::kHf;
  job.setup.micro_batch = 1;
  job.setup.seq_len = 1024;
  job.setup.seq_len_given = true;
  job.setup.norm = NormImpl::kFused;
  const Recipe& r = find_recipe(job.recipe_id);
  const MachineChoice m = machine("h100-sxm");
  ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  c.kernels.launch_gap_s = 0.0;  // the bytes alone
  c.kernels.dispatch_s.fill(0.0);
  const StepCost plain = evaluate(make_profile(job, r), layout_of(job, r), c);
  job.setup.liger = true;
  const StepCost liger = evaluate(make_profile(job, r), layout_of(job, r), c);
  const double bandwidth = c.memory_bandwidth.value() * c.kernels.elementwise_efficiency;
  EXPECT_NEAR((plain.time.layer_forward - liger.time.layer_forward).count(),
              139264.0 * 1024.0 / bandwidth, 1e-12);
  EXPECT_DOUBLE_EQ((plain.dense.per_layer - liger.dense.per_layer).value(), 1024.0 * 14336.0 * 2.0);
}

// Autograd's gradient accumulation (grad_accumulation_kernel add: `variable.grad += new_grad`)
// reads the buffer and the new gradient and writes the sum for every micro-batch after the
// first; Megatron-LM's fused accumulation (the weight-gradient GEMM writes into the buffer)
// costs nothing. By hand: Llama 3 8B under amp-adam keeps 2-byte gradients, so 4 micro-batches
// add 3 x 3 x 2 bytes per parameter at the achievable bandwidth.
TEST(KernelTime, UnfusedGradientAccumulationAddsThreePassesPerExtraMicroBatch) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.setup.grad_accumulation = 4;
  job.setup.grad_accumulation_kernel = GradAccumulationKernel::kAdd;
  const MachineChoice m = machine("h100-sxm");
  const ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  const StepCost add = run(job, "h100-sxm", DType::kBf16);
  const double bandwidth = c.memory_bandwidth.value() * c.kernels.elementwise_efficiency;
  EXPECT_NEAR(add.time.accumulation.count(), 3.0 * 3.0 * 2.0 * job.params / bandwidth, 1e-12);
  EXPECT_NEAR((add.time.step - add.time.accumulation).count(),
              (add.time.compute + add.time.bubble + add.time.exposed_comm + add.time.optimizer +
               add.time.interference)
                  .count(),
              1e-12);
  job.setup.grad_accumulation_kernel = GradAccumulationKernel::kFused;
  EXPECT_EQ(run(job, "h100-sxm", DType::kBf16).time.accumulation.count(), 0.0);
  job.setup.grad_accumulation_kernel.reset();
  job.setup.framework = Framework::kMegatron;  // the profile's default: fused
  EXPECT_EQ(run(job, "h100-sxm", DType::kBf16).time.accumulation.count(), 0.0);
  // NeMo RL's Megatron policy (online RL under the megatron profile) accumulates unfused (no
  // APEX in its environment); a given kernel still wins.
  job.objective = Objective::kGrpo;
  EXPECT_NEAR(run(job, "h100-sxm", DType::kBf16).time.accumulation.count(),
              add.time.accumulation.count(), 1e-12);
  job.setup.grad_accumulation_kernel = GradAccumulationKernel::kFused;
  EXPECT_EQ(run(job, "h100-sxm", DType::kBf16).time.accumulation.count(), 0.0);
  job.setup.grad_accumulation_kernel.reset();
  job.objective = Objective::kSft;
  job.setup.framework = Framework::kHf;  // the Trainer accumulates through autograd
  EXPECT_GT(run(job, "h100-sxm", DType::kBf16).time.accumulation.count(), 0.0);
  job.setup.grad_accumulation = 1;
  EXPECT_EQ(run(job, "h100-sxm", DType::kBf16).time.accumulation.count(), 0.0);
}

TEST(TimeBand, BracketsTheStepAndNamesWhatMovesIt) {
  TrainingJob job = job_for("meta-llama-3-8b.json", Method::kFull);
  job.devices = 64;
  job.zero_stage = 3;
  const Recipe& r = find_recipe(job.recipe_id);
  const MachineChoice m = machine("h100-sxm");
  ClusterProfile c = cluster_of(job, m, select_rate(*m.device, DType::kBf16));
  const ModelProfile p = make_profile(job, r);
  const Layout l = layout_of(job, r);
  const Seconds step = evaluate(p, l, c).time.step;
  const TimeBand band = time_band(p, l, c);
  ASSERT_TRUE(band.present);
  EXPECT_LE(band.low, step);
  EXPECT_GT(band.high, step);
  // Every kernel at 0.84 of its rate alone slows the compute by 1 / 0.84; the high end takes
  // that (with the other slow ends) times the calibrated 0.971 (docs/time.md, "Band").
  EXPECT_GE(band.high / step, 1.0 / (835.0 / 989.5) * 0.971 * 0.99);
  // The fast end: no kernel runs faster than its rate, so it is at most the calibrated 0.862
  // below the step, launches halved aside.
  EXPECT_GE(band.low / step, 0.862 * 0.9);
  c.utilization = 0.4;
  EXPECT_FALSE(time_band(p, l, c).present);
}

}  // namespace
}  // namespace tb
