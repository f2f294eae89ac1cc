// DoRA (Liu et al. 2024): PEFT's trainable count and the memory and time it adds over LoRA,
// against PEFT's own method comparison (huggingface/peft method_comparison/MetaMathQA/results,
// lora--llama-3.2-3B-rank32.json and lora--llama-3.2-3B-rank32-dora.json: Llama-3.2-3B in bf16
// on one L40S, q_proj and v_proj at r = 32, lora_dropout 0, batch 4, sequences up to 768
// tokens, no gradient checkpointing, AdamW).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trainbudget/api/session.hpp"
#include "trainbudget/model/lora.hpp"

namespace tb::api {
namespace {

const Session& session() {
  static const Session s{Sources{TB_TEST_DATA_DIR, std::nullopt, false}};
  return s;
}

FieldMap peft_benchmark(const char* method) {
  return {{"model", "llama-3.2-3b"}, {"machine", "l40s"},     {"method", method},
          {"lora_rank", "32"},       {"lora_targets", "q,v"}, {"micro_batch", "4"},
          {"seq_len", "768"},        {"recompute", "none"}};
}

TEST(Dora, TrainableParametersAreLorasPlusAMagnitudePerOutputRow) {
  // The results files' "trainable params": LoRA 9,175,040, DoRA 9,289,728; the difference is
  // 28 layers x (3,072 q outputs + 1,024 v outputs) = 114,688 magnitudes.
  const EstimateResult lora = session().estimate(peft_benchmark("lora"));
  const EstimateResult dora = session().estimate(peft_benchmark("dora"));
  const TrainingJob& job = dora.estimate.job;
  EXPECT_EQ(lora_trainable_params(*lora.estimate.job.model.architecture, lora.estimate.job.lora),
            9175040);
  EXPECT_EQ(lora_trainable_params(*job.model.architecture, job.lora), 9289728);
  EXPECT_EQ(job.method, Method::kLora);
  EXPECT_TRUE(job.lora.dora);
  // The flag says the same as the method.
  FieldMap flag = peft_benchmark("lora");
  flag["dora"] = "true";
  EXPECT_TRUE(session().estimate(flag).estimate.job.lora.dora);
  FieldMap q = peft_benchmark("qdora");
  EXPECT_EQ(session().estimate(q).estimate.job.method, Method::kQlora);
}

TEST(Dora, ItsPeakIsLorasPlusTheKeptOutputsWithinTenPerCent) {
  // Measured: mem max 22,292,725,760 B (LoRA) and 24,532,484,096 B (DoRA): +2.240 GB. Hand:
  // each DoRA module keeps its base output [b, s, out] in bf16 and the adapters' output in fp32,
  // 28 x 4 x 768 x (3,072 + 1,024) x (2 + 4) B = 2.114 GB, and the largest module's norm
  // transient (3,072^2 + 3,072 x 32 + 4 x 3,072^2) x 4 B = 0.189 GB at the forward's end, where
  // the LoRA peak is not: the model's difference is 2.116 GB (-5.5 %).
  const double lora =
      session().estimate(peft_benchmark("lora")).estimate.primary.memory.total.value();
  const double dora =
      session().estimate(peft_benchmark("dora")).estimate.primary.memory.total.value();
  const double measured = 24532484096.0 - 22292725760.0;
  EXPECT_NEAR(dora - lora, measured, 0.10 * measured);
}

TEST(Dora, ItsStepIsSlowerThanLoras) {
  // Measured train time 1,190.91 s against 941.96 s (+26.4 %) over the same 5,000 steps; the
  // model prices the kept outputs' element-wise passes and the norm's dense copy per module
  // and forward: +18 % (-8 points; the launch count of PEFT's eager DoRA path is the part left
  // out, docs/activations.md "adapters").
  const double lora = session()
                          .estimate(peft_benchmark("lora"))
                          .estimate.primary.machines[0]
                          .at_utilization.count();
  const double dora = session()
                          .estimate(peft_benchmark("dora"))
                          .estimate.primary.machines[0]
                          .at_utilization.count();
  EXPECT_GT(dora / lora, 1.10);
  EXPECT_LT(dora / lora, 1.264 * 1.10);
}

TEST(Dora, OnlyWithAnAdapterMethod) {
  try {
    (void)session().estimate(FieldMap{{"model", "llama-3.2-3b"}, {"dora", "true"}});
    FAIL() << "no error";
  } catch (const InvalidRequest& e) {
    ASSERT_EQ(e.problems().size(), 1U);
    EXPECT_EQ(e.problems()[0].field, "dora");
    EXPECT_THAT(e.problems()[0].message, testing::HasSubstr("only applies to {method} lora|qlora"));
  }
}

}  // namespace
}  // namespace tb::api
