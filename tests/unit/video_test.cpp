// Qwen3-VL's video (issue 44, docs/vision.md "Image tokens"): the frames sized together against
// the clip's pixel budget (video_processing_qwen3_vl.py smart_resize), each temporal patch
// written with its markers and a "<t seconds>" timestamp (processing_qwen3_vl.py), and the
// encoder's sequences of a video beside the images'. Values by hand.
#include <gtest/gtest.h>

#include <string>

#include "test_models.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/eval/evaluate.hpp"
#include "trainbudget/eval/vision_cost.hpp"
#include "trainbudget/model/image_tokens.hpp"

namespace tb {
namespace {

using testing_models::config;

const VisionTowerSpec& qwen3() {
  static const ModelArchitecture a = config("qwen3-vl-8b-instruct.json");
  return *a.vision;
}

const api::Session& session() {
  static const api::Session s{api::Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

std::string config_path(const char* name) { return (testing_models::kConfigs / name).string(); }

// 64 frames of 1280 x 720: round(720 / 32) = 22 (half-to-even), 704 x 1280 x 64 = 57,671,680 px
// past 25,165,824, so beta = sqrt(64 x 720 x 1280 / 25,165,824) = 1.5309; floor(720 / beta / 32)
// = 14 and floor(1280 / beta / 32) = 26: 448 x 832, 28 x 52 = 1,456 patches, 364 tokens a
// temporal patch. 32 temporal patches: 11,648 tokens, 64 markers, and timestamps "<k.2 seconds>"
// of 6 tokens for k < 10 and 7 after (10 x 6 + 22 x 7 = 214): 11,926.
TEST(VideoTokens, Qwen3SizesTheFramesAgainstTheClipsBudget) {
  const VideoGrid g = video_grid(qwen3(), 64, 1280, 720, 0);
  EXPECT_EQ(g.width, 832);
  EXPECT_EQ(g.height, 448);
  EXPECT_EQ(g.slices, 32);
  EXPECT_EQ(g.patches, 1456);
  EXPECT_EQ(g.markers, 64);
  EXPECT_EQ(g.timestamps, 214);
  EXPECT_EQ(g.tokens, 11926);
}

// Within the budget a frame keeps its rounded size: 8 frames of 640 x 360 are 640 x 352
// (round(11.25) = 11), 40 x 22 = 880 patches and 220 tokens a temporal patch; 4 of them with 8
// markers and 4 timestamps of 6 tokens: 912. Seven frames: t_bar = round(3.5) x 2 = 8 and the
// odd frame padded, the same 4 temporal patches.
TEST(VideoTokens, Qwen3KeepsAFrameWithinTheBudget) {
  const VideoGrid g = video_grid(qwen3(), 8, 640, 360, 0);
  EXPECT_EQ(g.width, 640);
  EXPECT_EQ(g.height, 352);
  EXPECT_EQ(g.patches, 880);
  EXPECT_EQ(g.tokens, 880 + 8 + 24);
  const VideoGrid odd = video_grid(qwen3(), 7, 640, 360, 0);
  EXPECT_EQ(odd.slices, 4);
  EXPECT_EQ(odd.tokens, g.tokens);
}

// A Qwen3-VL job with one 1280 x 720 image (1280 x 704, 3,520 patches, 880 + 2 tokens) and the
// 64-frame video: the sequence is the text, the image and the video; the encoder runs one
// sequence of 3,520 patches and 32 of 1,456, and its GEMM rows are their sum.
TEST(VideoTokens, Qwen3AVideoBesideAnImage) {
  const api::FieldMap m{{"model", config_path("qwen3-vl-8b-instruct.json")},
                        {"method", "lora"},
                        {"machine", "h100-sxm"},
                        {"seq_len", "256"},
                        {"images", "1"},
                        {"video_frames", "64"},
                        {"image_size", "1280x720"}};
  const api::EstimateResult r = session().estimate(m);
  const ImageInput& im = r.estimate.job.setup.images;
  EXPECT_EQ(im.patches, 3520);
  EXPECT_EQ(im.tokens, 882);
  EXPECT_EQ(im.video_patches, 1456);
  EXPECT_EQ(im.video_tokens, 11926);
  EXPECT_EQ(r.estimate.job.setup.seq_len, 256 + 882 + 11926);
  const VisionLoad& v = r.estimate.primary.profile.vision;
  EXPECT_DOUBLE_EQ(v.rows(), 3520.0 + 32.0 * 1456.0);
  EXPECT_DOUBLE_EQ(v.clips, 32.0);
  api::FieldMap one = m;
  one["video_frames"] = "1";  // the processor's smart_resize refuses fewer than 2 frames
  EXPECT_THROW((void)session().estimate(one), InvalidRequest);
}

}  // namespace
}  // namespace tb
