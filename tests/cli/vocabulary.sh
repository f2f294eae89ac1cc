#!/usr/bin/env bash
# Every row of tests/cli/vocabulary.tsv: the command with the other tool's flag exits 109 with
# exactly the row's line; and every word of cli/suggest.cpp's vocabulary has a row.
#   vocabulary.sh TRAINBUDGET VOCABULARY_TSV SUGGEST_CPP
set -u
bin=$1 table=$2 source=$3
failed=0 rows=0
while IFS=$'\t' read -r command word expected; do
  [[ -z $command || $command == \#* ]] && continue
  rows=$((rows + 1))
  err=$("$bin" "$command" "$word" 2>&1 >/dev/null)
  code=$?
  if [[ $code -ne 109 || $err != "$expected" ]]; then
    echo "FAIL: $command $word: exit $code"
    echo "  expected: $expected"
    echo "  got:      $err"
    failed=1
  fi
done <"$table"
# The vocabulary's words: the first string of each entry between kVocabulary and its end.
words=$(sed -n '/constexpr auto kVocabulary/,/^});/p' "$source" | grep -oE '^ +\{"--[a-z0-9-]+"' |
  grep -oE -- '--[a-z0-9-]+' | sort -u)
for w in $words; do
  if ! cut -f2 "$table" | grep -qx -- "$w"; then
    echo "FAIL: $w is in the vocabulary but has no row in $table"
    failed=1
  fi
done
echo "$rows rows, $(wc -w <<<"$words") words"
exit $failed
