// __syncthreads_count, __syncthreads_and and __syncthreads_or (PTX bar.red): block-wide
// answers every thread gets, over a block with a partial last warp and threads past n.
extern "C" __global__ void block_votes(int n, const int *x, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] % 100 : 0;
  int positive = __syncthreads_count(v > 0);
  int all_above = __syncthreads_and(v > -99);
  int any_large = __syncthreads_or(v > 97);
  if (i < n) out[i] = positive * 4 + all_above * 2 + any_large;
}
