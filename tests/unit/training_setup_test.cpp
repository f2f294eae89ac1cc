// The per-step knobs: parsing, defaults and validation messages.
#include "trainbudget/spec/training_setup.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trainbudget/spec/error.hpp"

namespace tb {
namespace {

using testing::HasSubstr;

std::string message_of(const TrainingSetup& setup) {
  try {
    validate(setup);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return {};
}

TEST(TrainingSetup, DefaultsAreValid) {
  const TrainingSetup setup;
  EXPECT_NO_THROW(validate(setup));
  EXPECT_EQ(setup.micro_batch, 1);
  EXPECT_EQ(setup.seq_len, 2048);
  EXPECT_EQ(setup.attention, AttentionImpl::kFlash);
  EXPECT_EQ(setup.recompute, Recompute::kNone);
  EXPECT_EQ(setup.dropout, 0.0);
}

TEST(TrainingSetup, ParsesEveryNameAndRejectsOthersNamingTheFlag) {
  EXPECT_EQ(parse_attention("eager"), AttentionImpl::kEager);
  EXPECT_EQ(parse_attention("flash"), AttentionImpl::kFlash);
  EXPECT_EQ(parse_recompute("none"), Recompute::kNone);
  EXPECT_EQ(parse_recompute("selective"), Recompute::kSelective);
  EXPECT_EQ(parse_recompute("full"), Recompute::kFull);
  EXPECT_EQ(parse_activation_dtype("fp32"), DType::kFp32);
  EXPECT_EQ(parse_activation_dtype("fp16"), DType::kFp16);
  EXPECT_THAT([] { (void)parse_attention("sdpa"); },
              testing::ThrowsMessage<InvalidArgument>(HasSubstr("attention: unknown attention "
                                                                "'sdpa'; accepted: eager|flash")));
  EXPECT_THAT([] { (void)parse_recompute("some"); },
              testing::ThrowsMessage<InvalidArgument>(
                  HasSubstr("recompute: unknown mode 'some'; accepted: none|selective|full")));
  EXPECT_THAT([] { (void)parse_activation_dtype("fp8"); },
              testing::ThrowsMessage<InvalidArgument>(HasSubstr("accepted: bf16|fp16|fp32")));
  for (const char* name : {"none", "selective", "full"}) {
    EXPECT_EQ(enum_name(parse_recompute(name)), name);
  }
  for (const char* name : {"eager", "flash"}) {
    EXPECT_EQ(enum_name(parse_attention(name)), name);
  }
}

TEST(TrainingSetup, ValidateNamesTheFlagOfEachBadField) {
  TrainingSetup s;
  s.micro_batch = 0;
  EXPECT_THAT(message_of(s), HasSubstr("micro_batch: 0 is out of range"));
  s = {};
  s.seq_len = 0;
  EXPECT_THAT(message_of(s), HasSubstr("seq_len: 0 is out of range"));
  s = {};
  s.seq_len = std::int64_t{1} << 30;
  EXPECT_THAT(message_of(s), HasSubstr("seq_len"));
  s = {};
  s.dropout = 1.0;
  EXPECT_THAT(message_of(s), HasSubstr("dropout: 1 is out of range; accepted: a probability"));
  s = {};
  s.dropout = -0.1;
  EXPECT_THAT(message_of(s), HasSubstr("dropout"));
  s = {};
  s.activation_dtype = DType::kFp8;
  EXPECT_THAT(message_of(s), HasSubstr("activation_dtype: fp8 is not an activation dtype"));
  s = {};
  s.grad_accumulation = 0;
  EXPECT_THAT(message_of(s), HasSubstr("grad_accum: 0 is out of range"));
}

TEST(TrainingSetup, ActivationDtypeFollowsTheRecipeAndFp8StoresBf16) {
  const TrainingSetup plain;
  EXPECT_EQ(activation_dtype(plain, find_recipe("amp-adam")), DType::kBf16);
  EXPECT_EQ(activation_dtype(plain, find_recipe("fp32-adam")), DType::kFp32);
  EXPECT_EQ(activation_dtype(plain, find_recipe("fp8-amp")), DType::kBf16);
  TrainingSetup fp16 = plain;
  fp16.activation_dtype = DType::kFp16;
  EXPECT_EQ(activation_dtype(fp16, find_recipe("fp32-adam")), DType::kFp16);
  EXPECT_EQ(activation_bytes(DType::kBf16), 2.0);
  EXPECT_EQ(activation_bytes(DType::kFp16), 2.0);
  EXPECT_EQ(activation_bytes(DType::kFp32), 4.0);
}

TEST(TrainingSetup, DefaultSequenceIsCappedByTheModelsContext) {
  TrainingSetup s;
  EXPECT_EQ(resolved_setup(s, 1024).seq_len, 1024);  // GPT-2
  EXPECT_EQ(resolved_setup(s, 4096).seq_len, 2048);  // Llama 2
  EXPECT_EQ(resolved_setup(s, 0).seq_len, 2048);     // unknown context
  s.seq_len = 8192;
  s.seq_len_given = true;
  EXPECT_EQ(resolved_setup(s, 4096).seq_len, 8192);  // the user's choice stands
}

}  // namespace
}  // namespace tb
