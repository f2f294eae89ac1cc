// --model: presets (TOML), model folders (config.json + safetensors headers), config files.
#include "trainbudget/io/model_loader.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "field_reader.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/io/safetensors.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/spec/closest.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace fs = std::filesystem;
namespace {

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file.string(), {"cannot be opened"});
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

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

// model.safetensors.index.json: {"metadata": {"total_size": bytes}, "weight_map": {tensor:
// file}}. Returns the files it names, in order, after checking they stay inside the folder.
std::vector<std::string> index_files(const fs::path& index, std::map<std::string, std::string>& map,
                                     std::optional<std::uint64_t>& total_size) {
  const std::string origin = index.string();
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(read_text(index));
  } catch (const nlohmann::json::exception& e) {
    throw DataError(origin, {fmt::format("not valid JSON: {}", e.what())});
  }
  std::vector<std::string> problems;
  const auto weight_map = root.is_object() ? root.find("weight_map") : root.end();
  if (!root.is_object() || weight_map == root.end() || !weight_map->is_object()) {
    throw DataError(origin, {"weight_map: missing (an object of tensor -> file)"});
  }
  std::vector<std::string> files;
  for (const auto& [tensor, file] : weight_map->items()) {
    if (!file.is_string()) {
      problems.push_back(fmt::format("weight_map.{}: must be a file name", tensor));
      continue;
    }
    const std::string f = file.get<std::string>();
    if (f.empty() || f.find('/') != std::string::npos || f.find('\\') != std::string::npos ||
        f == "." || f == "..") {
      problems.push_back(
          fmt::format("weight_map.{}: \"{}\" is not a file in this folder", tensor, f));
      continue;
    }
    map[tensor] = f;
    if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
  }
  if (const auto meta = root.find("metadata"); meta != root.end() && meta->is_object()) {
    if (const auto ts = meta->find("total_size"); ts != meta->end() && ts->is_number_unsigned()) {
      total_size = ts->get<std::uint64_t>();
    }
  }
  if (!problems.empty()) throw DataError(origin, problems);
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
  m.counts = count_params(arch);
  m.architecture = std::move(arch);
  return m;
}

}  // namespace

std::optional<CheckpointSummary> read_checkpoint_headers(const fs::path& dir) {
  std::vector<std::string> files;
  std::map<std::string, std::string> weight_map;
  std::optional<std::uint64_t> total_size;
  const fs::path index = dir / "model.safetensors.index.json";
  if (fs::exists(index)) {
    files = index_files(index, weight_map, total_size);
  } else {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.is_regular_file() && entry.path().extension() == ".safetensors") {
        files.push_back(entry.path().filename().string());
      }
    }
    if (ec) throw DataError(dir.string(), {fmt::format("cannot be listed: {}", ec.message())});
    std::sort(files.begin(), files.end());
  }
  if (files.empty()) return std::nullopt;

  CheckpointSummary s;
  std::map<std::string, std::int64_t> by_dtype;
  std::vector<std::string> problems;
  for (const std::string& f : files) {
    const fs::path path = dir / f;
    if (!fs::is_regular_file(path)) {
      problems.push_back(fmt::format("weight_map names {}, which is not in the folder", f));
      continue;
    }
    const SafetensorsHeader h = read_safetensors_header(path);
    for (const TensorInfo& t : h.tensors) {
      if (weight_map.empty()) continue;
      const auto it = weight_map.find(t.name);
      if (it == weight_map.end() || it->second != f) {
        problems.push_back(fmt::format("weight_map does not place tensor \"{}\" in {}", t.name, f));
      } else {
        weight_map.erase(it);
      }
    }
    add_header(s, h, by_dtype);
  }
  for (const auto& [tensor, file] : weight_map) {
    if (problems.size() >= 10) break;
    problems.push_back(
        fmt::format("weight_map places tensor \"{}\" in {}, whose header lacks it", tensor, file));
  }
  if (!problems.empty()) throw DataError(index.string(), problems);
  s.elements_by_dtype.assign(by_dtype.begin(), by_dtype.end());
  s.index_total_size = total_size;
  return s;
}

