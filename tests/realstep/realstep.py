#!/usr/bin/env python3
"""Runs real PyTorch training steps on the CPU and measures their memory.

The model is built from a Hugging Face config.json (model_type llama, mistral, qwen2, gpt2, phi,
mixtral, or qwen2_vl with vision.py's encoder) as a plain, eager PyTorch decoder: norms written
out op by op, K/V repeated for grouped heads, a masked softmax, F.cross_entropy on the full
logits. That is the `--framework pytorch`
profile of trainbudget (docs/frameworks.md), and every tensor it keeps for backward is a row of
that profile.

Memory is counted by live_heap.so (LD_PRELOAD): the bytes the C heap has handed out and not
taken back, the CPU analogue of torch.cuda.max_memory_allocated(). The harness takes the live
bytes before the model is built as its baseline and prints, as JSON, the peak of the measured
step above it (and of its forward, backward and optimizer phases), the bytes alive between
steps, and the peak resident set size for comparison.

Usage: LD_PRELOAD=live_heap.so python3 realstep.py --config config.json [options]
"""
import argparse
import json
import math
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", required=True)
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--method", choices=["full", "lora"], default="full")
    p.add_argument("--lora-rank", type=int, default=8)
    p.add_argument("--lora-targets", default="q,v")
    p.add_argument("--lora-dropout", type=float, default=0.0)
    p.add_argument("--optimizer", choices=["adamw", "sgd"], default="adamw")
    p.add_argument("--recompute", choices=["none", "full"], default="none")
    p.add_argument("--grad-accum", type=int, default=1)
    p.add_argument("--num-generations", type=int, default=4)
    p.add_argument("--max-prompt-length", type=int, default=64)
    p.add_argument("--max-completion-length", type=int, default=64)
    p.add_argument("--mean-completion-length", type=int, default=0,
                   help="grpo: completions of varied lengths with this mean (0: all at the "
                        "maximum), each row ending at its quantile of the maximum-entropy lengths")
    p.add_argument("--trainer", choices=["sft", "dpo", "orpo", "grpo"], default="sft",
                   help="dpo, orpo: a chosen and a rejected sequence per example, concatenated into "
                        "one batch of twice the rows (TRL's concatenated_forward); dpo also runs "
                        "the reference's forward under no_grad first (a frozen copy of a full "
                        "policy; the adapters switched off under LoRA)")
    p.add_argument("--dtype", choices=["fp32", "bf16"], default="fp32")
    p.add_argument("--images", type=int, default=0, help="images per sequence (qwen2_vl)")
    p.add_argument("--image-size", type=int, default=224, help="each image's side, pixels")
    p.add_argument("--train-vision-tower", action="store_true")
    p.add_argument("--steps", type=int, default=2, help="steps run; the last one is measured")
    p.add_argument("--time", action="store_true",
                   help="time the steps on one thread instead of measuring memory: prints each "
                        "step's seconds and the median of all but the first two")
    return p.parse_args()


from heap import Heap, NoHeap, rss_peak_bytes  # noqa: E402

ARGS = parse_args()
HEAP = NoHeap() if ARGS.time else Heap()
import torch  # noqa: E402  (after the shim check: importing torch takes seconds)
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils.checkpoint import checkpoint  # noqa: E402
from vision import rotate_half  # noqa: E402  (the decoder's rotary is the encoder's)
from lengths import completion_lengths  # noqa: E402

torch.manual_seed(0)
torch.set_num_threads(1)  # one allocation order, one set of BLAS workspaces
DTYPE = torch.float32 if ARGS.dtype == "fp32" else torch.bfloat16


