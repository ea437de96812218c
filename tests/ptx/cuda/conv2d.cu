// 3x3 convolution of a height x width image (zero padding), one thread per output pixel.
extern "C" __global__ void conv2d(int height, int width, const float *img, const float *filter, float *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  float acc = 0.0f;
  for (int dy = -1; dy <= 1; dy++) {
    for (int dx = -1; dx <= 1; dx++) {
      int yy = y + dy, xx = x + dx;
      if (yy >= 0 && yy < height && xx >= 0 && xx < width)
        acc += img[yy * width + xx] * filter[(dy + 1) * 3 + (dx + 1)];
    }
  }
  out[y * width + x] = acc;
}
