// Per-block dot product: butterfly (xor) shuffles inside each warp, warp sums through shared memory.
extern "C" __global__ void dot_xor(int n, const float *x, const float *y, float *out) {
  __shared__ float warp_sums[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] * y[i] : 0.0f;
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < (int)(blockDim.x / 32); w++) s += warp_sums[w];
    out[blockIdx.x] = s;
  }
}
