"""The training clock's figures from the reference-case test's output, shared by
scripts/validation_table.py and scripts/validation_groups.py (docs/time.md, "Validation").

clock_rows(test_binary) runs `test_binary --gtest_filter=Cases/*` and returns, for each time
figure (a step, hours, tokens/s, MFU, HFU; an RL round is docs/rl.md's), its case's name, the
figure's key, the published and the modeled value, and the case file read as TOML.
"""
import pathlib
import re
import subprocess
import tomllib

CASES = pathlib.Path(__file__).resolve().parent.parent / "tests" / "cases"


def clock_rows(test_binary):
    out = subprocess.run([test_binary, "--gtest_filter=Cases/*"], capture_output=True,
                         text=True).stdout
    rows = []
    for line in out.splitlines():
        m = re.match(r"\[ (outside|within)\s*\] (\S+)\.toml (\S+): expected (\S+), got (\S+) \(",
                     line)
        if not m or not re.search(r"time\.|tokens_per_second", m.group(3)) or \
                "rollout." in m.group(3):
            continue
        _, name, key, exp, got = m.groups()
        case = tomllib.loads((CASES / f"{name}.toml").read_text())
        rows.append((name, key, float(exp), float(got), case))
    return rows
