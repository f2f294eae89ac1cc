#!/usr/bin/env bash
# GPU check for `trainbudget measure` (docs/measure.md, "GPU"): builds the cuBLAS backend, runs the
# GPU tests (ctest label "gpu") and a measurement on the NVIDIA GPU present, and compares the bf16
# GEMM rate with PyTorch's matmul on the same GPU (or, without PyTorch, with the ~790 TFLOP/s seen
# on an H200 at 8192^3, issue #4). Pass: >= 95 % of the reference.
#
#   scripts/gpu-check.sh                 # build dir build/gpu
#   BUILD_DIR=/tmp/b REFERENCE_TFLOPS=790 scripts/gpu-check.sh
#
# Needs: the CUDA toolkit (nvcc, cuBLAS), the packages of .ci/install-deps, jq; python3 with torch
# is optional. Exit status: 0 pass, 1 a check failed, 2 no GPU or no CUDA toolkit.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build/gpu}
size=${SIZE:-8192}
reps=${REPETITIONS:-20}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "GPU"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi --query-gpu=name,memory.total,driver_version \
    --format=csv,noheader; then
  echo "gpu-check: no NVIDIA GPU visible (nvidia-smi failed)"; exit 2
fi
if ! command -v nvcc >/dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "gpu-check: no CUDA toolkit (nvcc) found"; exit 2
fi
export PATH="$PATH:/usr/local/cuda/bin"

step "configure and build ($build, TRAINBUDGET_WITH_CUDA=ON)"
cmake --preset release -B "$build" -DTRAINBUDGET_WITH_CUDA=ON -DTRAINBUDGET_BUILD_BENCH=OFF \
  -DTRAINBUDGET_BUILD_TESTS=ON >"$out/configure.log" || { cat "$out/configure.log"; exit 1; }
grep -q "cuBLAS backend ON" "$out/configure.log" || { cat "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" --target trainbudget trainbudget_gpu_tests

step "GPU tests (ctest -L gpu): none may be skipped on a GPU machine"
ctest --test-dir "$build" -L gpu --output-on-failure | tee "$out/ctest.log"
if grep -q "(Skipped)" "$out/ctest.log"; then
  echo "gpu-check: GPU tests were skipped although a GPU is present"; exit 1
fi

step "trainbudget measure --backend cublas (bf16 ${size}^3, ${reps} repetitions)"
"$build/cli/trainbudget" measure --backend cublas --dtype bf16 --sizes "$size" \
  --repetitions "$reps" --format json >"$out/measure.json"
status=$(jq -r '.gemm[0].status' "$out/measure.json")
[[ $status == ok ]] || { jq '.gemm[0], .context.backends' "$out/measure.json"; exit 1; }
ours=$(jq '.best.bf16' "$out/measure.json")
printf 'trainbudget cublas bf16: %.1f TFLOP/s (%s)\n' "$(jq -n "$ours / 1e12")" \
  "$(jq -r '.context.backends[0].kernel' "$out/measure.json")"

step "reference: PyTorch torch.matmul bf16 ${size}^3"
reference=""
if [[ -n ${REFERENCE_TFLOPS:-} ]]; then
  reference=$(jq -n "${REFERENCE_TFLOPS} * 1e12")
  echo "from REFERENCE_TFLOPS=${REFERENCE_TFLOPS}"
elif python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  reference=$(python3 - "$size" "$reps" <<'PY'
import statistics, sys, torch
n, reps = int(sys.argv[1]), int(sys.argv[2])
a = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
b = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
for _ in range(3):
    torch.matmul(a, b)
torch.cuda.synchronize()
times = []
for _ in range(reps):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); torch.matmul(a, b); stop.record(); stop.synchronize()
    times.append(start.elapsed_time(stop) / 1e3)
print(2 * n**3 / statistics.median(times))
PY
)
  echo "measured with PyTorch $(python3 -c 'import torch; print(torch.__version__)')"
elif nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "H200"; then
  reference=790e12
  echo "no PyTorch with CUDA here: using ~790 TFLOP/s, PyTorch bf16 8192^3 on an H200 (issue #4)"
else
  echo "gpu-check: no PyTorch with CUDA and no stored reference for this GPU;"
  echo "set REFERENCE_TFLOPS to compare. Tests and measurement passed."
  exit 0
fi
printf 'reference: %.1f TFLOP/s\n' "$(jq -n "$reference / 1e12")"

step "verdict"
ratio=$(jq -n "$ours / $reference")
printf 'trainbudget / reference = %.3f (pass at >= 0.950)\n' "$ratio"
if jq -en "$ratio >= 0.95" >/dev/null; then echo "gpu-check: PASS"; else echo "gpu-check: FAIL"; exit 1; fi

step "full cuBLAS measurement (quick)"
"$build/cli/trainbudget" measure --quick --backend cublas
