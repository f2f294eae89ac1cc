// config.json reader of DBRX (hf_dbrx.hpp), mirroring transformers' configuration_dbrx.py and
// modeling_dbrx.py.
#include "hf_dbrx.hpp"

#include <string>
#include <utility>
#include <vector>

namespace tb::io {

// DbrxConfig: d_model 2048, n_heads 16, n_layers 24, max_seq_len 2048, vocab_size 32000,
// tie_word_embeddings False; attn_config (DbrxAttentionConfig) kv_n_heads 1 (clip_qkv and
// rope_theta hold no parameters); ffn_config (DbrxFFNConfig) ffn_hidden_size 3584,
// moe_num_experts 4, moe_top_k 1. DbrxBlock: norm_attn_norm's norm_1 and norm_2 (nn.LayerNorm
// without bias), attn.Wqkv (fused, no bias) and attn.out_proj; ffn.router.layer (nn.Linear, no
// bias) and ffn.experts.mlp's w1, v1, w2 (the experts' gate, up and down as 3-D parameters,
// not nn.Linear); every layer a mixture; norm_f a LayerNorm without bias.
ModelArchitecture read_dbrx(FieldReader<JsonSource>& f) {
  using Json = nlohmann::json;
  ModelArchitecture a;
  a.model_type = "dbrx";
  a.hidden = f.optional("d_model", 2048);
  a.num_layers = f.optional("n_layers", 24);
  a.vocab = f.optional("vocab_size", 32000);
  a.max_positions = f.optional("max_seq_len", 2048);
  a.tie_embeddings = f.flag("tie_word_embeddings", false);
  a.norm = {NormKind::kLayerNorm, false};
  AttentionSpec& at = a.attention;
  at.num_heads = f.optional("n_heads", 16);
  at.head_dim = at.num_heads > 0 ? a.hidden / at.num_heads : 0;
  static const Json kEmpty = Json::object();
  const auto section = [&](const char* key) -> const Json& {
    const Json* j = f.find(key);
    if (j == nullptr || j->is_null()) return kEmpty;
    if (!j->is_object()) {
      f.fail(std::string(key) + ": must be an object");
      return kEmpty;
    }
    return *j;
  };
  // The sections' problems, named by their dotted keys, go to f's list.
  std::vector<std::string> problems;
  FieldReader<JsonSource> attn(section("attn_config"), "attn_config", problems);
  at.num_kv_heads = attn.optional("kv_n_heads", 1);
  FieldReader<JsonSource> ffn(section("ffn_config"), "ffn_config", problems);
  MoeSpec m;
  m.num_experts = ffn.optional("moe_num_experts", 4);
  m.experts_per_token = ffn.optional("moe_top_k", 1);
  m.expert_intermediate = ffn.optional("ffn_hidden_size", 3584);
  a.moe = m;
  a.mlp.activation = "silu";
  for (std::string& p : problems) f.fail(std::move(p));
  return a;
}

}  // namespace tb::io
