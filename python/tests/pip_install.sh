#!/usr/bin/env bash
# pip installs the package from the source tree without a network (no build isolation: Debian's
# setuptools and wheel build it; setup.py reuses TRAINBUDGET_BUILD_DIR), then imports it from
# elsewhere and runs the README's one-liner. Usage: pip_install.sh PYTHON SOURCE_DIR TARGET_DIR
set -euo pipefail
python=$1 source=$2 target=$3
rm -rf "$target"
"$python" -m pip install --quiet --no-build-isolation --no-deps --no-index --target "$target" \
  "$source" 2>&1 | grep -v "Running pip as the 'root' user" || true
test -f "$target/trainbudget/__init__.py" || { echo "FAIL: pip installed no trainbudget package"; exit 1; }
cd "$(mktemp -d)"
PYTHONPATH="$target" "$python" -c "
import trainbudget
m = trainbudget.estimate(model='llama-3.1-8b', method='lora', machine='rtx-4090')['memory']
assert m['allocated_peak_bytes'] > 16e9, m['allocated_peak_bytes']
print('ok: installed trainbudget estimates', round(m['allocated_peak_bytes'] / 1e9, 1), 'GB')
"
