// --explain lines: every term present once, values equal to the breakdowns they come from.
#include "trainbudget/report/explain.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "test_models.hpp"
#include "trainbudget/io/hf_config.hpp"

namespace tb {
namespace {

using report::ExplainLine;
using report::Explanation;

const std::filesystem::path kConfigs = std::filesystem::path{TB_TEST_DIR} / "data" / "hf_configs";

TEST(Explain, ListsEveryTermWithItsFormulaAndValue) {
  const ModelArchitecture arch = io::load_hf_config(kConfigs / "llama-2-7b-hf.json");
  TrainingSetup setup;
  setup.recompute = Recompute::kSelective;
  const ActivationEstimate acts = estimate_activations(arch, setup, DType::kBf16);
  const ArchFlops flops =
      full_training_flops(arch, FlopsSetup{2048, setup.attention, setup.recompute, false});
  TrainingJob job = testing_models::job_for("llama-2-7b-hf.json", Method::kFull);
  ModelProfile profile = make_profile(job, find_recipe("amp-adam"));
  profile.states = {{StateKey::kWeights, "resident", BytesPerParam{}, Params{}, Bytes{1e11}, 3},
                    {StateKey::kGradients, "gradients", BytesPerParam{}, Params{}, Bytes{1e10}, 2}};
  profile.largest_trainable_tensor = 0.0;
  Layout layout;
  layout.recompute = Recompute::kSelective;
  const PeakMemory peak = describe_peak(evaluate(profile, layout, ClusterProfile{}));
  const Explanation e = report::explain(acts, flops, peak);

  const auto find = [&](const std::string& section_prefix, const std::string& name) {
    return std::find_if(e.lines.begin(), e.lines.end(), [&](const ExplainLine& l) {
      return l.name == name && l.section.rfind(section_prefix, 0) == 0;
    });
  };
  // The line; throws (failing the test) when there is none.
  const auto line = [&](const std::string& section_prefix,
                        const std::string& name) -> const ExplainLine& {
    const auto it = find(section_prefix, name);
    if (it == e.lines.end()) throw std::out_of_range("no explain line " + name);
    return *it;
  };
  const ExplainLine& q = line("activations: dense decoder layer (x32)", "query");
  EXPECT_EQ(q.formula, "b*s*a*d*e");
  EXPECT_DOUBLE_EQ(q.value, 2048.0 * 32 * 128 * 2);
  EXPECT_EQ(q.unit, "B");
  // Selective recompute: the logsumexp is not kept, it is listed as the layer's transient.
  EXPECT_EQ(find("activations: dense", "softmax_logsumexp"), e.lines.end());
  EXPECT_DOUBLE_EQ(line("activations: dense", "recompute_transient").value, 4.0 * 32 * 2048);
  EXPECT_DOUBLE_EQ(line("activations: embedding and head", "loss_buffer").value,
                   2048.0 * 32000 * 4);
  EXPECT_DOUBLE_EQ(line("flops per token", "model").value, flops.model_per_token);
  EXPECT_DOUBLE_EQ(line("flops per token", "hardware").value, flops.hardware_per_token);
  EXPECT_NE(find("flops per token", "attention_scores_recompute"), e.lines.end());
  EXPECT_DOUBLE_EQ(line("peak: optimizer_step", "total").value, 1.1e11);
  // Every symbol once; the ones the formulas use are there with their values.
  int s_count = 0;
  for (const Symbol& sym : e.symbols) {
    if (sym.name == "s") {
      ++s_count;
      EXPECT_EQ(sym.value, 2048.0);
    }
  }
  EXPECT_EQ(s_count, 1);
}

}  // namespace
}  // namespace tb
