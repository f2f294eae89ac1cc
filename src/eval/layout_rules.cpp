// The layout rules, once as numbers and once with words.
#include "trainbudget/eval/layout_rules.hpp"

#include <fmt/format.h>

#include <array>

namespace tb {
namespace {

bool divides(std::int64_t d, std::int64_t n) { return d > 0 && n % d == 0; }

// Each rule as a predicate (true: broken), in the order first_violation reports them.
bool broken(LayoutRule rule, const ModelProfile& p, const Layout& l) noexcept {
  const Parallelism& x = l.parallel;
  const auto layers = static_cast<std::int64_t>(p.layer_is_moe.size());
  switch (rule) {
    case LayoutRule::kOk:
      return false;
    case LayoutRule::kNeedsModel:
      return !p.has_architecture && (x.tp > 1 || x.pp > 1 || x.cp > 1 || x.ep > 1 ||
                                     x.virtual_stages > 1 || x.sequence_parallel);
    case LayoutRule::kDevices:
      return !divides(static_cast<std::int64_t>(x.tp) * x.pp * x.cp, l.devices);
    case LayoutRule::kHeads:
      return p.has_architecture && !divides(x.tp, p.heads);
    case LayoutRule::kKvHeads:
      return p.has_architecture && p.kv_heads > 0 && !divides(x.tp, p.kv_heads) &&
             !(p.tp_beyond_kv_heads && divides(p.kv_heads, x.tp));
    case LayoutRule::kLayers:
      return p.has_architecture && static_cast<std::int64_t>(x.pp) * x.virtual_stages > layers;
    case LayoutRule::kVirtualStages:
      return x.virtual_stages > 1 && x.pp == 1;
    case LayoutRule::kInterleavedBatches:
      return x.virtual_stages > 1 && !divides(x.pp, l.grad_accum);
    case LayoutRule::kExperts:
      return (x.ep > 1 && (p.experts == 0 || !divides(x.ep, p.experts))) ||
             (x.etp > 0 && x.etp != x.tp && p.experts == 0);
    case LayoutRule::kExpertRanks:
      // Megatron-Core's parallel_state.py: the expert grid etp x ep x edp fills tp x cp x dp.
      return (x.ep > 1 || x.etp > 0) &&
             divides(static_cast<std::int64_t>(x.tp) * x.pp * x.cp, l.devices) &&
             !divides(static_cast<std::int64_t>(x.ep) * l.expert_tp(),
                      static_cast<std::int64_t>(l.dense_shards()) * x.tp);
    case LayoutRule::kSequence:
      return x.cp > 1 && !divides(2 * static_cast<std::int64_t>(x.cp), l.seq_len);
    case LayoutRule::kCpAttention:
      return x.cp > 1 && l.attention != AttentionImpl::kFlash;
    case LayoutRule::kSequenceParallel:
      return x.sequence_parallel && x.tp == 1;
    case LayoutRule::kOffloadParams:
      return x.offload == Offload::kParams && l.zero_stage != 3;
    case LayoutRule::kShardGroup:
      return x.shard_group > 0 && (l.zero_stage == 0 || !divides(x.shard_group, l.dense_shards()));
    case LayoutRule::kPpScatterGather:
      return x.pp_scatter_gather && (x.tp == 1 || x.pp == 1);
    case LayoutRule::kStageLayers: {
      // Megatron-Core's get_num_layers_to_build: the layers left after the given edge stages
      // split evenly over the other stages (none left when those are all the stages).
      if (x.first_stage_layers <= 0 && x.last_stage_layers <= 0) return false;
      if (x.pp < 2 || x.virtual_stages > 1 || !p.has_architecture) return true;
      const std::int64_t middle =
          x.pp - (x.first_stage_layers > 0 ? 1 : 0) - (x.last_stage_layers > 0 ? 1 : 0);
      const std::int64_t rest = layers - x.first_stage_layers - x.last_stage_layers;
      if (middle == 0) return rest != 0;
      return rest < middle || rest % middle != 0;
    }
  }
  return false;
}

constexpr std::array kRules{
    LayoutRule::kNeedsModel,
    LayoutRule::kDevices,
    LayoutRule::kHeads,
    LayoutRule::kKvHeads,
    LayoutRule::kLayers,
    LayoutRule::kVirtualStages,
    LayoutRule::kInterleavedBatches,
    LayoutRule::kExperts,
    LayoutRule::kExpertRanks,
    LayoutRule::kSequence,
    LayoutRule::kCpAttention,
    LayoutRule::kSequenceParallel,
    LayoutRule::kOffloadParams,
    LayoutRule::kShardGroup,
    LayoutRule::kPpScatterGather,
    LayoutRule::kStageLayers,
};

Problem words(LayoutRule rule, const ModelProfile& p, const Layout& l) {
  const Parallelism& x = l.parallel;
  const auto layers = static_cast<std::int64_t>(p.layer_is_moe.size());
  switch (rule) {
    case LayoutRule::kOk:
      break;
    case LayoutRule::kNeedsModel:
      return {"tp",
              "model parallelism ({tp}, {pp}, {cp}, {ep}, {virtual_stages}, "
              "{sequence_parallel}) needs an architecture ({model}) to split; a bare {params} "
              "runs data parallel only",
              "1 without {model}"};
    case LayoutRule::kDevices:
      return {"devices",
              fmt::format("{} is not a multiple of tp x pp x cp = {} x {} x {} = {}", l.devices,
                          x.tp, x.pp, x.cp, static_cast<std::int64_t>(x.tp) * x.pp * x.cp),
              "devices = dp x tp x pp x cp"};
    case LayoutRule::kHeads:
      return {"tp", fmt::format("{} does not divide the model's {} attention heads", x.tp, p.heads),
              "a divisor of the attention heads"};
    case LayoutRule::kKvHeads:
      return {"tp",
              fmt::format("{} does not divide the model's {} key/value heads{}", x.tp, p.kv_heads,
                          p.tp_beyond_kv_heads ? " and is not a multiple of them" : ""),
              p.tp_beyond_kv_heads ? "a divisor or a multiple of the key/value heads"
                                   : "a divisor of the key/value heads (framework megatron: "
                                     "or a multiple)"};
    case LayoutRule::kLayers:
      return {"pp",
              fmt::format("pp x virtual_stages = {} x {} chunks is more than the model's {} "
                          "decoder layers",
                          x.pp, x.virtual_stages, layers),
              "at most one chunk per layer"};
    case LayoutRule::kVirtualStages:
      return {"virtual_stages", "interleaving needs a pipeline ({pp} > 1)", "1 when pp is 1"};
    case LayoutRule::kInterleavedBatches:
      return {"grad_accum",
              fmt::format("{} micro-batches per step is not a multiple of pp = {}: the "
                          "interleaved schedule needs that (Narayanan et al. 2021, sec. 2.2.2)",
                          l.grad_accum, x.pp),
              "a multiple of pp"};
    case LayoutRule::kExperts:
      if (p.experts == 0 && x.ep <= 1) {
        return {"etp", "expert tensor parallelism needs an MoE model", "the same as tp"};
      }
      if (p.experts == 0) return {"ep", "expert parallelism needs an MoE model", "1"};
      return {"ep",
              fmt::format("{} does not divide the model's {} routed experts", x.ep, p.experts),
              "a divisor of the routed experts"};
    case LayoutRule::kExpertRanks:
      if (l.expert_tp() == x.tp) {
        return {"ep",
                fmt::format("{} does not divide the {} data-parallel x context-parallel ranks "
                            "that hold the experts",
                            x.ep, l.dense_shards()),
                "a divisor of dp x cp, or with {etp} below tp of tp x cp x dp over etp"};
      }
      return {"ep",
              fmt::format("ep x etp = {} x {} does not divide the {} tensor x context x "
                          "data-parallel ranks the experts are folded over (Megatron-Core's "
                          "expert grid etp x ep x edp)",
                          x.ep, l.expert_tp(), static_cast<std::int64_t>(l.dense_shards()) * x.tp),
              "ep x etp a divisor of tp x cp x dp"};
    case LayoutRule::kSequence:
      return {"cp",
              fmt::format("2 x {} chunks do not divide the sequence of {} tokens (causal load "
                          "balancing splits it into 2 x cp chunks)",
                          x.cp, l.seq_len),
              "seq_len a multiple of 2 x cp"};
    case LayoutRule::kCpAttention:
      return {"cp",
              "context parallelism runs ring attention on a flash kernel; {attention} eager "
              "has none",
              "attention flash"};
    case LayoutRule::kSequenceParallel:
      return {"sequence_parallel", "splits the norm and dropout activations over {tp}; tp is 1",
              "tp > 1"};
    case LayoutRule::kOffloadParams:
      return {"offload", "params offload streams sharded weights from the host: it needs {zero} 3",
              "optimizer, or zero 3"};
    case LayoutRule::kShardGroup:
      if (l.zero_stage == 0) {
        return {"shard_group", "hybrid sharding partitions ZeRO's rows; {zero} is 0", "zero 1-3"};
      }
      return {"shard_group",
              fmt::format("{} does not divide the {} data-parallel x context-parallel ranks",
                          x.shard_group, l.dense_shards()),
              "a divisor of dp x cp"};
    case LayoutRule::kPpScatterGather:
      return {"pp_scatter_gather",
              "splits the pipeline's sends over the tensor-parallel ranks: it needs {tp} > 1 and "
              "{pp} > 1",
              "tp > 1 and pp > 1"};
    case LayoutRule::kStageLayers: {
      const char* key = x.first_stage_layers > 0 ? "first_stage_layers" : "last_stage_layers";
      if (x.pp < 2) return {key, "sets a pipeline stage's layers; {pp} is 1", "pp > 1"};
      if (x.virtual_stages > 1) {
        return {key, "an uneven split with interleaving ({virtual_stages} > 1) is not modelled",
                "virtual_stages 1"};
      }
      if (!p.has_architecture) return {key, "needs an architecture ({model})", "a model"};
      const std::int64_t middle =
          x.pp - (x.first_stage_layers > 0 ? 1 : 0) - (x.last_stage_layers > 0 ? 1 : 0);
      const std::int64_t rest = layers - x.first_stage_layers - x.last_stage_layers;
      return {key,
              fmt::format("leaves {} of the model's {} decoder layers to {} other stage{}, "
                          "which do not split them evenly (Megatron-Core requires it)",
                          rest, layers, middle, middle == 1 ? "" : "s"),
              middle == 0
                  ? fmt::format("first + last = {}", layers)
                  : fmt::format("the layers left a multiple of {}, at least {}", middle, middle)};
    }
  }
  return {"", "", ""};
}

}  // namespace

LayoutRule first_violation(const ModelProfile& profile, const Layout& layout) noexcept {
  for (const LayoutRule rule : kRules) {
    if (broken(rule, profile, layout)) return rule;
  }
  return LayoutRule::kOk;
}

std::vector<Problem> layout_problems(const ModelProfile& profile, const Layout& layout) {
  std::vector<Problem> out;
  for (const LayoutRule rule : kRules) {
    if (broken(rule, profile, layout)) out.push_back(words(rule, profile, layout));
  }
  return out;
}

}  // namespace tb
