// nvcuda::wmma on 8-bit integers: A row-major (one 8-byte access a lane), B row-major (each
// lane's column one byte at a time, packed four to a register), s32 accumulators filled
// with 7, D = A B + 7, stored row-major.
#include <mma.h>
using namespace nvcuda;

extern "C" __global__ void wmma_s8(const signed char *a, const signed char *b, int *d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 7);
  wmma::load_matrix_sync(fa, a + blockIdx.x * 256, 16);
  wmma::load_matrix_sync(fb, b + blockIdx.x * 256, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + blockIdx.x * 256, fc, 16, wmma::mem_row_major);
}
