#!/usr/bin/env python3
"""Pre-flight check before a training run (docs/python.md): will this job fit the card, and
how long will it take? Stops with the advice when it would run out of memory.

    python3 preflight.py job.json          # a JSON request: the keys of `estimate --request`

Call check() from a training script before trainer.train() instead:

    import preflight; preflight.check({"model": "llama-3.1-8b", "method": "lora", ...})
"""

import json
import sys

import trainbudget


def check(request):
    """Returns the estimate when every machine fits; raises SystemExit with the advice otherwise."""
    result = trainbudget.estimate(**request)
    problems = []
    for m in result["machines"]:
        if m["verdict"] in ("fits", "fits_tightly"):
            print(f"preflight: {m['id']}: {m['summary']}")
            continue
        lines = [f"preflight: {m['id']}: {m['summary']}"]
        for a in m["advice"]:
            flags = " ".join(f"{k}={v}" for k, v in a["changes"].items())
            lines.append(f"  {a['kind']}: {a['summary']} ({flags})")
        problems.append("\n".join(lines))
    if problems:
        raise SystemExit("\n".join(problems))
    return result


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: preflight.py job.json")
    with open(sys.argv[1], encoding="utf-8") as f:
        check(json.load(f))
