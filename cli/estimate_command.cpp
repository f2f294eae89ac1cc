// `trainbudget estimate`: the field table's flags (or a --request file) into the session, the
// result into a view.
#include "estimate_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "common.hpp"
#include "measure_command.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/api/training_config.hpp"
#include "trainbudget/io/file_read.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::cli {

api::FieldMap request_fields(const std::string& path) {
  if (path != "-") {
    std::string text;
    try {
      text = io::read_regular_file(path, io::kMaxRequestBytes);
    } catch (const DataError& e) {
      throw InvalidRequest("request", fmt::format("cannot read {}", e.what()));
    }
    return api::field_map_from_json(text);
  }
  // Standard input may be a pipe: read up to the cap, and refuse what goes past it.
  std::string text(io::kMaxRequestBytes + 1, '\0');
  std::cin.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(std::cin.gcount()));
  if (text.size() > io::kMaxRequestBytes) {
    throw InvalidRequest("request", fmt::format("standard input holds more than the {} bytes "
                                                "accepted for a request",
                                                io::kMaxRequestBytes));
  }
  return api::field_map_from_json(text);
}

api::FieldMap request_values(const std::string& request_file, const FieldSlots& fields,
                             const std::vector<std::string>& config_files,
                             const std::string& config_format) {
  api::FieldMap values;
  std::map<std::string, std::string, std::less<>> origin;  // field -> where its value came from
  std::vector<std::string> notes;          // said once the request is whole (an error comes alone)
  std::vector<std::string> unread_models;  // a model key the config has that is not read
  std::vector<std::string> bookkeeping_notes;  // listed by --explain
  std::vector<api::TrainingConfig> configs;
  for (const std::string& config_file : config_files) {
    configs.push_back(api::read_training_config(config_file, config_format));
  }
  api::reconcile_training_configs(configs);
  for (std::size_t i = 0; i < config_files.size(); ++i) {
    const std::string& config_file = config_files[i];
    const api::TrainingConfig& config = configs[i];
    for (const std::string& u : config.unknown) {
      // torchtune's model or policy_model (its PPO recipe) builder.
      if (u.starts_with("model._component_=") || u.starts_with("policy_model._component_=")) {
        unread_models.push_back(u);
      }
    }
    std::vector<std::string> replaced;
    for (const auto& [key, value] : config.values) {
      const auto earlier = values.find(key);
      if (earlier != values.end() && earlier->second != value) {
        replaced.push_back(
            fmt::format("{} = {} (was {} from {})", key, value, earlier->second, origin[key]));
      }
      values[key] = value;
      origin[key] = fmt::format("--config {}", config_file);
    }
    // "per_device_train_batch_size -> micro_batch": the config's own key for each field.
    for (const std::string& m : config.mapped) {
      const std::size_t arrow = m.find(" -> ");
      if (arrow == std::string::npos) continue;
      const std::string key = m.substr(arrow + 4);
      if (config.values.contains(key)) {
        origin[key] = fmt::format("--config {}: {}", config_file, m.substr(0, arrow));
      }
    }
    std::string note =
        fmt::format("--config {} ({}): {}", config_file, config.format,
                    config.mapped.empty() ? std::string{"nothing mapped"}
                                          : fmt::format("{}", fmt::join(config.mapped, ", ")));
    // Ranked by effect (issue 41): what was read, what could change the answer but is not
    // understood, then keys without effect. Those with a reason or a value are listed; the plain
    // bookkeeping keys (learning rate, logging, output paths) are counted, --explain lists them.
    if (!config.unknown.empty()) {
      note += fmt::format("; not understood (could change the answer; ignored): {}",
                          fmt::join(config.unknown, ", "));
    }
    std::vector<std::string> reasoned;
    std::vector<std::string> bookkeeping;
    for (const std::string& k : config.no_effect) {
      (k.find_first_of("(=") != std::string::npos ? reasoned : bookkeeping).push_back(k);
    }
    if (!reasoned.empty()) note += fmt::format("; no effect here: {}", fmt::join(reasoned, ", "));
    if (!bookkeeping.empty()) {
      note += fmt::format("; {} bookkeeping key{} without effect", bookkeeping.size(),
                          bookkeeping.size() == 1 ? "" : "s");
      bookkeeping_notes.push_back(fmt::format("--config {}: bookkeeping keys without effect: {}",
                                              config_file, fmt::join(bookkeeping, ", ")));
    }
    if (!replaced.empty()) {
      note += fmt::format("; replaces an earlier --config's {}", fmt::join(replaced, ", "));
    }
    notes.push_back(one_line(note));
  }
  for (auto& [key, value] : request_file.empty() ? api::FieldMap{} : request_fields(request_file)) {
    values[key] = value;
    origin[key] = fmt::format("--request {}", request_file);
  }
  for (auto& [key, value] : given_fields(fields)) {
    values[key] = value;
    origin[key] = flag_of(key);
  }
  // A DeepSpeed or accelerate file describes the launch, not the model: without one from
  // anywhere the answer would be the default 7e9 parameters, so the model is asked for.
  if (!config_files.empty() && !values.contains("model") && !values.contains("params")) {
    if (!unread_models.empty()) {
      throw InvalidRequest(
          "config",
          fmt::format("it names a model trainbudget does not know ({}): give {{model}} or "
                      "{{params}} beside it",
                      fmt::join(unread_models, ", ")),
          "--model (a config.json, folder, repo id or preset id) or --params");
    }
    throw InvalidRequest(
        "config",
        fmt::format("{} name{} no model (a DeepSpeed or accelerate file "
                    "describes the launch, not the model): give {{model}} or "
                    "{{params}}, or the training config that names it",
                    config_files.size() == 1 ? "it" : "they", config_files.size() == 1 ? "s" : ""),
        "--model (a config.json, folder, repo id or preset id) or --params");
  }
  for (const std::string& n : notes) std::cerr << "trainbudget: note: " << n << '\n';
  // --explain: which value came from where (docs/configs.md, "Where each value came from").
  if (const auto it = values.find("explain"); it != values.end() && it->second != "false") {
    std::vector<std::string> given;
    for (const auto& [key, value] : values) {
      if (key != "explain") given.push_back(fmt::format("{} = {} ({})", key, value, origin[key]));
    }
    for (const std::string& n : bookkeeping_notes) {
      std::cerr << "trainbudget: note: " << one_line(n) << '\n';
    }
    std::cerr << "trainbudget: note: "
              << one_line(fmt::format("values given: {}; every other field at its default "
                                      "(trainbudget fields)",
                                      given.empty() ? std::string{"none"}
                                                    : fmt::format("{}", fmt::join(given, "; "))))
              << '\n';
  }
  return values;
}

