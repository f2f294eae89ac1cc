// Turning CLI11's left-over arguments into "did you mean" messages.
#include "suggest.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "trainbudget/spec/closest.hpp"

namespace tb::cli {
namespace {

// The parsed commands from the root down: root, then its parsed subcommand, and so on.
std::vector<const CLI::App*> parsed_chain(const CLI::App& root) {
  std::vector<const CLI::App*> chain{&root};
  while (true) {
    const std::vector<CLI::App*> subs = chain.back()->get_subcommands();
    if (subs.empty()) break;
    chain.push_back(subs.front());
  }
  return chain;
}

std::string command_path(const std::vector<const CLI::App*>& chain, std::size_t depth) {
  std::string path = "trainbudget";
  for (std::size_t i = 1; i <= depth && i < chain.size(); ++i) path += " " + chain[i]->get_name();
  return path;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  return names;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) names.push_back(sub->get_name());
  }
  return names;
}

// What practitioners call our fields (the names of TrainingArguments, accelerate, torchrun,
// Megatron-LM, axolotl and LLaMA-Factory): the flag it means and, where the meaning needs it,
// how to say it. Checked before the spelling distance, so --epochs does not become --ep.
struct Vocabulary {
  std::string_view word;
  std::string_view flag;  // must be one of the command's options for the suggestion to apply;
                          // empty: a setting that changes neither memory nor time (`say` why)
  std::string_view say;   // empty: the flag itself
};
constexpr auto kVocabulary = std::to_array<Vocabulary>({
    {"--num-train-epochs", "--epochs", "--epochs (with --dataset-tokens)"},
    {"--gpus", "--devices", ""},
    {"--num-gpus", "--devices", ""},
    {"--n-gpus", "--devices", ""},
    {"--world-size", "--devices", ""},
    {"--nproc-per-node", "--devices", ""},
    {"--batch-size", "--micro-batch", "--micro-batch (per device; --grad-accum for accumulation)"},
    {"--per-device-train-batch-size", "--micro-batch", ""},
    {"--micro-batch-size", "--micro-batch", ""},
    {"--train-batch-size", "--micro-batch", "--micro-batch (per device) with --grad-accum"},
    {"--gradient-accumulation-steps", "--grad-accum", ""},
    {"--gradient-accumulation", "--grad-accum", ""},
    {"--gradient-checkpointing", "--recompute", "--recompute full"},
    {"--activation-checkpointing", "--recompute", "--recompute full (or selective)"},
    {"--precision", "--recipe", "--recipe (amp-adam for bf16 mixed precision, fp8-amp for fp8)"},
    {"--optimizer", "--recipe", "--recipe (amp-adam for AdamW, adam-8bit for 8-bit Adam)"},
    {"--max-seq-length", "--seq-len", ""},
    {"--seq-length", "--seq-len", ""},
    {"--sequence-len", "--seq-len", ""},
    {"--cutoff-len", "--seq-len", ""},
    {"--lora-r", "--lora-rank", ""},
    {"--gpu", "--machine", "--machine (a catalog id such as rtx-4090 or h100-sxm)"},
    {"--zero-stage", "--zero", ""},
    {"--tensor-parallel-size", "--tp", ""},
    {"--pipeline-parallel-size", "--pp", ""},
    {"--attn-implementation", "--attention", "--attention (flash or eager)"},
    // TRL's, transformers', PEFT's and bitsandbytes' command-line habits.
    {"--use-vllm", "--rollout-engine", "--rollout-engine colocate (or server)"},
    {"--vllm-mode", "--rollout-engine", "--rollout-engine colocate|server"},
    {"--max-length", "--seq-len", ""},
    {"--model-max-length", "--seq-len", ""},
    {"--deepspeed", "--config", "--config ds.json (a DeepSpeed JSON is read as a config)"},
    {"--load-in-4bit", "--method", "--method qlora"},
    {"--fp8", "--recipe", "--recipe fp8-amp (or megatron-fp8)"},
    {"--bf16", "--recipe", "--recipe amp-adam (bf16 mixed precision)"},
    {"--flash-attn", "--attention", "--attention flash"},
    {"--use-flash-attention-2", "--attention", "--attention flash"},
    {"--num-epochs", "--epochs", "--epochs (with --dataset-tokens)"},
    {"--model-name-or-path", "--model", ""},
    {"--fsdp", "--zero", "--zero 3 (FSDP full shard)"},
    {"--lr", "", "the learning rate changes neither memory nor time: leave it out"},
    {"--learning-rate", "", "the learning rate changes neither memory nor time: leave it out"},
    {"--lora-alpha", "",
     "lora_alpha scales the adapters' update, not their memory or time: leave it out "
     "(--lora-rank sets their size)"},
    {"--warmup-steps", "", "a schedule changes neither memory nor time: leave it out"},
    {"--weight-decay", "", "weight decay changes neither memory nor time: leave it out"},
    {"--packing", "",
     "the estimate counts every row full at --seq-len, as packing makes them: leave it out "
     "(--dataset-file counts a dataset's tokens)"},
    // transformers' TrainingArguments and accelerate's launcher.
    {"--max-steps", "--tokens", "--tokens (max_steps x sequences per step x --seq-len)"},
    {"--optim", "--recipe",
     "--recipe (amp-adam for adamw_torch, adam-8bit for adamw_bnb_8bit, paged-adam-8bit for "
     "paged_adamw_8bit)"},
    {"--torch-compile", "--compile", ""},
    {"--fp16", "--recipe", "--recipe amp-adam (fp16 and bf16 mixed precision hold the same bytes)"},
    {"--mixed-precision", "--recipe", "--recipe (amp-adam for bf16 or fp16, fp8-amp for fp8)"},
    {"--num-processes", "--devices", ""},
    {"--num-machines", "--devices", "--devices (every GPU of every machine)"},
    {"--save-steps", "--goodput",
     "--goodput (the share of wall-clock that trains, after checkpoints and evaluation)"},
    {"--eval-steps", "--goodput",
     "--goodput (the share of wall-clock that trains, after checkpoints and evaluation)"},
    {"--per-device-eval-batch-size", "",
     "evaluation is not part of the training step's memory or time: leave it out (--goodput "
     "takes its share of the wall-clock)"},
    {"--seed", "", "the seed changes neither memory nor time: leave it out"},
    {"--logging-steps", "", "logging changes neither memory nor time: leave it out"},
    {"--lr-scheduler-type", "", "a schedule changes neither memory nor time: leave it out"},
    {"--output-dir", "", "where checkpoints go changes neither memory nor time: leave it out"},
    {"--report-to", "", "where metrics go changes neither memory nor time: leave it out"},
    {"--dataloader-num-workers", "",
     "data loading is taken to keep up with the step: leave it out"},
    // LLaMA-Factory, PEFT, TRL and unsloth.
    {"--finetuning-type", "--method", "--method (full, lora, qlora or freeze)"},
    {"--lora-target", "--lora-targets", ""},
    {"--quantization-bit", "--method", "--method qlora (4-bit base weights)"},
    {"--use-peft", "--method", "--method lora"},
    {"--template", "",
     "the chat template changes neither memory nor time: leave it out (--seq-len sets the "
     "length)"},
    {"--use-gradient-checkpointing", "--recompute", "--recompute full"},
    {"--max-seq-len", "--seq-len", ""},
    // Megatron-LM's arguments.
    {"--tensor-model-parallel-size", "--tp", ""},
    {"--pipeline-model-parallel-size", "--pp", ""},
    {"--context-parallel-size", "--cp", ""},
    {"--expert-model-parallel-size", "--ep", ""},
    {"--expert-tensor-parallel-size", "--etp", ""},
    {"--num-layers-per-virtual-pipeline-stage", "--virtual-stages",
     "--virtual-stages (a stage's layers over this value)"},
    {"--num-layers-in-first-pipeline-stage", "--first-stage-layers", ""},
    {"--num-layers-in-last-pipeline-stage", "--last-stage-layers", ""},
    {"--recompute-granularity", "--recompute", "--recompute (full or selective)"},
    {"--global-batch-size", "--global-batch", ""},
    {"--global-batch-size", "--micro-batch",
     "--micro-batch with --grad-accum (global batch = micro-batch x accumulation x data-parallel "
     "ranks)"},
    {"--use-distributed-optimizer", "--zero",
     "--zero 1 (the distributed optimizer shards the optimizer states)"},
    {"--train-iters", "--tokens", "--tokens (train_iters x global batch x --seq-len)"},
    {"--fp8-format", "--recipe", "--recipe fp8-amp (or megatron-fp8)"},
    // DeepSpeed's and torchtune's.
    {"--offload-optimizer", "--offload", "--offload optimizer"},
    {"--offload-param", "--offload", "--offload params (with --zero 3)"},
    {"--enable-activation-checkpointing", "--recompute", "--recompute full"},
    {"--enable-activation-offloading", "--offload-activations", ""},
});

