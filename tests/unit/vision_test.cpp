// Vision-language jobs (issue 44, docs/vision.md): images -> tokens by each processor's rule
// (values by hand from transformers' smart_resize), the encoder's kernels and saved activations
// by hand, a frozen encoder's states, and the session's resolution of --images.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/vision_cost.hpp"
#include "trainbudget/model/image_tokens.hpp"
#include "trainbudget/model/profile.hpp"

namespace tb {
namespace {

using testing_models::config;
using testing_models::job_for;

const VisionTowerSpec& qwen25() {
  static const ModelArchitecture a = config("qwen2.5-vl-7b-instruct.json");
  return *a.vision;
}

// smart_resize by hand: each side round(side / 28) * 28, Python's half-to-even; past max_pixels
// floor(side / beta / 28) * 28 with beta = sqrt(h w / max); below 3,136 px ceil(side beta / 28)
// * 28. Tokens = (h / 14)(w / 14) / 4, plus <|vision_start|> and <|vision_end|>.
TEST(ImageTokens, QwenResizesAsItsProcessorDoes) {
  struct Case {
    std::int64_t w, h, max, rw, rh, patches;
  };
  for (const Case c : {Case{1280, 720, 0, 1288, 728, 92 * 52},  // 45.7 -> 46, 25.7 -> 26
                       Case{1920, 1080, 0, 1932, 1092, 138 * 78},
                       Case{1920, 1080, 1'003'520, 1316, 728, 94 * 52},  // the class default cap
                       Case{4000, 3000, 589'824, 868, 644, 62 * 46},     // LLaMA-Factory's cap
                       Case{28, 28, 0, 56, 56, 16},  // below min_pixels: scaled up, ceil
                       Case{70, 70, 0, 56, 56, 16},  // 2.5 rounds to 2 (half to even)
                       Case{0, 0, 0, 448, 448, 32 * 32}}) {
    SCOPED_TRACE(::testing::Message() << c.w << "x" << c.h);
    const ImageGrid g = image_grid(qwen25(), c.w, c.h, c.max);
    EXPECT_EQ(g.width, c.rw);
    EXPECT_EQ(g.height, c.rh);
    EXPECT_EQ(g.patches, c.patches);
    EXPECT_EQ(g.tokens, c.patches / 4 + 2);
    // 112 px windows of 14 px patches: 8 x 8, or the whole image when smaller
    EXPECT_EQ(g.window_patches, std::min<std::int64_t>(64, c.patches));
  }
  EXPECT_EQ(image_grid(qwen25(), 1920, 1080, 0).tokens, 2691 + 2);
}

TEST(ImageTokens, QwenRefusesWhatItsProcessorRefuses) {
  EXPECT_THROW((void)image_grid(qwen25(), 20, 400, 0), InvalidRequest);       // a side below 28
  EXPECT_THROW((void)image_grid(qwen25(), 28, 28 * 201, 0), InvalidRequest);  // ratio past 200
}

// Qwen3-VL: smart_resize by 32 (patch 16 x merge 2) between its checkpoints' 65,536 and
// 16,777,216 pixels. 448 x 448: 14 x 14 merged tokens of 2 x 2 patches; 1920 x 1080: 60 x 33.75 ->
// 34 (1920 x 1088, 120 x 68 patches); 100 x 100 is below 65,536 px: beta = sqrt(65536 / 10^4) =
// 2.56, ceil(100 x 2.56 / 32) x 32 = 256 a side, 16 x 16 patches.
TEST(ImageTokens, QwenThreeResizesByThirtyTwoWithinItsCheckpointsBounds) {
  const ModelArchitecture a = config("qwen3-vl-8b-instruct.json");
  struct Case {
    std::int64_t w, h, rw, rh, patches;
  };
  for (const Case c : {Case{0, 0, 448, 448, 28 * 28}, Case{1920, 1080, 1920, 1088, 120 * 68},
                       Case{100, 100, 256, 256, 16 * 16}}) {
    SCOPED_TRACE(::testing::Message() << c.w << "x" << c.h);
    const ImageGrid g = image_grid(*a.vision, c.w, c.h, 0);
    EXPECT_EQ(g.width, c.rw);
    EXPECT_EQ(g.height, c.rh);
    EXPECT_EQ(g.patches, c.patches);
    EXPECT_EQ(g.tokens, c.patches / 4 + 2);
  }
}

// Gemma 3: every image resized to 896 x 896, 64 x 64 SigLIP patches pooled to 256 tokens.
TEST(ImageTokens, GemmaThreeGivesItsFixedTokens) {
  const ModelArchitecture a = config("gemma-3-4b-it.json");
  const ImageGrid g = image_grid(*a.vision, 1920, 1080, 0);
  EXPECT_EQ(g.width, 896);
  EXPECT_EQ(g.patches, 4096);
  EXPECT_EQ(g.tokens, 258);
}

struct VisionJob {
  TrainingJob job = job_for("qwen2.5-vl-7b-instruct.json", Method::kLora);
  VisionJob() {
    job.setup.images.count = 2;
    job.setup.images.patches = 4784;
    job.setup.images.tokens = 1198;
  }
};

// A frozen encoder runs its forward only and keeps nothing; adapters in it (all-linear reaches
// its qkv, proj and MLP) need its backward and keep its activations: per layer and patch
// 8 h + 3 I activation-dtype values (h = 1280, I = 3420) and a log-sum-exp per head.
TEST(VisionStep, AFrozenEncoderRunsForwardOnlyAndAdaptersInItKeepActivations) {
  VisionJob v;
  const Recipe recipe = find_recipe("amp-adam");
  const ModelProfile frozen = make_profile(v.job, recipe);
  const Layout l = layout_of(v.job, recipe);
  ASSERT_TRUE(frozen.vision.any());
  EXPECT_FALSE(frozen.vision.backward);
  EXPECT_DOUBLE_EQ(frozen.vision.window, 64.0);
  EXPECT_DOUBLE_EQ(frozen.vision.full_layers, 4.0);
  // Frozen: only the batch's pixel values, 2 images x 4,784 patches x 3 x 2 x 14 x 14 in bf16.
  const double pixels = 2.0 * 4784 * 1176 * 2;
  EXPECT_DOUBLE_EQ(vision_saved_bytes(frozen, l).value(), pixels);
  const AnalyticKernelCost cost;
  ClusterProfile c;
  c.rate = c.rate_16 = FlopsPerSecond{1e15};
  const LayerPasses f = vision_passes(frozen, l, c, cost);
  EXPECT_GT(f.forward.gemm.count(), 0.0);
  EXPECT_EQ(f.backward.kernels, 0.0);

  v.job.lora.targets = {"all-linear"};
  const ModelProfile adapted = make_profile(v.job, recipe);
  EXPECT_TRUE(adapted.vision.backward);
  EXPECT_FALSE(adapted.vision.weight_gradients);
  const double rows = 1.0 * 2 * 4784;
  // Per layer: the norms' inputs, qkv's input, its whole output (v a view of it) and the rotated
  // q and k, attention's output, the MLP's input (10h), the gated MLP's 3I, a log-sum-exp per
  // head; the merger's 4h a patch once.
  const double per_row = 10.0 * 1280 * 2 + 3.0 * 3420 * 2 + 4.0 * 16;
  const double merger = rows * 4.0 * 1280 * 2;
  EXPECT_DOUBLE_EQ(vision_saved_bytes(adapted, l).value(), rows * per_row * 32 + merger + pixels);
  const LayerPasses b = vision_passes(adapted, l, c, cost);
  EXPECT_GT(b.backward.gemm.count(), 0.0);
}

// A full fine-tune keeps the encoder frozen unless asked (LLaMA-Factory's freeze_vision_tower):
// the language model's parameters trained, the encoder's 676,550,144 as frozen 16-bit weights.
TEST(VisionStep, AFullFineTuneFreezesTheEncoderUnlessAsked) {
  TrainingJob job = job_for("qwen2.5-vl-7b-instruct.json", Method::kFull);
  EXPECT_DOUBLE_EQ(trainable_params(job).value(), 7'615'616'512.0);
  const ModelProfile p = make_profile(job, find_recipe("amp-adam"));
  double frozen = 0.0;
  for (const StateTerm& t : p.states) {
    if (t.key == StateKey::kFrozenWeights) frozen += t.bytes.value();
  }
  EXPECT_DOUBLE_EQ(frozen, 676'550'144.0 * 2.0);
  job.setup.images.train_encoder = true;
  EXPECT_DOUBLE_EQ(trainable_params(job).value(), 8'292'166'656.0);
}

const api::Session& session() {
  static const api::Session s{api::Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

std::string config_path(const char* name) { return (testing_models::kConfigs / name).string(); }

// --images through the session: the sequence is the text plus the images' tokens, said in a
// note; the encoder's forward adds to the step; adapters in the encoder add its activations.
TEST(VisionStep, ImagesLengthenTheSequenceAndCostTheEncoder) {
  const auto run = [](api::FieldMap extra) {
    api::FieldMap m{{"model", config_path("qwen2.5-vl-7b-instruct.json")},
                    {"method", "lora"},
                    {"machine", "h100-sxm"},
                    {"seq_len", "512"}};
    for (auto& [k, v] : extra) m[k] = v;
    return session().estimate(m);
  };
  const api::EstimateResult text = run({});
  const api::EstimateResult images = run({{"images", "2"}, {"image_size", "1280x720"}});
  ASSERT_FALSE(images.notes.empty());
  EXPECT_NE(images.notes.back().message.find("the sequence is 512 text + 2396 image = 2908 tokens"),
            std::string::npos)
      << images.notes.back().message;
  const MachineEstimate& t = text.estimate.primary.machines[0];
  const MachineEstimate& i = images.estimate.primary.machines[0];
  EXPECT_GT(i.time.step.count(), t.time.step.count() * 2908.0 / 512.0);
  const api::EstimateResult adapted =
      run({{"images", "2"}, {"image_size", "1280x720"}, {"lora_targets", "all-linear"}});
  const api::EstimateResult lm_only =
      run({{"images", "2"}, {"image_size", "1280x720"}, {"lora_targets", "q,k,v,o"}});
  // all-linear adds the encoder's activations (2 x 4784 patches x 32 layers, 46,184 B each)
  // and the language model's MLP adapters; the first alone is 14.1 GB.
  EXPECT_GT(
      adapted.estimate.primary.memory.total.value() - lm_only.estimate.primary.memory.total.value(),
      2.0 * 4784 * 32 * 46184.0);
  EXPECT_THROW((void)session().estimate(api::FieldMap{{"model", "llama-3.1-8b"}, {"images", "1"}}),
               InvalidRequest);
  EXPECT_THROW((void)session().estimate(api::FieldMap{{"images", "1"}}), InvalidRequest);
}

// A video (Qwen2VLVideoProcessor, modeling_qwen2_vl.py): 16 frames of 640 x 360 resized as an
// image to 644 x 364 (46 x 26 = 1,196 patches), 2 frames a temporal patch: 8 encoder sequences
// of 1,196 patches, each attending within itself; 8 x 1,196 / 4 = 2,392 tokens + 2 markers. An
// odd count is padded to the next pair; a model without Qwen's encoder takes no video.
TEST(VisionStep, AVideoIsTemporalPatchesOfItsFrames) {
  api::FieldMap m{{"model", config_path("qwen2-vl-7b-instruct.json")},
                  {"method", "lora"},
                  {"machine", "h100-sxm"},
                  {"seq_len", "256"},
                  {"video_frames", "16"},
                  {"image_size", "640x360"}};
  const api::EstimateResult video = session().estimate(m);
  const ImageInput& im = video.estimate.job.setup.images;
  EXPECT_EQ(im.video_slices, 8);
  EXPECT_EQ(im.patches, 1196);
  EXPECT_EQ(im.video_tokens, 2394);
  EXPECT_EQ(video.estimate.job.setup.seq_len, 256 + 2394);
  EXPECT_DOUBLE_EQ(video.estimate.primary.profile.vision.images, 0.0);
  EXPECT_DOUBLE_EQ(video.estimate.primary.profile.vision.clips, 8.0);
  EXPECT_DOUBLE_EQ(video.estimate.primary.profile.vision.clip_patches, 1196.0);
  m["video_frames"] = "15";
  EXPECT_EQ(session().estimate(m).estimate.job.setup.images.video_tokens, 2394);
  m["images"] = "1";
  EXPECT_EQ(session().estimate(m).estimate.job.setup.seq_len, 256 + 301 + 2394);
  EXPECT_THROW((void)session().estimate(
                   api::FieldMap{{"model", "llama-3.2-11b-vision"}, {"video_frames", "4"}}),
               InvalidRequest);
}

}  // namespace
}  // namespace tb
