// Image -> tokens, as each model's processor computes it.
#include "trainbudget/model/image_tokens.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

// Qwen2VLImageProcessor.smart_resize (transformers, image_processing_qwen2_vl.py): Python's
// round() is half-to-even, as std::nearbyint in the default rounding mode. A clip (Qwen3-VL's
// video smart_resize, video_processing_qwen3_vl.py) holds t x h x w within the bounds, t the
// frames rounded half-to-even to pairs, and scales by the exact frame count; an image is one
// frame (t = frames = 1).
void smart_resize(double& h, double& w, double factor, double min_pixels, double max_pixels,
                  double frames = 1.0) {
  const double t = frames > 1.0 ? std::nearbyint(frames / 2.0) * 2.0 : 1.0;
  double hb = std::nearbyint(h / factor) * factor;
  double wb = std::nearbyint(w / factor) * factor;
  if (t * hb * wb > max_pixels) {
    const double beta = std::sqrt(frames * h * w / max_pixels);
    hb = std::max(factor, std::floor(h / beta / factor) * factor);
    wb = std::max(factor, std::floor(w / beta / factor) * factor);
  } else if (t * hb * wb < min_pixels) {
    const double beta = std::sqrt(min_pixels / (frames * h * w));
    hb = std::ceil(h * beta / factor) * factor;
    wb = std::ceil(w * beta / factor) * factor;
  }
  h = hb;
  w = wb;
}

// Gemma3ImageProcessor.pan_and_scan (image_processing_gemma3.py): along the longer side,
// floor(ratio + 0.5) crops, at most floor(side / 256), then within [2, 4]; none below a ratio
// of 1.2 or when a crop would be under 256 px. Each crop is resized and encoded as an image;
// the text gains the processor's sentence (about 16 tokens) and a space between crops.
void pan_and_scan_crops(std::int64_t width, std::int64_t height, ImageGrid& g) {
  const bool wide = width >= height;
  const double longer = static_cast<double>(wide ? width : height);
  const double shorter = static_cast<double>(wide ? height : width);
  if (longer / shorter < kPanScanMinRatio) return;
  auto n = static_cast<std::int64_t>(std::floor(longer / shorter + 0.5));
  n = std::min(static_cast<std::int64_t>(std::floor(longer / kPanScanMinCrop)), n);
  n = std::min(kPanScanMaxCrops, std::max<std::int64_t>(2, n));
  const std::int64_t along = (static_cast<std::int64_t>(longer) + n - 1) / n;
  const auto across = static_cast<std::int64_t>(shorter);
  if (std::min(along, across) < kPanScanMinCrop) return;
  g.crops = n;
  g.crop_width = wide ? along : across;
  g.crop_height = wide ? across : along;
  g.crop_text = 16 + n;
  g.tokens = (1 + n) * g.tokens + g.crop_text;
}

// get_optimal_tiled_canvas (transformers, image_processing_mllama.py): every arrangement of
// rows x columns tiles with rows x columns <= max_tiles; per canvas the scale that fits the image
// (the smaller of height and width); the least upscale (>= 1) if any, else the least downscale;
// among canvases of that scale the smallest area.
void mllama_canvas(const VisionTowerSpec& v, double w, double h, ImageGrid& g) {
  double chosen = 0.0;
  bool upscale = false;
  std::int64_t best_rows = 1, best_cols = 1;
  for (std::int64_t rows = 1; rows <= v.max_tiles; ++rows) {
    for (std::int64_t cols = 1; rows * cols <= v.max_tiles; ++cols) {
      const double scale = std::min(static_cast<double>(rows * v.image_size) / h,
                                    static_cast<double>(cols * v.image_size) / w);
      const bool up = scale >= 1.0;
      const bool better = chosen == 0.0 || (up && !upscale) ||
                          (up == upscale && (up ? scale < chosen : scale > chosen)) ||
                          (scale == chosen && rows * cols < best_rows * best_cols);
      if (better) {
        chosen = scale;
        upscale = up;
        best_rows = rows;
        best_cols = cols;
      }
    }
  }
  g.tiles = best_rows * best_cols;
  g.height = best_rows * v.image_size;
  g.width = best_cols * v.image_size;
}

}  // namespace

