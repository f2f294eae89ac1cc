// `trainbudget models`: the preset list, as a table (or JSON, CSV, markdown) through the report.
#include "models_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/report/format.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::cli {

CLI::App* setup_models(CLI::App& app, ModelsOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "models", "The model presets --model takes by id (data/models): family, parameters, repo");
  cmd->add_option("--family", o.family,
                  "Only this family's presets, by its config.json model_type (llama, qwen3, "
                  "qwen3_moe, gemma2, deepseek_v3, ...)")
      ->type_name("TYPE");
  cmd->add_option("--format", o.common.format, "Output: table, json, csv, markdown")
      ->type_name("FORMAT")
      ->default_val("table");
  return cmd;
}

void run_models(const ModelsOptions& o, std::ostream& out) {
  const std::vector<io::ModelPreset> presets = io::load_model_presets(io::data_dir() / "models");
  if (format_of(o.common) == report::Format::kJson) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const io::ModelPreset& p : presets) {
      if (!o.family.empty() && p.architecture.model_type != o.family) continue;
      rows.push_back({{"id", p.id},
                      {"name", p.name},
                      {"family", p.architecture.model_type},
                      {"published_params", p.published_params},
                      {"hf_repo", p.hf_repo}});
    }
    if (!rows.empty()) {
      out << nlohmann::ordered_json{{"schema_version", 2}, {"models", rows}}.dump(2) << '\n';
      return;
    }
  }
  report::TextTable t(
      {{"id"}, {"family"}, {"parameters", report::Align::kRight}, {"Hugging Face repo"}});
  std::vector<std::string> types;
  for (const io::ModelPreset& p : presets) {
    const std::string& type = p.architecture.model_type;
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
    if (!o.family.empty() && type != o.family) continue;
    t.add_row({p.id, type, report::count(static_cast<double>(p.published_params)),
               p.hf_repo.empty() ? "-" : p.hf_repo});
  }
  if (t.rows().empty()) {
    throw InvalidRequest("family", fmt::format("no preset of family '{}'", o.family),
                         fmt::format("{}", fmt::join(types, "|")));
  }
  report::Document doc;
  doc.title = "trainbudget models: the presets --model takes by id";
  report::Section s;
  s.text(fmt::format(
      "{} presets in data/models. --model also takes a config.json, a model folder or a Hugging "
      "Face repo id in the local cache (docs/models.md).",
      t.rows().size()));
  s.table(t);
  doc.sections.push_back(std::move(s));
  doc.rows = std::move(t);
  // Text wraps and stacks to the terminal like every other command's.
  report::render(doc, format_of(o.common), out, {}, text_width());
}

}  // namespace tb::cli
