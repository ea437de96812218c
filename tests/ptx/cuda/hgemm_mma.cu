// D = A * B for one 16x16 tile of f16 (A 16x16 row-major, B 16x16 as 16 columns of 16,
// i.e. B^T row-major) with f32 accumulation, using two mma.sync.m16n8k16 per warp
// (one per 8-column half of D). One warp; needs sm_80.
extern "C" __global__ void hgemm_mma(const unsigned short *A, const unsigned short *Bt, float *D) {
  int lane = threadIdx.x;
  int group = lane >> 2, quad = lane & 3;
  const unsigned *a32 = (const unsigned *)A;
  const unsigned *b32 = (const unsigned *)Bt;
  // A fragment: rows group and group + 8, columns 2*quad (+1) and 2*quad + 8 (+1).
  unsigned a0 = a32[(group * 16 + 2 * quad) / 2];
  unsigned a1 = a32[((group + 8) * 16 + 2 * quad) / 2];
  unsigned a2 = a32[(group * 16 + 2 * quad + 8) / 2];
  unsigned a3 = a32[((group + 8) * 16 + 2 * quad + 8) / 2];
  for (int half = 0; half < 2; half++) {
    int n = half * 8 + group;
    // B fragment: column n, rows 2*quad (+1) and 2*quad + 8 (+1).
    unsigned b0 = b32[(n * 16 + 2 * quad) / 2];
    unsigned b1 = b32[(n * 16 + 2 * quad + 8) / 2];
    float d0, d1, d2, d3;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1), "f"(0.0f), "f"(0.0f), "f"(0.0f), "f"(0.0f));
    int col = half * 8 + 2 * quad;
    D[group * 16 + col] = d0;
    D[group * 16 + col + 1] = d1;
    D[(group + 8) * 16 + col] = d2;
    D[(group + 8) * 16 + col + 1] = d3;
  }
}
