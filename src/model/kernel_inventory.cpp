// GEMM shapes per decoder layer from the linear-layer inventory (linear_layers.hpp).
#include "trainbudget/model/kernel_inventory.hpp"

#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/model/lora.hpp"
#include "trainbudget/model/step_dims.hpp"

namespace tb {
namespace {

// Megatron-LM's tensor-parallel cut of each kind (Shoeybi et al. 2019, sec. 3; Megatron-Core
// ColumnParallelLinear / RowParallelLinear): q, k, v (fused or not), gate and up split their
// outputs; the attention output and down projections their inputs. MLA's down-projections and
// the router stay whole.
GemmSplit split_of(LinearKind kind) {
  switch (kind) {
    case LinearKind::kQuery:
    case LinearKind::kKey:
    case LinearKind::kValue:
    case LinearKind::kQkv:
    case LinearKind::kQueryB:
    case LinearKind::kKvB:
    case LinearKind::kGate:
    case LinearKind::kUp:
    case LinearKind::kGateUp:
    case LinearKind::kLmHead:
      return GemmSplit::kColumn;
    case LinearKind::kOutput:
    case LinearKind::kDown:
      return GemmSplit::kRow;
    case LinearKind::kQueryA:
    case LinearKind::kKvA:
    case LinearKind::kRouter:
    case LinearKind::kMtpProjection:
      return GemmSplit::kNone;
  }
  return GemmSplit::kNone;
}

GemmKernel gemm_of(const LinearLayer& l, bool frozen_base, const QloraOptions* nf4) {
  GemmKernel g;
  g.n = static_cast<double>(l.out_features);
  g.k = static_cast<double>(l.in_features);
  g.instances = static_cast<double>(l.copies);
  g.active = static_cast<double>(l.active_copies);
  g.split = split_of(l.kind);
  g.trained = !frozen_base;
  g.expert = l.place == LinearPlace::kRoutedExpert;
  // bitsandbytes quantizes the decoder's linears, not the head (PEFT's QLoRA recipes keep
  // lm_head in 16 bits); the router's GEMM is priced unquantized.
  if (nf4 != nullptr && bitsandbytes_quantizes(l, *nf4) && l.place != LinearPlace::kRouter) {
    g.quantized_bytes = quantized_linear_bytes(l, *nf4);
  }
  return g;
}

// One decoder layer's GEMMs. A hybrid's is the average layer: the attention projections in the
// share of layers that attend alone, the linear mixer's layers (with attention beside the mixer in
// a parallel hybrid) in the rest (fractional instances, priced in proportion), the MLP or MoE
// block in the share of layers that have one (StepDims::mlp_share).
std::vector<GemmKernel> layer_gemms(const ModelArchitecture& arch, bool moe, bool frozen_base,
                                    const QloraOptions* nf4) {
  std::vector<GemmKernel> out;
  const StepDims dims = shape_dims(arch);
  const double linear = dims.linear_share;
  const auto add = [&](const LinearLayer& l, double share) {
    GemmKernel g = gemm_of(l, frozen_base, nf4);
    g.instances *= share;
    g.active *= share;
    if (share > 0.0) out.push_back(g);
  };
  for (const LinearLayer& l : decoder_layer_linears(arch, moe)) {
    add(l, l.place == LinearPlace::kAttention ? 1.0 - linear : (moe ? 1.0 : dims.mlp_share));
  }
  if (linear > 0.0) {
    for (const LinearLayer& l : decoder_layer_linears(arch, moe, true)) {
      if (l.place == LinearPlace::kAttention) add(l, linear);
    }
  }
  return out;
}

}  // namespace

KernelInventory kernel_inventory(const ModelArchitecture& arch, bool frozen_base,
                                 const QloraOptions* nf4,
                                 const std::vector<AdapterShape>& adapters) {
  KernelInventory out;
  const bool has_moe = arch.moe.has_value();
  out.dense = layer_gemms(arch, false, frozen_base, nf4);
  if (has_moe) {
    out.moe = layer_gemms(arch, true, frozen_base, nf4);
    out.routed_experts = static_cast<double>(arch.moe->num_experts);
    out.top_k = static_cast<double>(arch.moe->experts_per_token);
  }
  for (const LinearLayer& l : model_linears(arch)) {
    if (l.place == LinearPlace::kHead) out.head = gemm_of(l, frozen_base, nullptr);
  }
  // LoRA (Hu et al. 2021, sec. 4.1): x A^T (rank outputs) then (x A^T) B^T, both trained; the
  // adapters' instances spread evenly over the decoder layers, as their memory is.
  const double layers = static_cast<double>(arch.num_layers);
  for (const AdapterShape& a : adapters) {
    const double per_layer = static_cast<double>(a.active()) / layers;
    GemmKernel down;
    down.n = static_cast<double>(a.rank);
    down.k = static_cast<double>(a.in_features);
    down.instances = per_layer;
    down.active = per_layer;
    GemmKernel up = down;
    up.n = static_cast<double>(a.out_features);
    up.k = static_cast<double>(a.rank);
    out.adapters.push_back(down);
    out.adapters.push_back(up);
  }
  return out;
}

}  // namespace tb
