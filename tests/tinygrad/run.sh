#!/usr/bin/env bash
# Runs tinygrad's own backend tests with simt as the PTX executor: tinygrad's mock CUDA
# driver (DEV=MOCK+CUDA:PTX) launches every kernel through GPU Ocelot's `ptx_run`, which
# simt's libgpuocelot.so provides. Nothing of tinygrad is committed here.
#
#   tests/tinygrad/run.sh TINYGRAD_CHECKOUT [pytest arguments...]
#
# TINYGRAD_CHECKOUT is a clone of https://github.com/tinygrad/tinygrad, best at the pinned
# commit below (the one docs/tinygrad.md's figures are for). The venv lives in
# target/tinygrad-venv (SIMT_TINYGRAD_VENV overrides it). The default pytest arguments are
# those of tinygrad's own CI job for this backend (.github/workflows/test.yml, testnvidia).
set -euo pipefail
PINNED=a9069c177a9da9cca18593edf55acd2e6073cca6 # tinygrad master of 2026-08-22
repo=$(cd "$(dirname "$0")/../.." && pwd)
tinygrad=${1:?usage: tests/tinygrad/run.sh TINYGRAD_CHECKOUT [pytest arguments...]}
tinygrad=$(cd "$tinygrad" && pwd)
shift
head=$(git -C "$tinygrad" rev-parse HEAD)
if [ "$head" != "$PINNED" ]; then
  echo "note: tinygrad is at $head; docs/tinygrad.md's figures are for $PINNED" >&2
fi

# tinygrad's CPU device, which the tests compare with, compiles with clang.
if ! command -v clang >/dev/null 2>&1; then
  echo "tests/tinygrad/run.sh: tinygrad's CPU device needs clang; install it (Debian: apt-get install clang)" >&2
  exit 1
fi

cargo build --release --manifest-path "$repo/Cargo.toml" -p simt-ocelot
venv=${SIMT_TINYGRAD_VENV:-$repo/target/tinygrad-venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# tinygrad[testing_unit]'s test dependencies. torch (test_ops, test_nn, test_tensor and five
# more compare with it) is a multi-gigabyte download: SIMT_TINYGRAD_NO_TORCH=1 leaves it out,
# and those files then fail to import (pytest reports them as errors).
"$venv/bin/pip" install -q -e "$tinygrad" numpy pytest pytest-xdist pytest-split "hypothesis>=6.148.9" "z3-solver<4.15.4" tqdm safetensors tabulate
if [ -z "${SIMT_TINYGRAD_NO_TORCH:-}" ]; then
  "$venv/bin/pip" install -q torch==2.9.1
fi

export OCELOT_PATH="$repo/target/release/libgpuocelot.so" DEV=MOCK+CUDA:PTX FORWARD_ONLY=1
cd "$tinygrad"
"$venv/bin/python" -c "from tinygrad import Device; assert Device.DEFAULT == 'CUDA', Device.DEFAULT"
if [ $# -eq 0 ]; then
  set -- -n auto test/backend --ignore test/backend/test_multitensor.py --durations=20
fi
exec "$venv/bin/python" -m pytest "$@"
