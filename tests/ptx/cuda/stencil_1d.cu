// out[i] = sum of in[i-3 .. i+3] (zero outside), with a shared-memory halo; blocks of 128.
#define R 3
#define B 128
extern "C" __global__ void stencil_1d(int n, const float *in, float *out) {
  __shared__ float s[B + 2 * R];
  int g = blockIdx.x * B + threadIdx.x;
  int l = threadIdx.x + R;
  s[l] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < R) {
    int left = g - R, right = g + B;
    s[l - R] = left >= 0 ? in[left] : 0.0f;
    s[l + B] = right < n ? in[right] : 0.0f;
  }
  __syncthreads();
  if (g < n) {
    float acc = 0.0f;
    for (int k = -R; k <= R; k++) acc += s[l + k];
    out[g] = acc;
  }
}
