// The session: catalog loaded once; a request becomes a job, an estimate and its plan queries.
#include "trainbudget/api/session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/model/image_tokens.hpp"
#include "trainbudget/model/lora.hpp"
#include "trainbudget/model/score_head.hpp"
#include "trainbudget/plan/advice.hpp"
#include "trainbudget/plan/fit_search.hpp"
#include "trainbudget/spec/limits.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb::api {
namespace {

io::CatalogSources catalog_sources(const Sources& s) {
  // The built-in devices, systems and kernel classes are compiled in; data_dir gives the presets.
  if (s.user_config) return io::default_catalog_sources(s.hardware_dir);
  io::CatalogSources out{{}, {}};
  if (s.hardware_dir) out.user_dirs.push_back(*s.hardware_dir);
  return out;
}

// With a model, trainable_fraction picks the LoRA rank: the smallest rank on the targets whose
// adapters reach the fraction of the parameters (adapter parameters grow linearly in r).
void solve_rank(EstimateRequest& r, EstimateResult& out) {
  const ModelArchitecture& arch = *r.job.model.architecture;
  LoraSpec one = r.job.lora;
  one.rank = 1;
  const auto per_rank = static_cast<double>(lora_trainable_params(arch, one));
  const double wanted = r.job.trainable_fraction * r.job.params;
  const double rank = std::ceil(wanted / per_rank);
  if (rank > 65536.0) {
    throw InvalidRequest("trainable_fraction",
                         fmt::format("{} needs a rank above 65536 on {}", r.job.trainable_fraction,
                                     fmt::join(r.job.lora.targets, ",")),
                         "a smaller fraction, or more targets ({lora_targets})");
  }
  r.job.lora.rank = static_cast<std::int64_t>(std::max(rank, 1.0));
  const double got = per_rank * static_cast<double>(r.job.lora.rank) / r.job.params;
  out.notes.push_back(
      {"trainable_fraction",
       fmt::format("{:g} on {}: rank {} ({:.3g} % trainable)", r.job.trainable_fraction,
                   fmt::join(r.job.lora.targets, ","), r.job.lora.rank, got * 100.0),
       ""});
}

// Targets of another family's module names that this model lacks, while another target
// matches: PEFT skips them (skipped_lora_targets), and so does the estimate, said so.
void skip_missing_targets(EstimateRequest& r, EstimateResult& out) {
  if (!uses_adapters(r.job.method)) return;
  const std::vector<std::string> skipped =
      skipped_lora_targets(*r.job.model.architecture, r.job.lora);
  if (skipped.empty()) return;
  std::erase_if(r.job.lora.targets, [&](const std::string& t) {
    return std::find(skipped.begin(), skipped.end(), t) != skipped.end();
  });
  out.warnings.push_back(
      {"lora_targets",
       fmt::format("{} {} no layer of this {} model: skipped, as PEFT skips a target module "
                   "that is not there while another is; adapters on {}",
                   fmt::join(skipped, ", "), skipped.size() == 1 ? "names" : "name",
                   r.job.model.architecture->model_type, fmt::join(r.job.lora.targets, ", ")),
       ""});
}

}  // namespace

void attach_systems(const std::string& system, const HardwareCatalog& catalog,
                    std::vector<MachineChoice>& machines) {
  const System* given = system.empty() ? nullptr : &catalog.system_at(system, "system");
  for (MachineChoice& m : machines) {
    if (given == nullptr) {
      m.system = catalog.system_for(m.device->id);
      continue;
    }
    if (given->device != m.device->id) {
      throw InvalidRequest("system",
                           fmt::format("{} is built from {}, not the machine {}", given->id,
                                       given->device, m.device->id),
                           fmt::format("a system of {} or no {{system}}", m.device->id));
    }
    m.system = given;
  }
}

Session::Session(const Sources& sources)
    : models_dir_{sources.data_dir / "models"},
      model_paths_{sources.model_paths},
      hub_fetch_{sources.hub_fetch},
      fetch_progress_{sources.fetch_progress},
      catalog_{io::load_catalog(catalog_sources(sources))} {}

ModelSource Session::load(const std::string& spec) const {
  const io::ModelPaths paths = !model_paths_ ? io::ModelPaths::kRefused
                               : hub_fetch_  ? io::ModelPaths::kFetch
                                             : io::ModelPaths::kRead;
  return io::load_model(spec, models_dir_, paths, fetch_progress_);
}

