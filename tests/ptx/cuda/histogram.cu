// 64-bin histogram: shared-memory bins with atomics, merged into global bins.
extern "C" __global__ void histogram(int n, const unsigned *data, int *bins) {
  __shared__ int local[64];
  if (threadIdx.x < 64) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i] % 64], 1);
  __syncthreads();
  if (threadIdx.x < 64) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
