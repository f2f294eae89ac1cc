#!/usr/bin/env bash
# One CLI test: run a command, check its exit code, stderr and stdout.
#   check.sh EXPECTED_EXIT STDERR_REGEX STDOUT_SPEC -- COMMAND...
# STDOUT_SPEC: "empty" | "any" | "regex:PATTERN" | "golden:FILE" (volatile fields masked) |
#              "jq:FILTER" (stdout parses as JSON and jq -e FILTER holds) |
#              "markdown:PATTERN" (matches PATTERN, has an even number of ``` fence lines, and no
#              line outside a fence starts with a tab or four spaces: an indented code block).
# An expected exit of "nonzero" accepts any failure code.
set -u
expected_exit=$1 stderr_regex=$2 stdout_spec=$3
shift 4
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
code=$?
fail() { echo "FAIL: $*"; echo "--- command: $*"; echo "--- exit: $code"; echo "--- stdout:"; head -c 4000 "$out"; echo "--- stderr:"; cat "$err"; exit 1; }
if [[ $expected_exit == nonzero ]]; then
  [[ $code -ne 0 ]] || fail "expected a non-zero exit"
else
  [[ $code -eq $expected_exit ]] || fail "expected exit $expected_exit"
fi
# Whatever the test, what reaches a terminal is printable and short: no raw control character
# (an escape sequence from a file), no line past 2,100 bytes (one_line() caps a message at 2,000).
if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$err"; then fail "stderr holds a raw control character"; fi
if LC_ALL=C awk 'length($0) > 2100 { found = 1 } END { exit !found }' "$err"; then fail "a stderr line is longer than 2,100 bytes"; fi
if [[ -n $stderr_regex ]]; then
  grep -Eq -- "$stderr_regex" "$err" || fail "stderr does not match /$stderr_regex/"
  [[ $(wc -l <"$err") -le 1 ]] || fail "stderr must be one line"
fi
mask() { sed -E 's/"(commit|version|build_type)": "[^"]*"/"\1": "<masked>"/'; }
case $stdout_spec in
  empty) [[ ! -s $out ]] || fail "stdout must be empty" ;;
  any) ;;
  regex:*) grep -Eq -- "${stdout_spec#regex:}" "$out" || fail "stdout does not match /${stdout_spec#regex:}/" ;;
  golden:*)
    golden=${stdout_spec#golden:}
    if ! diff -u <(mask <"$golden") <(mask <"$out") >"$err.diff"; then
      cat "$err.diff"; rm -f "$err.diff"; fail "stdout differs from $golden"
    fi
    rm -f "$err.diff" ;;
  markdown:*)
    grep -Eq -- "${stdout_spec#markdown:}" "$out" || fail "stdout does not match /${stdout_spec#markdown:}/"
    fences=$(grep -c '^ *```' "$out")
    (( fences % 2 == 0 )) || fail "odd number ($fences) of \`\`\` fence lines"
    indented=$(awk '/^ *```/ { inside = !inside; next } !inside && /^(    |\t)/ { n++ } END { print n + 0 }' "$out")
    (( indented == 0 )) || fail "$indented lines outside fences start an indented code block" ;;
  jq:*) jq -e "${stdout_spec#jq:}" "$out" >/dev/null || fail "stdout is not JSON where ${stdout_spec#jq:}" ;;
  *) echo "bad STDOUT_SPEC $stdout_spec"; exit 2 ;;
esac
echo "ok"
