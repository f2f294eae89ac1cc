#!/usr/bin/env python3
"""Checks the README's examples against the binary, so that they never go stale.

Usage: python3 scripts/readme_examples.py TRAINBUDGET README.md [docs/scale.md ...]

An example is a ```sh block of one `trainbudget ...` command, then a line
`<!-- checked: COLUMNS=N -->`, then a ```text block of what it prints. The command runs with
COLUMNS=N; every line of the text block must appear in its output, in order (other lines may
come between). A line that is `...` stands for lines left out; a line ending in ` ...` matches
any output line that starts with what comes before it (for figures that change from run to
run, such as a search's seconds). Exits 1 naming each example and line that does not hold.
"""
import os
import re
import shlex
import subprocess
import sys


def examples(text):
    pattern = re.compile(
        r"```sh\n(trainbudget[^\n]*)\n```\s*\n<!-- checked: COLUMNS=(\d+) -->\s*\n```text\n(.*?)\n```",
        re.S)
    for m in pattern.finditer(text):
        yield text[:m.start()].count("\n") + 1, m.group(1), int(m.group(2)), m.group(3).split("\n")


def holds(shown, printed):
    at = 0
    for line in shown:
        if line.strip() == "...":
            continue
        prefix = line[:-4] if line.endswith(" ...") else None
        while at < len(printed):
            out = printed[at].rstrip()
            at += 1
            if (prefix is not None and out.startswith(prefix)) or out == line.rstrip():
                break
        else:
            return line
    return None


def main():
    binary = sys.argv[1]
    failed = 0
    count = 0
    for readme, line_no, command, columns, shown in (
            (path, *e) for path in sys.argv[2:]
            for e in examples(open(path, encoding="utf-8").read())):
        count += 1
        args = shlex.split(command, comments=True)
        env = dict(os.environ, COLUMNS=str(columns))
        run = subprocess.run([binary] + args[1:], capture_output=True, text=True, env=env)
        missing = holds(shown, run.stdout.split("\n"))
        if missing is not None:
            failed += 1
            print(f"{readme}:{line_no}: `{command}` does not print, in order:\n  {missing}")
    if count == 0:
        print("no checked example")
        return 1
    print(f"{count} examples checked, {failed} stale")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
