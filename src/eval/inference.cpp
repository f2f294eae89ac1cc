// The serving budget on each machine (docs/inference.md): memory, prefill, decode, limits.
#include "trainbudget/eval/inference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "trainbudget/eval/arch_flops.hpp"
#include "trainbudget/eval/comm.hpp"
#include "trainbudget/eval/device_memory.hpp"
#include "trainbudget/eval/estimate.hpp"
#include "trainbudget/model/kv_cache.hpp"
#include "trainbudget/model/linear_layers.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/limits.hpp"
#include "trainbudget/spec/parallel.hpp"

namespace tb {
namespace {

// What a decode or prefill step of `tokens` tokens reads of the weights, whole model: every
// always-read tensor once, and the routed experts those tokens touch.
double weight_bytes_read(const WeightStorage& w, double tokens) {
  double out = w.always_read.value();
  if (w.moe_layers > 0 && w.experts > 0) {
    const double per_expert =
        w.routed_experts.value() / static_cast<double>(w.moe_layers * w.experts);
    out += experts_touched(w.experts, w.experts_per_token, tokens) *
           static_cast<double>(w.moe_layers) * per_expert;
  }
  return out;
}

// The activations one forward holds at a time on one device, for `tokens` tokens in flight:
// one layer's input, q, k, v and output and its MLP's two widest buffers, at 2 bytes, split
// over the tensor-parallel ranks; and the fp32 logits of the `sequences` last tokens (servers
// compute logits only where a token is sampled).
double workspace_bytes(const ModelArchitecture& a, double tokens, double sequences, int tp) {
  const double kv_dim = static_cast<double>(a.attention.num_kv_heads * a.attention.head_dim);
  const double q_dim = static_cast<double>(a.attention.num_heads * a.attention.head_dim);
  double ffn = static_cast<double>(a.mlp.intermediate);
  if (a.moe) {
    ffn = std::max(ffn, static_cast<double>(a.moe->experts_per_token * a.moe->expert_intermediate +
                                            a.moe->shared_intermediate));
  }
  const double per_token = 2.0 * static_cast<double>(a.hidden) + q_dim + 2.0 * kv_dim + 2.0 * ffn;
  return tokens * per_token * 2.0 / tp + sequences * static_cast<double>(a.vocab) * 4.0;
}

// Forward FLOPs per token: every GEMM (routed experts for the k a token uses), attention against
// `keys` keys per query (causal: the prompt's own triangle), without the LM head, which a
// server runs only for the tokens it samples (added by the caller).
struct ForwardFlops {
  double body{0.0};
  double head{0.0};
};
ForwardFlops forward_flops(const ModelArchitecture& a, std::int64_t seq, bool causal) {
  FlopsSetup s;
  s.seq_len = seq;
  s.causal = causal;
  const ArchFlops f = full_training_flops(a, s);
  ForwardFlops out;
  for (const FlopsTerm& t : f.terms) {
    (t.name == "lm_head" ? out.head : out.body) += t.forward;
  }
  return out;
}

}  // namespace

double experts_touched(std::int64_t experts, std::int64_t k, double tokens) {
  if (experts <= 0) return 0.0;
  const auto e = static_cast<double>(experts);
  return e * (1.0 - std::pow(1.0 - static_cast<double>(k) / e, tokens));
}

void validate(const ServingJob& job) {
  std::vector<Problem> problems;
  const ServingSetup& s = job.setup;
  if (!job.model.architecture &&
      !(job.params >= kParamsRange.lo && job.params <= kParamsRange.hi)) {
    problems.push_back({"params", fmt::format("{:g} is out of range", job.params), ""});
  }
  if (s.context < 1 || s.context > kMaxContext) {
    problems.push_back({"context", fmt::format("{} is out of range", s.context),
                        fmt::format("1..{} tokens", kMaxContext)});
  }
  if (s.concurrency < 1 || s.concurrency > kMaxConcurrency) {
    problems.push_back({"concurrency", fmt::format("{} is out of range", s.concurrency),
                        fmt::format("1..{} sequences", kMaxConcurrency)});
  }
  if (s.prompt < 1 || s.prompt > s.context) {
    problems.push_back({"prompt",
                        fmt::format("{} tokens must be at least 1 and fit the {{context}} of {}",
                                    s.prompt, s.context),
                        fmt::format("1..{}", s.context)});
  }
  if (s.tp < 1 || s.tp > kMaxDegree) {
    problems.push_back(
        {"tp", fmt::format("{} is out of range", s.tp), fmt::format("1..{}", kMaxDegree)});
  }
  if (const auto& a = job.model.architecture; a && s.tp > 1) {
    if (a->attention.num_heads % s.tp != 0) {
      problems.push_back(
          {"tp",
           fmt::format("{} does not divide the {} attention heads", s.tp, a->attention.num_heads),
           "a divisor of the attention heads"});
    } else if (!a->attention.latent && a->attention.num_kv_heads % s.tp != 0 &&
               s.tp % a->attention.num_kv_heads != 0) {
      const std::int64_t kv = a->attention.num_kv_heads;
      problems.push_back(
          {"tp", fmt::format("{} neither divides nor is a multiple of the {} KV heads", s.tp, kv),
           "a divisor or a multiple of the KV heads"});
    }
  }
  // AutoAWQ's WQLinear_GEMM holds in_features / 128 groups of zeros and scales, so the groups
  // must divide a linear's inputs; AutoGPTQ's QuantLinear packs rows of 32 inputs per int32s
  // (and rounds its groups up). llama.cpp's GGUF types fall back instead (gguf_fallback).
  if (const auto& a = job.model.architecture) {
    const WeightFormat f = s.weights;
    const std::int64_t block = f == WeightFormat::kAwqInt4    ? 128
                               : f == WeightFormat::kGptqInt4 ? 32
                                                              : 0;
    for (const LinearLayer& l : model_linears(*a)) {
      if (block == 0 || l.kind == LinearKind::kRouter || l.kind == LinearKind::kLmHead ||
          l.place == LinearPlace::kVision) {
        continue;
      }
      if (l.in_features % block != 0) {
        problems.push_back({"weights",
                            fmt::format("{} needs linears whose inputs are a multiple of {}; {} "
                                        "has {}",
                                        enum_name(f), block, l.path, l.in_features),
                            "bf16|fp16|fp8|int8|nf4 or a GGUF type for this model"});
        break;
      }
    }
  }
  if (!problems.empty()) throw InvalidRequest(std::move(problems));
}

ServingEstimate serving_estimate(const ServingJob& job,
                                 const std::vector<MachineChoice>& machines) {
  validate(job);
  const ServingSetup& s = job.setup;
  const ModelArchitecture* arch = job.model.architecture ? &*job.model.architecture : nullptr;
  ServingEstimate out;
  out.job = job;
  out.weights = arch ? weight_storage(*arch, s.weights) : weight_storage(job.params, s.weights);
  double kv_seq = 0.0;
  if (arch) {
    out.kv_per_token = kv_bytes_per_token(*arch, s.kv);
    out.kv_per_sequence = kv_bytes_per_sequence(*arch, s.kv, s.context);
    kv_seq = out.kv_per_sequence->value();
    const ForwardFlops prompt = forward_flops(*arch, s.prompt, true);
    const ForwardFlops step = forward_flops(*arch, s.context, false);
    out.prefill_flops = prompt.body * static_cast<double>(s.prompt) + prompt.head;
    out.decode_flops_per_token = step.body + step.head;
  } else {
    // Kaplan et al. 2020, sec. 2.1: 2N per token forward, attention not counted.
    out.prefill_flops = 2.0 * job.params * static_cast<double>(s.prompt);
    out.decode_flops_per_token = 2.0 * job.params;
  }
  const double share = arch ? kv_share_per_rank(*arch, s.tp) : 1.0;
  const auto batch = static_cast<double>(s.concurrency);
  const int tp = s.tp;
  const WeightFormat f = s.weights;
  // Weight-only formats dequantize to 16 bits and multiply there; fp8 checkpoints run W8A8.
  const DType format_dtype = (f == WeightFormat::kFp8) ? DType::kFp8 : DType::kBf16;

  for (const MachineChoice& choice : machines) {
    const Device& d = *choice.device;
    ServingMachine m;
    m.device = d;
    m.devices = tp;
    if (choice.system) m.system_id = choice.system->id;
    // A CUDA serving engine takes its share of the memory (vLLM: 0.9); the rest is headroom.
    m.usable = cuda_like(d)
                   ? std::min(usable_capacity(d), d.memory_capacity * s.gpu_memory_utilization)
                   : usable_capacity(d);
    m.runtime = cuda_like(d) ? cuda_runtime_bytes(tp) : Bytes{0.0};
    m.weights = out.weights.total / static_cast<double>(tp);
    m.kv = Bytes{batch * kv_seq * share};
    const double ws1 = arch ? workspace_bytes(*arch, static_cast<double>(s.prompt), 1.0, tp) : 0.0;
    const double ws =
        arch ? workspace_bytes(*arch, std::max(static_cast<double>(s.prompt), batch), batch, tp)
             : 0.0;
    m.workspace = Bytes{ws};
    m.needed = m.weights + m.kv + m.workspace + m.runtime;
    m.fits = m.needed <= m.usable;
    const double left = (m.usable - m.runtime - m.weights).value() - ws1;
    if (!arch) {
      m.assumptions.push_back(Note::of(NoteCode::kNoKvWithoutArchitecture));
    }
    // Weight-only quantized formats: bytes over bandwidth is their upper bound.
    if (f != WeightFormat::kFp32 && f != WeightFormat::kBf16 && f != WeightFormat::kFp16 &&
        f != WeightFormat::kFp8) {
      m.assumptions.push_back(Note::of(NoteCode::kQuantizedDecodeOptimistic));
    }
    if (left > 0.0 && kv_seq > 0.0) {
      m.max_concurrency = static_cast<std::int64_t>(
          std::min(std::floor(left / (kv_seq * share)), static_cast<double>(kMaxConcurrency)));
    } else if (left > 0.0) {
      m.max_concurrency = kMaxConcurrency;
    }
    if (arch && left > 0.0) {
      // The longest context whose cache, for every sequence, fits what the weights leave.
      const std::int64_t cap = arch->max_positions > 0 ? arch->max_positions : kMaxContext;
      std::int64_t lo = 0, hi = cap;
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        const double need = batch * kv_bytes_per_sequence(*arch, s.kv, mid).value() * share;
        if (need <= left) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      m.max_context = lo;
    }

    const ComputeRate* rate = select_rate(d, choice.dtype.value_or(format_dtype));
    TrainingJob tj;
    tj.devices = tp;
    tj.system = job.system;
    const ClusterProfile cluster = cluster_of(tj, choice, rate);
    if (rate) {
      m.rate = *rate;
      m.gemm = gemm_efficiency_of(*rate, std::nullopt);
    }
    m.bandwidth = achievable_bandwidth(d);
    // Tensor parallel: an all-reduce of the hidden state after attention and after the MLP of
    // every layer (Shoeybi et al. 2019, sec. 3), on the critical path.
    const auto all_reduces = [&](double tokens) {
      if (tp <= 1 || !arch) return Seconds{0.0};
      const Bytes bytes{tokens * static_cast<double>(arch->hidden) * 2.0};
      return default_comm_model().time(Collective::kAllReduce, bytes, Group{tp, 1},
                                       cluster.fabric) *
             (2.0 * static_cast<double>(arch->num_layers));
    };
    const double flops_rate = rate ? rate->dense.value() * m.gemm.value : 0.0;
    const double bw = m.bandwidth ? m.bandwidth->achievable.value() : 0.0;
    const auto step_at = [&](double b, Seconds& mem, Seconds& cmp) {
      const double bytes = weight_bytes_read(out.weights, b) / tp + b * kv_seq * share;
      mem = Seconds{bw > 0.0 ? bytes / bw : 0.0};
      cmp = Seconds{flops_rate > 0.0 ? b * out.decode_flops_per_token / tp / flops_rate : 0.0};
      return bytes;
    };
    m.step_bytes = Bytes{step_at(batch, m.step_memory, m.step_compute)};
    m.step_comm = all_reduces(batch);
    m.step = std::max(m.step_memory, m.step_compute) + m.step_comm;
    m.bound = m.step_comm > std::max(m.step_memory, m.step_compute) ? Bound::kCommunication
              : m.step_memory >= m.step_compute                     ? Bound::kMemory
                                                                    : Bound::kCompute;
    if (bw > 0.0 && m.step.count() > 0.0) {
      m.decode_tokens_per_s = 1.0 / m.step.count();
      m.aggregate_tokens_per_s = batch / m.step.count();
    } else {
      m.assumptions.push_back(Note::of(NoteCode::kDecodeNotTimed));
    }
    if (bw > 0.0 && flops_rate > 0.0) {
      // The smallest batch whose FLOPs outlast its reads: doubling, then bisection.
      Seconds mem{0.0}, cmp{0.0};
      std::int64_t hi = 1;
      while (hi <= kMaxConcurrency && (step_at(static_cast<double>(hi), mem, cmp), cmp < mem))
        hi *= 2;
      if (hi <= kMaxConcurrency) {
        std::int64_t lo = hi / 2 + 1;
        while (lo < hi) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          step_at(static_cast<double>(mid), mem, cmp);
          if (cmp >= mem) {
            hi = mid;
          } else {
            lo = mid + 1;
          }
        }
        m.compute_bound_batch = hi;
      }
    }
    if (flops_rate > 0.0) {
      const Seconds cmp{out.prefill_flops / tp / flops_rate};
      const Seconds mem{
          bw > 0.0 ? weight_bytes_read(out.weights, static_cast<double>(s.prompt)) / tp / bw : 0.0};
      m.prefill = std::max(cmp, mem) + all_reduces(static_cast<double>(s.prompt));
    } else {
      m.assumptions.push_back(Note::of(NoteCode::kPrefillNotTimed));
    }
    out.machines.push_back(std::move(m));
  }
  return out;
}

