"""The Python module against the CLI: the same documents, the same errors, and a sweep in one
process (docs/python.md). Run by CTest (python.pytest) with PYTHONPATH at the built package and
TRAINBUDGET_BIN at the CLI."""

import json
import os
import pathlib
import subprocess
import sys
import time

import pytest

import trainbudget

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("TRAINBUDGET_BIN", "trainbudget")
VOLATILE = {"tool", "warnings", "notes"}


def cli(*args):
    out = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def stable(doc):
    # The tool block, the problems (stderr on the CLI) and a plan's search timing vary by run.
    out = {k: v for k, v in doc.items() if k not in VOLATILE}
    if "stats" in out:
        out["stats"] = {k: v for k, v in out["stats"].items()
                        if k not in ("seconds", "layouts_per_second", "threads")}
    return out


def same(a, b):
    return stable(a) == stable(b)


def test_estimate_equals_the_cli_on_a_request_file():
    request = json.loads((ROOT / "tests/cli/requests/llama_lora.json").read_text())
    assert same(trainbudget.estimate(**request),
                cli("estimate", "--request", str(ROOT / "tests/cli/requests/llama_lora.json")))


def test_keyword_arguments_are_the_flags():
    r = trainbudget.estimate(model="llama-3.1-8b", method="lora", machine="rtx-4090",
                             lora_targets=["q", "v"], seq_len=4096, micro_batch=1)
    c = cli("estimate", "--model", "llama-3.1-8b", "--method", "lora", "--machine", "rtx-4090",
            "--lora-targets", "q,v", "--seq-len", "4096", "--micro-batch", "1")
    assert same(r, c)
    assert r["machines"][0]["verdict"] == c["machines"][0]["verdict"]


def test_plan_infer_compare_equal_the_cli():
    assert same(trainbudget.plan(model="llama-3.1-8b", machine="h100-sxm", devices=16, top=3),
                cli("plan", "--model", "llama-3.1-8b", "--machine", "h100-sxm", "--devices",
                    "16", "--top", "3"))
    assert same(trainbudget.infer(model="llama-3.1-70b", machine="mi300x", context=32768,
                                  concurrency=50),
                cli("infer", "--model", "llama-3.1-70b", "--machine", "mi300x", "--context",
                    "32768", "--concurrency", "50"))
    assert same(trainbudget.compare(model="llama-3.1-8b", machine="h100-sxm,m3-ultra"),
                cli("compare", "--model", "llama-3.1-8b", "--machine", "h100-sxm,m3-ultra"))


def test_a_config_path_is_read_as_the_cli_reads_it():
    config = str(ROOT / "tests/data/configs/trl_sft_qlora.json")
    assert same(trainbudget.estimate(config=config, machine="rtx-4090"),
                cli("estimate", "--config", config, "--machine", "rtx-4090"))
    # Keyword arguments override the file, as flags do.
    assert trainbudget.estimate(config=config, machine="rtx-4090",
                                micro_batch=1)["setup"]["micro_batch"] == 1


def test_a_bad_request_raises_with_every_problem():
    with pytest.raises(trainbudget.InvalidRequest) as e:
        trainbudget.estimate(params="-7B", method="lorra")
    fields = {p["field"] for p in e.value.problems}
    assert {"params", "method"} <= fields
    assert all(p["message"] for p in e.value.problems)
    assert isinstance(e.value, ValueError)


def test_an_unknown_key_is_named():
    with pytest.raises(trainbudget.InvalidRequest) as e:
        trainbudget.estimate(modle="llama-3.1-8b")
    assert e.value.problems[0]["field"] == "modle"


def test_fields_list_the_table():
    keys = {f["key"] for f in trainbudget.fields("estimate")}
    assert {"model", "method", "machine", "micro_batch", "job_kind"} <= keys
    assert "gpu_memory_utilization" in {f["key"] for f in trainbudget.fields("infer")}


def test_preflight_stops_a_job_that_would_not_fit(tmp_path):
    example = ROOT / "python/examples/preflight.py"
    fits = tmp_path / "fits.json"
    fits.write_text(json.dumps({"model": "llama-3.1-8b", "method": "qlora", "machine": "rtx-4090"}))
    oom = tmp_path / "oom.json"
    oom.write_text(json.dumps({"model": "llama-3.1-8b", "method": "full", "machine": "rtx-4090"}))
    env = dict(os.environ)
    ok = subprocess.run([sys.executable, str(example), str(fits)], capture_output=True, text=True,
                        env=env)
    assert ok.returncode == 0, ok.stderr
    assert "fits" in ok.stdout
    bad = subprocess.run([sys.executable, str(example), str(oom)], capture_output=True, text=True,
                         env=env)
    assert bad.returncode == 1
    assert "does not fit" in bad.stderr and "smallest" in bad.stderr


def test_a_sweep_of_a_thousand_configurations_in_one_process():
    # Speed is reported, never asserted (benchmarks check speed): the figure goes to the log.
    start = time.perf_counter()
    verdicts = {}
    configs = [(r, s, b, m, rc) for r in (4, 8, 16, 32, 64) for s in (512, 1024, 2048, 4096)
               for b in (1, 2, 4, 8, 16) for m in ("lora", "qlora") for rc in ("none", "full")]
    configs = (configs * 3)[:1000]
    for r, s, b, m, rc in configs:
        out = trainbudget.estimate(model="llama-3.1-8b", method=m, lora_rank=r, seq_len=s,
                                   micro_batch=b, recompute=rc, machine="rtx-4090")
        verdicts[out["machines"][0]["verdict"]] = verdicts.get(out["machines"][0]["verdict"], 0) + 1
    seconds = time.perf_counter() - start
    assert sum(verdicts.values()) == 1000
    assert set(verdicts) <= {"fits", "fits_tightly", "does_not_fit"}
    start = time.perf_counter()
    for _ in range(10):
        cli("estimate", "--model", "llama-3.1-8b", "--method", "lora", "--machine", "rtx-4090")
    per_process = (time.perf_counter() - start) / 10
    print(f"\n1,000 estimates in one process: {seconds:.2f} s ({seconds:.2f} ms each); "
          f"1,000 CLI processes would take about {per_process * 1000:.1f} s")
