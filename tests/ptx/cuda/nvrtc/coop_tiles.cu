// Cooperative groups (cooperative_groups.h): a warp tile and 8-lane tiles, whose shuffles and
// votes carry each lane's tile as a partial member mask (0xff << (lane & 24)) and a clamp of
// 31 outside the segment mask; reductions by cg::reduce, a tile's shfl_down, any, ballot and
// the ranks.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void coop_tiles(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int warp_sum = cg::reduce(warp, v, cg::plus<int>());
  int tile_max = cg::reduce(tile, v, cg::greater<int>());
  int large = tile.any(v > 900);
  unsigned positive = tile.ballot(v > 0);
  int next = tile.shfl_down(v, 1);
  out[i] = warp_sum + tile_max * 3 + large * 7 + (int)__popc(positive) * 11 + next * 13 + (int)tile.thread_rank() + (int)tile.meta_group_rank() * 100;
}
