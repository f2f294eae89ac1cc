#!/usr/bin/env python3
"""One real-step timing case: time a PyTorch training step on one CPU thread, price it, compare.

Measures this machine for the job's own GEMM shapes (`trainbudget measure --step`, OpenBLAS
fp32 on one thread, saved as a profile in a scratch XDG_CONFIG_HOME), times the steady step with
realstep.py --time (one thread, the median of the steps after the first two; 12 by default), runs
`trainbudget estimate --machine <that profile> --framework pytorch` on the same job, and compares
machines.0.time.step_seconds with the measured step. Prints one line with both and the error;
exits 1 when the error is outside the case's tolerance.

Usage: compare_time.py --python PY --trainbudget BIN --tolerance 0.15 --config config.json
                       [realstep.py options]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RECIPES = {("adamw", "fp32"): "fp32-adam", ("sgd", "fp32"): "fp32-sgd"}


def parse():
    p = argparse.ArgumentParser()
    for name in ("--name", "--python", "--trainbudget", "--config"):
        p.add_argument(name, required=True)
    p.add_argument("--tolerance", type=float, required=True)
    p.add_argument("--micro-batch", default="1")
    p.add_argument("--seq-len", default="128")
    p.add_argument("--method", default="full")
    p.add_argument("--lora-rank", default="8")
    p.add_argument("--lora-targets", default="q,v")
    p.add_argument("--optimizer", default="adamw")
    p.add_argument("--recompute", default="none")
    p.add_argument("--grad-accum", default="1")
    p.add_argument("--steps", default="12")
    return p.parse_args()


def main():
    a = parse()
    config = os.path.join(HERE, "configs", a.config)
    request = {"model": config, "framework": "pytorch", "recipe": RECIPES[(a.optimizer, "fp32")],
               "micro_batch": int(a.micro_batch), "seq_len": int(a.seq_len),
               "method": a.method, "recompute": a.recompute, "grad_accum": int(a.grad_accum)}
    if a.method == "lora":
        request["lora_rank"] = int(a.lora_rank)
        request["lora_targets"] = a.lora_targets.split(",")
    one_thread = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as scratch:
        job = os.path.join(scratch, "job.json")
        with open(job, "w") as f:
            json.dump(request, f)
        env = dict(os.environ, XDG_CONFIG_HOME=scratch, **one_thread)
        measure = subprocess.run(
            [a.trainbudget, "measure", "--backend", "openblas", "--dtype", "fp32", "--step", job,
             "--repetitions", "5", "--save", "realstep", "--format", "csv"],
            env=env, capture_output=True, text=True)
        if measure.returncode != 0:
            sys.exit(f"{a.name}: trainbudget measure failed: {measure.stderr.strip()}")
        flags = ["--micro-batch", a.micro_batch, "--seq-len", a.seq_len, "--method", a.method,
                 "--recompute", a.recompute, "--grad-accum", a.grad_accum]
        if a.method == "lora":
            flags += ["--lora-rank", a.lora_rank, "--lora-targets", a.lora_targets]
        step = subprocess.run(
            [a.python, os.path.join(HERE, "realstep.py"), "--config", config, "--optimizer",
             a.optimizer, "--time", "--steps", a.steps] + flags,
            env=dict(os.environ, **one_thread), capture_output=True, text=True)
        if step.returncode != 0:
            sys.exit(f"{a.name}: realstep.py failed: {step.stderr.strip()}")
        measured = json.loads(step.stdout)["step_seconds"]
        estimate = subprocess.run(
            [a.trainbudget, "estimate", "--request", job, "--machine", "realstep", "--format",
             "json"], env=env, capture_output=True, text=True)
        if estimate.returncode != 0:
            sys.exit(f"{a.name}: trainbudget estimate failed: {estimate.stderr.strip()}")
    t = json.loads(estimate.stdout)["machines"][0]["time"]
    predicted = t["step_seconds"]
    error = predicted / measured - 1.0
    print(f"{a.name}: measured step {measured * 1e3:.1f} ms, predicted {predicted * 1e3:.1f} ms "
          f"(GEMMs {t['micro_batch_gemm_seconds'] * 1e3:.1f}, memory-bound "
          f"{t['micro_batch_memory_bound_seconds'] * 1e3:.1f}, launches "
          f"{t['micro_batch_overhead_seconds'] * 1e3:.1f} per micro-batch; optimizer "
          f"{t['optimizer_seconds'] * 1e3:.1f}), error {error * 100:+.1f} % "
          f"(tolerance {a.tolerance * 100:.0f} %)")
    if abs(error) > a.tolerance:
        print(f"{a.name}: FAILED, error {error * 100:+.1f} % is outside +-{a.tolerance * 100:.0f} %")
        return 1
    return 0


sys.exit(main())
