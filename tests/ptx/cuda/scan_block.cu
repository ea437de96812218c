// Inclusive prefix sum of one block of 256 ints (Hillis-Steele, double-buffered in shared memory).
extern "C" __global__ void scan_block(const int *in, int *out) {
  __shared__ int buf[2][256];
  int t = threadIdx.x;
  int src = 0;
  buf[0][t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int off = 1; off < 256; off *= 2) {
    int v = buf[src][t];
    if (t >= off) v += buf[src][t - off];
    buf[1 - src][t] = v;
    src = 1 - src;
    __syncthreads();
  }
  out[blockIdx.x * 256 + t] = buf[src][t];
}
