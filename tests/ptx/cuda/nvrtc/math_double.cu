// CUDA's double-precision math library as nvcc compiles it (libdevice's sequences: the
// Payne-Hanek reduction's borrow chains for large arguments, rsqrt.approx.f64 in hypot
// and acos, a double passed by value to a device function).
extern "C" __global__ void math_double(int n, const double *x, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double v = x[i];
  double *o = out + i * 8;
  o[0] = sin(v) + cos(v);
  o[1] = exp(v * 0.01) + log(fabs(v) + 1.0);
  o[2] = pow(fabs(v), 2.7) * 1e-9;
  o[3] = cbrt(v) + hypot(v, 1.3);
  o[4] = atan2(v, -0.4) + acos(v / (fabs(v) + 1.0));
  o[5] = tanh(v * 1e-3) + asinh(v);
  o[6] = expm1(v * 1e-3) + log1p(fabs(v));
  o[7] = sin(v * 1e-300) * 1e300 + cos(v * 1e15);
}
