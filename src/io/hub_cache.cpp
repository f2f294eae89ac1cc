// The local Hugging Face hub cache as huggingface_hub lays it out: where it is, and the snapshot
// a repo id (and revision) names in it.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "trainbudget/io/file_read.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace fs = std::filesystem;

std::optional<fs::path> hf_hub_cache_dir() {
  // huggingface_hub's constants: HF_HUB_CACHE, else $HF_HOME/hub, HF_HOME defaulting to
  // $XDG_CACHE_HOME/huggingface, XDG_CACHE_HOME to ~/.cache.
  const auto env = [](const char* name) -> std::optional<fs::path> {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return fs::path(v);
  };
  if (auto hub = env("HF_HUB_CACHE")) return hub;
  if (auto home = env("HF_HOME")) return *home / "hub";
  if (auto xdg = env("XDG_CACHE_HOME")) return *xdg / "huggingface" / "hub";
  if (auto home = env("HOME")) return *home / ".cache" / "huggingface" / "hub";
  return std::nullopt;
}

std::optional<fs::path> hf_cached_snapshot(std::string_view repo_id) {
  // "owner/name" or "owner/name@revision" (a branch or tag under refs/, or a commit hash).
  std::string repo{repo_id};
  std::string revision = "main";
  if (const auto at = repo.find('@'); at != std::string::npos) {
    revision = repo.substr(at + 1);
    repo = repo.substr(0, at);
  }
  const auto slash = repo.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == repo.size() ||
      repo.find('/', slash + 1) != std::string::npos || repo.starts_with('.') || revision.empty() ||
      revision.find('/') != std::string::npos || revision.find("..") != std::string::npos) {
    return std::nullopt;
  }
  const auto cache = hf_hub_cache_dir();
  if (!cache) return std::nullopt;
  const fs::path root =
      *cache / ("models--" + repo.substr(0, slash) + "--" + repo.substr(slash + 1));
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return std::nullopt;
  // A ref is a commit hash of 40 characters: read as a small regular file (never a FIFO, a
  // device or a link to one), and only a plain name is taken from it, so the snapshot stays
  // inside the cache.
  std::string commit = revision;
  const fs::path ref = root / "refs" / revision;
  const bool named = fs::symlink_status(ref, ec).type() != fs::file_type::not_found;
  if (named) {
    commit = read_regular_file(ref, kMaxRefBytes);
    while (!commit.empty() && std::isspace(static_cast<unsigned char>(commit.back())) != 0) {
      commit.pop_back();
    }
    const bool plain =
        !commit.empty() && commit.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
    if (!plain) {
      throw DataError(shown(ref), {fmt::format("does not hold a commit hash ('{}'); the cache "
                                               "entry for {} is broken",
                                               excerpt(commit, 60), repo)});
    }
  }
  // snapshot_download(revision=<commit>) writes no ref: without refs/main, the one snapshot
  // that holds a config.json is the model; several are named, to choose one with @commit.
  if (!named && revision == "main") {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(root / "snapshots", ec)) {
      std::error_code entry_ec;
      if (fs::is_regular_file(entry.path() / "config.json", entry_ec)) {
        found.push_back(entry.path().filename().string());
      }
    }
    std::sort(found.begin(), found.end());
    if (found.size() == 1) return root / "snapshots" / found.front();
    if (found.size() > 1) {
      throw DataError(shown(root / "snapshots"),
                      {fmt::format("{} has no refs/main and {} snapshots ({}): name one as "
                                   "{}@<commit>",
                                   repo, found.size(),
                                   excerpt(fmt::format("{}", fmt::join(found, ", ")), 200), repo)});
    }
  }
  const fs::path snapshot = root / "snapshots" / commit;
  if (fs::is_regular_file(snapshot / "config.json", ec)) return snapshot;
  // The entry is there but unusable: say so rather than "not a model".
  if (named || fs::is_directory(snapshot, ec)) {
    throw DataError(shown(snapshot / "config.json"),
                    {fmt::format("the cached snapshot {} of {} has no readable config.json (a "
                                 "download cut short, or a link into blobs/ that is missing); "
                                 "download the repo again",
                                 excerpt(commit, 60), repo)});
  }
  return std::nullopt;
}

}  // namespace tb::io
