// Pointers passed to device functions that are never inlined: the callee loads and stores
// through generic addresses that arrive as .param arguments.
static __device__ __noinline__ float load_twice(const float *p, int i) { return p[i] * 2.0f; }
static __device__ __noinline__ void store_sum(float *out, int i, float a, float b) { out[i] = a + b; }
extern "C" __global__ void pointer_calls(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) store_sum(y, i, load_twice(x, i), y[i]);
}
