// Layer normalisation of each row (one warp per row): mean, variance, rsqrtf, scale and shift.
extern "C" __global__ void layernorm(int cols, float eps, const float *in, const float *gamma, const float *beta, float *out) {
  int row = blockIdx.x;
  int lane = threadIdx.x;
  const float *x = in + row * cols;
  float s = 0.0f;
  for (int j = lane; j < cols; j += 32) s += x[j];
  for (int m = 16; m > 0; m >>= 1) s += __shfl_xor_sync(0xffffffffu, s, m);
  float mean = s / cols;
  float v = 0.0f;
  for (int j = lane; j < cols; j += 32) {
    float d = x[j] - mean;
    v += d * d;
  }
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  float inv = rsqrtf(v / cols + eps);
  for (int j = lane; j < cols; j += 32) out[row * cols + j] = (x[j] - mean) * inv * gamma[j] + beta[j];
}
