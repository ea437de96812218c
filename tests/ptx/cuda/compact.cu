// Stream compaction of one block of 256 ints: keep the odd values in order, using
// warp ballots, __popc of the lanes below, and a shared running offset per warp.
extern "C" __global__ void compact(const int *in, int *out, int *count) {
  __shared__ int warp_counts[8];
  int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  int v = in[t];
  int keep = v & 1;
  unsigned ballot = __ballot_sync(0xffffffffu, keep);
  int below = __popc(ballot & ((1u << lane) - 1));
  if (lane == 0) warp_counts[warp] = __popc(ballot);
  __syncthreads();
  int base = 0;
  for (int w = 0; w < warp; w++) base += warp_counts[w];
  if (keep) out[base + below] = v;
  if (t == 0) {
    int total = 0;
    for (int w = 0; w < 8; w++) total += warp_counts[w];
    *count = total;
  }
}
