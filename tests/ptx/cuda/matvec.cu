// y = A x for a dense rows x cols matrix, one warp per row with a shuffle reduction.
extern "C" __global__ void matvec(int rows, int cols, const float *A, const float *x, float *y) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float acc = 0.0f;
  for (int j = lane; j < cols; j += 32) acc += A[row * cols + j] * x[j];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) y[row] = acc;
}
