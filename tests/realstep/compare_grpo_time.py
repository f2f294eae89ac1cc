#!/usr/bin/env python3
"""GRPO's time split on this CPU: a real step's generation and update (realstep.py --time
--trainer grpo), for completions all at their cap and of varied lengths, against the estimate's
rollout.time on a profile `trainbudget measure --step` took for the job (docs/realstep.md,
"GRPO's time split"). Run by hand on an idle machine, as time_cases.py is.

Usage: compare_grpo_time.py --python /usr/bin/python3 --trainbudget build/ci/cli/trainbudget
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lengths import completion_lengths  # noqa: E402

ROWS, PROMPT, CAP = 8, 64, 64
MEANS = (0, 16, 48)  # 0: every completion at the cap


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--python", required=True)
    p.add_argument("--trainbudget", required=True)
    p.add_argument("--steps", default="8")
    a = p.parse_args()
    config = os.path.join(HERE, "configs", "llama-mha.json")
    base = {"model": config, "framework": "pytorch", "recipe": "fp32-adam", "micro_batch": ROWS,
            "trainer": "grpo", "num_generations": 4, "max_prompt_length": PROMPT,
            "max_completion_length": CAP, "rollout_engine": "generate", "beta": 0}
    one_thread = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    print("| completions | measured generation, update | estimate at the cap | "
          "estimate at the batch's longest |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(os.environ, XDG_CONFIG_HOME=scratch, **one_thread)
        job = os.path.join(scratch, "job.json")
        with open(job, "w") as f:
            json.dump(base, f)
        subprocess.run([a.trainbudget, "measure", "--backend", "openblas", "--dtype", "fp32",
                        "--step", job, "--repetitions", "5", "--save", "realstep", "--format",
                        "csv"], env=env, capture_output=True, check=True)
        for mean in MEANS:
            ends = completion_lengths(ROWS, mean, CAP)
            step = subprocess.run(
                [a.python, os.path.join(HERE, "realstep.py"), "--config", config, "--trainer",
                 "grpo", "--micro-batch", str(ROWS), "--num-generations", "4",
                 "--max-prompt-length", str(PROMPT), "--max-completion-length", str(CAP),
                 "--mean-completion-length", str(mean), "--time", "--steps", a.steps],
                env=dict(os.environ, **one_thread), capture_output=True, text=True, check=True)
            measured = json.loads(step.stdout)
            generation = measured["generation_seconds"]
            update = measured["step_seconds"] - generation
            cells = []
            for cap in (CAP, max(ends)):
                request = dict(base, max_completion_length=cap)
                if 0 < mean < cap:
                    request["mean_completion_length"] = mean
                with open(job, "w") as f:
                    json.dump(request, f)
                out = subprocess.run([a.trainbudget, "estimate", "--request", job, "--machine",
                                      "realstep", "--format", "json"], env=env,
                                     capture_output=True, text=True, check=True)
                t = json.loads(out.stdout)["machines"][0]["rollout"]["time"]
                gen, upd = t["generation_seconds"], t["update_seconds"]
                cells.append(f"{gen * 1e3:.0f} ({gen / generation - 1:+.0%}), "
                             f"{upd * 1e3:.0f} ({upd / update - 1:+.0%})")
            label = f"mean {mean}, longest {max(ends)}" if mean else f"all {CAP}"
            print(f"| {label} | {generation * 1e3:.0f}, {update * 1e3:.0f} ms | {cells[0]} | "
                  f"{cells[1]} |")


main()
