// The words of an estimate's rows, built from the codes and numbers eval returns (the physics
// builds no sentences): notes, the GEMM efficiency's basis, a scenario's label, the FLOP count's
// formula and the activation row's label. Every front end (text, JSON, CSV, the page) reads
// these, so they cannot drift.
#pragma once

#include <string>

#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/eval/gemm_efficiency.hpp"
#include "trainbudget/eval/note.hpp"
#include "trainbudget/eval/peak_memory.hpp"

namespace tb::report {

// "tp 16 spans nodes of 8: its per-layer all-reduces run over the scale-out link".
[[nodiscard]] std::string note_text(const Note& note);
[[nodiscard]] std::vector<std::string> note_texts(const std::vector<Note>& notes);
// "measured matmul ceiling 756.0 of 989.4 TFLOP/s: <citation>".
[[nodiscard]] std::string gemm_source_text(const GemmEfficiency& gemm);
// "full fine-tune", "pretraining", "DPO, LoRA (rank 16, q_proj,v_proj)", "QLoRA (2 % trainable)".
[[nodiscard]] std::string scenario_label(const ScenarioName& name);
// "shard {what}over >= N devices (...)": what a machine's devices_to_fit counts, the model
// states fully sharded, or (online RL) the round's peak under ZeRO-3, or that no count does.
[[nodiscard]] std::string shard_clause(const MachineEstimate& m, std::string_view what);
// "6 x N per token (forward 2N + backward 4N)", "from the architecture: GEMMs + attention at
// s=4096, causal, x 3 (forward + backward)".
[[nodiscard]] std::string flops_formula_text(const Scenario& scenario);
// The moment of a phase: "end of forward", "backward of decoder layer 31", "optimizer step".
[[nodiscard]] std::string moment_text(const PhaseMemory& phase);
// A memory row's label: the state term's own, or for the activations row its dtype, micro-batch,
// sequence, attention and recomputation.
[[nodiscard]] std::string component_label(const Scenario& scenario, const MemoryComponent& row);

}  // namespace tb::report
