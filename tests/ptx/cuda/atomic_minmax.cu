// The minimum and maximum of signed ints with atomicMin / atomicMax (out[0] = min, out[1] = max).
extern "C" __global__ void atomic_minmax(int n, const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMin(&out[0], in[i]);
    atomicMax(&out[1], in[i]);
  }
}