class Config:
    def __init__(self, raw):
        kind = raw.get("model_type", "llama")
        self.gpt2 = kind == "gpt2"
        # Phi-1.5/2 (modeling_phi.py): attention and a GELU MLP in parallel from one LayerNorm,
        # every linear and the LM head biased, rotary (on the whole head: partial_rotary_factor 1).
        self.phi = kind == "phi"
        self.h = raw["n_embd"] if self.gpt2 else raw["hidden_size"]
        self.layers = raw["n_layer"] if self.gpt2 else raw["num_hidden_layers"]
        self.heads = raw["n_head"] if self.gpt2 else raw["num_attention_heads"]
        self.kv_heads = self.heads if self.gpt2 else raw.get("num_key_value_heads", self.heads)
        self.inner = (raw.get("n_inner") or 4 * self.h) if self.gpt2 else raw["intermediate_size"]
        self.vocab = raw["vocab_size"]
        self.positions = raw["n_positions"] if self.gpt2 else raw.get("max_position_embeddings", 4096)
        eps_key = "layer_norm_epsilon" if self.gpt2 else "layer_norm_eps" if self.phi else None
        self.eps = raw.get(eps_key, 1e-5) if eps_key else raw.get("rms_norm_eps", 1e-6)
        self.tied = raw.get("tie_word_embeddings", self.gpt2)
        self.bias = self.gpt2 or self.phi
        self.experts = raw.get("num_local_experts", 0)
        self.top_k = raw.get("num_experts_per_tok", 0)
        self.theta = raw.get("rope_theta", 10000.0)


ADAPTERS_OFF = False  # DPO with LoRA: the reference is the base with the adapters disabled
KV_CACHE = None  # generation: {attention module: (k, v)}, keys after rotary, before GQA repeat


class LoRALinear(nn.Module):
    """y = W x + (B (A dropout(x))) * alpha / r with W frozen (Hu et al. 2021), as PEFT runs it."""

    def __init__(self, base, rank):
        super().__init__()
        self.base = base
        self.base.weight.requires_grad_(False)
        if self.base.bias is not None:
            self.base.bias.requires_grad_(False)
        self.a = nn.Parameter(torch.randn(rank, base.in_features, dtype=DTYPE) / rank)
        self.b = nn.Parameter(torch.zeros(base.out_features, rank, dtype=DTYPE))
        self.scale = 2.0

    def forward(self, x):
        if ADAPTERS_OFF:
            return self.base(x)
        dropped = F.dropout(x, ARGS.lora_dropout) if ARGS.lora_dropout > 0 else x
        return self.base(x) + F.linear(F.linear(dropped, self.a), self.b) * self.scale


def linear(cfg, n_in, n_out, name, adapted):
    layer = nn.Linear(n_in, n_out, bias=cfg.bias, dtype=DTYPE)
    return LoRALinear(layer, ARGS.lora_rank) if name in adapted else layer


class RMSNorm(nn.Module):
    """Written out op by op, as a hand-written decoder does: saves x, the rsqrt and x * rsqrt."""

    def __init__(self, h, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(h, dtype=DTYPE))
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def norm(cfg):
    layer_norm = cfg.gpt2 or cfg.phi
    return nn.LayerNorm(cfg.h, eps=cfg.eps, dtype=DTYPE) if layer_norm else RMSNorm(cfg.h, cfg.eps)


class Attention(nn.Module):
    def __init__(self, cfg, adapted):
        super().__init__()
        self.cfg = cfg
        d = cfg.h // cfg.heads
        self.d = d
        self.q = linear(cfg, cfg.h, cfg.heads * d, "q", adapted)
        self.k = linear(cfg, cfg.h, cfg.kv_heads * d, "k", adapted)
        self.v = linear(cfg, cfg.h, cfg.kv_heads * d, "v", adapted)
        self.o = linear(cfg, cfg.heads * d, cfg.h, "o", adapted)

    def forward(self, x, mask, cos, sin):
        b, s, _ = x.shape
        c = self.cfg
        q = self.q(x).view(b, s, c.heads, self.d).transpose(1, 2)
        k = self.k(x).view(b, s, c.kv_heads, self.d).transpose(1, 2)
        v = self.v(x).view(b, s, c.kv_heads, self.d).transpose(1, 2)
        if cos is not None:
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
        if KV_CACHE is not None:
            # transformers' DynamicCache: the new keys and values concatenated to the past ones.
            past = KV_CACHE.get(id(self))
            if past is not None:
                k = torch.cat((past[0], k), dim=2)
                v = torch.cat((past[1], v), dim=2)
            KV_CACHE[id(self)] = (k, v)
        if c.kv_heads != c.heads:
            k = k.repeat_interleave(c.heads // c.kv_heads, dim=1)
            v = v.repeat_interleave(c.heads // c.kv_heads, dim=1)
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.d)) + mask
        probs = torch.softmax(scores, dim=-1)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, c.heads * self.d)
        return self.o(out)


