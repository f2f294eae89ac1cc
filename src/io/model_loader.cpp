// --model: presets (TOML), model folders (config.json + safetensors headers), config files.
#include "trainbudget/io/model_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "field_reader.hpp"
#include "toml_text.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/io/preset_suggestions.hpp"
#include "trainbudget/io/safetensors.hpp"
#include "trainbudget/io/shard_index.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/checked.hpp"
#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::io {
namespace fs = std::filesystem;
namespace {

// Stored buffers that are not parameters: rotary inv_freq (older Llama conversions) and
// GPT-2's causal masks (GPT2Attention registers bias / masked_bias as buffers).
bool is_buffer(std::string_view name) {
  return name.ends_with("rotary_emb.inv_freq") || name.ends_with(".attn.bias") ||
         name.ends_with(".attn.masked_bias");
}

// Quantization scales stored beside quantized weights (FP8 block scales of DeepSeek-V3,
// per-tensor FP8 scales of compressed-tensors checkpoints).
bool is_scale(std::string_view name) {
  return name.ends_with("weight_scale_inv") || name.ends_with("weight_scale") ||
         name.ends_with("input_scale");
}

void add_header(CheckpointSummary& s, const SafetensorsHeader& h,
                std::map<std::string, std::int64_t>& by_dtype) {
  s.files.push_back(h.file);
  s.data_bytes += h.data_bytes;
  for (const TensorInfo& t : h.tensors) {
    ++s.tensors;
    s.elements += t.elements;
    by_dtype[t.dtype] += t.elements;
    if (is_buffer(t.name)) s.buffer_elements += t.elements;
    if (is_scale(t.name)) s.scale_elements += t.elements;
  }
}

// Every *.safetensors in a folder, sorted; entries that cannot be examined (a symlink loop) or
// are not regular files (a folder, a FIFO, a link to /dev/zero) are problems naming the entry.
std::vector<std::string> safetensors_files_in(const fs::path& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".safetensors") continue;
    std::error_code entry_ec;
    const bool regular = entry.is_regular_file(entry_ec);
    if (entry_ec) {
      throw DataError(shown(entry.path()), {fmt::format("cannot be read: {}", entry_ec.message())});
    }
    if (!regular) {
      // A folder, FIFO or device named like a shard is not a checkpoint to count around.
      throw DataError(shown(entry.path()),
                      {"is named like a safetensors shard but is not a regular file"});
    }
    files.push_back(entry.path().filename().string());
  }
  if (ec) throw DataError(shown(dir), {fmt::format("cannot be listed: {}", ec.message())});
  std::sort(files.begin(), files.end());
  return files;
}

// Compares the headers' parameter elements with the config's count; warns when they differ.
void cross_check(ModelSource& m) {
  const CheckpointSummary& c = *m.checkpoint;
  const ParamCounts& p = *m.counts;
  if (c.index_total_size && *c.index_total_size != c.data_bytes) {
    m.warnings.push_back(fmt::format(
        "model.safetensors.index.json says total_size {} bytes, the headers describe {}",
        *c.index_total_size, c.data_bytes));
  }
  const std::int64_t stored = c.parameter_elements();
  if (stored == p.total || (p.mtp > 0 && stored == p.total_with_mtp)) return;
  std::string why;
  if (stored > p.total) {
    why =
        " (a checkpoint can hold more than the language model: a vision tower, MTP modules, "
        "extra heads)";
  } else {
    why = " (a quantized checkpoint packs several weights per stored element)";
  }
  m.warnings.push_back(
      fmt::format("the safetensors headers hold {} parameter elements, config.json gives {} "
                  "(difference {}){}; estimates use the config's count",
                  stored, p.total, stored - p.total, why));
}

ModelSource from_architecture(ModelArchitecture arch, std::string kind, std::string origin) {
  ModelSource m;
  m.kind = std::move(kind);
  m.origin = std::move(origin);
  try {
    m.counts = count_params(arch);
  } catch (const CountOverflow&) {
    throw DataError(m.origin, {"the dimensions give more than 9.2e18 parameters (64-bit "
                               "overflow): not a real model"});
  }
  m.architecture = std::move(arch);
  return m;
}

