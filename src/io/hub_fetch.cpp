// config.json from the Hugging Face Hub over HTTP(S) with libcurl (loaded on first use), into
// huggingface_hub's cache layout (huggingface_hub/file_download.py: blobs/<etag>,
// snapshots/<commit>/<file> -> a relative link to the blob, refs/<revision> holding the commit).
#include "trainbudget/io/hub_fetch.hpp"

#include <curl/curl.h>
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <system_error>
#include <type_traits>

#include "trainbudget/io/file_read.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace fs = std::filesystem;
namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string{v};
}

// huggingface_hub's constants._is_true: the value upper-cased is 1, ON, YES or TRUE.
bool is_true(const std::optional<std::string>& v) {
  if (!v) return false;
  std::string up = *v;
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return up == "1" || up == "ON" || up == "YES" || up == "TRUE";
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start])) != 0) ++start;
  return s.substr(start);
}

// The Hub's names: letters, digits, '-', '_' and '.', not starting with '.' or '-', at most 96
// characters (huggingface_hub's validate_repo_id).
bool hub_name(std::string_view s) {
  if (s.empty() || s.size() > 96 || s.front() == '.' || s.front() == '-') return false;
  if (s.find("..") != std::string_view::npos || s.find("--") != std::string_view::npos) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
  });
}

bool commit_hash(std::string_view s) {
  return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

struct Response {
  long status{0};
  std::string body;
  std::string commit;      // X-Repo-Commit
  std::string etag;        // X-Linked-Etag, else ETag, without quotes or W/
  std::string error_code;  // X-Error-Code (RepoNotFound, GatedRepo, RevisionNotFound, ...)
  bool too_large{false};
};

struct Transfer {
  Response* out;
  std::size_t limit;
  const FetchProgress* progress;
  std::string what;
  std::chrono::steady_clock::time_point start{std::chrono::steady_clock::now()};
  std::chrono::steady_clock::time_point said{};
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (t->out->body.size() + n > t->limit) {
    t->out->too_large = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  t->out->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  const std::string line{data, n};
  const auto colon = line.find(':');
  if (colon == std::string::npos) return n;
  std::string name = line.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string value = trimmed(line.substr(colon + 1));
  if (value.starts_with("W/")) value = value.substr(2);
  if (name == "etag" || name == "x-linked-etag") {
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (name == "x-linked-etag" || t->out->etag.empty()) t->out->etag = value;
  } else if (name == "x-repo-commit" && t->out->commit.empty()) {
    t->out->commit = value;
  } else if (name == "x-error-code") {
    t->out->error_code = value;
  }
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t now, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  const auto clock = std::chrono::steady_clock::now();
  // A line after the first second, then one a second: a fast fetch says nothing.
  if (*t->progress && clock - t->start >= std::chrono::seconds(1) &&
      clock - t->said >= std::chrono::seconds(1)) {
    t->said = clock;
    (*t->progress)(fmt::format("{}: {} kB", t->what, now / 1000));
  }
  return 0;
}

// libcurl, loaded when a fetch first needs it: linked, its 30 shared libraries (TLS, Kerberos,
// LDAP, ...) would be loaded and relocated by every run, tripling the start-up of an estimate
// that never fetches (README, "Speed"). The soname is libcurl's ABI 4, stable since 2006.
struct Curl {
  decltype(&curl_global_init) global_init{};
  decltype(&curl_easy_init) easy_init{};
  decltype(&curl_easy_cleanup) easy_cleanup{};
  decltype(&curl_easy_setopt) easy_setopt{};
  decltype(&curl_easy_perform) easy_perform{};
  decltype(&curl_easy_getinfo) easy_getinfo{};
  decltype(&curl_easy_strerror) easy_strerror{};
  decltype(&curl_slist_append) slist_append{};
  decltype(&curl_slist_free_all) slist_free_all{};
};

const Curl& curl_library() {
  static const std::optional<Curl> loaded = []() -> std::optional<Curl> {
    void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return std::nullopt;
    Curl c;
    bool ok = true;
    const auto bind = [&](auto& fn, const char* name) {
      void* sym = dlsym(lib, name);
      ok = ok && sym != nullptr;
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym);
    };
    bind(c.global_init, "curl_global_init");
    bind(c.easy_init, "curl_easy_init");
    bind(c.easy_cleanup, "curl_easy_cleanup");
    bind(c.easy_setopt, "curl_easy_setopt");
    bind(c.easy_perform, "curl_easy_perform");
    bind(c.easy_getinfo, "curl_easy_getinfo");
    bind(c.easy_strerror, "curl_easy_strerror");
    bind(c.slist_append, "curl_slist_append");
    bind(c.slist_free_all, "curl_slist_free_all");
    if (!ok) return std::nullopt;
    c.global_init(CURL_GLOBAL_DEFAULT);
    return c;
  }();
  if (!loaded) {
    throw InvalidRequest("model",
                         "fetching from the Hub needs libcurl (libcurl.so.4), which cannot be "
                         "loaded: install Debian's libcurl4",
                         "a repo id in the Hugging Face cache, a config.json, a folder or a "
                         "preset id");
  }
  return *loaded;
}

// One GET; throws on a transport failure (the message names the endpoint).
Response get(const std::string& url, const HubSettings& hub, const std::string& what,
             const FetchProgress& progress, std::size_t limit) {
  const Curl& lib = curl_library();
  const auto cleanup = [&lib](CURL* c) { lib.easy_cleanup(c); };
  std::unique_ptr<CURL, decltype(cleanup)> curl{lib.easy_init(), cleanup};
  if (!curl) throw InvalidRequest("model", "cannot start an HTTP client (libcurl)");
  Response out;
  Transfer t{&out, limit, &progress, what};
  const auto free_list = [&lib](curl_slist* l) { lib.slist_free_all(l); };
  std::unique_ptr<curl_slist, decltype(free_list)> headers{nullptr, free_list};
  const auto add_header = [&](const std::string& h) {
    headers.reset(lib.slist_append(headers.release(), h.c_str()));
  };
  add_header("User-Agent: trainbudget; hf_hub-compatible");
  if (hub.token) add_header("Authorization: Bearer " + *hub.token);
  CURL* c = curl.get();
  lib.easy_setopt(c, CURLOPT_URL, url.c_str());
  lib.easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  lib.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  lib.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  lib.easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  lib.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  lib.easy_setopt(c, CURLOPT_TIMEOUT, 120L);
  lib.easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  lib.easy_setopt(c, CURLOPT_LOW_SPEED_TIME, 30L);
  lib.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  lib.easy_setopt(c, CURLOPT_WRITEDATA, &t);
  lib.easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  lib.easy_setopt(c, CURLOPT_HEADERDATA, &t);
  lib.easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
  lib.easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  lib.easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  const CURLcode rc = lib.easy_perform(c);
  if (out.too_large) {
    throw InvalidRequest("model", fmt::format("{} is larger than {} MB: not a config.json", what,
                                              limit / 1'000'000));
  }
  if (rc != CURLE_OK) {
    throw HubUnreachable(
        "model",
        fmt::format("could not reach {} ({}); the model is not in the Hugging Face cache either",
                    excerpt(hub.endpoint, 80), lib.easy_strerror(rc)),
        "a repo id in the cache, a config.json, a folder or a preset id (or HF_HUB_OFFLINE=1 "
        "to read the cache only)");
  }
  lib.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &out.status);
  return out;
}

