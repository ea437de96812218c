// Integer sum: warp shuffles reduce each warp, lane 0 adds it to *out atomically.
extern "C" __global__ void reduce_warp(int n, const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