// A PPO value or reward model given by the user, with a score head (model/score_head.hpp); none
// given: the library makes it from the policy.
ModelSource Session::critic_model(const std::string& given, std::string_view field,
                                  EstimateResult& out) const {
  if (given.empty()) return {};
  ModelSource m;
  try {
    m = load(given);
  } catch (const InvalidRequest& e) {
    // The loader names {model}; this is the critic's or the reward's own field.
    std::vector<Problem> problems = e.problems();
    for (Problem& p : problems) {
      if (p.field == "model") p.field = std::string{field};
    }
    throw InvalidRequest(std::move(problems));
  }
  for (const std::string& w : m.warnings) out.warnings.push_back({std::string{field}, w, ""});
  return with_score_head(std::move(m));
}

namespace {

// Gemma 3's pan-and-scan as resolved: the crops each image adds, or why none.
std::string pan_and_scan_note(const ImageInput& im, const ImageGrid& g) {
  if (im.width == 0) {
    return "no crops without {image_size}: the processor crops by the image's own aspect ratio";
  }
  if (g.crops == 0) {
    return fmt::format("no crops for {}x{} px: an aspect ratio under {} or a crop under {} px",
                       im.width, im.height, kPanScanMinRatio, kPanScanMinCrop);
  }
  return fmt::format(
      "each {}x{} px image also as {} crops of {}x{} px, each encoded and written "
      "as an image; with the processor's sentence introducing them (about {} "
      "text tokens) an image is {} tokens and {} encoder sequences",
      im.width, im.height, g.crops, g.crop_width, g.crop_height, g.crop_text, g.tokens,
      1 + g.crops);
}

// Images per sequence -> the model's image tokens (model/image_tokens.hpp): the language model's
// sequence becomes the text (seq_len, or its default) plus the images' tokens, said as a note.
void resolve_images(EstimateRequest& r, EstimateResult& out) {
  ImageInput& im = r.job.setup.images;
  const ModelArchitecture& arch = *r.job.model.architecture;
  const bool asked = im.count > 0 || im.video_frames > 0 || r.has("image_size") ||
                     r.has("image_max_pixels") || im.pan_and_scan;
  if (!asked) return;
  if (!arch.vision) {
    throw InvalidRequest("images",
                         fmt::format("the model ({}) has no vision encoder", arch.model_type),
                         "a vision-language model: gemma3, mllama, qwen2_vl, qwen2_5_vl, qwen3_vl, "
                         "qwen3_vl_moe, qwen3_5, qwen3_5_moe");
  }
  if (arch.vision->kind == VisionKind::kLlama4 || arch.vision->kind == VisionKind::kPixtral) {
    // Llama 4's image processor tiles each image (up to 16 tiles of image_size and a global
    // one), Pixtral's keeps each image's own aspect ratio with a break token per row of
    // patches; neither encoder's step is priced: the tower is counted, frozen, for text jobs.
    throw InvalidRequest("images",
                         fmt::format("the model ({})'s vision encoder is counted but its images "
                                     "are not priced",
                                     arch.model_type),
                         "0 (text-only training of Llama 4 or Mistral 3), or a vision-language "
                         "model: gemma3, mllama, qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, "
                         "qwen3_5, qwen3_5_moe");
  }
  const bool qwen3 = arch.vision->kind == VisionKind::kQwen3Vl;
  if (im.video_frames > 0 && arch.vision->kind != VisionKind::kQwen2Vl &&
      arch.vision->kind != VisionKind::kQwen25Vl && !qwen3) {
    throw InvalidRequest("video_frames",
                         fmt::format("the model ({}) takes no video", arch.model_type),
                         "a Qwen2-VL, Qwen2.5-VL, Qwen3-VL or Qwen3.5 model (qwen2_vl, "
                         "qwen2_5_vl, qwen3_vl, qwen3_vl_moe, qwen3_5, qwen3_5_moe)");
  }
  if (qwen3 && im.video_frames == 1) {
    // video_processing_qwen3_vl.py smart_resize: "t:1 must be larger than temporal_factor:2".
    throw InvalidRequest("video_frames",
                         "1: Qwen3-VL's video processor refuses fewer frames than "
                         "its temporal patch (2)",
                         "2 or more frames (or the frame as one of {images})");
  }
  if (im.count == 0 && im.video_frames == 0) {
    const char* given = r.has("image_size")         ? "image_size"
                        : r.has("image_max_pixels") ? "image_max_pixels"
                                                    : "pan_and_scan";
    out.warnings.push_back({given, "changes nothing without {images}", ""});
    return;
  }
  if (r.has("image_max_pixels") && qwen3 && im.count == 0) {
    out.warnings.push_back({"image_max_pixels",
                            "changes nothing for a Qwen3-VL video, whose frames share the clip's "
                            "pixel budget (its video_preprocessor_config.json)",
                            ""});
  }
  if (r.has("image_max_pixels") && arch.vision->kind == VisionKind::kSiglip) {
    out.warnings.push_back({"image_max_pixels",
                            "changes nothing for Gemma 3, whose processor resizes every image to "
                            "its encoder's size",
                            ""});
  }
  const bool siglip = arch.vision->kind == VisionKind::kSiglip;
  if (im.pan_and_scan && !siglip) {
    out.warnings.push_back({"pan_and_scan",
                            fmt::format("changes nothing for {}: pan-and-scan is Gemma 3's "
                                        "processor's",
                                        arch.model_type),
                            ""});
  }
  const ImageGrid g =
      image_grid(*arch.vision, im.width, im.height, im.max_pixels, im.pan_and_scan && siglip);
  im.crops = g.crops;
  im.tokens = g.tokens;
  im.patches = g.patches;
  im.text_tokens = resolved_setup(r.job.setup, arch.max_positions).seq_len;
  // A video (model/image_tokens.hpp, video_grid): its temporal patches, each an encoder
  // sequence attending within itself (the encoder's cu_seqlens, modeling_qwen2_vl.py and
  // modeling_qwen3_vl.py).
  VideoGrid vg;
  if (im.video_frames > 0) {
    vg = video_grid(*arch.vision, im.video_frames, im.width, im.height, im.max_pixels);
    im.video_slices = vg.slices;
    im.video_tokens = vg.tokens;
    im.video_patches = vg.patches;
  }
  r.job.setup.seq_len = im.text_tokens + im.count * g.tokens + im.video_tokens;
  r.job.setup.seq_len_given = true;
  if (arch.vision->kind == VisionKind::kMllama) {
    out.notes.push_back(
        {"images",
         fmt::format("{} image{} of {}x{} px: a canvas of {} tile{} of {} px, the encoder runs all "
                     "{} ({} patches, padding included); one <|image|> token each in the "
                     "text, whose {} cross-attention layers attend to {} image tokens per image; "
                     "the sequence is {} text + {} = {} tokens",
                     im.count, im.count == 1 ? "" : "s", g.width, g.height, g.tiles,
                     g.tiles == 1 ? "" : "s", arch.vision->image_size, arch.vision->max_tiles,
                     g.patches, arch.vision->cross_attention_layers.size(), g.cross_tokens,
                     im.text_tokens, im.count * g.tokens, r.job.setup.seq_len),
         ""});
    return;
  }
  const std::string resized = im.width > 0 && (im.width != g.width || im.height != g.height)
                                  ? fmt::format(" (resized from {}x{})", im.width, im.height)
                                  : std::string{};
  if (im.count > 0 && im.pan_and_scan && siglip) {
    out.notes.push_back({"pan_and_scan", pan_and_scan_note(im, g), ""});
  }
  if (im.count > 0) {
    out.notes.push_back(
        {"images",
         fmt::format("{} image{} of {}x{} px{}: {} tokens each ({}) from {}{} encoder "
                     "patches; the sequence is {} text + {} image{} = {} tokens",
                     im.count, im.count == 1 ? "" : "s", g.width, g.height, resized, g.tokens,
                     g.crops > 0
                         ? fmt::format("{} x {} + {} of text: the image and its crops", 1 + g.crops,
                                       (g.tokens - g.crop_text) / (1 + g.crops), g.crop_text)
                         : fmt::format("{} + 2 markers", g.tokens - g.markers),
                     g.crops > 0 ? fmt::format("{} x ", 1 + g.crops) : std::string{}, g.patches,
                     im.text_tokens, im.count * g.tokens,
                     im.video_tokens > 0 ? fmt::format(" + {} video", im.video_tokens) : "",
                     r.job.setup.seq_len),
         ""});
  }
  if (im.video_frames > 0) {
    const bool moved = im.width > 0 && (im.width != vg.width || im.height != vg.height);
    const std::string frame =
        moved ? fmt::format(
                    " (resized from {}x{}{})", im.width, im.height,
                    qwen3 ? fmt::format(" within the clip's budget of {} px", kQwen3VideoMaxPixels)
                          : std::string{})
              : std::string{};
    const std::string parts =
        qwen3 ? fmt::format(
                    "{} + {} markers + {} of timestamps, one \"<t seconds>\" a temporal "
                    "patch at 2 frames a second",
                    vg.tokens - vg.markers - vg.timestamps, vg.markers, vg.timestamps)
              : fmt::format("{} + {} markers", vg.tokens - vg.markers, vg.markers);
    out.notes.push_back(
        {"video_frames",
         fmt::format("a video of {} frames of {}x{} px{}: {} temporal patches of {} encoder "
                     "patches, each attending within itself; {} tokens ({}); the sequence is {} "
                     "text + {} video{} = {} tokens",
                     im.video_frames, vg.width, vg.height, frame, vg.slices, vg.patches, vg.tokens,
                     parts, im.text_tokens, im.video_tokens,
                     im.count > 0 ? fmt::format(" + {} image", im.count * g.tokens) : "",
                     r.job.setup.seq_len),
         ""});
  }
}

// Optimizer steps to tokens (transformers' Trainer: max_steps > 0 overrides num_train_epochs):
// each step takes micro_batch x grad_accum sequences of seq_len on every data-parallel rank, at
// the request's own layout and the model's default length.
void resolve_steps(EstimateRequest& r, EstimateResult& out) {
  if (!r.steps) return;
  const auto& arch = r.job.model.architecture;
  const TrainingSetup s = resolved_setup(r.job.setup, arch ? arch->max_positions : 0);
  const int dp = std::max(1, layout_of(r.job, find_recipe(r.job.recipe_id)).dp());
  const double tokens = *r.steps * static_cast<double>(s.micro_batch) *
                        static_cast<double>(s.grad_accumulation) * dp *
                        static_cast<double>(s.seq_len);
  if (tokens > kTokensRange.hi) {
    throw InvalidRequest("steps", fmt::format("{:g} steps give {:.3g} tokens, past {:g}", *r.steps,
                                              tokens, kTokensRange.hi));
  }
  r.job.tokens = tokens;
  out.notes.push_back(
      {"steps",
       fmt::format("{:g} steps x micro_batch {} x grad_accum {} x {} data-parallel rank{} x "
                   "seq_len {} = {:.4g} tokens (padded to the length; packing fills it)",
                   *r.steps, s.micro_batch, s.grad_accumulation, dp, dp == 1 ? "" : "s", s.seq_len,
                   tokens),
       ""});
  if (r.has("epochs") || r.dataset_tokens) {
    out.notes.push_back(
        {"epochs", "replaced by {steps}: the run stops at its step count, as the Trainer does",
         ""});
  }
}

}  // namespace

