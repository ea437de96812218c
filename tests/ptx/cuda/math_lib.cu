// Math library functions as compilers emit them: rounding to integral values and to
// integers, square roots, copysign, double division and 64-bit integer conversions. NVRTC
// (nvcc) gives the library's own sequences; clang the prelude's builtins.
extern "C" __global__ void math_lib(int n, const float *x, float *y, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i] * 8.0f - 4.0f;
  y[i] = floorf(v) + 2.0f * ceilf(v) + 4.0f * truncf(v) + 8.0f * rintf(v) + (float)__float2int_rn(v * 3.0f) +
         sqrtf(fabsf(v)) + copysignf(1.5f, v);
  double w = (double)v;
  z[i] = sqrt(fabs(w)) + w / 3.0 + floor(w * 2.5) + rint(w) + (double)((long long)i * 1000003LL - 5000000LL);
}
