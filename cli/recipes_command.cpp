// `trainbudget recipes`: the recipe table from the library, through its view.
#include "recipes_command.hpp"

#include "common.hpp"
#include "trainbudget/report/view.hpp"
#include "trainbudget/spec/quantity_parse.hpp"

namespace tb::cli {

CLI::App* setup_recipes(CLI::App& app, RecipesOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "recipes", "Every training recipe's bytes per parameter side by side, with sources");
  cmd->add_option("--params", o.params, "Parameters to total the bytes for: 7e9, 7B, 70b ...")
      ->type_name("COUNT")
      ->default_val("7e9");
  cmd->add_option("--format", o.common.format, "Output: table, json, csv, markdown")
      ->type_name("FORMAT")
      ->default_val("table");
  return cmd;
}

void run_recipes(const RecipesOptions& o, std::ostream& out) {
  const double params = parse_count(o.params, "params", kParamsRange);
  report::write(report::RecipeComparison{params}, format_of(o.common), out, {}, text_width());
}

}  // namespace tb::cli
