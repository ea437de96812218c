// printf from every thread: integers, floats (promoted to double), strings, characters,
// 64-bit values, a width from an argument and printf's result; a barrier between rounds.
// tests/ptx/cuda/printf_demo.out is what glibc's printf makes of the same calls.
extern "C" __global__ void printf_demo(int n, const float *x, int *count) {
  int t = threadIdx.x;
  if (t == 0) printf("block %d of %d: n = %d\n", blockIdx.x, gridDim.x, n);
  if (t < n) {
    const char *parity = t % 2 ? "odd" : "even";
    printf("%2d: x=%8.3f %e %g |%-5s| %c %#x %lld\n", t, x[t], x[t], (double)x[t] * 1e6, parity, 'a' + t, t * 255, (long long)t << 40);
  }
  __syncthreads();
  int r = printf("after the barrier: %*d%%\n", 4, t);
  if (t == 0) count[blockIdx.x] = r;
}