// Writes `text` to `file` through a temporary in the same folder, so a reader never sees half.
void write_atomically(const fs::path& file, const std::string& text) {
  const fs::path tmp = file.parent_path() / (file.filename().string() + ".incomplete");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) throw std::system_error(errno, std::generic_category(), shown(tmp));
  }
  fs::rename(tmp, file);
}

}  // namespace

HubSettings hub_settings_from_environment() {
  HubSettings s;
  if (auto e = env("HF_ENDPOINT")) {
    s.endpoint = *e;
    while (s.endpoint.size() > 1 && s.endpoint.back() == '/') s.endpoint.pop_back();
  }
  s.offline = is_true(env("HF_HUB_OFFLINE"));
  s.cache = hf_hub_cache_dir();
  if (auto t = env("HF_TOKEN")) {
    s.token = trimmed(*t);
  } else {
    // The token `hf auth login` saves: $HF_TOKEN_PATH, else $HF_HOME/token.
    std::optional<fs::path> file;
    if (auto p = env("HF_TOKEN_PATH")) {
      file = fs::path(*p);
    } else if (auto home = env("HF_HOME")) {
      file = fs::path(*home) / "token";
    } else if (auto xdg = env("XDG_CACHE_HOME")) {
      file = fs::path(*xdg) / "huggingface" / "token";
    } else if (auto h = env("HOME")) {
      file = fs::path(*h) / ".cache" / "huggingface" / "token";
    }
    std::error_code ec;
    if (file && fs::is_regular_file(*file, ec)) {
      try {
        std::string text = trimmed(read_regular_file(*file, 4096));
        if (!text.empty()) s.token = std::move(text);
      } catch (const Error&) {
        // An unreadable token file is no token: the Hub then answers a gated repo with 401,
        // which is said.
      }
    }
  }
  if (s.token && s.token->find_first_of("\r\n") != std::string::npos) s.token.reset();
  return s;
}

