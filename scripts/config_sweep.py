#!/usr/bin/env python3
"""Runs every training config in a folder (YAML, JSON and verl's run scripts) through `trainbudget estimate --config` and tallies
what happened: read fully, read with notes, or refused, and each refusal by its reason.
The share that answers is also given over the training configs alone: a DeepSpeed or accelerate
file that names no model goes beside a training config (refused alone, in one line, by design), a
Hydra overlay that leaves a required key to its launch command is launched with one, and
inference, merge and export configs train nothing.

Used during development on the frameworks' own example folders (docs/configs.md, "The
frameworks' example configs"), at a pinned commit, offline by default.

Usage: scripts/config_sweep.py TRAINBUDGET FOLDER [--machine h100-sxm] [--launch-dir DIR] [--list]
  --launch-dir  where the jobs are launched from (the repository's root: axolotl, LLaMA-Factory
                and the HF Trainer resolve a config's deepspeed path from there)
  --list        also print one line per file: OK, NOTES or NO, and the refusal's kind
"""
import argparse
import collections
import os
import re
import subprocess
import sys

SUFFIXES = (".yaml", ".yml", ".json")


def is_config(path):
    """A YAML or JSON file, or a shell script that launches verl's trainer (a verl run script)."""
    if path.endswith(SUFFIXES):
        return True
    if not path.endswith(".sh"):
        return False
    with open(path, errors="replace") as f:
        text = f.read()
        return "verl.trainer.main_ppo" in text or "one_step_off_policy.main_ppo" in text


def reason(stderr):
    """The refusal's kind: the field it names and the error's first words, numbers dropped."""
    line = next((l for l in stderr.splitlines() if ": error: " in l), stderr.strip()[:120])
    line = line.split(": error: ", 1)[-1]
    field, _, rest = line.partition(": ")
    if field == "--model" and "not in the Hugging Face cache" in rest:
        return "--model: not in the cache (offline)"
    words = re.sub(r"'[^']*'|\d[\d,.]*", "…", rest).split(";")[0]
    return f"{field}: {' '.join(words.split()[:8])}"


# Refusals that are the right answer: the file is no training job by itself.
NOT_A_JOB = ("names no model (a DeepSpeed or accelerate", "none of the training config formats",
             "adapter export")
# A Hydra overlay (a YAML whose top-level `defaults:` names the base config it extends, as verl's
# multi-turn configs do) refused for a key verl requires: the overlay is launched by a command
# that passes the rest (`--config-name NAME key=value ...`), as verl itself would refuse it alone.
OVERLAY_NEEDS = "(verl needs"


def is_overlay(path):
    if not path.endswith((".yaml", ".yml")):
        return False
    with open(path, errors="replace") as f:
        return any(line.startswith("defaults:") for line in f)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("trainbudget")
    p.add_argument("folder")
    p.add_argument("--machine", default="h100-sxm")
    p.add_argument("--launch-dir", default=".")
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    env = dict(os.environ)
    env.setdefault("HF_HUB_OFFLINE", "1")
    trainbudget = os.path.abspath(a.trainbudget)
    files = sorted(os.path.abspath(os.path.join(d, f)) for d, _, names in os.walk(a.folder) for f in names
                   if is_config(os.path.join(d, f)))
    tally = collections.Counter()
    refusals = collections.Counter()
    not_jobs = 0  # refused as no training job by itself; a verl run script always is one
    for path in files:
        run = subprocess.run([trainbudget, "estimate", "--config", path, "--machine", a.machine,
                              "--brief"], capture_output=True, text=True, env=env,
                             cwd=a.launch_dir)
        if run.returncode == 0:
            kind = "NOTES" if "not understood" in run.stderr or "warning:" in run.stderr else "OK"
            tally[kind] += 1
            line = ""
        else:
            kind = "NO"
            why = reason(run.stderr)
            refusals[why] += 1
            if any(k in why for k in NOT_A_JOB) and not path.endswith(".sh"):
                not_jobs += 1
            elif OVERLAY_NEEDS in why and is_overlay(path):
                not_jobs += 1
            line = why
        if a.list:
            print(f"{kind} {os.path.relpath(path, os.path.abspath(a.folder))} {line}".rstrip())
    answered = tally["OK"] + tally["NOTES"]
    print(f"{len(files)} configs: {answered} answer ({tally['OK']} read fully, "
          f"{tally['NOTES']} with notes), {len(files) - answered} refused")
    jobs = len(files) - not_jobs
    if jobs > 0:
        print(f"{jobs} training configs (less {not_jobs} companion, overlay, inference, merge or export "
              f"files): {answered} answer ({100.0 * answered / jobs:.0f} %)")
    for why, n in refusals.most_common():
        print(f"  {n:4d}  {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
