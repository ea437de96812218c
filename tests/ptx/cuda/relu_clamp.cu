// Elementwise activations: out = clamp(x, lo, hi) where x > 0, else leaky slope * x; and |x|.
extern "C" __global__ void relu_clamp(int n, float slope, float lo, float hi, const float *x, float *out, float *absx) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i] - 0.5f;
    out[i] = v > 0.0f ? fminf(fmaxf(v, lo), hi) : slope * v;
    absx[i] = fabsf(v);
  }
}
