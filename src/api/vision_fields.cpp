// The vision-language rows of the estimate's field table (docs/vision.md): images per sequence,
// their size and Qwen's pixel cap, as LLaMA-Factory and transformers' processors name them, and
// whether the encoder trains. The session turns them into tokens once the model is known.
#include <fmt/format.h>

#include <array>
#include <charconv>

#include "field_accepted.hpp"
#include "field_checks.hpp"
#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::api {
namespace {

using R = EstimateRequest&;
using V = std::string_view;
using checks::flag;
using checks::whole;

constexpr std::int64_t kMaxImageSide = 1'000'000;

std::string image_counts() { return "0..4096 images per sequence"; }
std::string image_sizes() { return "WIDTHxHEIGHT in pixels (1280x720), or one side for a square"; }
std::string pixel_caps() { return "784..1000000000000 pixels"; }

// "1280x720" or "896": each side a whole number of pixels.
void parse_image_size(V v, R r) {
  const auto side = [&](V part) {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), n);
    if (ec != std::errc{} || end != part.data() + part.size() || n < 1 || n > kMaxImageSide) {
      throw InvalidRequest("image_size", fmt::format("'{}' is not a size in pixels", excerpt(v)),
                           image_sizes());
    }
    return n;
  };
  const auto x = v.find_first_of("xX");
  r.job.setup.images.width = side(v.substr(0, x));
  r.job.setup.images.height = x == V::npos ? r.job.setup.images.width : side(v.substr(x + 1));
}

const std::array kVisionFields{
    Field{"images", FieldType::kInteger, "N", "images per sequence", "0",
          "Vision-language models (docs/vision.md): images in each sequence, each becoming the "
          "model's image tokens; {seq_len} then counts the text beside them",
          image_counts, [](V v, R r) { r.job.setup.images.count = whole(v, "images", 0, 4096); },
          "step"},
    Field{"image_size", FieldType::kText, "WxH", "pixels", "",
          "each image's size: Qwen2-VL/Qwen2.5-VL resize it to multiples of 28 px (Qwen3-VL: "
          "32) within {image_max_pixels}; Gemma 3 to its 896 x 896; Llama 3.2 Vision onto up to "
          "4 tiles of 560 px; default 448x448 for Qwen",
          image_sizes, parse_image_size, "step"},
    Field{"image_max_pixels", FieldType::kInteger, "PIXELS", "pixels", "12845056",
          "Qwen's processor cap on an image (max_pixels; LLaMA-Factory image_max_pixels, whose "
          "default is 589824 = 768 x 768); Qwen3-VL's own is 16777216",
          pixel_caps,
          [](V v, R r) { r.job.setup.images.max_pixels = whole(v, "image_max_pixels", 784, 1e12); },
          "step"},
    Field{"video_frames", FieldType::kInteger, "N", "frames per sequence", "0",
          "Qwen2-VL/Qwen2.5-VL/Qwen3-VL: one video of N sampled frames of {image_size} in "
          "each sequence; every 2 frames are one temporal patch that attends within itself, "
          "of patches / 4 tokens. Qwen2-VL/2.5-VL: each frame sized as an image "
          "({image_max_pixels}), 2 markers; Qwen3-VL: the frames share a budget of 25,165,824 "
          "px, and each temporal patch has 2 markers and a \"<t seconds>\" timestamp",
          image_counts,
          [](V v, R r) { r.job.setup.images.video_frames = whole(v, "video_frames", 0, 4096); },
          "step"},
    Field{"pan_and_scan", FieldType::kFlag, "", "", "false",
          "Gemma 3: its processor's pan-and-scan (do_pan_and_scan; LLaMA-Factory "
          "image_do_pan_and_scan): an image of aspect ratio 1.2 or more also encoded as 2 to 4 "
          "crops of 256 px or more along its longer side, each as many tokens as the image",
          accepted::booleans,
          [](V v, R r) { r.job.setup.images.pan_and_scan = flag(v, "pan_and_scan"); }, "step"},
    Field{"train_vision_tower", FieldType::kFlag, "", "", "false",
          "the vision encoder and projector trained with the language model (default frozen, "
          "as LLaMA-Factory's freeze_vision_tower: no states, a forward only)",
          accepted::booleans,
          [](V v, R r) { r.job.setup.images.train_encoder = flag(v, "train_vision_tower"); },
          "job"},
};

}  // namespace

std::span<const Field> vision_fields() { return kVisionFields; }

}  // namespace tb::api
