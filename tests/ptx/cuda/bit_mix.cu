// Bit and width tricks compilers keep as single instructions: byte permutes (__byte_perm),
// funnel shifts and rotates, the high half of 64-bit products, 16-bit products, 64-bit
// multiply-adds, 64-bit integers to and from floats, and f64 min/max.
static __device__ void put(unsigned *o, unsigned long long v) {
  o[0] = (unsigned)v;
  o[1] = (unsigned)(v >> 32);
}
extern "C" __global__ void bit_mix(int n, const unsigned *x, unsigned *out, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = x[i], b = x[(i + 1) % n];
  unsigned long long w = ((unsigned long long)a << 32) | b;
  unsigned *o = out + 16 * i;
  put(o + 0, __byte_perm(a, b, 0x5140) | ((unsigned long long)__byte_perm(a, b, a & 0x7777) << 32));
  put(o + 2, __funnelshift_l(a, b, i) | ((unsigned long long)__funnelshift_rc(a, b, i) << 32));
  put(o + 4, ((a << 7) | (a >> 25)) ^ ((unsigned long long)((b >> 13) | (b << 19)) << 32));
  put(o + 6, __umul64hi(w, 0x9E3779B97F4A7C15ull) ^ (unsigned long long)__mul64hi((long long)w, -12345678901LL));
  put(o + 8, (unsigned long long)(long long)((int)(short)a * (int)(short)b));
  put(o + 10, w * (unsigned long long)b + 0x123456789ull);
  float f = (float)(int)a * 1e-3f;
  long long ll = (long long)(f * 1e6f);
  put(o + 12, (unsigned long long)ll ^ ((unsigned long long)__float2ll_rn(f * 3.0e9f) << 1));
  put(o + 14, __float_as_uint((float)(long long)w) | ((unsigned long long)__float_as_uint((float)w) << 32));
  double d = (double)w;
  double e = (double)(long long)w;
  z[2 * i] = fmin(d, e * 0.5);
  z[2 * i + 1] = fmax(-d, e) + (double)ll;
}
