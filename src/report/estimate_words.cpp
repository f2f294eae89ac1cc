// The words of an estimate's rows (report/estimate_words.hpp).
#include "trainbudget/report/estimate_words.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>

#include "trainbudget/units/units.hpp"

namespace tb::report {

std::string note_text(const Note& n) {
  switch (n.code) {
    case NoteCode::kMeshCabled:
      return fmt::format(
          "{}: {} nodes cabled point to point ({} ports each): a full mesh reaches {} nodes; "
          "collectives run as a ring at one cable's bandwidth",
          n.id, n.n[0], n.n[1], n.n[2]);
    case NoteCode::kPastMesh:
      return fmt::format(
          "{}: {} nodes is past the {} a full mesh of {} ports reaches: only a ring (2 cables "
          "each) connects them, so all-to-all (expert parallelism) and mesh backends such as "
          "MLX's JACCL are out",
          n.id, n.n[0], n.n[1], n.n[2]);
    case NoteCode::kTpAcrossNodes:
      return fmt::format(
          "tp {} spans nodes of {}: its per-layer all-reduces run over the scale-out link", n.n[0],
          n.n[1]);
    case NoteCode::kNoNetworkBetweenNodes:
      return fmt::format(
          "{} has no network between its nodes: {} devices need {} nodes of {}, so this layout "
          "cannot run (at most {} devices)",
          n.id, n.n[0], n.n[1], n.n[2], n.n[2]);
    case NoteCode::kOneFabricAssumed:
      return fmt::format(
          "no system for {}: all {} devices assumed on one {} fabric at {:.0f} GB/s per "
          "direction, no latency (name a system for nodes and NICs)",
          n.id, n.n[0], n.name, n.x[0] / kGiga);
    case NoteCode::kNoInterconnect:
      return fmt::format(
          "no system and no interconnect figure for {}: communication between its {} devices is "
          "not modeled (name a system)",
          n.id, n.n[0]);
    case NoteCode::kNoMemoryBandwidth:
      return fmt::format(
          "no memory bandwidth figure for {}: the memory-bound kernels (norms, activations, "
          "softmax, the optimizer step) are not timed",
          n.id);
    case NoteCode::kNoHostLink:
      return "no host link figure: offload's transfers are not timed (name a system)";
    case NoteCode::kQloraDequantRange:
      // Published LoRA against QLoRA on one GPU (docs/time.md, "QLoRA"): torchtune's README,
      // Llama 3.1 8B on an RTX 4090, 3,083 -> 2,413 tokens/s (-21.7 %); fms-acceleration's
      // A100-80GB table, Mistral-7B, -23.6 % at batch 4 and -20.7 % at batch 8.
      return "QLoRA's NF4 dequantisation is priced as its memory traffic; published single-GPU "
             "runs read 20-24 % fewer tokens/s than LoRA with bitsandbytes (torchtune, "
             "fms-acceleration): expect up to a quarter more time than LoRA's, less with fused "
             "NF4 kernels";
    case NoteCode::kQuantizedDecodeOptimistic:
      // docs/inference.md, "Validation": llama.cpp M2 Ultra Q4_0 +72 %, Q8_0 +31 %, RTX 4090
      // Q8_0 +30 %; torchao H100 int8wo +55 %; the Marlin paper's vLLM runs reach about 72 % of
      // the ideal int4 speed-up.
      return "weight-only quantized decode is priced at the bytes it reads; measured kernels "
             "read 30-70 % slower (dequantisation in the mat-vec; docs/inference.md): take the "
             "decode figure as an upper bound";
    case NoteCode::kHostMemoryShort:
      return fmt::format(
          "offload needs {:.0f} GB of host memory per node; {} has {:.0f} GB: it does not fit",
          n.x[0] / kGiga, n.id, n.x[1] / kGiga);
    case NoteCode::kPaddedPasses:
      if (n.n[2] > 0) {
        return fmt::format(
            "the log-prob passes and the update run on packs padded to the batch's longest "
            "(NeMo RL pads every pack to it under pipeline parallelism, pp {}), and two "
            "sequences of the mean overflow a pack of micro_batch sequences: priced at {} "
            "tokens where the mean is {}",
            n.n[2], n.n[1], n.n[0]);
      }
      return fmt::format(
          "the log-prob passes and the update run on the batch padded to its longest completion "
          "(TRL pads completion_ids to it), priced at {} tokens where the mean is {}; "
          "pack_sequences true prices them packed, at the mean (NeMo RL, verl's "
          "use_remove_padding)",
          n.n[1], n.n[0]);
    case NoteCode::kKvQueued:
      return fmt::format(
          "the engine holds {:.1f} of the {:.1f} GB of KV cache its {} completions need: {} run "
          "at once and the rest wait for their blocks (continuous batching), {} decode steps",
          n.x[0] / 1e9, n.x[1] / 1e9, n.n[0], n.n[1], n.n[2]);
    case NoteCode::kGenerateOverheads:
      return "generate() decodes at the serving model's rate or, when longer, the host's time "
             "to issue each step's kernels eagerly; its per-token Python work beyond that is "
             "not counted";
    case NoteCode::kPastPositions:
      return fmt::format(
          "the sequence length {} is longer than the {} positions the model was built for", n.n[0],
          n.n[1]);
    case NoteCode::kNoKvWithoutArchitecture:
      return "no KV cache without a model architecture ({model})";
    case NoteCode::kDecodeNotTimed:
      return "no memory bandwidth figure: decode not timed";
    case NoteCode::kPrefillNotTimed:
      return "no compute rate: prefill not timed";
  }
  return std::string{enum_name(n.code)};
}

std::vector<std::string> note_texts(const std::vector<Note>& notes) {
  std::vector<std::string> out;
  out.reserve(notes.size());
  for (const Note& n : notes) out.push_back(note_text(n));
  return out;
}

std::string gemm_source_text(const GemmEfficiency& g) {
  switch (g.basis) {
    case GemmBasis::kGiven:
      return "given (the gemm_efficiency field)";
    case GemmBasis::kMeasuredRate:
      return "the rate is a measured matmul rate (used as measured)";
    case GemmBasis::kMeasuredCeiling:
      return fmt::format("measured matmul ceiling {:.1f} of {:.1f} TFLOP/s: {}",
                         g.matmul.value() / kTera, g.dense.value() / kTera, g.source);
    case GemmBasis::kDefault:
      break;
  }
  return "default: the median bf16 efficiency of ml-engineering's MAMF table (no measured "
         "ceiling for this device)";
}

namespace {

std::string method_label(const ScenarioName& n) {
  switch (n.method) {
    case Method::kFull: {
      const char* name = n.kind == JobKind::kPretraining ? "pretraining" : "full fine-tune";
      if (n.galore_rank > 0) return fmt::format("{} with GaLore (rank {})", name, n.galore_rank);
      return name;
    }
    case Method::kLora:
    case Method::kQlora: {
      const bool lora = n.method == Method::kLora;
      const char* name = n.dora              ? (lora ? "DoRA" : "QDoRA")
                         : lora              ? "LoRA"
                         : n.qlora_bits == 8 ? "QLoRA 8-bit"
                                             : "QLoRA";
      if (n.by_targets) {
        const std::string saved =
            n.modules_to_save.empty()
                ? std::string{}
                : fmt::format("; {} in full", fmt::join(n.modules_to_save, ","));
        return fmt::format("{} (rank {}, {}{})", name, n.lora_rank, fmt::join(n.lora_targets, ","),
                           saved);
      }
      return fmt::format("{} ({:g} % trainable)", name, n.trainable_fraction * 100.0);
    }
    case Method::kFreeze:
      return fmt::format("partial freeze ({:g} % trained)", n.trainable_fraction * 100.0);
  }
  return "full fine-tune";
}

}  // namespace

std::string scenario_label(const ScenarioName& n) {
  if (n.objective == Objective::kSft) return method_label(n);
  // The objective before the method: "DPO, LoRA (rank 16, q,v)".
  std::string name{enum_name(n.objective)};
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (n.objective == Objective::kSimpo) name = "SimPO";
  if (n.objective == Objective::kRm) name = "reward model";
  return fmt::format("{}, {}", name, method_label(n));
}

std::string flops_formula_text(const Scenario& s) {
  const auto attention = [&] {
    return fmt::format("attention at s={}{}", s.layout.seq_len,
                       s.layout.causal_flops ? ", causal" : "");
  };
  switch (s.compute.basis) {
    case FlopsBasis::kSixN:
      return "6 x N per token (forward 2N + backward 4N)";
    case FlopsBasis::kAdaptersN:
      return "4 x N_base + 6 x N_adapter per token (no weight gradients for the base)";
    case FlopsBasis::kFreezeN:
      return "2 x N + 4 x N_trained per token (backward stops at the lowest trained layer)";
    case FlopsBasis::kArchitecture:
      return fmt::format("from the architecture: GEMMs + {}, x 3 (forward + backward)",
                         attention());
    case FlopsBasis::kArchitectureFrozen:
      return fmt::format(
          "from the architecture: frozen GEMMs x 2 (forward + activation gradient), {} and "
          "adapters x 3 (forward + backward)",
          attention());
  }
  return "";
}

std::string moment_text(const PhaseMemory& m) {
  switch (m.phase) {
    case Phase::kForwardEnd:
      return "end of forward";
    case Phase::kOptimizerStep:
      return "optimizer step";
    case Phase::kBackward:
      break;
  }
  if (m.layer == kBackwardAtHead) return "backward of the loss and LM head";
  if (m.layer == kBackwardAtEmbedding) return "backward of the embedding";
  return fmt::format("backward of decoder layer {}", m.layer);
}

std::string component_label(const Scenario& s, const MemoryComponent& c) {
  if (c.key != "activations" || !s.step) return c.label;
  const StepAnalysis& step = *s.step;
  const TrainingSetup& t = step.setup;
  const Layout& l = s.layout;
  // A preference pair runs as two rows: say both.
  const std::string b = l.micro_batch == t.micro_batch
                            ? fmt::format("{}", t.micro_batch)
                            : fmt::format("{} ({} rows)", t.micro_batch, l.micro_batch);
  const std::string recompute =
      t.recompute == Recompute::kFull && t.recompute_layers >= 0
          ? fmt::format("full (the first {} layers of each stage)", t.recompute_layers)
          : std::string{enum_name(t.recompute)};
  return fmt::format("activations ({}; b={}, s={}, {} attention, recompute {})",
                     enum_name(step.activation_dtype), b, l.seq_len, enum_name(t.attention),
                     recompute);
}

std::string shard_clause(const MachineEstimate& m, std::string_view what) {
  if (!m.devices_with_rollout) {
    return fmt::format("shard {}over >= {} devices (ZeRO-3/FSDP, model states only)", what,
                       m.devices_to_fit);
  }
  if (m.devices_to_fit == 0) {
    return fmt::format(
        "no device count up to 4096 holds {} with its generation round (ZeRO-3); "
        "change the job",
        what.empty() ? std::string_view{"it"} : what.substr(0, what.size() - 1));
  }
  return fmt::format("shard {}over >= {} devices (ZeRO-3, with the generation round)", what,
                     m.devices_to_fit);
}

}  // namespace tb::report
