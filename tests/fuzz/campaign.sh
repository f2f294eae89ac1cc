#!/usr/bin/env bash
# The long fuzz campaign behind README's figures: each target RUNS executions (default 1,000,000)
# at low priority from its committed seeds, new inputs kept in campaign/<target>. The generated
# seeds (make_seeds.py) are CTest's: mutating megabyte inputs costs a hundred times the
# executions; GENERATED=1 adds them.
# Usage: campaign.sh BUILD/tests/fuzz [TARGET...]; env RUNS, MAX_LEN, FORK=1
# (keep going past crashes: -fork=1 -ignore_crashes=1, for a known bug not yet fixed).
# One line per target in campaign/summary.tsv: target, runs, seconds, exec/s, peak RSS, cov, ft.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$1"
shift
runs=${RUNS:-1000000}
max_len=${MAX_LEN:-65536}
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] ||
  targets=(hf_config safetensors shard_index device_toml model_preset quantity request
    http_request dataset_text hub_cache verl_script training_config)
mkdir -p campaign
if [[ ${GENERATED:-0} == 1 ]]; then
  [[ -d generated ]] || python3 "$here/make_seeds.py" generated
fi
for t in "${targets[@]}"; do
  mkdir -p "campaign/$t" "campaign/$t-artifacts"
  extra=()
  [[ ${GENERATED:-0} == 1 ]] && extra+=("generated/$t")
  [[ ${FORK:-0} == 1 ]] && extra+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  start=$(date +%s.%N)
  status=0
  /usr/bin/time -f '%M' -o "campaign/$t.rss" nice -n 19 "./${t}_fuzz" "campaign/$t" \
    "$here/corpus/$t" -runs="$runs" -max_len="$max_len" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="campaign/$t-artifacts/" \
    "${extra[@]}" >"campaign/$t.log" 2>&1 || status=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  stats=$(grep -E '^#[0-9]+' "campaign/$t.log" | tail -1)
  execs=$(grep -oP 'stat::number_of_executed_units: \K[0-9]+' "campaign/$t.log" || { s=${stats%%:*}; echo "${s#\#}"; })
  cov=$(grep -oP 'cov: \K[0-9]+' <<<"$stats" || true)
  ft=$(grep -oP 'ft: \K[0-9]+' <<<"$stats" || true)
  printf '%s\t%s\t%.0f\t%.0f\t%s KB\t%s\t%s\texit %s\n' "$t" "$execs" "$seconds" \
    "$(echo "$execs / $seconds" | bc -l)" "$(cat "campaign/$t.rss")" "$cov" "$ft" \
    "$status" | tee -a campaign/summary.tsv
done
