// CUDA's warp matrix API (nvcuda::wmma from mma.h, PTX wmma.load/mma/store m16n16k16) on
// every layout: block k multiplies the 16 x 16 tiles at the start of its 32 x 32 matrices
// (leading dimension 32), A column-major when bit 0 of k is set, B row-major for bit 1,
// C and D column-major for bit 2, A staged through shared memory for bit 3, and scales the
// accumulator by 0.5 element by element before the multiply: D = A B + C / 2.
#include <mma.h>
using namespace nvcuda;

template <typename LA, typename LB>
__device__ void tile(const __half *a, const __half *b, const float *c, float *d, bool dcol) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, LA> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, LB> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 32);
  wmma::load_matrix_sync(fc, c, 32, dcol ? wmma::mem_col_major : wmma::mem_row_major);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] *= 0.5f;
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 32, dcol ? wmma::mem_col_major : wmma::mem_row_major);
}

extern "C" __global__ void wmma_tiles(const __half *a, const __half *b, const float *c, float *d) {
  __shared__ __half staged[32 * 32];
  int k = blockIdx.x;
  const __half *pa = a + k * 32 * 32;
  if (k & 8) {
    for (int i = threadIdx.x; i < 32 * 32; i += 32) staged[i] = pa[i];
    __syncwarp();
    pa = staged;
  }
  const __half *pb = b + k * 32 * 32;
  const float *pc = c + k * 32 * 32;
  float *pd = d + k * 32 * 32;
  bool dcol = k & 4;
  switch (k & 3) {
    case 0: tile<wmma::row_major, wmma::col_major>(pa, pb, pc, pd, dcol); break;
    case 1: tile<wmma::col_major, wmma::col_major>(pa, pb, pc, pd, dcol); break;
    case 2: tile<wmma::row_major, wmma::row_major>(pa, pb, pc, pd, dcol); break;
    default: tile<wmma::col_major, wmma::row_major>(pa, pb, pc, pd, dcol); break;
  }
}
