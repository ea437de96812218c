#!/bin/sh
# Rebuilds every PTX fixture from tests/ptx/cuda/*.cu with clang (no CUDA SDK needed).
# Each kernel is compiled at -O0 and -O3 for sm_70 and sm_80 into
# tests/ptx/fixtures/<kernel>.<target>.<O0|O3>.ptx; kernels listed in SM80_ONLY need sm_80
# (mma.sync m16n8k16 and redux.sync do not exist on sm_70).
# Usage: tests/ptx/regen.sh        (from anywhere; installs clang with apt-get if missing)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v clang >/dev/null 2>&1; then
  echo "+ apt-get install clang"
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y clang
fi
SM80_ONLY="hgemm_mma warp_match_redux warp_tiles_redux"
# PTX ISA 7.0 is the oldest with sm_80; sm_70 fixtures use it too so both targets share one dialect.
FLAGS="-x cuda --cuda-device-only -nocudainc -nocudalib -Xclang -target-feature -Xclang +ptx70"
clang --version | head -n 1 > "$here/CLANG_VERSION"
mkdir -p "$here/fixtures"
rm -f "$here"/fixtures/*.ptx
for src in "$here"/cuda/*.cu; do
  name=$(basename "$src" .cu)
  for target in sm_70 sm_80; do
    if [ "$target" != sm_80 ] && echo " $SM80_ONLY " | grep -q " $name "; then
      continue
    fi
    for opt in O0 O3; do
      out="$here/fixtures/$name.$target.$opt.ptx"
      echo "+ clang $FLAGS --cuda-gpu-arch=$target -$opt -include cuda/prelude.h -S cuda/$name.cu -o fixtures/$name.$target.$opt.ptx"
      # shellcheck disable=SC2086
      # From the corpus folder, so that __FILE__ (a failed assert's message) is cuda/NAME.cu.
      (cd "$here" && clang $FLAGS --cuda-gpu-arch="$target" -"$opt" -include cuda/prelude.h -S -o "$out.tmp" "cuda/$name.cu")
      mv "$out.tmp" "$out"
    done
  done
done
echo "regenerated $(find "$here/fixtures" -name '*.ptx' | wc -l) fixtures with $(cat "$here/CLANG_VERSION")"
