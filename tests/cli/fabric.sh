#!/usr/bin/env bash
# `measure --fabric` end to end under MPI on this one machine (shared memory between ranks):
#   fabric.sh CASE TRAINBUDGET MPIRUN
# Each case measures into a scratch configuration folder and checks the saved system, the
# report, an estimate on it, and that a failed run saves nothing.
set -u
case_name=$1 tb=$2 mpirun=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_CONFIG_HOME=$scratch/config
# A CI container runs as root; Open MPI refuses that unless told. More ranks than cores: yield
# while waiting instead of spinning.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_rmaps_base_oversubscribe=1
systems=$XDG_CONFIG_HOME/trainbudget/hardware/systems
fail() { echo "FAIL ($case_name): $*"; for f in "$scratch"/out "$scratch"/err; do [[ -f $f ]] && { echo "--- $f"; head -c 6000 "$f"; }; done; exit 1; }

# ranks: measure quickly on RANKS ranks, save as `here` (device rtx-4090), check every measured
# size past 1 MiB comes back from the estimate's model within 15 %.
measure_and_check() {
  local ranks=$1
  "$mpirun" -n "$ranks" "$tb" measure --fabric --quick --sizes 8,64K,2M,4M --repetitions 3 \
    --save here --device rtx-4090 --format json >"$scratch/out" 2>"$scratch/err" ||
    fail "mpirun -n $ranks exited $?"
  [[ -f $systems/here.toml ]] || fail "no system file saved"
  python3 - "$scratch/out" "$ranks" <<'PY' || fail "the JSON report is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
assert r["kind"] == "fabric" and r["saved_system"] == "here", r.get("kind")
assert r["context"]["ranks"] == ranks, r["context"]
runs = r["runs"]
assert len(runs) == 6 * 4, len(runs)  # six collectives, four sizes, one tier (one host)
assert all(x["tier"] == "intra_node" and x["ranks"] == ranks for x in runs)
assert all(len(x["samples_seconds"]) == 3 and x["median_seconds"] > 0 for x in runs)
check = r["check"]
assert len(check) == 6 * 2, len(check)  # 2 MiB and 4 MiB of each collective
worst = max(abs(c["error"]) for c in check)
assert worst <= 0.15, worst
print(f"{ranks} ranks: {len(runs)} runs, worst model error past 1 MiB {worst:.2e}")
PY
}

case $case_name in
  no_launcher)
    # Run without mpirun: one line that says how to launch it, non-zero, nothing saved.
    "$tb" measure --fabric --save here >"$scratch/out" 2>"$scratch/err" && fail "exit 0"
    grep -q "mpirun -n 2 trainbudget measure --fabric" "$scratch/err" || fail "no launch hint"
    [[ $(wc -l <"$scratch/err") -eq 1 ]] || fail "stderr is not one line"
    [[ ! -s $scratch/out && ! -e $systems/here.toml ]] || fail "something was written"
    ;;
  two_ranks) measure_and_check 2 ;;
  four_ranks)
    measure_and_check 4
    # The saved system is listed, shown as measured and used by an estimate.
    "$tb" hardware systems >"$scratch/out" 2>"$scratch/err" || fail "hardware systems"
    grep -Eq "^  here +rtx-4090 +4 .* measured$" "$scratch/out" || fail "not listed as measured"
    "$tb" hardware show here >"$scratch/out" 2>"$scratch/err" || fail "hardware show"
    grep -q "Measured collectives" "$scratch/out" || fail "show has no curves"
    "$tb" estimate --params 1B --machine rtx-4090 --system here --devices 4 --format json \
      >"$scratch/out" 2>"$scratch/err" || fail "estimate on the system"
    python3 - "$scratch/out" "$systems/here.toml" <<'PY' || fail "the estimate did not use the curve"
import json, sys, tomllib
e = json.load(open(sys.argv[1]))
m = e["machines"][0]
assert m["system"] == "here", m["system"]
dp = m["time"]["comm"]["dp"]
# 2 GB of bf16 gradients all-reduced over 4 ranks, every bucket past the largest measured size
# (4 MiB): the largest size's bus bandwidth, so the buckets add up to bytes x 1.5 / busbw.
curve = next(c for c in tomllib.load(open(sys.argv[2], "rb"))["measured"]["curve"]
             if c["op"] == "all_reduce")
busbw = curve["bytes"][-1] * 1.5 / curve["seconds"][-1]
expected = dp["bytes"] * 1.5 / busbw
assert abs(dp["seconds"] / expected - 1) < 1e-6, (dp["seconds"], expected)
print(f"dp all-reduce {dp['seconds']:.4g} s from the measured curve")
PY
    # Beyond the one measured node there is no network: the scaling table stops at the node.
    "$tb" estimate --params 1B --machine rtx-4090 --system here --devices 4 \
      >"$scratch/out" 2>"$scratch/err" || fail "estimate text"
    grep -Eq "^ +8 +[0-9.]+ " "$scratch/out" && fail "a scaling row past the node"
    ;;
  hang)
    # A rank that stops answering: the others give up after --timeout, nothing is saved.
    TRAINBUDGET_FABRIC_FAULT=hang:1 timeout 60 "$mpirun" -n 2 "$tb" measure --fabric --quick \
      --timeout 2 --save here --device rtx-4090 >"$scratch/out" 2>"$scratch/err" && fail "exit 0"
    grep -q "did not finish in time" "$scratch/err" || fail "no timeout message"
    [[ ! -e $systems/here.toml ]] || fail "a profile was saved"
    ;;
  rank_dies)
    TRAINBUDGET_FABRIC_FAULT=exit:1 timeout 60 "$mpirun" -n 2 "$tb" measure --fabric --quick \
      --timeout 10 --save here --device rtx-4090 >"$scratch/out" 2>"$scratch/err" && fail "exit 0"
    [[ ! -e $systems/here.toml ]] || fail "a profile was saved"
    [[ -z $(ls -A "$systems" 2>/dev/null) ]] || fail "a temporary file was left"
    ;;
  *) fail "unknown case" ;;
esac
echo "ok $case_name"
