// `trainbudget compare`: the compare field table's flags into Session::compare, the tasks into
// a view.
#include "compare_command.hpp"

#include "common.hpp"
#include "estimate_command.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::cli {

CLI::App* setup_compare(CLI::App& app, CompareCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Lay a model against machines task by task: serve (fits? tokens/s), QLoRA, LoRA, DPO and "
      "GRPO under LoRA, and full fine-tunes (fits? hours), pretraining at 20 tokens per "
      "parameter (days or years), and which machine wins each (docs/inference.md)");
  add_field_options(*cmd, api::compare_fields(), o.fields);
  cmd->add_option("--request", o.request_file,
                  "A JSON request file with the flags' names as keys, or - for standard input")
      ->check(non_empty_path())
      ->type_name("FILE");
  return cmd;
}

void run_compare(const CompareCommandOptions& o, std::ostream& out) {
  const api::FieldMap values = request_values(o.request_file, o.fields);
  const api::EstimateRequest request = api::parse_compare_request(values);
  const api::Session session{cli_sources(request.hardware_dir)};
  const api::CompareResult result = session.compare(request);
  print_problems(result.warnings, result.notes);
  report::write(result.comparison, report::parse_format(request.format), out, flag_of, text_width(),
                request.brief);
}

}  // namespace tb::cli
