// Row-wise softmax, one block of 128 threads per row: max, sum of exponentials, division.
extern "C" __global__ void softmax(int cols, const float *in, float *out) {
  __shared__ float red[128];
  const float *x = in + blockIdx.x * cols;
  float *y = out + blockIdx.x * cols;
  int t = threadIdx.x;
  float m = -3.0e38f;
  for (int j = t; j < cols; j += blockDim.x) m = fmaxf(m, x[j]);
  red[t] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int j = t; j < cols; j += blockDim.x) sum += expf(x[j] - m);
  red[t] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  sum = red[0];
  for (int j = t; j < cols; j += blockDim.x) y[j] = expf(x[j] - m) / sum;
}
