#!/usr/bin/env python3
"""Prints docs/time.md's table of the validation errors by group (device family, job size,
sequence, model size, method, software stack) from the reference-case test's output.

Usage: python3 scripts/validation_groups.py build/ci/tests/trainbudget_tests

A figure's signed error is the speed error: positive when the model reads faster than the run
(a rate too high, a time too low). A case belongs to every group its request matches.
"""
import json
import pathlib
import statistics
import sys
import tomllib

from validation_rows import clock_rows

root = pathlib.Path(__file__).resolve().parent.parent


def preset(model):
    path = root / "data" / "models" / f"{model}.toml"
    return tomllib.loads(path.read_text()) if isinstance(model, str) and path.exists() else {}


def approx_params(config):
    """12 L h^2 + V h from a config.json's widths: enough to sort a model by size."""
    h = config.get("hidden_size") or config.get("d_model") or config.get("n_embd")
    layers = config.get("num_hidden_layers") or config.get("n_layers") or config.get("n_layer")
    vocab = config.get("vocab_size", 0)
    return 12 * layers * h * h + vocab * h if h and layers else None


def params(request):
    model = request.get("model")
    if isinstance(model, str) and model.endswith(".json"):
        path = pathlib.Path(model.replace("{tests}", str(root / "tests")))
        return approx_params(json.loads(path.read_text())) if path.exists() else None
    if isinstance(model, dict):
        return approx_params(model)
    found = preset(model).get("published_params")
    return float(found) if found else request.get("params")


def moe(request):
    model = request.get("model")
    config = model if isinstance(model, dict) else preset(model).get("config", {})
    return any(config.get(k) for k in ("num_local_experts", "num_experts", "n_routed_experts"))


OLD_STACKS = ("narayanan_", "heldout_mtnlg_", "heldout_korthikanti_", "heldout_llmfoundry_")
GROUPS = [
    ("H100 / H200", lambda n, r: str(r.get("machine", "")).startswith(("h100", "h200"))),
    ("A100", lambda n, r: str(r.get("machine", "")).startswith("a100")),
    ("Blackwell (B200, GB200)", lambda n, r: str(r.get("machine", "")).startswith(("b200", "gb200"))),
    ("AMD (MI300X, MI325X, MI355X)", lambda n, r: str(r.get("machine", "")).startswith("mi3")),
    ("Apple (MLX)", lambda n, r: str(r.get("machine", "")).startswith(("m1", "m2", "m3", "m4"))),
    ("consumer and workstation cards", lambda n, r: str(r.get("machine", "")).startswith("rtx")),
    ("<= 8 devices", lambda n, r: r.get("devices", 1) <= 8),
    ("16-255 devices", lambda n, r: 16 <= r.get("devices", 1) <= 255),
    (">= 256 devices", lambda n, r: r.get("devices", 1) >= 256),
    ("sequences >= 16k", lambda n, r: r.get("seq_len", 0) >= 16384),
    ("models <= 3B", lambda n, r: (params(r) or 1e12) <= 3.5e9),
    ("MoE", lambda n, r: moe(r)),
    ("LoRA / QLoRA", lambda n, r: r.get("method") in ("lora", "qlora")),
    ("2021-2023 stacks (Megatron-LM 2021-22, Megatron-DeepSpeed, llm-foundry)",
     lambda n, r: n.startswith(OLD_STACKS)),
]

rows = []
for name, key, exp, got, case in clock_rows(sys.argv[1]):
    err = (got - exp) / exp * 100
    rate = key.split(".")[-1] in ("tokens_per_second", "mfu", "hfu")
    rows.append((name, err if rate else -err, abs(err), case.get("request", {})))

print("| group | figures (held out) | signed median (speed) | median abs. error | within ±15 % |")
print("|---|---|---|---|---|")
for label, match in GROUPS:
    g = [r for r in rows if match(r[0], r[3])]
    if not g:
        continue
    held = sum(r[0].startswith("heldout_") for r in g)
    print(f"| {label} | {len(g)} ({held}) | {statistics.median(r[1] for r in g):+.1f} % | "
          f"{statistics.median(r[2] for r in g):.1f} % | {sum(r[2] <= 15 for r in g)} of {len(g)} |")
