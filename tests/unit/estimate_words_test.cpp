// The words of an estimate come from report/: eval returns codes and numbers (issue 20, item 7).
#include "trainbudget/report/estimate_words.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_models.hpp"

namespace tb {
namespace {

using ::testing::HasSubstr;
using testing_models::job_for;

Device device(double gb) { return testing_models::test_device(gb); }

TEST(EstimateWords, NotesCarryNumbersNotSentences) {
  EXPECT_EQ(report::note_text(Note::of(NoteCode::kPastPositions, {}, {4096, 1024})),
            "the sequence length 4096 is longer than the 1024 positions the model was built for");
  EXPECT_EQ(report::note_text(Note::of(NoteCode::kTpAcrossNodes, "dgx-h100", {16, 8})),
            "tp 16 spans nodes of 8: its per-layer all-reduces run over the scale-out link");
  EXPECT_EQ(report::note_text(Note::of(NoteCode::kHostMemoryShort, "dgx-h100", {}, {3e12, 2e12})),
            "offload needs 3000 GB of host memory per node; dgx-h100 has 2000 GB: it does not fit");
  EXPECT_EQ(
      report::note_text(Note::of(NoteCode::kKvQueued, {}, {64, 23, 1200}, {10.4e9, 28.6e9})),
      "the engine holds 10.4 of the 28.6 GB of KV cache its 64 completions need: 23 run at once "
      "and the rest wait for their blocks (continuous batching), 1200 decode steps");
  // Every code has its own words (none falls through to the code's name).
  for (const auto& [code, name] : EnumNames<NoteCode>::kNames) {
    EXPECT_NE(report::note_text(Note::of(code, "x", {2, 3, 4}, {1e9, 2e9})), name);
  }
}

TEST(EstimateWords, ScenarioLabelsNameTheObjectiveAndMethod) {
  ScenarioName n;
  EXPECT_EQ(report::scenario_label(n), "full fine-tune");
  n.kind = JobKind::kPretraining;
  EXPECT_EQ(report::scenario_label(n), "pretraining");
  n.method = Method::kLora;
  n.lora_rank = 16;
  n.by_targets = true;
  n.lora_targets = {"q_proj", "v_proj"};
  n.objective = Objective::kDpo;
  EXPECT_EQ(report::scenario_label(n), "DPO, LoRA (rank 16, q_proj,v_proj)");
  n.objective = Objective::kSimpo;
  n.method = Method::kQlora;
  n.by_targets = false;
  n.trainable_fraction = 0.02;
  EXPECT_EQ(report::scenario_label(n), "SimPO, QLoRA (2 % trainable)");
}

TEST(EstimateWords, TheEstimateReadsThroughThem) {
  const Device gpu = device(80);
  TrainingJob job = job_for("gpt2.json", Method::kFull);
  job.setup.seq_len = 512;
  job.setup.seq_len_given = true;
  const Estimate e = estimate(job, {{&gpu, {}}});
  EXPECT_EQ(e.primary.compute.basis, FlopsBasis::kArchitecture);
  EXPECT_THAT(report::flops_formula_text(e.primary), HasSubstr("attention at s=512"));
  const MemoryComponent& act = e.primary.memory.components.back();
  ASSERT_EQ(act.key, "activations");
  EXPECT_TRUE(act.label.empty());
  EXPECT_THAT(report::component_label(e.primary, act), HasSubstr("b=1, s=512"));
  EXPECT_EQ(e.primary.machines[0].gemm.basis, GemmBasis::kDefault);
  EXPECT_THAT(report::gemm_source_text(e.primary.machines[0].gemm), HasSubstr("MAMF"));
}

}  // namespace
}  // namespace tb
