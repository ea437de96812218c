#!/bin/sh
# Builds the simt Python package into a fresh venv with pip alone (maturin is the
# build backend) and runs its pytest suite. Exits 0 without testing only when
# there is no python3.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
    echo "run-tests.sh: python3 is not installed; skipping the Python package tests"
    exit 0
fi
venv=$(mktemp -d "${TMPDIR:-/tmp}/simt-py-venv.XXXXXX")
trap 'rm -rf "$venv"' EXIT
if ! python3 -m venv "$venv" && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "run-tests.sh: python3 has no venv module; installing python3-venv"
    apt-get install -y -qq python3-venv >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq python3-venv >/dev/null 2>&1; } || true
    rm -rf "$venv" && mkdir -p "$venv"
fi
if [ ! -x "$venv/bin/pip" ] && ! python3 -m venv "$venv"; then
    echo "run-tests.sh: python3 cannot make a virtual environment; install its venv module (Debian: apt-get install python3-venv)" >&2
    exit 1
fi
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet "$here[test,numba]"
cd "$here/../.."
# The sweep tests run jobs with the simt binary built beside the package.
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
export SIMT="${SIMT:-$target/release/simt}"
"$venv/bin/python" -m pytest -q "$here/tests" "$@"