std::optional<RepoId> parse_repo_id(std::string_view text) {
  RepoId id;
  std::string_view repo = text;
  if (const auto at = text.find('@'); at != std::string_view::npos) {
    id.revision = std::string{text.substr(at + 1)};
    repo = text.substr(0, at);
    if (!hub_name(id.revision)) return std::nullopt;
  }
  const auto slash = repo.find('/');
  if (slash == std::string_view::npos || !hub_name(repo.substr(0, slash)) ||
      !hub_name(repo.substr(slash + 1))) {
    return std::nullopt;
  }
  id.repo = std::string{repo};
  return id;
}

fs::path fetch_hub_config(const RepoId& id, const HubSettings& hub, const FetchProgress& progress) {
  const std::string cache_text = hub.cache ? shown(*hub.cache) : std::string{"(no cache folder)"};
  if (hub.offline) {
    throw InvalidRequest(
        "model",
        fmt::format("'{}' is not in the Hugging Face cache ({}) and HF_HUB_OFFLINE is set, so the "
                    "Hub was not asked",
                    id.repo, cache_text),
        "a repo id in that cache, a config.json, a folder or a preset id");
  }
  if (!hub.cache) {
    throw InvalidRequest("model",
                         fmt::format("'{}' cannot be fetched: no Hugging Face cache folder (set "
                                     "HF_HUB_CACHE, HF_HOME or HOME)",
                                     id.repo));
  }
  const std::string what = fmt::format("fetching {} config.json from {}", id.repo, hub.endpoint);
  const std::string url =
      fmt::format("{}/{}/resolve/{}/config.json", hub.endpoint, id.repo, id.revision);
  const Response r = get(url, hub, what, progress, static_cast<std::size_t>(kMaxConfigBytes));
  if (r.status == 401 || r.status == 403) {
    const bool gated = r.error_code == "GatedRepo";
    if (r.error_code == "RepoNotFound" && !hub.token) {
      throw InvalidRequest("model", fmt::format("'{}' is not on {} (or is private: set HF_TOKEN)",
                                                id.repo, excerpt(hub.endpoint, 80)));
    }
    throw InvalidRequest(
        "model",
        fmt::format("'{}' on {} is {}: {}", id.repo, excerpt(hub.endpoint, 80),
                    gated ? "gated" : "private or gated",
                    hub.token ? "the token in HF_TOKEN has no access to it (accept its licence on "
                                "the model's page)"
                              : "set HF_TOKEN to a token with access (accept its licence on the "
                                "model's page)"));
  }
  if (r.status == 404) {
    const std::string what_missing =
        r.error_code == "RevisionNotFound" ? fmt::format("has no revision '{}'", id.revision)
        : r.error_code == "EntryNotFound"  ? std::string{"has no config.json"}
                                           : std::string{"is not there"};
    throw InvalidRequest(
        "model", fmt::format("'{}' {} on {}", id.repo, what_missing, excerpt(hub.endpoint, 80)),
        "a repo id as the Hub spells it (owner/name), a config.json, a folder or "
        "a preset id");
  }
  if (r.status != 200) {
    throw InvalidRequest("model", fmt::format("{} answered HTTP {} for {}'s config.json",
                                              excerpt(hub.endpoint, 80), r.status, id.repo));
  }
  // The commit names the snapshot; a server that sends none (a plain mirror) gets the revision
  // when it is a commit hash, else the file's ETag stands in for one.
  std::string commit = r.commit;
  if (!commit_hash(commit)) commit = commit_hash(id.revision) ? id.revision : std::string{};
  std::string etag = r.etag;
  if (!hub_name(etag)) etag.clear();
  if (commit.empty() || etag.empty()) {
    throw InvalidRequest("model",
                         fmt::format("{} sent {}'s config.json without {} (not a Hub endpoint?)",
                                     excerpt(hub.endpoint, 80), id.repo,
                                     commit.empty() ? "an X-Repo-Commit header" : "an ETag"));
  }
  const auto slash = id.repo.find('/');
  const fs::path root =
      *hub.cache / ("models--" + id.repo.substr(0, slash) + "--" + id.repo.substr(slash + 1));
  const fs::path snapshot = root / "snapshots" / commit;
  try {
    fs::create_directories(root / "blobs");
    fs::create_directories(snapshot);
    fs::create_directories(root / "refs");
    write_atomically(root / "blobs" / etag, r.body);
    const fs::path link = snapshot / "config.json";
    std::error_code ec;
    fs::remove(link, ec);
    fs::create_symlink(fs::path("..") / ".." / "blobs" / etag, link);
    if (id.revision != commit) write_atomically(root / "refs" / id.revision, commit);
  } catch (const std::exception& e) {
    throw InvalidRequest("model", fmt::format("cannot write the Hugging Face cache {}: {}",
                                              cache_text, excerpt(e.what(), 120)));
  }
  return snapshot;
}

}  // namespace tb::io
