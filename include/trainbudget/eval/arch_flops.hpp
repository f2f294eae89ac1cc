// FLOPs per token from the architecture: every GEMM of the linear-layer inventory (2 FLOPs per
// multiply-add; routed experts counted for the k a token uses), the attention score and value
// products, and the LM head; training = forward + backward, with the recomputation that
// hardware also executes reported apart (MFU vs HFU FLOPs). docs/activations.md ("FLOPs").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trainbudget/eval/activation_memory.hpp"
#include "trainbudget/model/adapter_shape.hpp"
#include "trainbudget/model/flop_shape.hpp"
#include "trainbudget/spec/architecture.hpp"
#include "trainbudget/spec/training_setup.hpp"

namespace tb {

struct FlopsSetup {
  std::int64_t seq_len{2048};
  AttentionImpl attention{AttentionImpl::kFlash};
  Recompute recompute{Recompute::kNone};
  // false (default): every query against all s keys, the convention of Megatron (Narayanan et
  // al. 2021) and PaLM (Chowdhery et al. 2022, App. B); true: a causal kernel's (s + 1)/2 keys
  // per query on average. Layers with a sliding window see at most `window` keys either way
  // (attention_span; a windowed kernel computes only the band).
  bool causal{false};
  // The share of the positions the LM head computes logits for (Layout::logits_share).
  double head_share{1.0};
};

struct FlopsTerm {
  std::string name;     // attention_projections, mlp, routed_experts, ..., attention_scores,
                        // lm_head, adapters
  std::string formula;  // forward FLOPs per token in the symbols of ArchFlops::symbols
  double forward{0.0};  // per token
  double backward_factor{2.0};  // backward = factor x forward (2: activation + weight grads)
  double model{0.0};            // forward x (1 + backward_factor): counted for MFU
  double recompute{0.0};        // executed again by recomputation or the kernel: HFU only
};

struct ArchFlops {
  std::vector<Symbol> symbols;
  std::vector<FlopsTerm> terms;
  double forward_per_token{0.0};
  double model_per_token{0.0};     // MFU FLOPs: forward + backward of every term
  double hardware_per_token{0.0};  // HFU FLOPs: model + recomputation
  double reference_6n{0.0};        // 6 x parameters a token uses (count_params().active)
  std::string reference_formula;   // "6 x N_active"
};

// The terms of an already built FLOP shape (a model profile's) with their words.
[[nodiscard]] ArchFlops describe_flops(const ModelArchitecture& arch, const FlopShape& shape,
                                       const FlopsSetup& setup);

// Training every weight: forward 2 per multiply-add, backward twice the forward (Kaplan et al.
// 2020 sec. 2.1; Narayanan et al. 2021 sec. 5.1).
[[nodiscard]] ArchFlops full_training_flops(const ModelArchitecture& arch, const FlopsSetup& setup);

// A frozen base with low-rank adapters (LoRA): each frozen GEMM runs forward (2) and passes
// the activation gradient back (2) but computes no weight gradient; attention products have
// no weights and cost 3x forward as in full training; each adapter costs the full 6 per
// parameter for the tokens that pass it (Hu et al. 2021, sec. 4).
[[nodiscard]] ArchFlops adapter_training_flops(const ModelArchitecture& arch,
                                               const FlopsSetup& setup,
                                               const std::vector<AdapterShape>& adapters);

}  // namespace tb