void Session::resolve_model(EstimateRequest& r, EstimateResult& out) const {
  // torchtitan's pipeline split counts the embedding and the output as a layer each
  // (Parallelism::edge_layers; docs/scale.md, "Pipeline stages"); given edge counts still win.
  r.job.parallel.edge_layers = r.job.setup.framework == Framework::kTorchtitan;
  if (r.has("epochs") && !r.dataset_tokens && !r.steps) {
    out.notes.push_back({"epochs",
                         "has no effect without {dataset_tokens}: {tokens} counts every epoch's "
                         "tokens",
                         ""});
  }
  if (r.dataset_text) {
    const io::DatasetText& t = *r.dataset_text;
    out.warnings.push_back(
        {"dataset_file",
         fmt::format("{} records, {} characters of text at {:g} characters per token (OpenAI's "
                     "rule of thumb for English; code and other languages run fewer): {:.4g} "
                     "tokens per pass; give {{dataset_tokens}} for your tokenizer's count",
                     t.records, t.characters, io::kCharactersPerToken, *r.dataset_tokens),
         ""});
  }
  if (r.model.empty()) {
    if (r.has("images") || r.has("image_size") || r.has("train_vision_tower")) {
      throw InvalidRequest("images",
                           "needs {model}: the images' tokens come from a vision-language "
                           "model's encoder");
    }
    resolve_steps(r, out);
    return;
  }
  r.job.model = load(r.model);
  if (r.job.objective == Objective::kRm) {
    // A reward model: the causal LM with a score head of one output in place of its LM head
    // (AutoModelForSequenceClassification, num_labels 1, as TRL's RewardTrainer loads it); PEFT
    // trains that head in full beside the adapters (PeftModelForSequenceClassification adds
    // "score" to modules_to_save).
    r.job.model = with_score_head(std::move(r.job.model));
    auto& saved = r.job.lora.modules_to_save;
    if (uses_adapters(r.job.method) &&
        std::find(saved.begin(), saved.end(), "score") == saved.end()) {
      saved.emplace_back("score");
    }
  }
  r.job.params = static_cast<double>(r.job.model.counts->total);
  for (const std::string& w : r.job.model.warnings) out.warnings.push_back({"model", w, ""});
  skip_missing_targets(r, out);
  if (r.has("trainable_fraction") && r.job.method != Method::kFreeze) solve_rank(r, out);
  if (r.job.objective == Objective::kPpo) {
    r.job.value_model = critic_model(r.value_model, "value_model", out);
    r.job.reward_model = critic_model(r.reward_model, "reward_model", out);
  }
  resolve_images(r, out);
  const std::int64_t context = r.job.model.architecture->max_positions;
  if (r.has("seq_len") && context > 0 && r.job.setup.seq_len > context) {
    out.warnings.push_back(
        {"seq_len",
         fmt::format("{} is longer than the {} positions the model was built for",
                     r.job.setup.seq_len, context),
         ""});
  }
  resolve_steps(r, out);
}

