// A loop whose trip count differs per lane (Collatz steps of the input), so warps diverge.
extern "C" __global__ void divergent_loop(int n, const unsigned *in, unsigned *steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], count = 0;
  while (x > 1 && count < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    count++;
  }
  steps[i] = count;
}
