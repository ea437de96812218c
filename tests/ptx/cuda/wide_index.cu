// 64-bit integers as code written for arrays past 4 GB compiles them: a grid-stride loop
// over a 64-bit size (setp on .u64), differences of 64-bit values (sub.s64), and 64-bit min and
// max (a clamp of a signed value, the smaller of two sizes).
static __device__ long long clamp64(long long v, long long lo, long long hi) { return v < lo ? lo : (v > hi ? hi : v); }
extern "C" __global__ void wide_index(int n, const int *x, int *out) {
  unsigned long long count = (unsigned long long)n;
  unsigned long long stride = (unsigned long long)blockDim.x * gridDim.x;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    long long v = (long long)x[i] * 1000003LL - (long long)(count - i) * 4096LL;
    v = clamp64(v, -3000000000LL, 3000000000LL);
    unsigned long long back = count - 1 - i;
    unsigned long long near = back < 7 ? back : 7;
    out[i] = (int)(v >> 8) + (int)near + (v < 0 ? 1 : 0);
  }
}
