// A struct passed by value: the kernel reads its fields from the parameter's bytes
// (`ld.param [p+4]`), as CUDA code that bundles its arguments does.
struct Affine {
  float scale;
  float shift;
  int n;
};

extern "C" __global__ void struct_param(Affine f, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < f.n) y[i] = x[i] * f.scale + f.shift;
}
