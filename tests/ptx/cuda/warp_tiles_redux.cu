// sm_80 collectives over partial member masks: each 8-lane tile's sum, minimum and xor by
// redux.sync on the tile's mask (0xff << (lane & 24)), whether a tile's lanes agree
// (__match_all_sync and its predicate) and which of them agree (__match_any_sync), and the
// largest value among the lanes that took a branch (__activemask()). Six ints per thread.
extern "C" __global__ void warp_tiles_redux(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  unsigned lane = __lane_id();
  unsigned tile = 0xffu << (lane & 24);
  int *o = out + 6 * i;
  o[0] = __reduce_add_sync(tile, v);
  o[1] = __reduce_min_sync(tile, v);
  o[2] = (int)__reduce_xor_sync(tile, (unsigned)v);
  int agree;
  unsigned same = __match_all_sync(tile, v >> 8, &agree);
  o[3] = (int)same + agree;
  o[4] = (int)__match_any_sync(tile, v & 1);
  int odd = 0;
  if (v & 1) odd = __reduce_max_sync(__activemask(), v);
  o[5] = odd;
}
