// A model's config.json from the Hugging Face Hub, fetched as the Hub's own clients do
// (huggingface_hub's hf_hub_download): GET {endpoint}/{repo}/resolve/{revision}/config.json, the
// commit from the X-Repo-Commit header, the file stored in the same cache layout
// (blobs/<etag>, snapshots/<commit>/config.json linking to it, refs/<revision>), so the next
// run, and the user's other tools, read it from the cache. docs/models.md, "From the Hub".
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "trainbudget/spec/error.hpp"

namespace tb::io {

// The endpoint could not be reached (no network, a refused connection, a timeout): the one
// failure after which a caller may still answer from elsewhere (a preset of the same name).
class HubUnreachable : public InvalidRequest {
 public:
  using InvalidRequest::InvalidRequest;
};

// What the environment says about the Hub, as huggingface_hub reads it: HF_ENDPOINT (default
// https://huggingface.co), HF_TOKEN (else the token file $HF_HOME/token, HF_HOME defaulting to
// ~/.cache/huggingface), HF_HUB_OFFLINE (1, ON, YES or TRUE in any case).
struct HubSettings {
  std::string endpoint{"https://huggingface.co"};
  std::optional<std::string> token;
  bool offline{false};
  std::optional<std::filesystem::path> cache;  // hf_hub_cache_dir()
};

[[nodiscard]] HubSettings hub_settings_from_environment();

// Called with a line while a fetch is slow ("fetching Qwen/Qwen3-4B config.json from
// https://huggingface.co: 12 kB").
using FetchProgress = std::function<void(std::string_view)>;

// "owner/name" or "owner/name@revision": the repo and the revision (default main); nullopt when
// the text is not a repo id.
struct RepoId {
  std::string repo;
  std::string revision{"main"};
};
[[nodiscard]] std::optional<RepoId> parse_repo_id(std::string_view text);

// Downloads `id`'s config.json into the cache and returns the snapshot folder that holds it.
// Throws DataError with one line for each way it can fail: offline (naming the cache searched),
// unreachable, not found, gated or private (naming HF_TOKEN), too large, an unwritable cache.
[[nodiscard]] std::filesystem::path fetch_hub_config(const RepoId& id, const HubSettings& hub,
                                                     const FetchProgress& progress);

}  // namespace tb::io
