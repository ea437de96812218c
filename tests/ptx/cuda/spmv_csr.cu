// y = A x for a CSR matrix, one thread per row.
extern "C" __global__ void spmv_csr(int rows, const int *row_ptr, const int *col_idx, const float *vals, const float *x, float *y) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int j = row_ptr[r]; j < row_ptr[r + 1]; j++) acc += vals[j] * x[col_idx[j]];
    y[r] = acc;
  }
}