ModelPreset load_model_preset(const fs::path& file) {
  const std::string origin = file.string();
  toml::table root;
  try {
    root = toml::parse_file(origin);
  } catch (const toml::parse_error& e) {
    throw DataError(origin, {fmt::format("TOML syntax error at line {}: {}", e.source().begin.line,
                                         e.description())});
  }
  std::vector<std::string> problems;
  ModelPreset p;
  p.id = file.stem().string();
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
  r.allow_only({"name", "hf_repo", "source", "note", "published_params",
                "published_params_tolerance", "published_active_params",
                "published_active_tolerance", "published_active_excludes_input_embedding",
                "config"});
  p.name = r.string("name", true);
  p.hf_repo = r.string("hf_repo", true);
  p.source = r.string("source", true);
  p.note = r.text("note", "");
  p.published_params = positive("published_params", true).value_or(0);
  p.published_params_tolerance = tolerance("published_params_tolerance");
  p.published_active_params = positive("published_active_params", false);
  p.published_active_tolerance = tolerance("published_active_tolerance");
  p.published_active_excludes_input_embedding =
      r.flag("published_active_excludes_input_embedding", false);
  const toml::table* config = root["config"].as_table();
  if (config == nullptr) problems.push_back("config: missing (a table of config.json keys)");
  if (!problems.empty()) throw DataError(origin, problems);

  std::ostringstream json;
  json << toml::json_formatter{*config};
  p.architecture = parse_hf_config(json.str(), origin + " [config]");
  p.architecture.name = p.name;
  return p;
}

std::vector<ModelPreset> load_model_presets(const fs::path& dir) {
  const std::vector<fs::path> files = toml_files_in(dir);
  std::vector<ModelPreset> out;
  out.reserve(files.size());
  for (const fs::path& f : files) out.push_back(load_model_preset(f));
  return out;
}

ModelSource load_model(const std::string& spec, const fs::path& presets_dir) {
  if (spec.empty()) throw InvalidRequest("model", "empty (a config.json, a folder or a preset id)");
  const fs::path path{spec};
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const fs::path config = path / "config.json";
    if (!fs::is_regular_file(config, ec)) {
      throw DataError(spec, {"no config.json in this folder (a model folder needs one: the "
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
  if (fs::is_regular_file(path, ec)) {
    ModelSource m = from_architecture(load_hf_config(path), "config", spec);
    // A file named config.json is named by its folder; any other name by itself.
    m.name = path.filename() == "config.json" ? fs::absolute(path).parent_path().filename().string()
                                              : path.stem().string();
    return m;
  }
  const fs::path preset = presets_dir / (spec + ".toml");
  if (spec.find('/') == std::string::npos && fs::is_regular_file(preset, ec)) {
    ModelPreset p = load_model_preset(preset);
    ModelSource m = from_architecture(std::move(p.architecture), "preset", spec);
    m.name = p.name;
    m.source = p.source;
    return m;
  }
  std::vector<std::string> ids;
  for (const auto& entry : fs::directory_iterator(presets_dir, ec)) {
    if (entry.path().extension() == ".toml") ids.push_back(entry.path().stem().string());
  }
  std::sort(ids.begin(), ids.end());
  if (ids.empty()) {
    throw InvalidRequest(
        "model",
        fmt::format("'{}' is not a config.json, a model folder or a preset id (no presets found in "
                    "{})",
                    spec, presets_dir.string()));
  }
  throw InvalidRequest(
      "model",
      fmt::format("'{}' is not a config.json, a model folder or a preset id; closest presets: {} "
                  "(all of them: data/models, docs/models.md)",
                  spec, fmt::join(closest_names(spec, ids, 3), ", ")));
}

}  // namespace tb::io
