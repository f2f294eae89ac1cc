// Llama 3.2 Vision (model_type mllama, issue 44, docs/vision.md): the processor's tile canvas,
// the encoder's and the cross-attention layers' work by hand, what a frozen encoder keeps, and
// the session's note.
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

const VisionTowerSpec& mllama() {
  static const ModelArchitecture a = config("llama-3.2-11b-vision.json");
  return *a.vision;
}

// get_optimal_tiled_canvas by hand over the eight arrangements of at most 4 tiles of 560 px:
// 800 x 600 fits 2 x 2 with the only upscale (1.4); 1280 x 720 has no upscale and 2 x 2 scales
// least (0.875); 1120 x 560 fits 1 x 2, 1 x 3, 1 x 4 and 2 x 2 at exactly 1 and takes the
// smallest, 1 x 2. The encoder runs all 4 tiles of 1601 patches padded to 1608; the text holds
// one <|image|> token; cross-attention sees 4 x 1601 image tokens.
TEST(Mllama, TilesAsItsProcessorDoes) {
  struct Case {
    std::int64_t w, h, tiles, cw, ch;
  };
  for (const Case c :
       {Case{560, 560, 1, 560, 560}, Case{800, 600, 4, 1120, 1120}, Case{1280, 720, 4, 1120, 1120},
        Case{1120, 560, 2, 1120, 560}, Case{300, 1500, 3, 560, 1680}, Case{0, 0, 1, 560, 560}}) {
    SCOPED_TRACE(::testing::Message() << c.w << "x" << c.h);
    const ImageGrid g = image_grid(mllama(), c.w, c.h, 0);
    EXPECT_EQ(g.tiles, c.tiles);
    EXPECT_EQ(g.width, c.cw);
    EXPECT_EQ(g.height, c.ch);
    EXPECT_EQ(g.patches, 4 * 1608);
    EXPECT_EQ(g.cross_tokens, 4 * 1601);
    EXPECT_EQ(g.tokens, 1);
  }
}

struct MllamaJob {
  TrainingJob job = job_for("llama-3.2-11b-vision.json", Method::kLora);
  MllamaJob() {
    job.setup.images.count = 1;
    job.setup.images.patches = 4 * 1608;
    job.setup.images.tokens = 1;
  }
};

// A frozen encoder: its 40 layers' forward over 6,432 patches, the projector from 7,680 over
// 6,404 image tokens to 4,096, and each of the 8 cross-attention layers' k and v projections
// (4,096 -> 2 x 8 x 128) over the image tokens, all at the ceiling on a device without a kernel
// class. It keeps the projected image tokens once and each cross layer's keys and values.
TEST(Mllama, CrossAttentionCostsByHand) {
  MllamaJob m;
  // The language model's MLP only: the encoder's fc1/fc2 do not match gate/up/down (q and v
  // would adapt its q_proj and v_proj too, by PEFT's suffix match).
  m.job.lora.targets = {"gate", "up", "down"};
  const Recipe recipe = find_recipe("amp-adam");
  const ModelProfile p = make_profile(m.job, recipe);
  const Layout l = layout_of(m.job, recipe);
  ASSERT_TRUE(p.vision.any());
  EXPECT_FALSE(p.vision.backward);
  EXPECT_DOUBLE_EQ(p.vision.layers, 40.0);
  EXPECT_DOUBLE_EQ(p.vision.cross_layers, 8.0);
  const double image_tokens = 4.0 * 1601;
  // The image tokens and each cross-attention layer's keys and values, beside the batch's pixel
  // values: 4 tiles x 1,608 padded positions x 3 x 14 x 14 in bf16.
  const double pixels = 4.0 * 1608 * 3 * 14 * 14 * 2;
  EXPECT_DOUBLE_EQ(vision_saved_bytes(p, l).value(),
                   image_tokens * 2.0 * (4096.0 + 8.0 * 2.0 * 8 * 128) + pixels);
  const AnalyticKernelCost cost;
  ClusterProfile c;
  c.rate = c.rate_16 = FlopsPerSecond{1e15};
  const double h = 1280.0, i = 5120.0, rows = 4.0 * 1608;
  const double encoder = 40.0 * 2.0 * rows * (3.0 * h * h + h * h + h * i + i * h);
  const double projector = 2.0 * image_tokens * 4096.0 * 7680.0;
  const double cross = 8.0 * 2.0 * image_tokens * 2048.0 * 4096.0;
  const LayerPasses f = vision_passes(p, l, c, cost);
  EXPECT_NEAR(f.forward.gemm.count(), (encoder + projector + cross) / 1e15, 1e-12);
  // LoRA on the language model: the cross-attention's backward runs (the text's queries need
  // it), the frozen k and v projections' do not.
  EXPECT_GT(f.backward.attention.count(), 0.0);
  EXPECT_DOUBLE_EQ(f.backward.gemm.count(), 0.0);
  m.job.method = Method::kFull;
  const LayerPasses full = vision_passes(make_profile(m.job, recipe), l, c, cost);
  EXPECT_NEAR(full.backward.gemm.count(), cross / 1e15, 1e-12);  // their weight gradients
}

const api::Session& session() {
  static const api::Session s{api::Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

// Through the session: one image adds one token to the text, the note says what the encoder
// and the cross-attention see, and the step and the memory grow by at least the image's work.
TEST(Mllama, OneImageThroughTheSession) {
  const auto run = [](api::FieldMap extra) {
    api::FieldMap m{{"model", (testing_models::kConfigs / "llama-3.2-11b-vision.json").string()},
                    {"method", "lora"},
                    {"machine", "h100-sxm"},
                    {"seq_len", "512"}};
    for (auto& [k, v] : extra) m[k] = v;
    return session().estimate(m);
  };
  const api::EstimateResult text = run({});
  const api::EstimateResult image = run({{"images", "1"}, {"image_size", "1280x720"}});
  ASSERT_FALSE(image.notes.empty());
  const std::string& note = image.notes.back().message;
  EXPECT_NE(note.find("a canvas of 4 tiles of 560 px"), std::string::npos) << note;
  EXPECT_NE(note.find("8 cross-attention layers attend to 6404 image tokens"), std::string::npos)
      << note;
  EXPECT_NE(note.find("the sequence is 512 text + 1 = 513 tokens"), std::string::npos) << note;
  const MachineEstimate& t = text.estimate.primary.machines[0];
  const MachineEstimate& i = image.estimate.primary.machines[0];
  EXPECT_GT(i.time.step.count(), t.time.step.count() * 1.5);
  EXPECT_GT(
      image.estimate.primary.memory.total.value() - text.estimate.primary.memory.total.value(),
      6404.0 * 2.0 * (4096.0 + 8.0 * 2048.0));
}

}  // namespace
}  // namespace tb
