// Gemma 3's pan-and-scan (issue 44, docs/vision.md "Image tokens"): the crops
// Gemma3ImageProcessor.pan_and_scan cuts (image_processing_gemma3.py) with Gemma3Processor's
// defaults (processing_gemma3.py: crops of 256 px or more, at most 4, from a ratio of 1.2), each
// encoded and written as an image, and the session's resolution of them. Values by hand.
#include <gtest/gtest.h>

#include <string>

#include "test_models.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/model/image_tokens.hpp"

namespace tb {
namespace {

using testing_models::config;

const VisionTowerSpec& gemma3() {
  static const ModelArchitecture a = config("gemma-3-4b-it.json");
  return *a.vision;
}

// Along the longer side: floor(ratio + 0.5) crops, at most floor(side / 256), within [2, 4]; none
// under a ratio of 1.2 or when a crop would be under 256 px. An image of 258 tokens (256 + 2
// markers) with n crops: (1 + n) x 258 + 16 + n text tokens.
TEST(PanAndScan, CropsAsGemmasProcessorCutsThem) {
  struct Case {
    std::int64_t w, h, crops, crop_w, crop_h;
  };
  for (const Case c : {Case{1920, 1080, 2, 960, 1080},  // ratio 1.78: floor(2.28) = 2
                       Case{800, 600, 2, 400, 600},     // 1.33: floor(1.83) = 1, raised to 2
                       Case{2000, 400, 4, 500, 400},    // 5: floor(5.5) = 5, capped at 4
                       Case{600, 1800, 3, 600, 600},    // portrait, 3
                       Case{1000, 900, 0, 0, 0},        // ratio 1.11: none
                       Case{500, 300, 0, 0, 0}}) {      // 2 crops of 250 px: none
    const ImageGrid g = image_grid(gemma3(), c.w, c.h, 0, true);
    EXPECT_EQ(g.crops, c.crops) << c.w << "x" << c.h;
    EXPECT_EQ(g.crop_width, c.crop_w) << c.w << "x" << c.h;
    EXPECT_EQ(g.crop_height, c.crop_h) << c.w << "x" << c.h;
    EXPECT_EQ(g.tokens, c.crops == 0 ? 258 : (1 + c.crops) * 258 + 16 + c.crops);
    EXPECT_EQ(g.patches, 4096);  // each crop resized to 896 x 896 like the image
  }
  EXPECT_EQ(image_grid(gemma3(), 1920, 1080, 0, false).crops, 0);
}

const api::Session& session() {
  static const api::Session s{api::Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

// Two 1920 x 1080 images a sequence with pan-and-scan: 792 tokens each (3 x 258 + 18), and six
// encoder sequences of 4,096 patches; without a size nothing is cropped.
TEST(PanAndScan, TheSessionCountsTheCropsTokensAndEncoderSequences) {
  api::FieldMap m{{"model", (testing_models::kConfigs / "gemma-3-4b-it.json").string()},
                  {"method", "lora"},
                  {"machine", "h100-sxm"},
                  {"seq_len", "256"},
                  {"images", "2"},
                  {"image_size", "1920x1080"},
                  {"pan_and_scan", "true"}};
  const api::EstimateResult r = session().estimate(m);
  EXPECT_EQ(r.estimate.job.setup.images.crops, 2);
  EXPECT_EQ(r.estimate.job.setup.seq_len, 256 + 2 * 792);
  EXPECT_DOUBLE_EQ(r.estimate.primary.profile.vision.images, 6.0);
  m.erase("image_size");
  EXPECT_EQ(session().estimate(m).estimate.job.setup.seq_len, 256 + 2 * 258);
}

}  // namespace
}  // namespace tb
