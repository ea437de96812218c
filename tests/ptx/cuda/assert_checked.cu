// A device assert that holds for the corpus inputs (tests/cli.rs runs one that fails).
extern "C" __global__ void assert_checked(int n, const int *x, int *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    assert(x[i] >= 0);
    y[i] = x[i] * 2;
  }
}
