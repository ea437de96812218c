// sm_80 warp collectives: lanes with equal (v & 3) found with __match_any_sync, warp-wide
// add/min/max/or with redux.sync, the active mask inside a branch taken by lanes 0..19,
// and %laneid. Eight ints per thread.
extern "C" __global__ void warp_match_redux(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  unsigned lane = __lane_id();
  int *o = out + 8 * i;
  o[0] = (int)__match_any_sync(0xffffffffu, v & 3);
  o[1] = __reduce_add_sync(0xffffffffu, v);
  o[2] = __reduce_min_sync(0xffffffffu, v);
  o[3] = __reduce_max_sync(0xffffffffu, v);
  o[4] = (int)__reduce_or_sync(0xffffffffu, (unsigned)v & 0xf0u);
  o[5] = (int)lane;
  unsigned active = 0;
  if (lane < 20) active = __activemask();
  o[6] = (int)active;
  o[7] = (int)(lane == (unsigned)(threadIdx.x & 31));
}