class MLP(nn.Module):
    def __init__(self, cfg, adapted, inner=None):
        super().__init__()
        self.gpt2 = cfg.gpt2 or cfg.phi  # fc1, GELU, fc2
        i = inner or cfg.inner
        if self.gpt2:
            self.fc1 = linear(cfg, cfg.h, i, "up", adapted)
            self.fc2 = linear(cfg, i, cfg.h, "down", adapted)
        else:
            self.gate = linear(cfg, cfg.h, i, "gate", adapted)
            self.up = linear(cfg, cfg.h, i, "up", adapted)
            self.down = linear(cfg, i, cfg.h, "down", adapted)

    def forward(self, x):
        if self.gpt2:
            return self.fc2(F.gelu(self.fc1(x), approximate="tanh"))
        return self.down(F.silu(self.gate(x)) * self.up(x))


class MoE(nn.Module):
    """Token-choice top-k routing as transformers' MixtralSparseMoeBlock does it."""

    def __init__(self, cfg, adapted):
        super().__init__()
        self.cfg = cfg
        self.router = nn.Linear(cfg.h, cfg.experts, bias=False, dtype=DTYPE)
        self.experts = nn.ModuleList(MLP(cfg, adapted) for _ in range(cfg.experts))

    def forward(self, x):
        b, s, h = x.shape
        x = x.reshape(-1, h)
        logits = self.router(x)
        weights = torch.softmax(logits, dim=1, dtype=torch.float32)
        weights, chosen = torch.topk(weights, self.cfg.top_k, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            token, slot = torch.where(chosen == e)
            if token.numel() == 0:
                continue
            y = expert(x[token]) * weights[token, slot, None]
            out = out.index_add(0, token, y)
        return out.view(b, s, h), logits


class Block(nn.Module):
    def __init__(self, cfg, adapted):
        super().__init__()
        self.norm1 = norm(cfg)
        self.attn = Attention(cfg, adapted)
        self.parallel = cfg.phi
        self.norm2 = None if self.parallel else norm(cfg)
        self.moe = cfg.experts > 0
        self.mlp = MoE(cfg, adapted) if self.moe else MLP(cfg, adapted)

    def forward(self, x, mask, cos, sin):
        if self.parallel:  # PhiDecoderLayer: one norm's output into both, and the residual
            y = self.norm1(x)
            return x + self.attn(y, mask, cos, sin) + self.mlp(y), None
        x = x + self.attn(self.norm1(x), mask, cos, sin)
        if self.moe:
            y, logits = self.mlp(self.norm2(x))
            return x + y, logits
        return x + self.mlp(self.norm2(x)), None


class Decoder(nn.Module):
    def __init__(self, cfg, adapted):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.h, dtype=DTYPE)
        self.pos = nn.Embedding(cfg.positions, cfg.h, dtype=DTYPE) if cfg.gpt2 else None
        self.blocks = nn.ModuleList(Block(cfg, adapted) for _ in range(cfg.layers))
        self.final = norm(cfg)
        self.head = None if cfg.tied else nn.Linear(cfg.h, cfg.vocab, bias=cfg.phi, dtype=DTYPE)

    def forward(self, ids, offset=0, last_only=False, images=None):
        """offset: positions already in KV_CACHE; last_only: the last position's logits alone
        (generation keeps one row of logits per step); images: [b, n, h] image tokens put
        after the first token (<|vision_start|>), in place of the next n."""
        b, s = ids.shape
        c = self.cfg
        x = self.embed(ids)
        if images is not None:
            x = torch.cat((x[:, :1], images, x[:, 1 + images.shape[1]:]), dim=1)
        cos = sin = None
        if self.pos is not None:
            x = x + self.pos(torch.arange(offset, offset + s))
        else:
            d = c.h // c.heads
            inv = 1.0 / (c.theta ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
            angles = torch.outer(torch.arange(offset, offset + s, dtype=torch.float32), inv)
            angles = torch.cat((angles, angles), dim=-1)
            cos, sin = angles.cos().to(DTYPE), angles.sin().to(DTYPE)
        mask = torch.full((s, offset + s), float("-inf"), dtype=DTYPE).triu(offset + 1)
        router_logits = []
        for block in self.blocks:
            if ARGS.recompute == "full":
                x, logits = checkpoint(block, x, mask, cos, sin, use_reentrant=False)
            else:
                x, logits = block(x, mask, cos, sin)
            if logits is not None:
                router_logits.append(logits)
        if last_only:
            x = x[:, -1:]
        x = self.final(x)
        weight = self.embed.weight if self.head is None else self.head.weight
        bias = None if self.head is None else self.head.bias
        return F.linear(x, weight, bias), router_logits


def load_balancing_loss(router_logits, experts, top_k):
    """Switch Transformer's auxiliary loss as transformers computes it for Mixtral."""
    probs = torch.softmax(torch.cat(router_logits, dim=0), dim=-1, dtype=torch.float32)
    _, chosen = torch.topk(probs, top_k, dim=-1)
    mask = F.one_hot(chosen, experts).float()
    return experts * torch.sum(mask.mean(dim=0).mean(dim=0) * probs.mean(dim=0))


def sequence_logps(logits, labels):
    """Each row's summed log-probability of its labels, as TRL's DPO and ORPO losses take it."""
    return torch.gather(F.log_softmax(logits, dim=-1), 2, labels.unsqueeze(-1)).squeeze(-1).sum(-1)


def preference_loss(model, reference, ids, labels):
    """DPO's sigmoid loss against the reference (beta 0.1), or ORPO's NLL plus odds-ratio term."""
    global ADAPTERS_OFF
    half = ids.shape[0] // 2
    ref = None
    if ARGS.trainer == "dpo":
        with torch.no_grad():
            if reference is None:
                ADAPTERS_OFF = True
            ref_logits, _ = (reference or model)(ids)
            ADAPTERS_OFF = False
            ref = sequence_logps(ref_logits, labels)
            del ref_logits
    logits, _ = model(ids)
    logps = sequence_logps(logits, labels)
    del logits
    if ref is not None:
        margin = (logps[:half] - ref[:half]) - (logps[half:] - ref[half:])
        return -F.logsigmoid(0.1 * margin).mean()
    return -logps[:half].mean() - F.logsigmoid(logps[:half] - logps[half:]).mean()


def generate(model, prompts, longest):
    """Greedy decoding with a KV cache, as model.generate() runs it for GRPO's rollouts: every
    row, ended or not (padded), until the longest completion ends."""
    global KV_CACHE
    with torch.no_grad():
        KV_CACHE = {}
        logits, _ = model(prompts, last_only=True)
        tokens = [logits[:, -1].argmax(-1, keepdim=True)]
        for t in range(longest - 1):
            logits, _ = model(tokens[-1], offset=prompts.shape[1] + t, last_only=True)
            tokens.append(logits[:, -1].argmax(-1, keepdim=True))
        KV_CACHE = None
        return torch.cat([prompts] + tokens, dim=1)


def grpo_loss(model, sequences, advantages, mask):
    """The policy's log-probs of its completions weighted by their advantages (beta 0, one
    iteration: no reference, no old policy), over the whole prompt + completion padded to the
    longest (TRL pads completion_ids right), each row's padding masked out."""
    logits, _ = model(sequences)
    targets = sequences.roll(-1, dims=1)
    logps = torch.gather(F.log_softmax(logits, dim=-1), 2, targets.unsqueeze(-1)).squeeze(-1)
    del logits
    completion = logps[:, ARGS.max_prompt_length - 1:-1] * mask
    return -(completion * advantages[:, None]).sum() / mask.sum()


def main():
    with open(ARGS.config) as f:
        raw = json.load(f)
        cfg = Config(raw)
    targets = set(ARGS.lora_targets.split(",")) if ARGS.method == "lora" else set()
    if targets == {"all-linear"}:
        targets = {"q", "k", "v", "o", "gate", "up", "down"}

    baseline = HEAP.live()
    model = Decoder(cfg, targets)
    if ARGS.method == "lora":
        for name, param in model.named_parameters():
            if not (name.endswith(".a") or name.endswith(".b")):
                param.requires_grad_(False)
    tower = None
    if ARGS.images > 0:
        from vision import VisionConfig, VisionTower
        tower = VisionTower(VisionConfig(raw["vision_config"], cfg.h), DTYPE)
        tower.requires_grad_(ARGS.train_vision_tower)
        side = ARGS.image_size // tower.c.patch
        image_tokens = ARGS.images * side * side // tower.c.merge ** 2
    trainable = [p for p in model.parameters() if p.requires_grad]
    if tower is not None:
        trainable += [p for p in tower.parameters() if p.requires_grad]
    if ARGS.optimizer == "adamw":
        optimizer = torch.optim.AdamW(trainable, lr=1e-4, foreach=False)
    else:
        optimizer = torch.optim.SGD(trainable, lr=1e-4, foreach=False)
    # A DPO policy trained in full keeps a frozen copy as its reference (TRL's ref_model).
    reference = None
    if ARGS.trainer == "dpo" and ARGS.method == "full":
        reference = Decoder(cfg, targets)
        reference.load_state_dict(model.state_dict())
        for param in reference.parameters():
            param.requires_grad_(False)
    rows = ARGS.micro_batch * (2 if ARGS.trainer in ("dpo", "orpo") else 1)
    gen = torch.Generator().manual_seed(1)
    # Each image is its tokens and two markers in the sequence, after the text's seq_len.
    length = ARGS.seq_len + (image_tokens + 2 * ARGS.images if tower is not None else 0)
    batches = [torch.randint(0, cfg.vocab, (rows, length + 1), generator=gen)
               for _ in range(ARGS.grad_accum)]

    if ARGS.time:
        torch.set_num_threads(1)
    phases = {}
    between = 0
    seconds = []
    generating = []
    for step in range(ARGS.steps):
        generated = 0.0
        started = time.perf_counter()
        measured = step == ARGS.steps - 1
        between = HEAP.live() - baseline
        HEAP.reset()
        forward_peak = backward_peak = generation_peak = 0
        for batch in batches:
            ids, labels = batch[:, :-1], batch[:, 1:]
            if ARGS.trainer == "grpo":
                began = time.perf_counter()
                ends = completion_lengths(batch.shape[0], ARGS.mean_completion_length,
                                          ARGS.max_completion_length)
                sequences = generate(model, batch[:, :ARGS.max_prompt_length], max(ends))
                generated += time.perf_counter() - began
                mask = (torch.arange(max(ends))[None, :] < torch.tensor(ends)[:, None]).to(DTYPE)
                generation_peak = max(generation_peak, HEAP.peak())
                HEAP.reset()
                advantages = torch.randn(sequences.shape[0], generator=gen)
                logits, router_logits = None, None
                loss = grpo_loss(model, sequences, advantages, mask)
            elif ARGS.trainer == "sft":
                images = None
                if tower is not None:
                    width = tower.c.channels * tower.c.temporal * tower.c.patch ** 2
                    pixels = torch.randn(rows * ARGS.images * side * side, width, dtype=DTYPE)
                    with torch.set_grad_enabled(ARGS.train_vision_tower):
                        images = tower(pixels, rows * ARGS.images, side).view(rows, -1, cfg.h)
                logits, router_logits = model(ids, images=images)
                loss = F.cross_entropy(logits.reshape(-1, cfg.vocab), labels.reshape(-1))
                if router_logits:
                    loss = loss + 0.02 * load_balancing_loss(router_logits, cfg.experts, cfg.top_k)
            else:
                logits, router_logits = None, None
                loss = preference_loss(model, reference, ids, labels)
            forward_peak = max(forward_peak, HEAP.peak())
            HEAP.reset()
            (loss / ARGS.grad_accum).backward()
            backward_peak = max(backward_peak, HEAP.peak())
            del logits, router_logits, loss
            images = pixels = None
            HEAP.reset()
        optimizer.step()
        optimizer_peak = HEAP.peak()
        optimizer.zero_grad(set_to_none=True)
        seconds.append(time.perf_counter() - started)
        generating.append(generated)
        if measured:
            phases = {"forward": forward_peak - baseline, "backward": backward_peak - baseline,
                      "optimizer_step": optimizer_peak - baseline}
            if ARGS.trainer == "grpo":
                phases["generation"] = generation_peak - baseline
    if ARGS.time:
        steady = sorted(seconds[2:] if len(seconds) > 2 else seconds)
        gen = sorted(generating[2:] if len(generating) > 2 else generating)
        print(json.dumps({"step_seconds": steady[len(steady) // 2], "samples_seconds": seconds,
                          "generation_seconds": gen[len(gen) // 2],
                          "threads": torch.get_num_threads()}))
        return
    print(json.dumps({
        "allocated_peak_bytes": max(phases.values()),
        "phases": phases,
        "between_steps_bytes": between,
        "rss_peak_bytes": rss_peak_bytes(),
        "baseline_bytes": baseline,
        "parameters": sum(p.numel() for p in model.parameters()),
        "trainable": sum(p.numel() for p in trainable),
    }))


main()
