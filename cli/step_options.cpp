// Parsing of the per-step flags into a TrainingSetup.
#include "step_options.hpp"

#include <fmt/format.h>

#include <cmath>

#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/quantity_parse.hpp"

namespace tb::cli {
namespace {

std::int64_t whole(const std::string& text, const char* flag, double max) {
  const double v = parse_number_in(text, flag, 1.0, max, true);
  if (v != std::floor(v)) {
    throw InvalidArgument(fmt::format("{}: '{}' must be a whole number >= 1", flag, text));
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

void add_step_options(CLI::App& cmd, StepOptions& o) {
  cmd.add_option("--micro-batch", o.micro_batch,
                 "Sequences per forward/backward (needs --model); default 1")
      ->type_name("B");
  cmd.add_option("--seq-len", o.seq_len,
                 "Tokens per sequence (needs --model); default 2048, or the model's context "
                 "length if shorter")
      ->type_name("S");
  cmd.add_option("--attention", o.attention,
                 "eager (saves the s x s scores) | flash (FlashAttention/SDPA, O(s) statistics); "
                 "default flash")
      ->type_name("IMPL");
  cmd.add_option("--recompute", o.recompute,
                 "Activation recomputation: none | selective (attention core) | full (keep "
                 "layer inputs only); default none")
      ->type_name("MODE");
  cmd.add_option("--activation-dtype", o.activation_dtype,
                 "bf16 | fp16 | fp32; default the recipe's compute dtype (fp8 recipes: bf16)")
      ->type_name("DTYPE");
  cmd.add_option("--dropout", o.dropout,
                 "Dropout probability in [0, 1); 0 (default) stores no masks")
      ->type_name("P");
  cmd.add_option("--grad-accum", o.grad_accum,
                 "Micro-batches per optimizer step; > 1 keeps gradients alive through the "
                 "forward; default 1")
      ->type_name("N");
  cmd.add_flag("--causal-flops", o.causal_flops,
               "Count the attention products of a causal kernel ((s+1)/2 keys per query) "
               "instead of all s");
  cmd.add_flag("--fit", o.fit,
               "Also print the largest micro-batch and the longest sequence that fit each machine");
  cmd.add_flag("--explain", o.explain, "Print every term's formula, symbol values and value");
}

TrainingSetup parse_step_options(const StepOptions& o) {
  TrainingSetup s;
  if (!o.micro_batch.empty()) s.micro_batch = whole(o.micro_batch, "--micro-batch", 1048576.0);
  if (!o.seq_len.empty()) {
    s.seq_len = whole(o.seq_len, "--seq-len", 16777216.0);
    s.seq_len_given = true;
  }
  if (!o.attention.empty()) s.attention = parse_attention(o.attention);
  if (!o.recompute.empty()) s.recompute = parse_recompute(o.recompute);
  if (!o.activation_dtype.empty()) s.activation_dtype = parse_activation_dtype(o.activation_dtype);
  if (!o.dropout.empty()) s.dropout = parse_number_in(o.dropout, "--dropout", 0.0, 1.0, true);
  if (!o.grad_accum.empty()) s.grad_accumulation = whole(o.grad_accum, "--grad-accum", 1048576.0);
  s.causal_flops = o.causal_flops;
  s.search_fit = o.fit;
  s.explain = o.explain;
  s.flags_given = !o.micro_batch.empty() || !o.seq_len.empty() || !o.attention.empty() ||
                  !o.recompute.empty() || !o.activation_dtype.empty() || !o.dropout.empty() ||
                  !o.grad_accum.empty() || o.causal_flops || o.fit || o.explain;
  validate(s);
  return s;
}

}  // namespace tb::cli
