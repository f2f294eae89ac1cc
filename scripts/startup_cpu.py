#!/usr/bin/env python3
"""CPU time (user + system) of whole trainbudget processes against /bin/true and Python's own
start-up: README's start-up rows.

Usage: python3 scripts/startup_cpu.py build/ci/cli/trainbudget [RUNS]
"""
import resource
import subprocess
import sys


def cpu_ms(cmd, runs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(runs):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) / runs * 1000


tb = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 50
for name, cmd in [("/bin/true", ["/bin/true"]), ("trainbudget --version", [tb, "--version"]),
                  ("python3 -c pass", ["/usr/bin/python3", "-c", "pass"]),
                  ("trainbudget (default estimate)", [tb]),
                  ("trainbudget hardware list", [tb, "hardware", "list"])]:
    print(f"{name:32s} {cpu_ms(cmd, runs):6.2f} ms CPU")
