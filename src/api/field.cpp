// The estimate request's field table: one row per input, with its check.
#include "trainbudget/api/field.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <vector>

#include "field_accepted.hpp"
#include "field_checks.hpp"
#include "trainbudget/api/request.hpp"
#include "trainbudget/spec/catalog.hpp"
#include "trainbudget/spec/comma_list.hpp"
#include "trainbudget/spec/dtype.hpp"
#include "trainbudget/spec/error.hpp"
#include "trainbudget/spec/framework.hpp"
#include "trainbudget/spec/limits.hpp"
#include "trainbudget/spec/parallel.hpp"
#include "trainbudget/spec/parse_named.hpp"
#include "trainbudget/spec/quantity_parse.hpp"
#include "trainbudget/spec/recipe.hpp"

namespace tb::api {
namespace {

using R = EstimateRequest&;
using V = std::string_view;
using checks::choice;
using checks::degree;
using checks::flag;
using checks::text;
using checks::whole;
using namespace accepted;

double share(V v, const char* key) { return parse_number_in(v, key, 0.0, 1.0, true); }
std::string directory() { return "a directory of device TOML files"; }

const std::array kEstimateFields{
    Field{"params", FieldType::kCount, "COUNT", "parameters", "7e9",
          "Model parameters: 7e9, 7B, 70b, 1.5T, 125M", param_counts,
          [](V v, R r) { r.job.params = parse_count(v, "params", kParamsRange); }, "job"},
    Field{"model", FieldType::kText, "MODEL", "", "",
          "The model, counted exactly from its architecture (docs/models.md): a config.json, a "
          "model folder (config.json + safetensors headers), a Hugging Face repo id "
          "(owner/name[@revision]: the local cache, else its config.json fetched from the Hub "
          "into that cache; HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE), a preset id from data/models "
          "(e.g. llama-3.1-8b) or a config.json's text itself (starting with '{'); replaces "
          "{params}",
          model_forms,
          [](V v, R r) { r.model = text(v, "model", "a config.json, a folder or a preset id"); },
          "job"},
    Field{"method", FieldType::kChoice, "METHOD", "", "full",
          "full (every weight trained) | lora (adapters on a frozen 16-bit base) | qlora "
          "(adapters on an NF4 base) | freeze (only the top fraction trained) | dora, qdora "
          "(lora, qlora with {dora}) | galore (full with {galore_rank} 128 unless given)",
          methods,
          [](V v, R r) {
            // DoRA is LoRA's adapters with a magnitude: the method and the dora flag.
            if (v == "dora" || v == "qdora") {
              r.job.method = v == "dora" ? Method::kLora : Method::kQlora;
              r.job.lora.dora = true;
            } else if (v == "galore") {
              // transformers' optim_args default rank (trainer_optimizer.py).
              r.job.method = Method::kFull;
              if (r.job.galore_rank == 0) r.job.galore_rank = 128;
            } else {
              try {
                r.job.method = parse_method(v);
              } catch (InvalidRequest& e) {
                std::vector<Problem> problems = e.problems();
                for (Problem& q : problems) q.accepted = methods();
                throw InvalidRequest(std::move(problems));
              }
            }
          },
          "job"},
    Field{"job_kind", FieldType::kChoice, "KIND", "", "",
          "pretraining (a model trained from scratch, or continued on a corpus) | fine-tuning; "
          "default: pretraining for {method} full at one or more {tokens} per parameter, else "
          "fine-tuning. Sets the words, whether a LoRA alternative or another method is offered, "
          "and a plan's default global batch (4M tokens for pretraining, 1M for a fine-tune)",
          job_kinds, [](V v, R r) { r.job.kind = parse_job_kind(v); }, "job"},
    Field{"trainer", FieldType::kChoice, "TRAINER", "", "sft",
          "sft (supervised) | dpo, ipo (a chosen and a rejected sequence per example, against a "
          "reference model) | kto (one sequence, against a reference) | orpo, simpo, cpo (pairs, "
          "no reference) | rm (a reward model: pairs through a score head, TRL's RewardTrainer) | "
          "grpo, rloo (online RL: completions generated every step, then "
          "trained on) | ppo (online RL with a value model trained beside the policy and a "
          "reward model), as TRL's trainers run them (docs/rl.md); {micro_batch} counts "
          "examples (completions for grpo, rloo, ppo) and {tokens} every sequence's tokens",
          trainers, [](V v, R r) { r.job.objective = parse_named<Objective>("trainer", v); },
          "job"},
    Field{"precompute_ref_log_probs", FieldType::kFlag, "", "", "",
          "dpo, ipo, kto: the reference's log-probs computed once before training (TRL's "
          "precompute_ref_log_probs): no reference weights on the device while training",
          flags,
          [](V v, R r) { r.job.precompute_ref_log_probs = flag(v, "precompute_ref_log_probs"); },
          "job"},
    Field{"trainable_fraction", FieldType::kNumber, "FRACTION", "of the parameters", "0.02",
          "lora: adapter parameters as a fraction of {params} (with {model}: the smallest rank "
          "on the targets that reaches it); freeze: the fraction trained",
          fraction,
          [](V v, R r) {
            r.job.trainable_fraction = parse_number_in(v, "trainable_fraction", 0.0, 1.0, false);
          },
          "job"},
    Field{"recipe", FieldType::kChoice, "ID", "", "amp-adam",
          "Bytes-per-parameter convention (docs/recipes.md)", recipes,
          [](V v, R r) { r.job.recipe_id = std::string{find_recipe(v).id}; }, "job"},
    Field{"utilization", FieldType::kNumber, "FRACTION", "of the dense peak", "",
          "Model-FLOPs utilization (MFU) that replaces the step-time model (hours = model FLOPs "
          "/ (devices x peak x MFU)); default: modeled from GEMM efficiency, communication and "
          "the pipeline bubble (docs/scale.md)",
          utilizations,
          [](V v, R r) {
            r.job.utilization =
                parse_number_in(v, "utilization", kUtilizationRange.lo, kUtilizationRange.hi, true);
          },
          "job"},
    Field{"machine", FieldType::kList, "LIST", "", kDefaultMachines,
          "Devices to estimate on: ID[:dtype][,ID[:dtype]...] or all[:dtype]; ':dtype' picks the "
          "rate "
          "instead of the recipe's compute dtype; 'local' is this machine, measured once and "
          "saved",
          machines,
          [](V v, R r) {
            (void)split_comma_list(v, "machine", "ID[:dtype][,ID[:dtype]...] or all");
            r.machines = std::string{v};
          },
          "job"},
    Field{"devices", FieldType::kInteger, "N", "devices", "1",
          "Devices in all: dp x tp x pp x cp (data-parallel replicas are what tp, pp and cp leave)",
          devices_range,
          [](V v, R r) { r.job.devices = static_cast<int>(whole(v, "devices", 1e6)); }, "job"},
    Field{"zero", FieldType::kChoice, "STAGE", "", "0",
          "ZeRO stage over the data-parallel ranks: 0 (a full replica each), 1 (optimizer states "
          "partitioned), 2 (+ gradients; FSDP SHARD_GRAD_OP), 3 (+ weights; FSDP FULL_SHARD)",
          zero_stages,
          [](V v, R r) {
            if (v != "0" && v != "1" && v != "2" && v != "3") {
              throw InvalidRequest("zero", fmt::format("'{}' is not a ZeRO stage", v), "0|1|2|3");
            }
            r.job.zero_stage = v[0] - '0';
          },
          "job"},
    Field{"tp", FieldType::kInteger, "N", "devices", "1",
          "Tensor-parallel degree (Megatron-LM): weights, heads and the MLP split over N devices "
          "of a node (needs {model}; divides the heads and KV heads)",
          degrees, [](V v, R r) { r.job.parallel.tp = degree(v, "tp"); }, "layout"},
    Field{"pp", FieldType::kInteger, "N", "stages", "1",
          "Pipeline-parallel stages: the decoder layers split in order, the first stages taking "
          "the remainder, 1F1B schedule (needs "
          "{model}; pp x virtual_stages divides the layers)",
          degrees, [](V v, R r) { r.job.parallel.pp = degree(v, "pp"); }, "layout"},
    Field{"virtual_stages", FieldType::kInteger, "V", "chunks per device", "1",
          "Interleaved pipeline: V model chunks per device, bubble / V (Narayanan et al. 2021); "
          "needs {pp} > 1 and {grad_accum} a multiple of pp",
          virtual_stage_counts,
          [](V v, R r) {
            r.job.parallel.virtual_stages =
                static_cast<int>(whole(v, "virtual_stages", kMaxVirtualStages));
          },
          "layout"},
    Field{"cp", FieldType::kInteger, "N", "devices", "1",
          "Context-parallel degree: the sequence split over N devices, ring attention (needs "
          "{model}, flash attention, seq_len a multiple of 2N)",
          degrees, [](V v, R r) { r.job.parallel.cp = degree(v, "cp"); }, "layout"},
    Field{"ep", FieldType::kInteger, "N", "devices", "1",
          "Expert-parallel degree for MoE models: routed experts split over N of the dp x cp "
          "ranks (with {etp} below tp, of the tp x cp x dp ranks), all-to-all dispatch and "
          "combine",
          degrees, [](V v, R r) { r.job.parallel.ep = degree(v, "ep"); }, "layout"},
    Field{"etp", FieldType::kInteger, "N", "devices", "",
          "Expert tensor-parallel degree (Megatron-Core's expert_tensor_parallel_size): each "
          "expert split over N devices (default: tp); below {tp} the experts fold over the "
          "tensor-parallel "
          "ranks too, ep x etp dividing tp x cp x dp (MoE parallel folding)",
          degrees, [](V v, R r) { r.job.parallel.etp = degree(v, "etp"); }, "layout"},
    Field{"sequence_parallel", FieldType::kFlag, "", "", "",
          "Megatron-LM sequence parallelism: norm and dropout activations split over {tp} too",
          flags, [](V v, R r) { r.job.parallel.sequence_parallel = flag(v, "sequence_parallel"); },
          "layout"},
    Field{"pp_scatter_gather", FieldType::kFlag, "", "", "",
          "Pipeline sends split over the {tp} ranks and all-gathered by the receivers (2021 "
          "Megatron-LM's scatter-gather; sequence parallelism splits them already)",
          flags, [](V v, R r) { r.job.parallel.pp_scatter_gather = flag(v, "pp_scatter_gather"); },
          "layout"},
    Field{"shard_group", FieldType::kInteger, "N", "ranks", "",
          "Hybrid sharding (FSDP HYBRID_SHARD): ZeRO partitions over groups of N data-parallel "
          "ranks (a node's), replicated across groups that all-reduce gradients; needs {zero} "
          ">= 1",
          degrees, [](V v, R r) { r.job.parallel.shard_group = degree(v, "shard_group"); },
          "layout"},
    Field{"offload", FieldType::kChoice, "WHAT", "", "none",
          "CPU offload: none | optimizer (ZeRO-Offload: gradients, optimizer states, master "
          "weights and the step on the host) | params (+ weights, ZeRO-Infinity; needs {zero} 3)",
          offloads, [](V v, R r) { r.job.parallel.offload = parse_offload(v); }, "layout"},
    Field{"system", FieldType::kText, "ID", "", "",
          "Node shape and fabric (data/systems): devices per node, scale-up and scale-out links; "
          "default: the first system built from the machine's device",
          systems, [](V v, R r) { r.job.system = text(v, "system", "a system id"); }, "cluster"},
    Field{"price", FieldType::kNumber, "USD", "per device-hour", "",
          "Price per device-hour replacing the catalog's dated price (cost = devices x hours x "
          "price)",
          prices,
          [](V v, R r) {
            r.job.price_usd_per_hour =
                parse_number_in(v, "price", kUsdPerHourRange.lo, kUsdPerHourRange.hi, true);
          },
          "cluster"},
    Field{"pue", FieldType::kNumber, "X", "", "1",
          "Power usage effectiveness for energy (kWh = devices x TDP x hours x PUE); 1 counts the "
          "devices' own draw only",
          pues, [](V v, R r) { r.job.pue = parse_number_in(v, "pue", 1.0, 3.0, true); }, "cluster"},
    Field{"headroom", FieldType::kNumber, "FRACTION", "of the peak", "",
          "Room a fix, advice line or plan row keeps under the allocatable memory (0.15: the "
          "peak x 1.15 must fit); default: the memory band's high end or the reserved peak "
          "(+10 %), whichever is larger",
          headrooms,
          [](V v, R r) { r.job.headroom = parse_number_in(v, "headroom", 0.0, 1.0, true); },
          "cluster"},
    Field{"host_memory", FieldType::kNumber, "GB", "per node", "",
          "Host RAM per node that offloaded states and activations may fill, replacing the "
          "system's (a job that offloads more does not fit); without it and without a system "
          "that states it, offload is not checked against the host",
          host_memories,
          [](V v, R r) {
            r.job.host_memory = Bytes{parse_number_in(v, "host_memory", 1.0, 1e7, true) * 1e9};
          },
          "cluster"},
    Field{"goodput", FieldType::kNumber, "FRACTION", "of wall-clock time", "",
          "Share of wall-clock time spent training (failures, restarts, checkpoints, "
          "evaluation), replacing the model: wall-clock = compute / goodput; default modeled "
          "from Llama 3's failure rate per device-hour, a 10-minute restart and the checkpoint's "
          "write time (docs/time.md, \"Goodput\")",
          goodputs,
          [](V v, R r) { r.job.goodput = parse_number_in(v, "goodput", 0.01, 1.0, true); },
          "cluster"},
    Field{"gemm_efficiency", FieldType::kNumber, "FRACTION", "of the dense peak", "",
          "Share of the peak a large GEMM reaches, replacing the catalog's measured matmul "
          "ceiling (MAMF) or its default",
          efficiencies,
          [](V v, R r) {
            // 0.01: below any matmul a device runs (ml-engineering's MAMF table: 51 % to 97 %),
            // and far enough from 0 that hours stay finite and readable.
            r.job.gemm_efficiency = parse_number_in(v, "gemm_efficiency", 0.01, 1.0, true);
          },
          "cluster"},
    Field{"overlap_dp", FieldType::kNumber, "FRACTION", "", "1",
          "Share of the data-parallel gradient reduction (and ZeRO-3 gathers) hidden behind "
          "backward",
          shares, [](V v, R r) { r.job.overlap.dp = share(v, "overlap_dp"); }, "cluster"},
    Field{"overlap_tp", FieldType::kNumber, "FRACTION", "", "0",
          "Share of the tensor-parallel all-reduces hidden behind compute (Megatron-LM's "
          "tp-comm-overlap option)",
          shares, [](V v, R r) { r.job.overlap.tp = share(v, "overlap_tp"); }, "cluster"},
    Field{"overlap_pp", FieldType::kNumber, "FRACTION", "", "1",
          "Share of the pipeline's point-to-point sends hidden behind compute", shares,
          [](V v, R r) { r.job.overlap.pp = share(v, "overlap_pp"); }, "cluster"},
    Field{"overlap_cp", FieldType::kNumber, "FRACTION", "", "1",
          "Share of ring attention's K/V exchange hidden behind attention compute", shares,
          [](V v, R r) { r.job.overlap.cp = share(v, "overlap_cp"); }, "cluster"},
    Field{"overlap_ep", FieldType::kNumber, "FRACTION", "", "0",
          "Share of the MoE all-to-all hidden behind compute", shares,
          [](V v, R r) { r.job.overlap.ep = share(v, "overlap_ep"); }, "cluster"},
    Field{"overlap_offload", FieldType::kNumber, "FRACTION", "", "0",
          "Share of offload's host transfers hidden behind compute", shares,
          [](V v, R r) { r.job.overlap.offload = share(v, "overlap_offload"); }, "cluster"},
    Field{"lora_rank", FieldType::kInteger, "R", "", "16",
          "LoRA/QLoRA rank r (needs {model}): r x (in + out) parameters per adapted matrix", ranks,
          [](V v, R r) { r.job.lora.rank = whole(v, "lora_rank", 65536.0); }, "job"},
    Field{"lora_targets", FieldType::kList, "LIST", "", "q,v",
          "Adapted layers (needs {model}): q,k,v,o,gate,up,down, all-linear, module names "
          "such as q_proj (PEFT's default: q,v), or one regex over full module names, as PEFT",
          targets, [](V v, R r) { r.job.lora.targets = parse_lora_targets(v); }, "job"},
    Field{"lora_dropout", FieldType::kNumber, "P", "probability", "",
          "LoRA/QLoRA: PEFT's lora_dropout on each adapter's input (a dropped copy and a mask "
          "per adapted module); default 0",
          probability,
          [](V v, R r) {
            r.job.lora.dropout = parse_number_in(v, "lora_dropout", 0.0, 1.0, true, false);
          },
          "job"},
    Field{"lora_modules_to_save", FieldType::kList, "LIST", "", "",
          "LoRA/QLoRA: modules trained in full beside the adapters (PEFT's modules_to_save, "
          "each a trained copy beside its frozen original): embed_tokens, lm_head",
          targets,
          [](V v, R r) {
            r.job.lora.modules_to_save.clear();
            for (const std::string_view m :
                 split_comma_list(v, "lora_modules_to_save", "embed_tokens, lm_head")) {
              r.job.lora.modules_to_save.emplace_back(m);
            }
          },
          "job"},
    Field{"dora", FieldType::kFlag, "", "", "",
          "LoRA/QLoRA: DoRA (PEFT's use_dora): a trained magnitude per output row, the base and "
          "adapter outputs kept per adapted module, the dense adapted weight's norm every "
          "forward; {method} dora and qdora say the same",
          flags, [](V v, R r) { r.job.lora.dora = flag(v, "dora"); }, "job"},
    Field{"galore_rank", FieldType::kInteger, "R", "", "",
          "Full fine-tune with GaLore (transformers' optim galore_adamw, LLaMA-Factory's "
          "use_galore): Adam's moments of each attention and MLP weight in a rank-R projection "
          "of its gradient (needs {model}); default: plain AdamW",
          ranks, [](V v, R r) { r.job.galore_rank = whole(v, "galore_rank", 65536.0); }, "job"},
    Field{"micro_batch", FieldType::kInteger, "B", "sequences", "1",
          "Sequences per forward/backward (needs {model})", micro_batches,
          [](V v, R r) {
            r.job.setup.micro_batch = whole(v, "micro_batch", static_cast<double>(kMaxMicroBatch));
          },
          "step"},
    Field{"seq_len", FieldType::kInteger, "S", "tokens", "",
          "Tokens per sequence (needs {model}); default 2048, or the model's context length if "
          "shorter",
          seq_lens,
          [](V v, R r) {
            r.job.setup.seq_len = whole(v, "seq_len", static_cast<double>(kMaxSeqLen));
            r.job.setup.seq_len_given = true;
          },
          "step"},
    Field{"attention", FieldType::kChoice, "IMPL", "", "",
          "eager (saves the s x s scores) | flash (FlashAttention/SDPA, O(s) statistics); "
          "default the framework's: flash, eager for pytorch",
          attentions,
          [](V v, R r) {
            r.job.setup.attention = parse_attention(v);
            r.job.setup.attention_given = true;
          },
          "step"},
    Field{"framework", FieldType::kChoice, "NAME", "", "generic",
          "Training framework whose kernels and loss set the defaults of {attention}, {loss}, "
          "{logits_dtype} and {norm}, and whose rules the plan and advice layouts keep "
          "(docs/frameworks.md): generic (any) | pytorch (hand-written eager decoder) | hf "
          "(Trainer + accelerate) | torchtune | torchtitan | megatron | litgpt | deepspeed | fsdp "
          "| unsloth (default {recompute} full, {offload_activations})",
          frameworks, [](V v, R r) { r.job.setup.framework = parse_framework(v); }, "step"},
    Field{"loss", FieldType::kChoice, "IMPL", "", "",
          "Cross-entropy: fused (one kernel, fp32 softmax + gradient) | full (F.cross_entropy: "
          "log-probs saved, two b x s x V gradients) | chunked:N (N compiled chunks, torchtune) "
          "| linear (head and loss in one kernel, no logits: unsloth); default the framework's",
          losses, [](V v, R r) { r.job.setup.loss = parse_loss(v); }, "step"},
    Field{"logits_dtype", FieldType::kChoice, "DTYPE", "", "",
          "The dtype the loss computes in: activation (the logits' own) | fp32 (upcast first); "
          "default the framework's",
          logits_dtypes, [](V v, R r) { r.job.setup.logits_dtype = parse_logits_dtype(v); },
          "step"},
    Field{"norm", FieldType::kChoice, "IMPL", "", "",
          "RMSNorm kernel: fused (saves input + fp32 rsqrt) | eager (op by op: also x^2 and "
          "x*rsqrt) | eager-fp32 (transformers' LlamaRMSNorm, upcast first); default the "
          "framework's",
          norms, [](V v, R r) { r.job.setup.norm = parse_norm(v); }, "step"},
    Field{"optimizer_kernel", FieldType::kChoice, "KERNEL", "", "",
          "The optimizer step's temporary: per-tensor (2 copies of the largest tensor) | foreach "
          "(a copy of the trainable weights) | fused (none) | in-backward (torchtune's "
          "optimizer_in_bwd: no gradient buffer); default the framework's",
          optimizer_kernels,
          [](V v, R r) { r.job.setup.optimizer_kernel = parse_optimizer_kernel(v); }, "step"},
    Field{
        "grad_accumulation_kernel", FieldType::kChoice, "KERNEL", "", "",
        "How each micro-batch's weight gradients join the buffer under {grad_accum}: fused "
        "(the weight-gradient GEMM accumulates, Megatron-LM's gradient_accumulation_fusion) | "
        "add (a new gradient added in place after the first micro-batch, autograd's "
        "AccumulateGrad: a pass over the gradients each time); default the framework's (add "
        "for online RL under megatron, NeMo RL's unfused accumulation)",
        grad_accumulation_kernels,
        [](V v, R r) { r.job.setup.grad_accumulation_kernel = parse_grad_accumulation_kernel(v); },
        "step"},
    Field{"attention_kernel", FieldType::kChoice, "KERNEL", "", "",
          "Which fused kernel runs {attention} flash, priced at its published rate: flash2 "
          "(FlashAttention-2, PyTorch SDPA) | vendor (cuDNN through Transformer Engine) | "
          "flash1 (flash-attn 1.x and its Triton port); default the framework's",
          attention_kernels,
          [](V v, R r) { r.job.setup.attention_kernel = parse_attention_kernel(v); }, "step"},
    Field{"recompute", FieldType::kChoice, "MODE", "", "none",
          "Activation recomputation: none | selective (attention core) | full (keep layer "
          "inputs only) | selective-op (torchtitan's per-op AC: every second matmul's output "
          "and the attention output kept)",
          recomputes, [](V v, R r) { r.job.setup.recompute = parse_recompute(v); }, "step"},
    Field{"recompute_layers", FieldType::kInteger, "N", "layers per stage", "",
          "Under {recompute} full, only the first N decoder layers of each pipeline stage are "
          "recomputed and the others keep every activation (Megatron-LM's recompute_method "
          "block with recompute_num_layers N); default every layer",
          recompute_layer_counts,
          [](V v, R r) {
            r.job.setup.recompute_layers =
                whole(v, "recompute_layers", 0.0, kMaxRecomputeLayers, recompute_layer_counts());
          },
          "step"},
    Field{"offload_activations", FieldType::kFlag, "", "", "",
          "Saved activations go to host memory after each layer's forward and come back before "
          "its backward (torchtune's enable_activation_offloading, Megatron-Core's "
          "cpu_offloading): the device holds two layers' worth; the transfers over the host link "
          "hide behind the compute where they can",
          flags, [](V v, R r) { r.job.setup.offload_activations = flag(v, "offload_activations"); },
          "step"},
    Field{"activation_dtype", FieldType::kChoice, "DTYPE", "", "",
          "bf16 | fp16 | fp32; default the recipe's compute dtype (fp8 recipes: bf16)",
          activation_dtypes,
          [](V v, R r) { r.job.setup.activation_dtype = parse_activation_dtype(v); }, "step"},
    Field{"dropout", FieldType::kNumber, "P", "probability", "0",
          "Dropout probability; 0 stores no masks", probability,
          [](V v, R r) { r.job.setup.dropout = parse_number_in(v, "dropout", 0.0, 1.0, true); },
          "step"},
    Field{"grad_accum", FieldType::kInteger, "N", "micro-batches", "1",
          "Micro-batches per optimizer step; > 1 keeps gradients alive through the forward",
          accumulations,
          [](V v, R r) {
            r.job.setup.grad_accumulation =
                whole(v, "grad_accum", static_cast<double>(kMaxGradAccum));
          },
          "step"},
    Field{"causal_flops", FieldType::kFlag, "", "", "",
          "Count the attention products of a causal kernel ((s+1)/2 keys per query) instead of "
          "all s",
          flags, [](V v, R r) { r.job.setup.causal_flops = flag(v, "causal_flops"); }, "step"},
    Field{"compile", FieldType::kFlag, "", "", "",
          "torch.compile: the framework's element-wise ops fused, launched as compiled kernels "
          "(docs/time.md)",
          flags, [](V v, R r) { r.job.setup.compile = flag(v, "compile"); }, "step"},
    Field{"use_liger_kernel", FieldType::kFlag, "", "", "",
          "Liger Kernel's patches (transformers' and TRL's use_liger_kernel, LLaMA-Factory's "
          "enable_liger_kernel): RMSNorm, RoPE and SiLU x up fused, the activation not saved; "
          "the loss stays the framework's unless the loss field is given (docs/frameworks.md)",
          flags, [](V v, R r) { r.job.setup.liger = flag(v, "use_liger_kernel"); }, "step"},
    Field{"lora_kernels", FieldType::kFlag, "", "", "",
          "axolotl's fused LoRA autograd functions (lora_mlp_kernel, lora_qkv_kernel, "
          "lora_o_kernel; on by default for its LoRA and QLoRA fine-tunes): a gated MLP whose "
          "gate, up and down are all adapted keeps its input, gate and up only, and each "
          "adapter's product is added inside its base GEMM",
          flags, [](V v, R r) { r.job.setup.lora_kernels = flag(v, "lora_kernels"); }, "step"},
    Field{"fit", FieldType::kFlag, "", "", "",
          "Also find the largest micro-batch and the longest sequence that fit each machine", flags,
          [](V v, R r) { r.fit = flag(v, "fit"); }, "step"},
    Field{"explain", FieldType::kFlag, "", "", "",
          "Print every term's formula, symbol values and value (a bare {params}: its model "
          "states and FLOPs)",
          flags, [](V v, R r) { r.explain = flag(v, "explain"); }, "step"},
    Field{"format", FieldType::kChoice, "FORMAT", "", "table",
          "Output: table (for people), json (docs/json.md), csv, markdown, html (a "
          "self-contained page with SVG charts)",
          formats,
          [](V v,
             R r) { r.format = choice(v, "format", {"table", "json", "csv", "markdown", "html"}); },
          "output"},
    Field{"brief", FieldType::kFlag, "", "", "",
          "The answer only (per machine: fits, memory, time, cost and the one change; a plan's "
          "best layouts), for the table, markdown and html formats",
          flags, [](V v, R r) { r.brief = flag(v, "brief"); }, "output"},
    Field{"hardware_dir", FieldType::kText, "DIR", "", "",
          "Extra folder of device TOML files (docs/hardware-catalog.md); also read: "
          "$XDG_CONFIG_HOME/trainbudget/hardware (default ~/.config/trainbudget/hardware)",
          directory, [](V v, R r) { r.hardware_dir = text(v, "hardware_dir", "a directory"); },
          "output"},
};

// The estimate's rows with the run's length (run_length_fields.cpp) after model, the quantized
// base's (quantization_fields.cpp) after galore_rank, the vision rows (vision_fields.cpp) after
// seq_len and the online RL rows (rollout_fields.cpp) after the preference ones.
std::vector<Field> estimate_table() {
  struct Rows {
    std::string_view after;
    std::span<const Field> (*rows)();
  };
  constexpr std::array<Rows, 5> kInserted{{{"model", run_length_fields},
                                           {"virtual_stages", pipeline_fields},
                                           {"galore_rank", quantization_fields},
                                           {"seq_len", vision_fields},
                                           {"precompute_ref_log_probs", rollout_fields}}};
  std::vector<Field> out;
  for (const Field& f : kEstimateFields) {
    out.push_back(f);
    for (const Rows& r : kInserted) {
      if (f.key != r.after) continue;
      const std::span<const Field> rows = r.rows();
      out.insert(out.end(), rows.begin(), rows.end());
    }
  }
  return out;
}

}  // namespace

std::span<const Field> estimate_fields() {
  static const std::vector<Field> table = estimate_table();
  return table;
}

const Field* find_field(std::span<const Field> fields, std::string_view key) {
  for (const Field& f : fields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

}  // namespace tb::api