ImageGrid image_grid(const VisionTowerSpec& v, std::int64_t width, std::int64_t height,
                     std::int64_t max_pixels, bool pan_and_scan) {
  ImageGrid g;
  g.markers = 2;
  if (v.kind == VisionKind::kSiglip) {
    // Gemma3ImageProcessor resizes every image to image_size square; the projector pools the
    // patch grid to tokens_per_image (Gemma3MultiModalProjector's AvgPool2d).
    g.width = g.height = v.image_size;
    const std::int64_t side = v.image_size / v.patch_size;
    g.patches = side * side;
    g.tokens = v.tokens_per_image + g.markers;
    if (pan_and_scan && width > 0 && height > 0) pan_and_scan_crops(width, height, g);
    return g;
  }
  if (v.kind == VisionKind::kMllama) {
    const double w = static_cast<double>(width > 0 ? width : v.image_size);
    const double h = static_cast<double>(height > 0 ? height : v.image_size);
    mllama_canvas(v, w, h, g);
    const std::int64_t side = v.image_size / v.patch_size;
    const std::int64_t per_tile = side * side + 1;  // + the class token
    g.patches = v.max_tiles * ((per_tile + 7) / 8 * 8);
    g.cross_tokens = v.max_tiles * per_tile;
    g.tokens = 1;  // <|image|>
    g.markers = 0;
    return g;
  }
  const std::int64_t factor = v.patch_size * v.spatial_merge;
  double w = static_cast<double>(width > 0 ? width : kQwenDefaultSide);
  double h = static_cast<double>(height > 0 ? height : kQwenDefaultSide);
  if (w < static_cast<double>(factor) || h < static_cast<double>(factor)) {
    throw InvalidRequest("image_size",
                         fmt::format("{}x{} has a side below {} px, which the model's processor "
                                     "refuses (patch {} x merge {})",
                                     width, height, factor, v.patch_size, v.spatial_merge),
                         fmt::format("WIDTHxHEIGHT, each side {} px or more", factor));
  }
  if (std::max(w, h) / std::min(w, h) > 200.0) {
    throw InvalidRequest("image_size",
                         fmt::format("{}x{}: an aspect ratio past 200, which the model's "
                                     "processor refuses",
                                     width, height),
                         "WIDTHxHEIGHT with the longer side at most 200 times the shorter");
  }
  const bool v3 = v.kind == VisionKind::kQwen3Vl;
  const double cap =
      static_cast<double>(max_pixels > 0 ? max_pixels : (v3 ? kQwen3MaxPixels : kQwenMaxPixels));
  smart_resize(h, w, static_cast<double>(factor),
               static_cast<double>(v3 ? kQwen3MinPixels : kQwenMinPixels),
               std::max(cap, static_cast<double>(factor * factor)));
  g.width = static_cast<std::int64_t>(w);
  g.height = static_cast<std::int64_t>(h);
  const std::int64_t grid_h = g.height / v.patch_size;
  const std::int64_t grid_w = g.width / v.patch_size;
  g.patches = grid_h * grid_w;  // grid_t = 1: one image fills one temporal patch
  g.tokens = g.patches / (v.spatial_merge * v.spatial_merge) + g.markers;
  if (v.kind == VisionKind::kQwen25Vl && v.window > 0) {
    // Qwen2.5-VL's get_window_index: windows of window / patch patches a side (8 x 8 = 64).
    const std::int64_t side = std::max<std::int64_t>(v.window / v.patch_size, 1);
    g.window_patches = std::min(side * side, g.patches);
  }
  return g;
}

VideoGrid video_grid(const VisionTowerSpec& v, std::int64_t frames, std::int64_t width,
                     std::int64_t height, std::int64_t max_pixels) {
  VideoGrid out;
  const std::int64_t t = std::max<std::int64_t>(v.temporal_patch, 1);
  out.slices = (frames + t - 1) / t;
  const std::int64_t merged = v.spatial_merge * v.spatial_merge;
  if (v.kind != VisionKind::kQwen3Vl) {
    const ImageGrid g = image_grid(v, width, height, max_pixels);
    out.width = g.width;
    out.height = g.height;
    out.patches = g.patches;
    out.markers = g.markers;
    out.tokens = out.slices * (g.patches / merged) + out.markers;
    return out;
  }
  // The image's checks (sides, aspect ratio) hold for a frame too.
  const ImageGrid checked = image_grid(v, width, height, 0);
  static_cast<void>(checked);
  double w = static_cast<double>(width > 0 ? width : kQwenDefaultSide);
  double h = static_cast<double>(height > 0 ? height : kQwenDefaultSide);
  smart_resize(h, w, static_cast<double>(v.patch_size * v.spatial_merge),
               static_cast<double>(kQwen3VideoMinPixels), static_cast<double>(kQwen3VideoMaxPixels),
               static_cast<double>(frames));
  out.width = static_cast<std::int64_t>(w);
  out.height = static_cast<std::int64_t>(h);
  out.patches = (out.height / v.patch_size) * (out.width / v.patch_size);
  out.markers = 2 * out.slices;
  for (std::int64_t k = 0; k < out.slices; ++k) {
    out.timestamps += 5 + static_cast<std::int64_t>(fmt::formatted_size("{}", k));
  }
  out.tokens = out.slices * (out.patches / merged) + out.markers + out.timestamps;
  return out;
}

}  // namespace tb
