// `trainbudget plan`: the plan field table's flags into Session::plan, the report into a view.
#include "plan_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "common.hpp"
#include "estimate_command.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace tb::cli {

CLI::App* setup_plan(CLI::App& app, PlanCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Search every layout (dp, tp, pp, cp, ep, virtual stages, ZeRO, offload, micro-batch, "
      "recompute; with --methods/--recipes/--lora-ranks also the method) that fits one machine, "
      "ranked by time, cost or energy (docs/scale.md)");
  add_field_options(*cmd, api::plan_fields(), o.fields);
  cmd->add_option("--request", o.request_file,
                  "A JSON request file with the flags' names as keys, or - for standard input")
      ->check(non_empty_path())
      ->type_name("FILE");
  add_config_option(*cmd, o.config_files, o.config_format);
  return cmd;
}

void run_plan(const PlanCommandOptions& o, std::ostream& out) {
  const api::FieldMap values =
      request_values(o.request_file, o.fields, o.config_files, o.config_format);
  const api::EstimateRequest request = api::parse_plan_request(values);
  api::Sources sources = cli_sources(request.hardware_dir);
  const api::Session session{sources};
  // Progress: a line on stderr each second once a search has run for one.
  const auto start = std::chrono::steady_clock::now();
  auto last = start;
  const plan::Progress progress = [&](std::uint64_t done, std::uint64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::seconds(1) || done >= total) return;
    last = now;
    std::cerr << fmt::format("trainbudget: plan: {} of {} layouts ({:.0f} %)\n", done, total,
                             100.0 * static_cast<double>(done) / static_cast<double>(total));
  };
  const api::PlanResult result = session.plan(request, progress);
  print_problems(result.warnings, result.notes);
  report::write(result.report, report::parse_format(request.format), out, flag_of, text_width(),
                request.brief);
}

}  // namespace tb::cli
