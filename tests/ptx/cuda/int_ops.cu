// Integer arithmetic the compiler keeps: division and remainder by a run-time divisor,
// bit counts, reversal, shifts, min/max and 64-bit products (wrapping done in unsigned).
extern "C" __global__ void int_ops(int n, int d, const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  unsigned u = (unsigned)x;
  long long wide = (long long)x * 1000003;
  out[8 * i + 0] = x / d;
  out[8 * i + 1] = x % d;
  out[8 * i + 2] = (int)(u / (unsigned)d) ^ (int)(u % 7u);
  out[8 * i + 3] = __popc(u) + (__clz(x | 1) << 8);
  out[8 * i + 4] = (int)__brev(u);
  out[8 * i + 5] = (x >> 3) ^ (int)(u >> 5) ^ (int)(u << 4);
  out[8 * i + 6] = (int)((unsigned)max(x, d) - (unsigned)min(x, -d));
  out[8 * i + 7] = (int)(wide >> 20);
}
