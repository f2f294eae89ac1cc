// The parameter counts of a model, as values: total, per token, embedding, per module.
// model/param_count.hpp computes them from an architecture (docs/models.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

struct ModuleParams {
  std::string module;  // embed_tokens, embed_positions, attention, mlp, routed_experts,
                       // shared_experts, router, norms, lm_head, vision_tower,
                       // multimodal_projector
  std::int64_t params{0};
  std::int64_t active{0};  // of which one token uses
};

struct ParamCounts {
  // The main model, as transformers instantiates it (DeepSeek-V3: without the MTP module).
  std::int64_t total{0};
  // Used by one token: total minus the routed experts the router does not pick. Includes the
  // whole input embedding, as Mistral's "12.9B active" for Mixtral does; DeepSeek's "36.6B
  // activated" leaves the input embedding out (active - input_embedding).
  std::int64_t active{0};
  std::int64_t input_embedding{0};  // token table, plus GPT-2's position table
  std::int64_t lm_head{0};          // 0 when tied to the input embedding
  std::int64_t embedding{0};        // input_embedding + lm_head
  std::int64_t non_embedding{0};    // total - embedding
  // Multi-token prediction (DeepSeek-V3): each module's own parameters (enorm, hnorm, eh_proj,
  // decoder layer, final norm), and the embedding and head copies the checkpoint also stores.
  std::int64_t mtp{0};
  std::int64_t mtp_shared_copies{0};
  // Vision tower and projector (Gemma 3 multimodal): in total, not in active.
  std::int64_t vision{0};
  std::int64_t total_with_mtp{0};     // total + mtp + mtp_shared_copies: the checkpoint's tensors
  std::vector<ModuleParams> modules;  // sums to total (and active)
};

}  // namespace tb