// Close enough to be what was meant: a third of the word's letters, at least 2.
std::size_t max_distance(std::string_view word) {
  return std::max<std::size_t>(2, word.size() / 3);
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates,
                       const std::string& help_path) {
  for (const Vocabulary& v : kVocabulary) {
    if (v.word != word) continue;
    if (v.flag.empty()) return fmt::format(": {}", v.say);
    // Not this command's option: a later entry for the same word may be.
    if (std::find(candidates.begin(), candidates.end(), v.flag) == candidates.end()) continue;
    return fmt::format("; did you mean {}?", v.say.empty() ? v.flag : v.say);
  }
  const std::vector<std::string> near = closest_names(word, candidates, 1, max_distance(word));
  if (near.empty()) return fmt::format(" (see '{} --help')", help_path);
  return fmt::format("; did you mean {}?", near.front());
}

}  // namespace

std::string usage_error_message(const CLI::App& root, const CLI::ParseError& error,
                                bool implicit_estimate) {
  const std::vector<const CLI::App*> chain = parsed_chain(root);
  struct Leftover {
    std::size_t depth;
    std::string word;
  };
  std::optional<Leftover> option;
  std::optional<Leftover> plain;
  for (std::size_t depth = 0; depth < chain.size(); ++depth) {
    for (const std::string& word : chain[depth]->remaining()) {
      if (word.size() > 1 && word.front() == '-') {
        if (!option) option = Leftover{depth, word};
      } else if (!plain) {
        plain = Leftover{depth, word};
      }
    }
  }
  if (option) {
    // "--parms=8B" is the option --parms with a value.
    const std::string name = option->word.substr(0, option->word.find('='));
    std::vector<std::string> candidates = option_names(*chain[option->depth]);
    if (implicit_estimate && option->depth > 0) {
      const std::vector<std::string> top = option_names(root);
      candidates.insert(candidates.end(), top.begin(), top.end());
    }
    return fmt::format("unknown option {}{}", name,
                       suggestion(name, candidates, command_path(chain, option->depth)));
  }
  if (plain) {
    const CLI::App& app = *chain[plain->depth];
    const std::string path = command_path(chain, plain->depth);
    const std::vector<std::string> subs = subcommand_names(app);
    if (subs.empty()) {
      return fmt::format("unexpected argument {} (see '{} --help')", plain->word, path);
    }
    return fmt::format("unknown subcommand {}{}", plain->word, suggestion(plain->word, subs, path));
  }
  // CLI11's words for an option given twice ("--x: At Most 1 required but received 2").
  const std::string what = error.what();
  if (const std::size_t at = what.find(": At Most 1 required but received");
      at != std::string::npos) {
    return fmt::format(
        "{}: given more than once; give it once (a list field takes "
        "comma-separated values)",
        what.substr(0, at));
  }
  return what;
}

}  // namespace tb::cli
