#!/usr/bin/env python3
"""The real-step timing cases, run one after the other: compare_time.py for each, then a
markdown table of measured and predicted step times and the median |error| (docs/time.md,
"Measured").

Timed steps on a shared machine move by 10-15 % from run to run, so this is a tool run by hand
on an idle machine, not a test: nothing else should run beside it.

Usage: time_cases.py --python /usr/bin/python3 --trainbudget build/ci/cli/trainbudget
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name, then compare_time.py's options: sizes, sequence lengths (long eager attention among
# them), batch, recompute, LoRA, accumulation, SGD, a large vocabulary and MoE.
CASES = [
    ("llama-mha, b2 s256", "--config llama-mha.json --micro-batch 2 --seq-len 256"),
    ("llama-mha, b1 s512", "--config llama-mha.json --micro-batch 1 --seq-len 512"),
    ("llama-mha, b1 s1024 (eager scores of 32 MiB)",
     "--config llama-mha.json --micro-batch 1 --seq-len 1024"),
    ("llama-mha, b8 s64", "--config llama-mha.json --micro-batch 8 --seq-len 64"),
    ("llama-mha, b2 s256, full recompute",
     "--config llama-mha.json --micro-batch 2 --seq-len 256 --recompute full"),
    ("llama-mha, b2 s256, LoRA q,v",
     "--config llama-mha.json --micro-batch 2 --seq-len 256 --method lora --lora-rank 8 "
     "--lora-targets q,v"),
    ("llama-mha, b2 s256, SGD", "--config llama-mha.json --micro-batch 2 --seq-len 256 "
     "--optimizer sgd"),
    ("llama-mha, b2 s128, 4 micro-batches",
     "--config llama-mha.json --micro-batch 2 --seq-len 128 --grad-accum 4"),
    ("llama-gqa-tied, b2 s256", "--config llama-gqa-tied.json --micro-batch 2 --seq-len 256"),
    ("llama-gqa-tied, b2 s256, LoRA all-linear",
     "--config llama-gqa-tied.json --micro-batch 2 --seq-len 256 --method lora "
     "--lora-targets all-linear"),
    ("gpt2, b2 s256", "--config gpt2.json --micro-batch 2 --seq-len 256"),
    ("gpt2, b4 s128, full recompute",
     "--config gpt2.json --micro-batch 4 --seq-len 128 --recompute full"),
    ("mixtral (4 experts, top 2), b2 s256", "--config mixtral.json --micro-batch 2 --seq-len 256"),
    ("llama-big-vocab (64k), b2 s256",
     "--config llama-big-vocab.json --micro-batch 2 --seq-len 256"),
]

LINE = re.compile(r"measured step ([0-9.]+) ms, predicted ([0-9.]+) ms.*error ([-+0-9.]+) %")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--python", required=True)
    p.add_argument("--trainbudget", required=True)
    p.add_argument("--tolerance", type=float, default=0.15)
    a = p.parse_args()
    rows = []
    for name, options in CASES:
        out = subprocess.run(
            [sys.executable, os.path.join(HERE, "compare_time.py"), "--name", name, "--python",
             a.python, "--trainbudget", a.trainbudget, "--tolerance", str(a.tolerance)] +
            options.split(), capture_output=True, text=True)
        m = LINE.search(out.stdout)
        if not m:
            sys.exit(f"{name}: {out.stdout.strip()} {out.stderr.strip()}")
        rows.append((name, float(m.group(1)), float(m.group(2)), float(m.group(3))))
        print(f"{name}: {m.group(3)} %", file=sys.stderr)
    print("| case | measured | predicted | error |")
    print("|---|---:|---:|---:|")
    for name, measured, predicted, error in rows:
        print(f"| {name} | {measured:.0f} ms | {predicted:.0f} ms | {error:+.1f} % |")
    errors = [abs(r[3]) for r in rows]
    inside = sum(e <= a.tolerance * 100 for e in errors)
    print(f"\n{len(rows)} configurations: median |error| {statistics.median(errors):.1f} %, "
          f"{inside} within ±{a.tolerance * 100:.0f} %, median error "
          f"{statistics.median(r[3] for r in rows):+.1f} %")


main()
