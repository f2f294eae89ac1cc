// `trainbudget estimate`: the field table's flags (or a --request file) into the session, the
// result into a view.
#include "estimate_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "measure_command.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::cli {
namespace {

// The request file's fields; "-" reads standard input.
api::FieldMap request_file_fields(const std::string& path) {
  std::ostringstream text;
  if (path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in{path, std::ios::binary};
    if (!in) throw InvalidRequest("request", fmt::format("cannot read '{}'", path));
    text << in.rdbuf();
  }
  return api::field_map_from_json(text.str());
}

}  // namespace

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
      ->type_name("FILE");
  return cmd;
}

void run_estimate(const EstimateOptions& o, std::ostream& out) {
  api::FieldMap values;
  if (!o.request_file.empty()) values = request_file_fields(o.request_file);
  for (auto& [key, value] : given_fields(o.fields)) values[key] = value;
  const api::EstimateRequest request = api::parse_estimate_request(values);

  CommonOptions common;
  common.format = request.format;
  common.hardware_dir = request.hardware_dir;
  ensure_local_profile(request.machines, common);  // machine local: measure once, then reuse

  api::Sources sources{io::data_dir(), request.hardware_dir, true};
  const api::Session session{sources};
  const api::EstimateResult result = session.estimate(request);
  for (const Problem& w : result.warnings) {
    std::cerr << "trainbudget: warning: " << render_for_cli(w) << '\n';
  }
  for (const Problem& n : result.notes) {
    std::cerr << "trainbudget: note: " << render_for_cli(n) << '\n';
  }
  report::write(result.estimate, report::parse_format(request.format), out, flag_of);
}

}  // namespace tb::cli