EstimateResult Session::estimate(const EstimateRequest& request) const {
  EstimateRequest r = request;
  EstimateResult out;
  resolve_model(r, out);
  std::vector<MachineChoice> machines = parse_machine_list(r.machines, catalog_);
  attach_systems(r.job.system, catalog_, machines);
  out.estimate = tb::estimate(r.job, machines);
  // The verdict's advice comes from the planner: the smallest change that fits each machine.
  for (std::size_t i = 0; i < machines.size(); ++i) {
    MachineEstimate& m = out.estimate.primary.machines[i];
    // A job inside the margin only (fits, tightly) is advised too: the change that leaves room.
    if ((!m.fits || m.verdict == Verdict::kFitsTightly) && m.rate) {
      m.advice = online_rl(r.job.objective) ? plan::advise_rollout(r.job, machines[i])
                                            : plan::advise(r.job, machines[i]);
    }
    // A fitting job whose step waits on communication or the bubble: the change that frees it.
    if (m.fits && m.verdict == Verdict::kFits && m.rate && !m.rollout && m.time.modeled &&
        (m.time.bound == Bound::kCommunication || m.time.bound == Bound::kPipeline)) {
      if (std::optional<Advice> a = plan::advise_unbound(r.job, machines[i])) {
        m.advice.push_back(std::move(*a));
      }
    }
    if (m.rollout && m.rate) m.rollout_limits = plan::rollout_limits(r.job, machines[i]);
    if (m.rollout && m.rate && !m.fits) {
      m.devices_to_fit = plan::rollout_devices_to_fit(r.job, machines[i]);
      m.devices_with_rollout = true;
    }
  }
  if (r.fit) add_fits(out.estimate);
  const auto words = [&](Scenario& s) {
    s.explain = r.explain;
    if (s.step) s.step->explain = r.explain;
  };
  words(out.estimate.primary);
  if (out.estimate.lora_alternative) words(*out.estimate.lora_alternative);
  return out;
}

std::vector<GemmDims> Session::step_gemm_shapes(const EstimateRequest& request) const {
  EstimateRequest r = request;
  EstimateResult ignored;
  resolve_model(r, ignored);
  if (!r.job.model.architecture) {
    throw InvalidRequest("model", "the step's GEMM shapes need a model's architecture",
                         "a preset, a config.json or a model folder ({model})");
  }
  validate(r.job);
  const Recipe& recipe = find_recipe(r.job.recipe_id);
  return tb::step_gemm_shapes(make_profile(r.job, recipe), layout_of(r.job, recipe));
}

}  // namespace tb::api