// A model folder: config.json for the architecture, the safetensors headers cross-checked.
ModelSource from_folder(const fs::path& path, const std::string& spec) {
  std::error_code ec;
  const fs::path config = path / "config.json";
  if (!fs::exists(fs::symlink_status(config, ec))) {
    throw DataError(shown(path), {"no config.json in this folder (a model folder needs one: the "
                                  "safetensors headers alone do not give the architecture)"});
  }
  ModelSource m = from_architecture(load_hf_config(config), "folder", spec);
  m.name = fs::absolute(path).lexically_normal().filename().string();
  if (m.name.empty()) {
    m.name = fs::absolute(path).lexically_normal().parent_path().filename().string();
  }
  m.checkpoint = read_checkpoint_headers(path);
  if (m.checkpoint) {
    cross_check(m);
  } else {
    m.warnings.push_back("no *.safetensors files in the folder: counts from config.json only");
  }
  return m;
}

}  // namespace

std::optional<CheckpointSummary> read_checkpoint_headers(const fs::path& dir) {
  std::vector<std::string> files;
  std::map<std::string, std::string> weight_map;
  std::optional<std::uint64_t> total_size;
  const fs::path index = dir / "model.safetensors.index.json";
  std::error_code ec;
  const fs::file_status index_status = fs::symlink_status(index, ec);
  if (index_status.type() != fs::file_type::not_found && !ec) {
    ShardIndex parsed = parse_shard_index(read_regular_file(index, kMaxIndexBytes), shown(index));
    files = std::move(parsed.files);
    weight_map = std::move(parsed.weight_map);
    total_size = parsed.total_size;
  } else {
    files = safetensors_files_in(dir);
  }
  if (files.empty()) return std::nullopt;

  CheckpointSummary s;
  std::map<std::string, std::int64_t> by_dtype;
  std::vector<std::string> problems;
  // Missing shards: the first few by name, the rest counted in a tenth problem (a DataError
  // lists ten).
  constexpr std::size_t kListedMissing = 9;
  std::size_t missing = 0;
  for (const std::string& f : files) {
    const fs::path path = dir / f;
    if (!fs::exists(fs::symlink_status(path, ec))) {
      if (++missing <= kListedMissing) {
        problems.push_back(
            fmt::format("weight_map names {}, which is not in the folder", excerpt(f)));
      }
      continue;
    }
    const SafetensorsHeader h = read_safetensors_header(path);
    for (const TensorInfo& t : h.tensors) {
      if (weight_map.empty()) continue;
      const auto it = weight_map.find(t.name);
      if (it == weight_map.end() || it->second != f) {
        problems.push_back(fmt::format("weight_map does not place tensor \"{}\" in {}",
                                       excerpt(t.name), excerpt(f)));
      } else {
        weight_map.erase(it);
      }
    }
    add_header(s, h, by_dtype);
  }
  if (missing > kListedMissing) {
    problems.push_back(
        fmt::format("and {} more files it names are not in the folder", missing - kListedMissing));
  }
  for (const auto& [tensor, file] : weight_map) {
    if (problems.size() >= 10 || missing > 0) break;
    problems.push_back(fmt::format("weight_map places tensor \"{}\" in {}, whose header lacks it",
                                   excerpt(tensor), excerpt(file)));
  }
  if (!problems.empty()) throw DataError(shown(index), problems);
  s.elements_by_dtype.assign(by_dtype.begin(), by_dtype.end());
  s.index_total_size = total_size;
  return s;
}