void add_config_option(CLI::App& cmd, std::vector<std::string>& config_files,
                       std::string& config_format) {
  cmd.add_option("--config-format", config_format,
                 "The format of --config when its keys do not show it: " + api::config_formats() +
                     " (default auto: detected by content)")
      ->type_name("FORMAT");
  cmd.add_option("--config", config_files,
                 "A training config you already have: a Hugging Face / TRL TrainingArguments JSON "
                 "(with the DeepSpeed JSON it names), a DeepSpeed JSON, an axolotl, "
                 "LLaMA-Factory, torchtune, accelerate or verl YAML, or a verl run script; its "
                 "keys map onto these "
                 "flags (docs/configs.md), --request and flags override them, keys not understood "
                 "are listed; repeatable (a training config with its DeepSpeed or accelerate "
                 "file), a later file's value replacing an earlier one's, said")
      ->check(non_empty_path())
      ->type_name("FILE");
}

CLI::App* setup_estimate(CLI::App& app, EstimateOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "estimate",
      "Memory (GB = 1e9 B), FLOPs, hours per machine and a verdict for a training job "
      "(the default command)");
  add_field_options(*cmd, api::estimate_fields(), o.fields);
  cmd->add_option("--request", o.request_file,
                  "A JSON request file: one object whose keys are the flags' names with '_' "
                  "(micro_batch), or - for standard input; flags given too override its keys "
                  "(docs/fields.md)")
      ->check(non_empty_path())
      ->type_name("FILE");
  add_config_option(*cmd, o.config_files, o.config_format);
  return cmd;
}

void run_estimate(const EstimateOptions& o, std::ostream& out) {
  const api::FieldMap values =
      request_values(o.request_file, o.fields, o.config_files, o.config_format);
  const api::EstimateRequest request = api::parse_estimate_request(values);

  CommonOptions common;
  common.format = request.format;
  common.hardware_dir = request.hardware_dir;
  ensure_local_profile(request.machines, common);  // machine local: measure once, then reuse

  api::Sources sources = cli_sources(request.hardware_dir);
  const api::Session session{sources};
  const api::EstimateResult result = session.estimate(request);
  print_problems(result.warnings, result.notes);
  report::write(result.estimate, report::parse_format(request.format), out, flag_of, text_width(),
                request.brief);
}

}  // namespace tb::cli
