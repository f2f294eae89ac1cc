#!/usr/bin/env python3
"""One real-step case: measure a PyTorch training step on this CPU, estimate it, compare.

Runs realstep.py under live_heap.so, runs `trainbudget estimate` on the same job with
`--framework pytorch` (the profile of the decoder realstep.py builds), and compares the
measured allocated peak with the estimate's memory.allocated_peak_bytes. Prints one line with
both numbers and the error; exits 1 when the error is outside the case's tolerance.

Usage: compare.py --python PY --heap live_heap.so --trainbudget BIN --tolerance 0.10
                  --config config.json [realstep.py options]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# realstep.py's optimizers and dtypes as trainbudget recipes (docs/recipes.md).
RECIPES = {("adamw", "fp32"): "fp32-adam", ("sgd", "fp32"): "fp32-sgd",
           ("adamw", "bf16"): "pure-bf16-adam"}


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--name", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--heap", required=True)
    p.add_argument("--trainbudget", required=True)
    p.add_argument("--tolerance", type=float, required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--micro-batch", default="1")
    p.add_argument("--seq-len", default="128")
    p.add_argument("--method", default="full")
    p.add_argument("--lora-rank", default="8")
    p.add_argument("--lora-targets", default="q,v")
    p.add_argument("--lora-dropout", default="0")
    p.add_argument("--optimizer", default="adamw")
    p.add_argument("--recompute", default="none")
    p.add_argument("--grad-accum", default="1")
    p.add_argument("--dtype", default="fp32")
    p.add_argument("--trainer", default="sft")
    p.add_argument("--num-generations", default="4")
    p.add_argument("--max-prompt-length", default="64")
    p.add_argument("--max-completion-length", default="64")
    p.add_argument("--images", default="0")
    p.add_argument("--image-size", default="224")
    p.add_argument("--train-vision-tower", action="store_true")
    return p.parse_args()


def main():
    a = parse()
    config = os.path.join(HERE, "configs", a.config)
    job = ["--micro-batch", a.micro_batch, "--method", a.method, "--recompute", a.recompute,
           "--grad-accum", a.grad_accum, "--trainer", a.trainer]
    if a.trainer == "grpo":
        # The sequence is the prompt and its completion; realstep.py reads the prompts from
        # batches of max_prompt_length tokens.
        job += ["--num-generations", a.num_generations, "--max-prompt-length",
                a.max_prompt_length, "--max-completion-length", a.max_completion_length]
        seq = ["--seq-len", a.max_prompt_length]
    else:
        job += ["--seq-len", a.seq_len]
        seq = []
    if a.method == "lora":
        job += ["--lora-rank", a.lora_rank, "--lora-targets", a.lora_targets]
        if float(a.lora_dropout) > 0:
            job += ["--lora-dropout", a.lora_dropout]
    images = []  # realstep.py takes the side, trainbudget W x H
    if int(a.images) > 0:
        images = ["--images", a.images] + (["--train-vision-tower"] if a.train_vision_tower else [])
    env = dict(os.environ, LD_PRELOAD=a.heap, OMP_NUM_THREADS="1")
    step = subprocess.run(
        [a.python, os.path.join(HERE, "realstep.py"), "--config", config, "--optimizer",
         a.optimizer, "--dtype", a.dtype] + job + seq + images +
        (["--image-size", a.image_size] if images else []),
        env=env, capture_output=True, text=True)
    if step.returncode != 0:
        sys.exit(f"{a.name}: realstep.py failed: {step.stderr.strip()}")
    measured = json.loads(step.stdout)
    estimate = subprocess.run(
        [a.trainbudget, "estimate", "--model", config, "--framework", "pytorch", "--recipe",
         RECIPES[(a.optimizer, a.dtype)], "--machine", "h100-sxm", "--format", "json"] + job +
        images + (["--image-size", f"{a.image_size}x{a.image_size}"] if images else []) +
        # realstep.py's grpo_loss takes the logits of every position and slices the completion's
        # log-probs after (as verl does), not TRL's logits_to_keep.
        (["--completion-logits", "false"] if a.trainer == "grpo" else []),
        capture_output=True, text=True)
    if estimate.returncode != 0:
        sys.exit(f"{a.name}: trainbudget failed: {estimate.stderr.strip()}")
    document = json.loads(estimate.stdout)
    memory = document["memory"]
    predicted = memory["allocated_peak_bytes"]
    actual = measured["allocated_peak_bytes"]
    error = predicted / actual - 1.0
    phases = measured["phases"]
    modeled = memory["phases"]
    print(f"{a.name}: measured {actual / 2**20:.1f} MiB (forward {phases['forward'] / 2**20:.1f}, "
          f"backward {phases['backward'] / 2**20:.1f}, optimizer {phases['optimizer_step'] / 2**20:.1f}), "
          f"predicted {predicted / 2**20:.1f} MiB (forward {modeled['forward_end']['total_bytes'] / 2**20:.1f}, "
          f"backward {modeled['backward']['total_bytes'] / 2**20:.1f}, optimizer "
          f"{modeled['optimizer_step']['total_bytes'] / 2**20:.1f}), error {error * 100:+.1f} % "
          f"(tolerance {a.tolerance * 100:.0f} %); resident peak {measured['rss_peak_bytes'] / 2**20:.0f} MiB")
    if a.trainer == "grpo":
        # Online RL: the generation phase (states without gradients + the KV cache) beside the
        # update's peak, each against the estimate's rollout phases (docs/rl.md).
        rollout = document["machines"][0]["rollout"]["memory"]["phases"]
        for name, got, want in (("generation", rollout[0]["peak_bytes"], phases["generation"]),
                                ("update", rollout[1]["peak_bytes"], max(
                                    phases["forward"], phases["backward"],
                                    phases["optimizer_step"]))):
            e = got / want - 1.0
            print(f"{a.name}: {name} measured {want / 2**20:.1f} MiB, predicted "
                  f"{got / 2**20:.1f} MiB, error {e * 100:+.1f} %")
            error = e if abs(e) > abs(error) else error
    if abs(error) > a.tolerance:
        print(f"{a.name}: FAILED, error {error * 100:+.1f} % is outside +-{a.tolerance * 100:.0f} %")
        return 1
    return 0


sys.exit(main())