ServingSize serving_size(const ServingJob& job, const MachineChoice& machine) {
  ServingSize out;
  const ModelArchitecture* arch = job.model.architecture ? &*job.model.architecture : nullptr;
  const int node = machine.system != nullptr && machine.system->fabric.devices_per_node > 0
                       ? machine.system->fabric.devices_per_node
                       : 1;
  const auto divides_heads = [&](int tp) {
    if (arch == nullptr) return tp == 1;
    const AttentionSpec& a = arch->attention;
    return a.num_heads % tp == 0 &&
           (a.latent || a.num_kv_heads % tp == 0 || tp % a.num_kv_heads == 0);
  };
  ServingJob j = job;
  int largest = 1;
  for (int tp = 1; tp <= node; tp *= 2) {
    if (!divides_heads(tp)) continue;
    largest = tp;
    j.setup.tp = tp;
    const ServingMachine m = serving_estimate(j, {machine}).machines.front();
    if (m.fits) {
      out.tp = tp;
      out.devices = tp;
      out.fits = true;
      out.decode_tokens_per_s = m.decode_tokens_per_s;
      return out;
    }
    out.needed = m.needed;
    out.usable = m.usable;
  }
  // Past one node: pipeline stages of `largest` devices each, the weights and the cache split
  // over them (layers per stage); the per-device need at tp = largest over the stages.
  j.setup.tp = largest;
  const ServingMachine m = serving_estimate(j, {machine}).machines.front();
  const double per_stage = (m.weights + m.kv + m.workspace).value();
  const double room = (m.usable - m.runtime).value();
  out.tp = largest;
  // A stage holds at least one decoder layer: more stages than layers (or than kMaxServeStages
  // without an architecture) serve it on no number of devices -- said as 0, never a count that
  // overflows an int.
  if (room > 0.0) {
    const double stages = std::ceil(per_stage / room);
    const double most_stages = arch != nullptr ? static_cast<double>(arch->num_layers)
                                               : static_cast<double>(kMaxServeStages);
    if (stages <= most_stages) {
      out.pp = static_cast<int>(stages);
      out.devices = largest * out.pp;
    } else {
      out.pp = 0;
    }
  }
  out.needed = m.needed;
  out.usable = m.usable;
  return out;
}

}  // namespace tb
