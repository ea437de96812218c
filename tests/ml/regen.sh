#!/bin/sh
# Regenerates the ML-compiler PTX corpora tests/ml/triton and tests/ml/tinygrad (README.md beside this file).
# No GPU and no CUDA toolkit are needed: only PyPI, for the versions pinned in VERSIONS.
# Usage: tests/ml/regen.sh      (from anywhere; the venv is $SIMT_ML_VENV, default /tmp/simt-ml-venv)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
venv=${SIMT_ML_VENV:-/tmp/simt-ml-venv}
if [ ! -x "$venv/bin/python" ]; then
  echo "+ python3 -m venv $venv"
  python3 -m venv "$venv"
fi
echo "+ pip install -r VERSIONS"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/VERSIONS"
cd "$here"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# run STEP...: runs a step quietly, showing its last line, or all of it when it fails
run() {
  echo "+ $*"
  if ! "$@" >"$log" 2>&1; then
    cat "$log"
    echo "regen.sh: '$*' failed" >&2
    exit 1
  fi
  tail -n 1 "$log"
}
run "$venv/bin/python" gen_triton.py
run "$venv/bin/python" -W ignore check_triton_interp.py   # the numpy references against Triton's interpreter
run "$venv/bin/python" gen_tinygrad.py
"$venv/bin/python" - <<'PY'
import json
for c in ("triton", "tinygrad"):
    m = json.load(open(f"{c}/kernels.json"))
    print(f"{c}: {m['kernel_count']} kernels ({', '.join(f'{k} {v}' for k, v in m['versions'].items())})")
PY
