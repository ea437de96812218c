// Conversions: int to float, float to int (truncating), float to double and back, and
// unsigned bytes widened and narrowed.
extern "C" __global__ void convert(int n, const int *ints, const float *floats, const unsigned char *bytes, float *f_out, int *i_out, double *d_out, unsigned char *b_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  f_out[i] = (float)ints[i] * 0.5f;
  i_out[i] = (int)(floats[i] * 1000.0f - 500.0f) + (int)bytes[i];
  d_out[i] = (double)floats[i] * 3.0;
  b_out[i] = (unsigned char)(bytes[i] * 3 + 1);
}
