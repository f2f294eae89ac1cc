#!/usr/bin/env python3
"""How often the time band covers the published figure, for the reference and held-out halves.

Usage: python3 scripts/band_coverage.py build/ci/tests/trainbudget_tests

Reads the reference-case test's "[ band in|out ]" lines (tests/unit/reference_cases_test.cpp):
for every training-clock figure of tests/cases (a step, the run's hours, tokens/s, MFU, HFU),
whether the published value lies inside the machine's time band, and the band's width; and,
apart, the same for every online RL round ("[ rl band ... ]" lines).
"""
import re
import statistics
import subprocess
import sys

out = subprocess.run([sys.argv[1], "--gtest_filter=Cases/*"], capture_output=True,
                     text=True).stdout


def band_rows(tag):
    """The "[ <tag> in|out ]" lines: (case, key, inside, width %, published, low, high)."""
    found = []
    for line in out.splitlines():
        m = re.match(r"\[ " + tag + r" (in|out)\s*\] (\S+)\.toml (\S+): published (\S+) in "
                     r"\[(\S+), (\S+)\] \(width (\S+) %\)", line)
        if m:
            where, name, key, pub, lo, hi, width = m.groups()
            found.append((name, key, where == "in", float(width), float(pub), float(lo),
                          float(hi)))
    return found


rows = band_rows("band")
rl = band_rows("rl band")


def half(rs, label):
    if not rs:
        print(f"{label}: no figures")
        return
    inside = sum(1 for r in rs if r[2])
    print(f"{label}: {inside} of {len(rs)} covered ({100.0 * inside / len(rs):.0f} %), "
          f"median width {statistics.median(r[3] for r in rs):.1f} %")


if "--list" in sys.argv:
    for r in rows + rl:
        print(f"{'in ' if r[2] else 'OUT'} {r[0]} {r[1]}: {r[4]:.4g} in [{r[5]:.4g}, {r[6]:.4g}]")
half([r for r in rows if not r[0].startswith("heldout_")], "reference")
half([r for r in rows if r[0].startswith("heldout_")], "held-out")
half(rows, "all")
half(rl, "online RL rounds (docs/rl.md)")
