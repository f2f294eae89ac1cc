#!/usr/bin/env bash
# Two runs of the CLI print the same stdout: same_output.sh BINARY "ARGS A" -- ARGS B...
set -u
bin=$1 first=$2
shift 3
read -r -a a <<<"$first"
if diff -u <("$bin" "${a[@]}") <("$bin" "$@"); then echo "ok"; else echo "FAIL: outputs differ"; exit 1; fi
