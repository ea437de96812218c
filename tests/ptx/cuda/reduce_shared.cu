// Per-block sum in shared memory: a tree of halving strides with __syncthreads.
// Block size 256; out[blockIdx.x] is the block's sum.
extern "C" __global__ void reduce_shared(int n, const float *in, float *out) {
  __shared__ float buf[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}
