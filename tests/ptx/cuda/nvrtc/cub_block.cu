// CUB's block-wide primitives (header-only C++ templates, as NVRTC compiles them from the
// CCCL headers): a sum, an inclusive scan and a radix sort of each block's 512 keys, four
// per thread. Their PTX wraps its inline assembly in { } blocks that declare registers of
// their own, and uses shfl, bfe, prmt and vote the way library code does.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

extern "C" __global__ void cub_block(const int *x, const unsigned *keys, int *sums, int *scan, unsigned *sorted) {
  typedef cub::BlockReduce<int, 128> Reduce;
  typedef cub::BlockScan<int, 128> Scan;
  typedef cub::BlockRadixSort<unsigned, 128, 4> Sort;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
    typename Sort::TempStorage sort;
  } temp;
  int i = blockIdx.x * 128 + threadIdx.x;
  int v = x[i];
  int sum = Reduce(temp.reduce).Sum(v);
  if (threadIdx.x == 0) sums[blockIdx.x] = sum;
  __syncthreads();
  int prefix;
  Scan(temp.scan).InclusiveSum(v, prefix);
  scan[i] = prefix;
  __syncthreads();
  unsigned k[4];
  for (int j = 0; j < 4; j++) k[j] = keys[blockIdx.x * 512 + threadIdx.x * 4 + j];
  Sort(temp.sort).Sort(k);
  for (int j = 0; j < 4; j++) sorted[blockIdx.x * 512 + threadIdx.x * 4 + j] = k[j];
}
