// 64-bit atomics: counters (atomicAdd on unsigned long long), a double sum (atomicAdd on
// double; exact in any order here, as the inputs are multiples of 2^-24), a signed 64-bit
// maximum, and compare-and-swaps on 64-bit slots: the first claims a slot, the second sees it.
extern "C" __global__ void atomic_wide(int n, const float *x, unsigned long long *counts, double *sum, long long *best,
                                       unsigned long long *claim, unsigned long long *seen) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  atomicAdd(&counts[v < 0.5f ? 0 : 1], (1ull << 33) | 1ull);
  atomicAdd(sum, (double)v);
  atomicMax(best, (long long)(v * 1e6f) - 500000LL * (i % 3));
  unsigned long long key = ((unsigned long long)(i + 1) << 32) | (unsigned)i;
  atomicCAS(&claim[i], 0ull, key);
  seen[i] = atomicCAS(&claim[i], 0ull, 7ull);
}