ModelPreset parse_model_preset(std::string_view text, const std::string& origin, std::string id) {
  const TomlTable root = parse_toml_text(text, origin);
  std::vector<std::string> problems;
  ModelPreset p;
  p.id = std::move(id);
  FieldReader<TomlSource> r(root, "", problems);
  // A count the preset publishes: a whole number > 0.
  const auto positive = [&](const char* key, bool required) -> std::optional<std::int64_t> {
    const std::optional<std::int64_t> v = r.integer(key, required);
    if (v && *v <= 0) r.fail(fmt::format("{}: {} must be > 0", key, *v));
    return v;
  };
  // A relative tolerance in [0, 1); absent: 0 (the publication is exact).
  const auto tolerance = [&](const char* key) -> double {
    const std::optional<double> v = r.number(key, false);
    if (v && !(*v >= 0.0 && *v < 1.0)) r.fail(fmt::format("{}: {} must be in [0, 1)", key, *v));
    return v.value_or(0.0);
  };
  r.allow_only({"name", "hf_repo", "hf_aliases", "aliases_source", "source", "note",
                "published_params", "published_params_tolerance", "published_active_params",
                "published_active_tolerance", "published_active_excludes_input_embedding",
                "published_params_include_mtp", "config"});
  p.name = r.string("name", true);
  p.hf_repo = r.string("hf_repo", true);
  if (const auto* aliases = root.array("hf_aliases")) {
    for (const TomlValue& v : *aliases) {
      const std::string* repo = v.as_string();
      if (repo == nullptr || repo->find('/') == std::string::npos) {
        problems.push_back("hf_aliases: each is a repo id, \"owner/name\"");
        break;
      }
      p.hf_aliases.push_back(*repo);
    }
    p.aliases_source = r.string("aliases_source", true);
  }
  p.source = r.string("source", true);
  p.note = r.text("note", "");
  p.published_params = positive("published_params", true).value_or(0);
  p.published_params_tolerance = tolerance("published_params_tolerance");
  p.published_active_params = positive("published_active_params", false);
  p.published_active_tolerance = tolerance("published_active_tolerance");
  p.published_active_excludes_input_embedding =
      r.flag("published_active_excludes_input_embedding", false);
  p.published_params_include_mtp = r.flag("published_params_include_mtp", false);
  const TomlTable* config = root.table("config");
  if (config == nullptr) problems.push_back("config: missing (a table of config.json keys)");
  if (!problems.empty()) throw DataError(origin, problems);

  p.architecture = parse_hf_config(toml_as_json(*config).dump(), origin + " [config]");
  p.architecture.name = p.name;
  return p;
}

ModelPreset load_model_preset(const fs::path& file) {
  return parse_model_preset(read_regular_file(file, kMaxTomlBytes), shown(file),
                            file.stem().string());
}

std::vector<ModelPreset> load_model_presets(const fs::path& dir) {
  const std::vector<fs::path> files = toml_files_in(dir);
  std::vector<ModelPreset> out;
  out.reserve(files.size());
  for (const fs::path& f : files) out.push_back(load_model_preset(f));
  return out;
}

