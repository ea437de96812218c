// libcu++'s block-wide cuda::barrier, an mbarrier in shared memory: each round, every thread
// writes its value, arrives and waits (mbarrier.arrive, then test_wait/try_wait on the state
// it returned, backing off by %globaltimer), reads its neighbour's, and does it again before
// the next round overwrites them.
#include <cuda/barrier>

extern "C" __global__ void barrier_phases(const int *in, int *out, int rounds) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int vals[128];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  int acc = 0;
  for (int r = 0; r < rounds; r++) {
    vals[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] * (r + 1);
    bar.arrive_and_wait();
    acc += vals[(threadIdx.x + 1) % blockDim.x];
    bar.arrive_and_wait();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
