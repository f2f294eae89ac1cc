// config.json reader of StableLM 2 ("stablelm", hf_stablelm.hpp).
#include "hf_stablelm.hpp"

#include "hf_moe_families.hpp"

namespace tb::io {

// StableLmConfig (configuration_stablelm.py; StableLM 2 1.6B): tie_word_embeddings False,
// num_key_value_heads = heads. StableLmAttention: q/k/v biased by use_qkv_bias (default False),
// o_proj never; StableLmMLP: a gated MLP (hidden_act, default silu) without biases;
// StableLmDecoderLayer: input_layernorm and post_attention_layernorm, nn.LayerNorm with bias,
// and a final one; rotary positions on partial_rotary_factor of each head (no parameter). StableLM
// 2 12B's per-head q/k LayerNorms (qk_layernorm) and parallel residual (one norm a layer) are
// refused by name.
ModelArchitecture read_stablelm(FieldReader<JsonSource>& f) {
  ModelArchitecture a = read_llama_like(f, "stablelm", {false, std::nullopt, 4096});
  a.attention.qkv_bias = f.flag("use_qkv_bias", false);
  a.attention.output_bias = false;
  a.norm = {NormKind::kLayerNorm, true};
  if (f.flag("qk_layernorm", false)) {
    f.fail("qk_layernorm: true (StableLM 2 12B's per-head LayerNorms on q and k): not modelled");
  }
  if (f.flag("use_parallel_residual", false)) {
    f.fail("use_parallel_residual: true (attention and MLP from one norm): not modelled");
  }
  return a;
}

}  // namespace tb::io
