// `trainbudget infer`: the infer field table's flags into Session::infer, the result into a view.
#include "infer_command.hpp"

#include "common.hpp"
#include "estimate_command.hpp"
#include "trainbudget/api/session.hpp"
#include "trainbudget/io/hardware_loader.hpp"
#include "trainbudget/report/view.hpp"

namespace tb::cli {

CLI::App* setup_infer(CLI::App& app, InferCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "infer",
      "Serve a model: weights in a storage format, the KV cache (GQA, MLA, sliding windows), "
      "prefill time to first token, decode tokens/s (bytes per step over achievable "
      "bandwidth), the concurrency and context that fit (docs/inference.md)");
  add_field_options(*cmd, api::infer_fields(), o.fields);
  cmd->add_option("--request", o.request_file,
                  "A JSON request file with the flags' names as keys, or - for standard input")
      ->check(non_empty_path())
      ->type_name("FILE");
  return cmd;
}

void run_infer(const InferCommandOptions& o, std::ostream& out) {
  const api::FieldMap values = request_values(o.request_file, o.fields);
  const api::EstimateRequest request = api::parse_infer_request(values);
  const api::Session session{cli_sources(request.hardware_dir)};
  const api::InferResult result = session.infer(request);
  print_problems(result.warnings, result.notes);
  report::write(result.estimate, report::parse_format(request.format), out, flag_of, text_width(),
                request.brief);
}

}  // namespace tb::cli
