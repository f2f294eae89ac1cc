// Framework profiles: parsing with named fields and suggestions, the defaults a profile sets and
// the ones the user keeps, and the loss / norm / optimizer terms against hand-derived values.
#include "trainbudget/spec/framework.hpp"

#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/eval/activation_terms.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/model/step_dims.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {
namespace {

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const InvalidRequest& e) {
    return e.problems().front().field + ": " + e.problems().front().message + " [" +
           e.problems().front().accepted + "]";
  }
  return "no error";
}

TEST(Framework, ParsesLossesAndRefusesBadChunkCounts) {
  EXPECT_EQ(parse_loss("fused"), (LossSpec{LossImpl::kFused, 1}));
  EXPECT_EQ(parse_loss("full"), (LossSpec{LossImpl::kFull, 1}));
  EXPECT_EQ(parse_loss("chunked:8"), (LossSpec{LossImpl::kChunked, 8}));
  EXPECT_EQ(parse_loss("linear"), (LossSpec{LossImpl::kLinear, 1}));
  EXPECT_EQ(loss_name(parse_loss("linear")), "linear");
  EXPECT_EQ(loss_name(parse_loss("chunked:16")), "chunked:16");
  EXPECT_EQ(message_of([] { (void)parse_loss("chunked:1"); }),
            "loss: '1' is not a chunk count [fused|full|chunked:N (N in 2..1024)|linear]");
  EXPECT_EQ(message_of([] { (void)parse_loss("chunked:8x"); }),
            "loss: '8x' is not a chunk count [fused|full|chunked:N (N in 2..1024)|linear]");
  EXPECT_EQ(message_of([] { (void)parse_loss("ful"); }),
            "loss: unknown value 'ful'; did you mean 'full'? "
            "[fused|full|chunked:N (N in 2..1024)|linear]");
}

TEST(Framework, SuggestsTheNearestProfile) {
  EXPECT_EQ(parse_framework("torchtune"), Framework::kTorchtune);
  EXPECT_EQ(message_of([] { (void)parse_framework("torchtun"); }),
            "framework: unknown value 'torchtun'; did you mean 'torchtune'? "
            "[generic|pytorch|hf|torchtune|torchtitan|megatron|litgpt|deepspeed|fsdp|unsloth]");
  EXPECT_EQ(parse_norm("eager-fp32"), NormImpl::kEagerFp32);
  EXPECT_EQ(parse_optimizer_kernel("foreach"), OptimizerKernel::kForeach);
  EXPECT_EQ(parse_logits_dtype("activation"), LogitsDtype::kActivation);
}

TEST(Framework, ProfileSetsOnlyTheFieldsNotGiven) {
  TrainingSetup s;
  s.framework = Framework::kHf;
  s.loss = LossSpec{LossImpl::kChunked, 4};  // given: kept
  const TrainingSetup r = resolved_setup(s, 4096);
  EXPECT_EQ(r.loss, (LossSpec{LossImpl::kChunked, 4}));
  EXPECT_EQ(r.norm, NormImpl::kEagerFp32);
  EXPECT_EQ(r.logits_dtype, LogitsDtype::kFp32);
  EXPECT_EQ(r.optimizer_kernel, OptimizerKernel::kForeach);
  EXPECT_EQ(r.attention, AttentionImpl::kFlash);
  TrainingSetup p;
  p.framework = Framework::kPytorch;
  EXPECT_EQ(resolved_setup(p, 4096).attention, AttentionImpl::kEager);
  p.attention = AttentionImpl::kFlash;
  p.attention_given = true;
  EXPECT_EQ(resolved_setup(p, 4096).attention, AttentionImpl::kFlash);
}

// b = 2, s = 4, V = 10, e = 2 (bf16): 80 logits.
StepDims head_dims(LossImpl loss, double chunks, bool fp32) {
  StepDims d;
  d.b = 2;
  d.s = 4;
  d.V = 10;
  d.h = 8;
  d.e = 2;
  d.loss = loss;
  d.loss_chunks = chunks;
  d.logits_fp32 = fp32;
  return d;
}

