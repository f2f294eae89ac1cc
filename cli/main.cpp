// The trainbudget executable: builds the command line, runs one subcommand, maps errors to
// exit codes (0 ok, CLI11's code for usage errors, 1 for a tb::Error). Usage errors are reworded
// by suggest.hpp ("unknown option --parms; did you mean --params?"). Output is buffered and
// written only when the command succeeds, so a failure leaves stdout empty.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "compare_command.hpp"
#include "estimate_command.hpp"
#include "fields.hpp"
#include "fields_command.hpp"
#include "hardware_command.hpp"
#include "help_formatter.hpp"
#include "infer_command.hpp"
#include "measure_command.hpp"
#include "models_command.hpp"
#include "plan_command.hpp"
#include "recipes_command.hpp"
#include "serve_command.hpp"
#include "suggest.hpp"
#include "trainbudget/build_info.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/excerpt.hpp"

namespace {

// `trainbudget` alone, or `trainbudget --params 70B`, means `trainbudget estimate ...`.
bool needs_default_command(const std::vector<std::string>& args) {
  const bool top_level_flag =
      !args.empty() && (args[0] == "-h" || args[0] == "--help" || args[0] == "--version");
  return args.empty() || (args[0].starts_with("-") && !top_level_flag);
}

bool is_command(std::string_view word) {
  constexpr std::array<std::string_view, 10> kCommands{"estimate", "hardware", "fields", "recipes",
                                                       "measure",  "plan",     "infer",  "serve",
                                                       "compare",  "models"};
  return std::find(kCommands.begin(), kCommands.end(), word) != kCommands.end();
}

// The long flags a command line names ("--micro-batch" of "--micro-batch=2"), so that only their
// fields get options (start-up: a command's field table is a hundred options or more); none when
// it asks for help or spells a short option, which need the whole table.
std::optional<std::set<std::string, std::less<>>> flags_named(
    const std::vector<std::string>& args) {
  std::set<std::string, std::less<>> out;
  for (const std::string& a : args) {
    if (a == "--") break;  // the rest are values
    if (a == "--help" || a == "--help-all" || a == "-h") return std::nullopt;
    if (a.starts_with("--")) {
      out.insert(a.substr(0, a.find('=')));
    } else if (a.size() > 1 && a[0] == '-' && std::isdigit(static_cast<unsigned char>(a[1])) == 0 &&
               a[1] != '.') {
      return std::nullopt;
    }
  }
  return out;
}

int fail(std::string_view message, int code) {
  // Whatever a message was built from, the terminal gets one short printable line.
  std::cerr << "trainbudget: error: " << tb::one_line(message) << '\n';
  return code;
}

}  // namespace

namespace {

// run()'s answer when a flag named has no option in the filtered table.
constexpr int kNeedsEveryOption = -1;

int run(const std::string& version, std::vector<std::string> args, bool implicit_estimate,
        const std::set<std::string, std::less<>>* named);

}  // namespace

