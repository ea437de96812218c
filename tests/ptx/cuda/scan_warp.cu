// Inclusive prefix sum within each warp with __shfl_up_sync.
extern "C" __global__ void scan_warp(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[i];
  for (int off = 1; off < 32; off *= 2) {
    int up = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += up;
  }
  out[i] = v;
}