TEST(Framework, LossBuffersByImplementation) {
  // fused: one fp32 gradient, 80 x 4.
  EXPECT_EQ(logits_gradient_bytes(head_dims(LossImpl::kFused, 1, true)).value(), 320.0);
  EXPECT_EQ(loss_released_bytes(head_dims(LossImpl::kFused, 1, true)).value(), 0.0);
  // full, upcast: the log-probs' gradient and log_softmax's own, 2 x 80 x 4; released before
  // the head's weight gradient: the log-probs (80 x 4), and the first gradient with them.
  EXPECT_EQ(logits_gradient_bytes(head_dims(LossImpl::kFull, 1, true)).value(), 640.0);
  EXPECT_EQ(loss_released_bytes(head_dims(LossImpl::kFull, 1, true)).value(), 320.0);
  // full in bf16: 2 x 80 x 2.
  EXPECT_EQ(logits_gradient_bytes(head_dims(LossImpl::kFull, 1, false)).value(), 320.0);
  // chunked:8: one chunk's fp32 gradient and its bf16 cast, 80 x (4 + 2) / 8.
  EXPECT_EQ(logits_gradient_bytes(head_dims(LossImpl::kChunked, 8, true)).value(), 60.0);
  // The head rows: full keeps the log-probs in the loss dtype, fused the fp32 softmax, chunked
  // neither.
  EXPECT_EQ(head_bytes(head_dims(LossImpl::kChunked, 8, true)).value(),
            head_bytes(head_dims(LossImpl::kFused, 1, true)).value() - 320.0);
}

TEST(Framework, EagerNormKeepsSquareAndNormalized) {
  StepDims d = shape_dims(testing_models::config("llama-2-7b-hf.json"));
  d = with_step(d, 1, 16, DType::kBf16, AttentionImpl::kFlash, 0.0, false);
  const double fused = layer_kind_bytes(d, Recompute::kNone).all.value();
  d.norm = NormImpl::kEager;
  const double eager = layer_kind_bytes(d, Recompute::kNone).all.value();
  // Two norms per layer, each + x^2 and x * rsqrt: 2 x 2 x b*s*h*e.
  EXPECT_DOUBLE_EQ(eager - fused, 2.0 * 2.0 * 16 * 4096 * 2);
  d.norm = NormImpl::kEagerFp32;
  const double upcast = layer_kind_bytes(d, Recompute::kNone).all.value();
  // The input copy and x^2 in fp32: + 2 x 2 x b*s*h*(4 - 2) over eager.
  EXPECT_DOUBLE_EQ(upcast - eager, 2.0 * 2.0 * 16 * 4096 * 2);
}

TEST(Framework, HfEagerSoftmaxKeepsAnFp32Copy) {
  StepDims d = shape_dims(testing_models::config("llama-2-7b-hf.json"));
  d = with_step(d, 1, 16, DType::kBf16, AttentionImpl::kEager, 0.0, false);
  const LayerKindBytes plain = layer_kind_bytes(d, Recompute::kNone);
  d.softmax_fp32 = true;
  const LayerKindBytes hf = layer_kind_bytes(d, Recompute::kNone);
  // b*a*s^2*4: 1 x 32 x 16^2 x 4 B more per layer, an attention-core row (selective drops it).
  EXPECT_DOUBLE_EQ(hf.all.value() - plain.all.value(), 32.0 * 16 * 16 * 4);
  d.softmax_fp32 = false;
  const double selective_plain = layer_kind_bytes(d, Recompute::kSelective).per_layer.value();
  d.softmax_fp32 = true;
  EXPECT_DOUBLE_EQ(layer_kind_bytes(d, Recompute::kSelective).per_layer.value(), selective_plain);
  TrainingSetup hf_setup;
  hf_setup.framework = Framework::kHf;
  EXPECT_TRUE(with_kernels(StepDims{}, resolved_setup(hf_setup, 0)).softmax_fp32);
}

TEST(Framework, BandCollapsesWhenEveryFieldIsGiven) {
  TrainingJob job = testing_models::job_for("llama-2-7b-hf.json", Method::kFull);
  Device d;
  d.id = "gpu";
  d.name = "GPU";
  d.vendor = "nvidia";
  d.memory_capacity = Bytes{80e9};
  const Estimate open = estimate(job, {{&d, std::nullopt}});
  EXPECT_LT(open.primary.numbers.band_low, open.primary.numbers.band_high);
  EXPECT_FALSE(open.primary.numbers.moves_most.empty());
  job.setup.loss = LossSpec{LossImpl::kFused, 1};
  job.setup.norm = NormImpl::kFused;
  job.setup.logits_dtype = LogitsDtype::kFp32;
  const Estimate given = estimate(job, {{&d, std::nullopt}});
  EXPECT_EQ(given.primary.numbers.band_low, given.primary.numbers.band_high);
  EXPECT_EQ(given.primary.numbers.allocated, open.primary.numbers.allocated);  // generic's
  EXPECT_TRUE(given.primary.numbers.moves_most.empty());
}

}  // namespace
}  // namespace tb