int main(int argc, char** argv) {
  const std::string version =
      fmt::format("trainbudget {} ({})", tb::build_info::kVersion, tb::build_info::kGitCommit);
  // `trainbudget --version` alone answers before the command table is built (start-up: README).
  if (argc == 2 && std::string_view{argv[1]} == "--version") {
    std::fputs((version + "\n").c_str(), stdout);
    return 0;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  const bool implicit_estimate = needs_default_command(args);
  if (implicit_estimate) args.insert(args.begin(), "estimate");
  // Only the fields the command line names get options; when it names a flag no option then
  // holds (a typo to suggest for, an alias), every field gets one and CLI11 reports it.
  const std::optional<std::set<std::string, std::less<>>> named = flags_named(args);
  if (named) {
    const int code = run(version, args, implicit_estimate, &*named);
    if (code != kNeedsEveryOption) return code;
  }
  return run(version, args, implicit_estimate, nullptr);
}

namespace {

int run(const std::string& version, std::vector<std::string> args, bool implicit_estimate,
        const std::set<std::string, std::less<>>* named) {
  CLI::App app{
      "trainbudget: can I train this model on this machine? Memory, FLOPs, hours, "
      "cost and a verdict, with every figure sourced.",
      "trainbudget"};
  app.set_version_flag("--version", version);
  // Before the subcommands are added: each copies its parent's formatter.
  app.formatter(std::make_shared<tb::cli::WrappingFormatter>());
  app.require_subcommand(0, 1);
  tb::cli::register_only(named);

  // Only the command being run builds its option table (start-up: each table is a few hundred
  // options); help, a mistyped command or none at all builds every one, so they can be listed
  // and suggested.
  const bool known = !args.empty() && is_command(args.front());
  const auto wanted = [&](std::string_view name) { return !known || args.front() == name; };

  tb::cli::EstimateOptions estimate_options;
  tb::cli::HardwareOptions hardware_options;
  tb::cli::FieldsOptions fields_options;
  tb::cli::RecipesOptions recipes_options;
  tb::cli::ModelsOptions models_options;
  tb::cli::MeasureCommandOptions measure_options;
  tb::cli::PlanCommandOptions plan_options;
  tb::cli::InferCommandOptions infer_options;
  tb::cli::ServeCommandOptions serve_options;
  tb::cli::CompareCommandOptions compare_options;
  CLI::App* estimate =
      wanted("estimate") ? tb::cli::setup_estimate(app, estimate_options) : nullptr;
  const tb::cli::HardwareCommands hardware = wanted("hardware")
                                                 ? tb::cli::setup_hardware(app, hardware_options)
                                                 : tb::cli::HardwareCommands{};
  CLI::App* fields = wanted("fields") ? tb::cli::setup_fields(app, fields_options) : nullptr;
  CLI::App* recipes = wanted("recipes") ? tb::cli::setup_recipes(app, recipes_options) : nullptr;
  CLI::App* models = wanted("models") ? tb::cli::setup_models(app, models_options) : nullptr;
  CLI::App* measure = wanted("measure") ? tb::cli::setup_measure(app, measure_options) : nullptr;
  CLI::App* plan = wanted("plan") ? tb::cli::setup_plan(app, plan_options) : nullptr;
  CLI::App* infer = wanted("infer") ? tb::cli::setup_infer(app, infer_options) : nullptr;
  CLI::App* serve = wanted("serve") ? tb::cli::setup_serve(app, serve_options) : nullptr;
  CLI::App* compare = wanted("compare") ? tb::cli::setup_compare(app, compare_options) : nullptr;
  const auto ran = [](const CLI::App* command) { return command != nullptr && command->parsed(); };

  if (named != nullptr) {
    // Every flag named must have its option, on the command or the top level.
    const CLI::App* command = nullptr;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      if (known && sub->get_name() == args.front()) command = sub;
    }
    for (const std::string& flag : *named) {
      const bool held = (command != nullptr && command->get_option_no_throw(flag) != nullptr) ||
                        app.get_option_no_throw(flag) != nullptr;
      if (!held) return kNeedsEveryOption;
    }
  }

  std::reverse(args.begin(), args.end());  // CLI11 takes them in reverse order
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(tb::cli::usage_error_message(app, e, implicit_estimate), e.get_exit_code());
  }

  std::ostringstream out;
  int code = 0;  // measure: 3 when a run failed, with the report still printed
  try {
    if (ran(estimate)) {
      tb::cli::run_estimate(estimate_options, out);
    } else if (ran(hardware.list)) {
      tb::cli::run_hardware_list(hardware_options, out);
    } else if (ran(hardware.show)) {
      tb::cli::run_hardware_show(hardware_options, out);
    } else if (ran(hardware.systems)) {
      tb::cli::run_hardware_systems(hardware_options, out);
    } else if (ran(hardware.hardware)) {
      out << hardware.hardware->help();  // `trainbudget hardware` alone: what it can do
    } else if (ran(fields)) {
      tb::cli::run_fields(fields_options, out);
    } else if (ran(recipes)) {
      tb::cli::run_recipes(recipes_options, out);
    } else if (ran(models)) {
      tb::cli::run_models(models_options, out);
    } else if (ran(plan)) {
      tb::cli::run_plan(plan_options, out);
    } else if (ran(serve)) {
      return tb::cli::run_serve(serve_options);
    } else if (ran(compare)) {
      tb::cli::run_compare(compare_options, out);
    } else if (ran(infer)) {
      tb::cli::run_infer(infer_options, out);
    } else if (ran(measure)) {
      code = tb::cli::run_measure(measure_options, out);
    }
  } catch (const tb::InvalidRequest& e) {
    // One line per problem, each naming its flag.
    for (const tb::Problem& p : e.problems()) {
      std::cerr << "trainbudget: error: " << tb::one_line(tb::cli::render_for_cli(p)) << '\n';
    }
    return 1;
  } catch (const tb::Error& e) {
    return fail(e.what(), 1);
  } catch (const std::exception& e) {
    return fail(fmt::format("internal error: {}", e.what()), 2);
  }
  std::cout << out.str();
  std::cout.flush();
  return std::cout ? code : 1;
}

}  // namespace
