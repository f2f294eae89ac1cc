// Models as users have them: a config.json, a model folder (config.json + safetensors
// headers), or a preset from data/models/*.toml (schema: docs/models.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trainbudget/io/hub_fetch.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/model_source.hpp"

namespace tb::io {

struct ModelPreset {
  std::string id;  // the file name without .toml
  std::string name;
  std::string hf_repo;
  // Other repos of the same architecture and count (a fine-tune, a re-release, a renamed copy),
  // each named in `aliases_source` with the evidence that it is the same: read as this preset,
  // said so, when they are not in the cache and the Hub is not asked.
  std::vector<std::string> hf_aliases;
  std::string aliases_source;
  std::string source;  // where the published figures come from
  std::string note;    // optional: what the published figure covers, how it was checked
  ModelArchitecture architecture;
  std::int64_t published_params{0};
  double published_params_tolerance{0.0};  // relative; 0: the publication is exact
  std::optional<std::int64_t> published_active_params;
  double published_active_tolerance{0.0};
  // DeepSeek counts activated parameters without the input embedding (a lookup, no GEMM).
  bool published_active_excludes_input_embedding{false};
  // The published total is the checkpoint's, multi-token-prediction modules included (the Hub's
  // safetensors total for Qwen3.5), which transformers drops on load.
  bool published_params_include_mtp{false};
};

// One preset file; DataError lists every problem (the [config] table goes through
// parse_hf_config, so its problems name config keys).
[[nodiscard]] ModelPreset load_model_preset(const std::filesystem::path& file);

// The same from a preset's text; `id` is what the file name would give.
[[nodiscard]] ModelPreset parse_model_preset(std::string_view text, const std::string& origin,
                                             std::string id);

// Every *.toml in `dir`, sorted by id.
[[nodiscard]] std::vector<ModelPreset> load_model_presets(const std::filesystem::path& dir);

// The safetensors headers of a model folder: the files model.safetensors.index.json names,
// else every *.safetensors in it. nullopt when the folder holds none.
[[nodiscard]] std::optional<CheckpointSummary> read_checkpoint_headers(
    const std::filesystem::path& dir);

// The local Hugging Face hub cache, as huggingface_hub finds it: $HF_HUB_CACHE, else
// $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
[[nodiscard]] std::optional<std::filesystem::path> hf_hub_cache_dir();

// The cached snapshot of a repo id ("owner/name", or "owner/name@revision": a branch or tag
// under refs/, or a commit hash; default main) when it holds a config.json; never the network.
[[nodiscard]] std::optional<std::filesystem::path> hf_cached_snapshot(std::string_view repo_id);

// --model SPEC: a config.json's text (SPEC starts with '{'), an existing folder (config.json
// required, safetensors headers cross-checked), an existing file (config.json), a repo id in the
// local Hugging Face cache (its snapshot, read as a folder), else a preset id or the repo id a
// preset carries, in presets_dir. Throws InvalidArgument naming --model when SPEC is none of
// them, DataError for a broken file. With ModelPaths::kRefused (the server) no file or folder
// SPEC names is looked at: only the text, the cache and the presets. With ModelPaths::kFetch (the
// CLI) a repo id found nowhere here is fetched from the Hub into the cache (io/hub_fetch.hpp),
// `progress` hearing of a slow fetch; offline or unreachable, a preset of the same name is taken
// with a warning, else the error names the cache searched.
enum class ModelPaths { kRead, kFetch, kRefused };
[[nodiscard]] ModelSource load_model(const std::string& spec,
                                     const std::filesystem::path& presets_dir,
                                     ModelPaths paths = ModelPaths::kRead,
                                     const FetchProgress& progress = {});

}  // namespace tb::io
