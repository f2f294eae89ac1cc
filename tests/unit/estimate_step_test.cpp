// The estimate with an architecture: activations as a memory component, the peak as the
// memory total, FLOPs from the architecture, --fit and --explain in JSON and text.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_models.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/io/hf_config.hpp"
#include "trainbudget/model/param_count.hpp"
#include "trainbudget/plan/fit_search.hpp"
#include "trainbudget/report/document.hpp"
#include "trainbudget/report/json_output.hpp"

namespace tb {
namespace {

using testing_models::job_for;

Device device(double gb) { return testing_models::test_device(gb); }

// What fits (a planner query run after the estimate) and the words of every term, as the
// session adds them when a request asks for fit and explain.
Estimate with_fits(Estimate e) {
  add_fits(e);
  e.primary.explain = true;
  if (e.primary.step) e.primary.step->explain = true;
  return e;
}

TEST(EstimateStep, ActivationsJoinTheMemoryAndThePeakIsTheTotal) {
  const Device gpu = device(80);
  const Estimate e = estimate(job_for("llama-2-7b-hf.json", Method::kFull), {{&gpu, {}}});
  ASSERT_TRUE(e.primary.step);
  const StepAnalysis& step = *e.primary.step;
  EXPECT_EQ(step.setup.seq_len, 2048);  // min(2048, 4096)
  EXPECT_TRUE(e.primary.memory.activations_included);
  EXPECT_DOUBLE_EQ(e.primary.memory.by_key("activations").value(), step.activations.saved.value());
  EXPECT_DOUBLE_EQ(e.primary.memory.total.value(), step.peak.peak.value());
  // amp-adam, b = 1: the optimizer step (16 B/param + two fp32 temporaries of the embedding) peaks.
  EXPECT_EQ(step.peak.peak_phase, Phase::kOptimizerStep);
  EXPECT_DOUBLE_EQ(e.primary.memory.total.value(), 16.0 * 6738415616 + 2.0 * 4.0 * 32000 * 4096);
  EXPECT_FALSE(e.primary.machines[0].fits);  // 108 GB on 80 GB
  EXPECT_DOUBLE_EQ(e.primary.compute.flops_per_token, step.flops.model_per_token);
  EXPECT_DOUBLE_EQ(e.primary.compute.flops_per_token_6n, 6.0 * 6738415616);
  EXPECT_DOUBLE_EQ(e.primary.compute.total.value(), step.flops.model_per_token * 1e9);
  // The LoRA alternative gets its own step: adapters' gradients only, peak in backward.
  ASSERT_TRUE(e.lora_alternative && e.lora_alternative->step);
  EXPECT_EQ(e.lora_alternative->step->peak.peak_phase, Phase::kBackward);
  EXPECT_TRUE(e.lora_alternative->machines[0].fits);
  EXPECT_EQ(e.primary.machines[0].fit, Fit::kNeedsLora);
}

TEST(EstimateStep, DefaultSequenceFollowsTheModelsContext) {
  const Device gpu = device(80);
  const Estimate e = estimate(job_for("gpt2.json", Method::kFull), {{&gpu, {}}});
  EXPECT_EQ(e.primary.step->setup.seq_len, 1024);
  TrainingJob longer = job_for("gpt2.json", Method::kFull);
  longer.setup.seq_len = 4096;
  longer.setup.seq_len_given = true;
  const Estimate l = estimate(longer, {{&gpu, {}}});
  ASSERT_EQ(l.primary.step->notes.size(), 1U);
  const Note& n = l.primary.step->notes[0];
  EXPECT_EQ(n.code, NoteCode::kPastPositions);
  EXPECT_EQ(n.n[0], 4096);
  EXPECT_EQ(n.n[1], 1024);
}

TEST(EstimateStep, FreezeKeepsItsParameterFormula) {
  const Device gpu = device(80);
  TrainingJob job = job_for("llama-2-7b-hf.json", Method::kFreeze);
  job.trainable_fraction = 0.25;
  const Estimate e = estimate(job, {{&gpu, {}}});
  EXPECT_DOUBLE_EQ(e.primary.compute.flops_per_token,
                   flops_per_token_freeze(Params{job.params}, Params{job.params * 0.25}).value());
  EXPECT_TRUE(e.primary.memory.activations_included);
}

TEST(EstimateStep, WhatFitsIsTheBoundaryOfThePeak) {
  const Device gpu = device(40);
  TrainingJob job = job_for("llama-2-7b-hf.json", Method::kLora);
  const Estimate e = with_fits(estimate(job, {{&gpu, {}}}));
  const MachineFit& fit = e.primary.step->fits.at(0);
  ASSERT_GT(fit.micro_batch.value, 0);
  const auto peak_at = [&](std::int64_t b, std::int64_t s) {
    TrainingJob j = job;
    j.setup.micro_batch = b;
    j.setup.seq_len = s;
    j.setup.seq_len_given = true;
    return estimate(j, {{&gpu, {}}}).primary.memory.total;
  };
  EXPECT_LE(peak_at(fit.micro_batch.value, 2048), gpu.memory_capacity);
  EXPECT_GT(peak_at(fit.micro_batch.value + 1, 2048), gpu.memory_capacity);
  ASSERT_GT(fit.seq_len.value, 0);
  EXPECT_EQ(fit.seq_len.value % 128, 0);
  EXPECT_LE(peak_at(1, fit.seq_len.value), gpu.memory_capacity);
  if (!fit.seq_len.at_limit) {
    EXPECT_GT(peak_at(1, fit.seq_len.value + 128), gpu.memory_capacity);
  }
}

TEST(EstimateStep, JsonCarriesTheNewKeys) {
  const Device gpu = device(80);
  TrainingJob job = job_for("mixtral-8x7b-v0.1.json", Method::kQlora);
  job.setup.recompute = Recompute::kFull;
  const nlohmann::json j =
      nlohmann::json::parse(report::estimate_json(with_fits(estimate(job, {{&gpu, {}}}))));
  EXPECT_GT(j["memory"]["components"]["activations"].get<double>(), 0.0);
  EXPECT_TRUE(j["memory"]["activations_included"].get<bool>());
  EXPECT_EQ(j["memory"]["peak_phase"], "backward");
  EXPECT_EQ(j["memory"]["total_bytes"], j["memory"]["peak_bytes"]);
  EXPECT_TRUE(j["memory"]["phases"].contains("optimizer_step"));
  EXPECT_EQ(j["memory"]["activations"]["layer_kinds"][0]["kind"], "moe");
  EXPECT_GT(j["compute"]["hfu_flops_per_token"].get<double>(),
            j["compute"]["flops_per_token"].get<double>());
  EXPECT_TRUE(j["compute"]["terms"].contains("routed_experts"));
  EXPECT_GT(j["machines"][0]["what_fits"]["micro_batch"]["value"].get<int>(), 0);
  EXPECT_EQ(j["setup"]["recompute"], "full");
  EXPECT_EQ(j["setup"]["seq_len"], 2048);
  EXPECT_GT(j["explain"]["terms"].size(), 40U);
  EXPECT_EQ(j["explain"]["symbols"]["k"]["value"], 2.0);
}

TEST(EstimateStep, TextShowsActivationsPeakFlopsFitAndExplain) {
  const Device gpu = device(80);
  TrainingJob job = job_for("llama-2-7b-hf.json", Method::kFull);
  std::ostringstream out;
  report::render_text(report::estimate_document(with_fits(estimate(job, {{&gpu, {}}}))), out);
  const std::string text = out.str();
  for (const char* expected :
       {"Memory with activations", "peak over the step (not the sum)", "Activations -- b=1, s=2048",
        "Peak memory over the step", "optimizer_step *", "FLOPs per token from the architecture",
        "What fits", "Explain", "b*s*a*d*e"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected;
  }
  EXPECT_EQ(text.find("Activations are not included"), std::string::npos);
}

TEST(EstimateStep, NoArchitectureNoStep) {
  const Device gpu = device(80);
  const Estimate e = estimate(TrainingJob{}, {{&gpu, {}}});
  EXPECT_FALSE(e.primary.step);
  EXPECT_FALSE(e.primary.memory.activations_included);
  const nlohmann::json j = nlohmann::json::parse(report::estimate_json(e));
  EXPECT_FALSE(j["memory"].contains("peak_phase"));
  EXPECT_FALSE(j.contains("setup"));
}

}  // namespace
}  // namespace tb
