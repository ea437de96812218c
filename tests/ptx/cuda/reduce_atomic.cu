// Float sum with one atomicAdd per thread into a shared total, then one per block into
// *out. Inputs are small integers, so every order of additions gives the same sum.
extern "C" __global__ void reduce_atomic(int n, const float *in, float *out) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 0.0f;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&total, in[i]);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, total);
}
