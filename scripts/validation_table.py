#!/usr/bin/env python3
"""Prints docs/time.md's validation table from the reference-case test's output.

Usage: python3 scripts/validation_table.py build/ci/tests/trainbudget_tests
"""
import statistics
import sys

from validation_rows import clock_rows

rows = []
for name, key, exp, got, case in clock_rows(sys.argv[1]):
    tol = next(e["tolerance"] for e in case["expect"] if e["key"] == key)
    rows.append((name, key.split(".")[-1], exp, got, (got - exp) / exp * 100, tol))

print("| case | metric | published | model | error | tolerance |")
print("|---|---|---|---|---|---|")
for name, metric, exp, got, err, tol in rows:
    mark = "" if abs(err) <= tol * 100 else " (outside)"
    print(f"| `{name}` | {metric} | {exp:.4g} | {got:.4g} | {err:+.1f} % | ±{tol * 100:.0f} %{mark} |")


def too_fast(r):
    # A rate (tokens/s, MFU, HFU) reads high when the model is fast; a time reads low.
    return r[4] > 0 if r[1] in ("tokens_per_second", "mfu", "hfu") else r[4] < 0


def summary(rs):
    e = [abs(r[4]) for r in rs]
    fast = sum(too_fast(r) for r in rs)
    return (f"{len(rs)} figures, median |error| {statistics.median(e):.1f} %, "
            f"{sum(x <= 15 for x in e)} within ±15 %, {fast} too fast / "
            f"{sum(r[4] != 0 for r in rs) - fast} too slow")


held = [r for r in rows if r[0].startswith("heldout_")]
ref = [r for r in rows if not r[0].startswith("heldout_")]
print()
print("Reference (earlier) cases: " + summary(ref))
print()
print("Held-out cases: " + summary(held))
print()
print("All: " + summary(rows))
