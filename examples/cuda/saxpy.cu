// saxpy in CUDA: y = a * x + y. clang compiles it to PTX without the CUDA SDK:
//   clang -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 -O3 \
//         -S examples/cuda/saxpy.cu -o examples/cuda/saxpy.ptx
// and simt runs the PTX (README, "Run a CUDA kernel"; docs/ptx.md).
#include "__clang_cuda_builtin_vars.h"  // threadIdx, blockIdx, blockDim, from clang itself
#define __global__ __attribute__((global))

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
