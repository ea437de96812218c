// A chain of device functions that are never inlined: call, .param passing, ret.
static __device__ __noinline__ float square(float x) { return x * x; }
static __device__ __noinline__ float poly(float x, float a, float b) { return a * square(x) + b * x + 1.0f; }
static __device__ __noinline__ int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
extern "C" __global__ void device_calls(int n, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = clamp_index(i - 1, n);
  if (i < n) y[i] = poly(x[i], 2.0f, -3.0f) + square(x[j]);
}
