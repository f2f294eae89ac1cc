// Every recipe side by side: where the bytes per parameter go, and why tools disagree.
#include <fmt/format.h>

#include "trainbudget/report/document.hpp"
#include "trainbudget/report/format.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb::report {

TextTable recipe_rows(double params) {
  TextTable t({{"recipe"},
               {"weights", Align::kRight},
               {"grads", Align::kRight},
               {"optimizer", Align::kRight},
               {"master", Align::kRight},
               {"B/param", Align::kRight},
               {fmt::format("for {}", count(params)), Align::kRight},
               {"compute"}});
  for (const RecipeBreakdown& b : recipe_breakdowns()) {
    t.add_row({std::string{b.recipe->id}, bytes_per_param(b.weights), bytes_per_param(b.gradients),
               bytes_per_param(b.optimizer), bytes_per_param(b.master), bytes_per_param(b.total()),
               gb(Bytes{b.total() * params}), std::string{enum_name(b.recipe->compute_dtype)}});
  }
  return t;
}

Document recipes_document(double params) {
  Document doc;
  doc.title = fmt::format(
      "Training recipes -- model-state bytes per trainable parameter, and the total for {} "
      "parameters on one device (GB = 1e9 B; no activations)",
      count(params));
  Section table;
  table.table(recipe_rows(params));
  table.text(
      "The totals differ because the recipes keep different things: where the gradient lives "
      "(bf16, fp32, or both), whether an fp32 master copy exists, and how the optimizer state is "
      "stored (fp32, bf16, 8-bit, factored). docs/recipes.md explains each convention.");
  doc.sections.push_back(std::move(table));
  Section sources;
  sources.title = "Sources";
  for (const Recipe& r : all_recipes()) sources.text(fmt::format("{}: {}", r.id, r.source));
  doc.sections.push_back(std::move(sources));
  return doc;
}

}  // namespace tb::report