ModelSource load_model(const std::string& spec, const fs::path& presets_dir, ModelPaths paths,
                       const FetchProgress& progress) {
  if (spec.empty()) throw InvalidRequest("model", "empty (a config.json, a folder or a preset id)");
  // A config.json's text itself (the web page's paste box, scripts): no file is read.
  if (spec.find_first_not_of(" \t\r\n") != std::string::npos &&
      spec[spec.find_first_not_of(" \t\r\n")] == '{') {
    ModelSource m = from_architecture(parse_hf_config(spec, "the given config.json text"), "config",
                                      "config.json text");
    m.name = "config.json text";
    return m;
  }
  const fs::path path{spec};
  std::error_code ec;
  // A server reads no file or folder a request names (docs/serve.md): not even whether it exists.
  const fs::file_status status = paths != ModelPaths::kRefused
                                     ? fs::status(path, ec)
                                     : fs::file_status{fs::file_type::not_found};
  // A name too long for a path is not a file: it may still be a preset id (it is not).
  if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::filename_too_long) {
    throw DataError(shown(path), {fmt::format("cannot be read: {}", ec.message())});
  }
  if (status.type() == fs::file_type::directory) return from_folder(path, spec);
  if (fs::exists(status)) {
    // load_hf_config refuses what is not a regular file (a FIFO, a device) by name.
    ModelSource m = from_architecture(load_hf_config(path), "config", spec);
    // A file named config.json is named by its folder; any other name by itself.
    m.name = path.filename() == "config.json" ? fs::absolute(path).parent_path().filename().string()
                                              : path.stem().string();
    return m;
  }
  // A Hugging Face repo id in the local cache (never the network): its snapshot, read as a
  // model folder; refs/main (or the revision after '@') names the snapshot.
  if (const auto snapshot = hf_cached_snapshot(spec)) {
    ModelSource m = from_folder(*snapshot, spec);
    m.kind = "hf-cache";
    m.name = spec.substr(0, spec.find('@'));
    return m;
  }
  const auto from_preset = [](ModelPreset p, const std::string& id) {
    ModelSource m = from_architecture(std::move(p.architecture), "preset", id);
    m.name = p.name;
    m.source = p.source;
    return m;
  };
  const fs::path preset = presets_dir / (spec + ".toml");
  if (spec.find('/') == std::string::npos && fs::is_regular_file(preset, ec)) {
    return from_preset(load_model_preset(preset), spec);
  }
  std::vector<std::string> ids;
  for (const auto& entry : fs::directory_iterator(presets_dir, ec)) {
    if (entry.path().extension() == ".toml") ids.push_back(entry.path().stem().string());
  }
  std::sort(ids.begin(), ids.end());
  // The names users have: the Hugging Face repo id a preset carries (meta-llama/Llama-3.1-8B)
  // or the preset id in other case (Llama-3.1-8B), compared without case.
  const auto lower = [](std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string wanted = lower(spec);
  for (const std::string& id : ids) {
    if (id == wanted) return from_preset(load_model_preset(presets_dir / (id + ".toml")), id);
  }
  if (spec.find('/') != std::string::npos && spec.size() <= 256) {
    // Every preset, read once for the lookups below (by repo, by alias, by shared name).
    std::vector<ModelPreset> presets;
    presets.reserve(ids.size());
    for (const std::string& id : ids)
      presets.push_back(load_model_preset(presets_dir / (id + ".toml")));
    for (const ModelPreset& p : presets) {
      if (lower(p.hf_repo) == wanted) return from_preset(p, p.id);
    }
    // Not here: the Hub's config.json, fetched into the cache (the CLI only; offline, or with
    // the endpoint out of reach, a preset of the same name below is the answer, said so).
    std::optional<Problem> unreachable;
    // The environment (and the token file) is read only where a fetch may happen.
    const std::optional<HubSettings> hub =
        paths == ModelPaths::kFetch ? std::optional{hub_settings_from_environment()} : std::nullopt;
    const bool offline = hub && hub->offline;
    if (const auto id = parse_repo_id(spec); id && hub && !offline) {
      try {
        ModelSource m = from_folder(fetch_hub_config(*id, *hub, progress), spec);
        m.kind = "hf-hub";
        m.name = id->repo;
        return m;
      } catch (const HubUnreachable& e) {
        unreachable = e.problems().front();
      }
    }
    // A mirror or a tuned variant of a preset's repo (NousResearch/Meta-Llama-3-8B,
    // meta-llama/Meta-Llama-3-8B-Instruct): the same name after the owner, without an
    // instruct/chat suffix, has the same architecture. Said as a warning.
    const auto base_name = [&](std::string_view id) {
      std::string name = lower(id.substr(id.find('/') + 1));
      // Meta's first name for Llama 3 and 3.1 repos (meta-llama/Meta-Llama-3.1-8B, since renamed
      // Llama-3.1-8B), which mirrors such as NousResearch's keep.
      if (name.starts_with("meta-llama-")) name = name.substr(5);
      // Qwen's dated re-releases (Qwen3-4B-Instruct-2507, Qwen3-30B-A3B-Thinking-2507) keep the
      // architecture and count of the first release: a trailing -MMYY goes too, as does a
      // dtype re-upload's -bf16 or -fp16 (unsloth/gpt-oss-20b-BF16, the same weights unpacked;
      // casperhansen/llama-3-70b-fp16), a bitsandbytes copy's -bnb-nf4 (the same weights stored
      // in NF4, which the config's own load_in_4bit says: hugging-quants'
      // Meta-Llama-3.1-405B-BNB-NF4-BF16), and axolotl's -linearized Llama 4 (its experts as
      // one nn.Linear each, the same parameters: llama4_linearized_experts) and -dequantized
      // gpt-oss (its MXFP4 experts stored in bf16, what trainers load anyway).
      const auto dated = [](std::string_view n) {
        return n.size() > 5 && n[n.size() - 5] == '-' &&
               std::all_of(n.end() - 4, n.end(), [](char c) { return c >= '0' && c <= '9'; });
      };
      for (bool cut = true; cut;) {
        cut = false;
        if (dated(name)) {
          name.resize(name.size() - 5);
          cut = true;
        }
        for (const std::string_view suffix :
             {"-instruct", "-chat", "-hf", "-it", "-pt", "-base", "-thinking", "-bf16", "-fp16",
              "-bnb-nf4", "-linearized", "-dequantized"}) {
          if (name.size() > suffix.size() && name.ends_with(suffix)) {
            name.resize(name.size() - suffix.size());
            cut = true;
          }
        }
      }
      return name;
    };
    // The preset whose repo shares `name`'s name (base_name) or, for a folder (by_id), whose id
    // is the name in other case.
    const auto shared = [&](std::string_view name, bool by_id) -> std::optional<std::string> {
      const std::string wanted_name = base_name(name);
      for (const ModelPreset& p : presets) {
        if (by_id && p.id == lower(name.substr(name.find('/') + 1))) return p.id;
        if (p.hf_repo.find('/') != std::string::npos && base_name(p.hf_repo) == wanted_name) {
          return p.id;
        }
      }
      return std::nullopt;
    };
    // That preset, with a warning: "'spec' <lead> the preset <id> (<repo>)<tail>".
    const auto read_as = [&](const std::string& id, std::string_view lead, std::string_view tail) {
      const ModelPreset& p = *std::find_if(presets.begin(), presets.end(),
                                           [&](const ModelPreset& q) { return q.id == id; });
      const std::string repo = p.hf_repo;
      ModelSource m = from_preset(p, id);
      m.warnings.push_back(
          fmt::format("'{}' {} the preset {} ({}){}", excerpt(spec), lead, id, repo, tail));
      return m;
    };
    const char* not_here = unreachable ? "is not in the local Hugging Face cache and the Hub "
                                         "could not be reached; read as"
                           : offline   ? "is not in the local Hugging Face cache (HF_HUB_OFFLINE "
                                         "is set); read as"
                                       : "is not in the local Hugging Face cache; read as";
    // The preset that lists a repo as of its own architecture and count (hf_aliases; the
    // evidence is the preset's aliases_source): by the whole repo id, or for a folder by the
    // repo's name after the owner.
    const auto aliased = [&](std::string_view name, bool by_name) -> std::optional<std::string> {
      for (const ModelPreset& p : presets) {
        for (const std::string& alias : p.hf_aliases) {
          const std::string a = lower(alias);
          if ((by_name ? a.substr(a.find('/') + 1) : a) == lower(name)) return p.id;
        }
      }
      return std::nullopt;
    };
    constexpr std::string_view kAliasTail =
        ", whose architecture and count it has (docs/models.md)";
    if (const auto id = aliased(spec, false)) return read_as(*id, not_here, kAliasTail);
    if (const auto id = shared(spec, false)) {
      return read_as(*id, not_here, ", whose name it shares: the same architecture");
    }
    // A folder that is not here, named as its Hub repo (verl's and LLaMA-Factory's examples
    // download to $HOME/models/Qwen2-7B-Instruct): read by that name as above, said so.
    if (!parse_repo_id(spec) && paths != ModelPaths::kRefused) {
      std::string_view leaf = spec;
      while (!leaf.empty() && leaf.back() == '/') leaf.remove_suffix(1);
      leaf = leaf.substr(leaf.rfind('/') + 1);
      if (!leaf.empty() && leaf.find('$') == std::string_view::npos) {
        if (const auto id = aliased(leaf, true)) {
          return read_as(*id, "is not a folder here; read by its name as", kAliasTail);
        }
        if (const auto id = shared(fmt::format("/{}", leaf), true)) {
          return read_as(*id, "is not a folder here; read by its name as",
                         ": the same architecture");
        }
      }
    }
    if (unreachable) {
      throw HubUnreachable(unreachable->field,
                           fmt::format("{}; closest presets: {}", unreachable->message,
                                       fmt::join(closest_presets(spec, ids), ", ")),
                           unreachable->accepted);
    }
    if (offline && parse_repo_id(spec)) {
      (void)fetch_hub_config(*parse_repo_id(spec), *hub, progress);  // throws: offline, said
    }
  }
  if (paths == ModelPaths::kRefused &&
      (spec.find('/') != std::string::npos || spec.starts_with('.'))) {
    throw InvalidRequest("model",
                         fmt::format("'{}' is not a preset id or a Hugging Face repo id in the "
                                     "server's cache; the server reads no path a request names",
                                     excerpt(spec)),
                         "a preset id, a repo id, or a config.json's text");
  }
  if (ids.empty()) {
    throw InvalidRequest(
        "model",
        fmt::format("'{}' is not a config.json, a model folder or a preset id (no presets found in "
                    "{})",
                    excerpt(spec), shown(presets_dir)));
  }
  throw InvalidRequest(
      "model",
      fmt::format("'{}' is not a config.json, a model folder or a preset id; closest presets: {} "
                  "(all of them: data/models, docs/models.md)",
                  excerpt(spec), fmt::join(closest_presets(spec, ids), ", ")));
}

}  // namespace tb::io
