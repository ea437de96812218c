// A data-dependent loop: each thread runs the Collatz sequence of its element, so the
// threads of a warp leave the loop at different times (course lab 06 compares the
// PTX, the simt instructions it becomes and the divergence it shows).
#include "__clang_cuda_builtin_vars.h"
#define __global__ __attribute__((global))

extern "C" __global__ void collatz(int n, const unsigned *start, unsigned *steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = start[i] + 1, count = 0;  // + 1: 0 would never reach 1
  while (v != 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    count++;
  }
  steps[i] = count;
}
