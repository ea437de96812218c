// Per warp: how many lanes hold a positive value (__ballot_sync + __popc), and whether all
// and any do; written by lane 0 as three ints per warp.
extern "C" __global__ void vote_ballot(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int positive = in[i] > 0;
  unsigned ballot = __ballot_sync(0xffffffffu, positive);
  int all = __all_sync(0xffffffffu, positive);
  int any = __any_sync(0xffffffffu, positive);
  if ((threadIdx.x & 31) == 0) {
    int w = i / 32;
    out[3 * w] = __popc(ballot);
    out[3 * w + 1] = all;
    out[3 * w + 2] = any;
  }
}
