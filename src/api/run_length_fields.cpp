// The run's length in the estimate's field table: tokens, or a dataset's tokens and its epochs,
// or optimizer steps (transformers' max_steps), and the local dataset files that give the tokens.
#include <array>

#include "field_accepted.hpp"
#include "field_checks.hpp"
#include "trainbudget/api/field.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/limits.hpp"
#include "trainbudget/spec/quantity_parse.hpp"

namespace tb::api {
namespace {

using R = EstimateRequest&;
using V = std::string_view;
using checks::whole;
using namespace accepted;

std::string dataset_files() { return ".json or .jsonl files, comma-separated"; }

const std::array kRunLengthFields{
    Field{"tokens", FieldType::kCount, "COUNT", "tokens", "1e9",
          "Training tokens, all epochs (same suffixes)", token_counts,
          [](V v, R r) { r.job.tokens = parse_count(v, "tokens", kTokensRange); }, "job"},
    Field{"dataset_tokens", FieldType::kCount, "COUNT", "tokens", "",
          "The tokens of one pass over the data (same suffixes); with it {tokens} is {epochs} x "
          "this",
          token_counts,
          [](V v, R r) { r.dataset_tokens = parse_count(v, "dataset_tokens", kTokensRange); },
          "job"},
    Field{"dataset_file", FieldType::kList, "FILE", "", "",
          "Local JSON or JSON Lines dataset files: their text (every string value) at 4 characters "
          "per token gives {dataset_tokens} (a note says the count and the rule; give "
          "{dataset_tokens} for a tokenizer's count)",
          dataset_files,
          [](V v, R r) {
            r.dataset_files.clear();
            for (const std::string_view f : split_comma_list(v, "dataset_file", dataset_files())) {
              r.dataset_files.emplace_back(f);
            }
          },
          "job"},
    Field{"epochs", FieldType::kNumber, "N", "passes", "",
          "Passes over the data (TrainingArguments' num_train_epochs); with {dataset_tokens}, "
          "{tokens} = epochs x dataset_tokens; without it, no effect (a note says so)",
          epoch_counts, [](V v, R r) { r.epochs = parse_number_in(v, "epochs", 0.0, 1e4, false); },
          "job"},
    Field{"steps", FieldType::kInteger, "N", "steps", "",
          "Optimizer steps the run takes (TrainingArguments' max_steps): {tokens} = steps x "
          "{micro_batch} x {grad_accum} x data-parallel ranks x {seq_len}; replaces {epochs} "
          "(a note says the product)",
          step_counts, [](V v, R r) { r.steps = whole(v, "steps", 1e9); }, "job"},
};

}  // namespace

std::span<const Field> run_length_fields() { return kRunLengthFields; }

}  // namespace tb::api
