// Each thread keeps 16 values in a local array indexed at run time (insertion sort),
// so the array lives in local memory; out gets the sorted values' weighted sum.
extern "C" __global__ void local_array(const unsigned *in, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v[16];
  for (int k = 0; k < 16; k++) v[k] = in[i * 16 + k];
  for (int k = 1; k < 16; k++) {
    unsigned x = v[k];
    int j = k - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
  unsigned acc = 0;
  for (int k = 0; k < 16; k++) acc += (k + 1) * v[k];
  out[i] = acc;
}
