// The tokens an image becomes, by each encoder's own rule (docs/vision.md, "Image tokens").
#pragma once

#include <cstdint>

#include "trainbudget/spec/architecture.hpp"

namespace tb {

// The released Qwen2-VL / Qwen2.5-VL preprocessor_config.json: min_pixels 3,136 (56 x 56),
// max_pixels 12,845,056 (16,384 merged tokens of 28 x 28 px).
inline constexpr std::int64_t kQwenMinPixels = 3136;
inline constexpr std::int64_t kQwenMaxPixels = 12'845'056;
// Qwen3-VL's checkpoints override the processor class's bounds in preprocessor_config.json:
// size.shortest_edge 65,536 and size.longest_edge 16,777,216 pixels (64 and 16,384 tokens of
// 32 x 32 px; the GGUF metadata's qwen3vl.vision.shortest_edge / longest_edge, e.g.
// ollama.com/library/qwen3-vl:8b-instruct-bf16).
inline constexpr std::int64_t kQwen3MinPixels = 65'536;
inline constexpr std::int64_t kQwen3MaxPixels = 16'777'216;
// Qwen3-VL's video_preprocessor_config.json (the checkpoints'; also the GGUF converters'
// defaults for Qwen3VLVideoProcessor): size.shortest_edge 4,096 and size.longest_edge 25,165,824
// pixels, a budget over the clip's frames together, not per frame.
inline constexpr std::int64_t kQwen3VideoMinPixels = 4'096;
inline constexpr std::int64_t kQwen3VideoMaxPixels = 25'165'824;
// The side an image takes when none is given to a Qwen encoder (any size is accepted).
inline constexpr std::int64_t kQwenDefaultSide = 448;

struct ImageGrid {
  std::int64_t width{0}, height{0};  // after the processor's resize
  std::int64_t patches{0};           // the encoder's sequence for one image
  std::int64_t tokens{0};            // the language model's, markers included
  std::int64_t markers{0};           // of which the begin/end-of-image tokens
  // Keys a query attends to in the encoder's windowed layers (Qwen2.5-VL); 0: every patch.
  std::int64_t window_patches{0};
  // Mllama: the tiles the image fills (the encoder runs max_tiles, padded), and the image's
  // tokens that the language model's cross-attention layers attend to (max_tiles x (patches + 1)).
  std::int64_t tiles{0};
  std::int64_t cross_tokens{0};
  // Gemma 3's pan-and-scan: the crops beside the whole image (0: none), each crop_width x
  // crop_height of the original before its resize, and the text that introduces them.
  std::int64_t crops{0};
  std::int64_t crop_width{0}, crop_height{0};
  std::int64_t crop_text{0};
};

// Gemma3Processor's pan-and-scan defaults (processing_gemma3.py, Gemma3ProcessorKwargs): crops
// of at least 256 px, at most 4, from an aspect ratio of 1.2.
inline constexpr std::int64_t kPanScanMinCrop = 256;
inline constexpr std::int64_t kPanScanMaxCrops = 4;
inline constexpr double kPanScanMinRatio = 1.2;

// One image of `width` x `height` pixels (0 x 0: the encoder's own size, or kQwenDefaultSide
// square). SigLIP (Gemma 3): resized to image_size, (image_size / patch)^2 patches pooled to
// tokens_per_image. Qwen (transformers' Qwen2VLImageProcessor.smart_resize): each side rounded
// half-to-even to a multiple of patch x merge (28), scaled down (floor) past `max_pixels` or up
// (ceil) below min_pixels; the (h/14)(w/14) patches over temporal_patch frames (one image is
// one temporal patch) merge 2 x 2 into tokens. Both add <start>/<end> markers (2 tokens).
// Mllama (image_processing_mllama.py): the canvas of image_size tiles among the aspect ratios
// of at most max_tiles tiles that scales the image least (the smallest upscale, else the
// largest downscale; the smaller canvas on a tie); the encoder runs max_tiles tiles of
// (image_size / patch)^2 + 1 tokens padded to a multiple of 8; one <|image|> token in the text.
// Throws InvalidRequest naming image_size for a side below 28 px (Qwen) or an aspect ratio past
// 200 (the processor refuses both).
// `pan_and_scan` (SigLIP only): Gemma3ImageProcessor.pan_and_scan's crops along the longer
// side, round(ratio) of them within [2, 4] and no narrower than 256 px, none below a ratio of
// 1.2; processing_gemma3.py then writes "Here is the original image <image> and here are some
// crops to help you see better <crop> <crop> ...", about 16 text tokens and a space a crop
// beside the crops' own (Gemma's tokenizer; its merges move it by a token or two).
[[nodiscard]] ImageGrid image_grid(const VisionTowerSpec& v, std::int64_t width,
                                   std::int64_t height, std::int64_t max_pixels,
                                   bool pan_and_scan = false);

struct VideoGrid {
  std::int64_t width{0}, height{0};  // each frame after the processor's resize
  std::int64_t slices{0};            // temporal patches: each an encoder sequence of `patches`
  std::int64_t patches{0};
  std::int64_t tokens{0};      // the language model's, markers and timestamps included
  std::int64_t markers{0};     // of which the begin/end-of-vision tokens
  std::int64_t timestamps{0};  // and the timestamps' text (Qwen3-VL)
};

// One video of `frames` sampled frames of `width` x `height` pixels (Qwen encoders only). The
// frames are padded to a multiple of temporal_patch (2), each pair one temporal patch of the
// frame's grid. Qwen2-VL / Qwen2.5-VL: each frame sized as an image (image_grid, `max_pixels`),
// one pair of markers for the video. Qwen3-VL (video_processing_qwen3_vl.py smart_resize):
// rounded by 32 px against a budget over the clip, t x h x w within kQwen3VideoMinPixels and
// kQwen3VideoMaxPixels (t: the frames rounded half-to-even to pairs; scaled with the exact
// count); processing_qwen3_vl.py writes each temporal patch as "<t seconds>", its markers and
// its tokens. The timestamp is the pair's mean time at the processor's 2 frames a second
// (k + 0.25 s, one decimal): "<", its digits, ".", a digit, " seconds" and ">", Qwen's
// tokenizer splitting every digit (its pre-tokenizer's \p{N} rule), 5 + the integer digits.
[[nodiscard]] VideoGrid video_grid(const VisionTowerSpec& v, std::int64_t frames,
                                   std::int64_t width, std::int64_t height,
                                   std::int64_t max_pixels);

}  // namespace tb
