#!/usr/bin/env bash
# The answer first, within the terminal (issue 21): runs one command at COLUMNS=WIDTH and fails
# when a line is wider than WIDTH display columns or when ANSWER_REGEX (the command's answer) is
# not in its first 15 lines.
#   width.sh WIDTH ANSWER_REGEX TRAINBUDGET ARGS...
set -u
width=$1 answer=$2 tb=$3
shift 3
out=$(COLUMNS=$width timeout 60 "$tb" "$@" 2>/dev/null)
code=$?
[[ $code -eq 0 ]] || { echo "FAIL: exit $code: $*"; exit 1; }
check='
import re, sys
width, answer = int(sys.argv[1]), sys.argv[2]
lines = sys.stdin.read().splitlines()
wide = [(i + 1, len(l)) for i, l in enumerate(lines) if len(l) > width]
if wide:
    print(f"FAIL: {len(wide)} lines wider than {width} columns, first: line {wide[0][0]} ({wide[0][1]})")
    print(lines[wide[0][0] - 1])
    sys.exit(1)
if not any(re.search(answer, l) for l in lines[:15]):
    print(f"FAIL: /{answer}/ not in the first 15 lines:")
    print("\n".join(lines[:15]))
    sys.exit(1)
print(f"ok: {len(lines)} lines, none wider than {width}; the answer by line 15")
'
python3 -c "$check" "$width" "$answer" <<<"$out"
