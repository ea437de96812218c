// The integer intrinsics of quantized inference kernels and image code: __dp4a and
// __dp2a_lo/hi (one IDP each), __sad and __usad, __mul24 and __umul24.
extern "C" __global__ void int8_dot(int n, const int *a, const int *b, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  int *o = out + i * 8;
  o[0] = __dp4a(x, y, 17);
  o[1] = (int)__dp4a((unsigned)x, (unsigned)y, 3u);
  o[2] = __dp2a_lo(x, y, -5);
  o[3] = (int)__dp2a_hi((unsigned)x, (unsigned)y, 9u);
  o[4] = (int)__sad(x, y, 7u);
  o[5] = (int)__usad((unsigned)x, (unsigned)y, 1u);
  o[6] = __mul24(x, y);
  o[7] = (int)__umul24((unsigned)x, (unsigned)y);
}
