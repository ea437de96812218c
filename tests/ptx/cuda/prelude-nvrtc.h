// What the corpus uses beyond CUDA itself, for NVRTC (nvcc's device compiler as a library),
// which provides threadIdx, the warp intrinsics, atomics, math functions, min/max and the
// vector types on its own. See regen-nvrtc.py.
#pragma once
#define DEVICE static __device__ __forceinline__
typedef unsigned int uint32;
DEVICE unsigned __lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
