// probe.cu: microbenchmarks for the rows tests/fidelity has no published figure for, to time on
// an NVIDIA GPU lent to a session and on simt from the same PTX. `regen.py` compiles this file
// with NVRTC into `probe.ptx` (committed); `probe.py` launches that PTX's kernels on the GPU
// (CuPy) or on simt and prints one line a case. docs/timing.md, "Measuring a lent GPU", says
// how to run it.
//
// Cycles are the SM's (clock64), read by the first thread of the block between barriers, so they
// time the whole block. The kernels use inline
// PTX where the instruction form matters (SFU forms, MMA shapes, atomics nvcc would otherwise
// fold across a warp). Kernels are `extern "C"`, one for each chain count a case uses.

typedef unsigned long long uint64_t;
typedef unsigned int uint32_t;

// ---------------------------------------------------------------------------------------------
// SHFL: `ilp` independent chains of dependent shuffles in each warp of the block.

template <int ILP>
__device__ __forceinline__ void shfl_chains(int steps, int *out, long long *cycles) {
    int v[ILP];
#pragma unroll
    for (int i = 0; i < ILP; i++) v[i] = threadIdx.x + i;
    int src = (threadIdx.x + 1) & 31;
    __syncthreads();
    long long start = clock64();
    for (int s = 0; s < steps; s++) {
#pragma unroll
        for (int u = 0; u < 8; u++) {
#pragma unroll
            for (int i = 0; i < ILP; i++) v[i] = __shfl_sync(0xffffffffu, v[i], src);
        }
    }
    __syncthreads();
    long long stop = clock64();
    int sum = 0;
#pragma unroll
    for (int i = 0; i < ILP; i++) sum += v[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) cycles[0] = stop - start;
}

// ---------------------------------------------------------------------------------------------
// SFU forms: `ILP` chains of x = op(x) in one warp, each op one MUFU instruction (not rcp:
// ptxas folds rcp(rcp(x)) to x).

#define SFU_KERNEL(NAME, PTXOP) \
    template <int ILP> \
    __device__ __forceinline__ void NAME(int steps, float *out, long long *cycles) { \
        float v[ILP]; \
        _Pragma("unroll") for (int i = 0; i < ILP; i++) v[i] = 0.5f + 0.001f * (threadIdx.x + i); \
        __syncthreads(); \
        long long start = clock64(); \
        for (int s = 0; s < steps; s++) { \
            _Pragma("unroll") for (int u = 0; u < 8; u++) { \
                _Pragma("unroll") for (int i = 0; i < ILP; i++) asm volatile(PTXOP " %0, %0;" : "+f"(v[i])); \
            } \
        } \
        __syncthreads(); \
        long long stop = clock64(); \
        float sum = 0.0f; \
        _Pragma("unroll") for (int i = 0; i < ILP; i++) sum += v[i]; \
        out[threadIdx.x] = sum; \
        if (threadIdx.x == 0) cycles[0] = stop - start; \
    }

SFU_KERNEL(sfu_ex2, "ex2.approx.ftz.f32")
SFU_KERNEL(sfu_lg2, "lg2.approx.ftz.f32")
SFU_KERNEL(sfu_sin, "sin.approx.ftz.f32")
SFU_KERNEL(sfu_rsqrt, "rsqrt.approx.ftz.f32")

// ---------------------------------------------------------------------------------------------
// Correctly rounded division and square root (ptxas makes them subroutines): one chain in each
// warp of the block, as cuda-incore's DDIV and DSQRT tables run 1-32 warps.

#define CHAIN_KERNEL(NAME, T, FIRST, PTX, CONSTRAINT) \
    extern "C" __global__ void NAME(int steps, T *out, long long *cycles) { \
        T x = FIRST + threadIdx.x * (T)1e-3; \
        __syncthreads(); \
        long long start = clock64(); \
        for (int s = 0; s < steps; s++) asm volatile(PTX : "+" CONSTRAINT(x)); \
        __syncthreads(); \
        long long stop = clock64(); \
        out[blockIdx.x * blockDim.x + threadIdx.x] = x; \
        if (threadIdx.x == 0) cycles[0] = stop - start; \
    }

// The square roots add 1 each step, so the chain does not settle at 1.
CHAIN_KERNEL(ddiv_chain, double, 1.0, "div.rn.f64 %0, 1.0000001, %0;", "d")
CHAIN_KERNEL(dsqrt_chain, double, 2.0, "sqrt.rn.f64 %0, %0;\n\tadd.f64 %0, %0, 1.0;", "d")
CHAIN_KERNEL(fdiv_chain, float, 1.0f, "div.rn.f32 %0, 0f3F800001, %0;", "f")
CHAIN_KERNEL(fsqrt_chain, float, 2.0f, "sqrt.rn.f32 %0, %0;\n\tadd.f32 %0, %0, 0f3F800000;", "f")

// ---------------------------------------------------------------------------------------------
// mma.sync per form: `ILP` accumulators in each warp of the block, each MMA depending on the
// one before on its accumulator. One warp of one chain is the latency; more are the rate. The
// fragments' words differ, as a GEMM's do, so each is its own register.

#define MMA_F32ACC(NAME, SHAPE_TYPES, AREGS) \
    template <int ILP> \
    __device__ __forceinline__ void NAME(int steps, float *out, long long *cycles) { \
        uint32_t a[4] = {0x3c003c00u, 0x3c003c01u, 0x3c003c02u, 0x3c003c03u}; \
        uint32_t b[2] = {0x3c003c04u, 0x3c003c05u}; \
        float d[ILP][4]; \
        _Pragma("unroll") for (int i = 0; i < ILP; i++) d[i][0] = d[i][1] = d[i][2] = d[i][3] = 0.0f; \
        __syncthreads(); \
        long long start = clock64(); \
        for (int s = 0; s < steps; s++) { \
            _Pragma("unroll") for (int i = 0; i < ILP; i++) { \
                asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0,%1,%2,%3}, " AREGS ", {%8,%9}, {%0,%1,%2,%3};" \
                             : "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3]) \
                             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1])); \
            } \
        } \
        __syncthreads(); \
        long long stop = clock64(); \
        float sum = 0.0f; \
        _Pragma("unroll") for (int i = 0; i < ILP; i++) sum += d[i][0] + d[i][1] + d[i][2] + d[i][3]; \
        out[blockIdx.x * blockDim.x + threadIdx.x] = sum; \
        if (threadIdx.x == 0) cycles[0] = stop - start; \
    }

MMA_F32ACC(mma_f16_f32, "m16n8k16.row.col.f32.f16.f16.f32", "{%4,%5,%6,%7}")
MMA_F32ACC(mma_bf16_f32, "m16n8k16.row.col.f32.bf16.bf16.f32", "{%4,%5,%6,%7}")
MMA_F32ACC(mma_tf32_f32, "m16n8k8.row.col.f32.tf32.tf32.f32", "{%4,%5,%6,%7}")

template <int ILP>
__device__ __forceinline__ void mma_f16_f16(int steps, uint32_t *out, long long *cycles) {
    uint32_t a[4] = {0x3c003c00u, 0x3c003c01u, 0x3c003c02u, 0x3c003c03u};
    uint32_t b[2] = {0x3c003c04u, 0x3c003c05u};
    uint32_t d[ILP][2];
#pragma unroll
    for (int i = 0; i < ILP; i++) d[i][0] = d[i][1] = 0u;
    __syncthreads();
    long long start = clock64();
    for (int s = 0; s < steps; s++) {
#pragma unroll
        for (int i = 0; i < ILP; i++) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                         : "+r"(d[i][0]), "+r"(d[i][1])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        }
    }
    __syncthreads();
    long long stop = clock64();
    uint32_t x = 0;
#pragma unroll
    for (int i = 0; i < ILP; i++) x ^= d[i][0] ^ d[i][1];
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
    if (threadIdx.x == 0) cycles[0] = stop - start;
}

template <int ILP>
__device__ __forceinline__ void mma_s8_s32(int steps, int *out, long long *cycles) {
    uint32_t a[4] = {0x01010101u, 0x01010102u, 0x01010103u, 0x01010104u};
    uint32_t b[2] = {0x01010105u, 0x01010106u};
    int d[ILP][4];
#pragma unroll
    for (int i = 0; i < ILP; i++) d[i][0] = d[i][1] = d[i][2] = d[i][3] = 0;
    __syncthreads();
    long long start = clock64();
    for (int s = 0; s < steps; s++) {
#pragma unroll
        for (int i = 0; i < ILP; i++) {
            asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+r"(d[i][0]), "+r"(d[i][1]), "+r"(d[i][2]), "+r"(d[i][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        }
    }
    __syncthreads();
    long long stop = clock64();
    int sum = 0;
#pragma unroll
    for (int i = 0; i < ILP; i++) sum += d[i][0] + d[i][1] + d[i][2] + d[i][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) cycles[0] = stop - start;
}

template <int ILP>
__device__ __forceinline__ void mma_f64(int steps, double *out, long long *cycles) {
    double a = 1.0, b = 1.0;
    double d[ILP][2];
#pragma unroll
    for (int i = 0; i < ILP; i++) d[i][0] = d[i][1] = 0.0;
    __syncthreads();
    long long start = clock64();
    for (int s = 0; s < steps; s++) {
#pragma unroll
        for (int i = 0; i < ILP; i++) {
            asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                         : "+d"(d[i][0]), "+d"(d[i][1])
                         : "d"(a), "d"(b));
        }
    }
    __syncthreads();
    long long stop = clock64();
    double sum = 0.0;
#pragma unroll
    for (int i = 0; i < ILP; i++) sum += d[i][0] + d[i][1];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) cycles[0] = stop - start;
}

// 2:4 sparse f16, metadata selecting the first two of each four (0x4444: indices 0 and 1).
template <int ILP>
__device__ __forceinline__ void mma_sp_f16_f32(int steps, float *out, long long *cycles) {
    uint32_t a[4] = {0x3c003c00u, 0x3c003c01u, 0x3c003c02u, 0x3c003c03u};
    uint32_t b[4] = {0x3c003c04u, 0x3c003c05u, 0x3c003c06u, 0x3c003c07u};
    uint32_t meta = 0x44444444u;
    float d[ILP][4];
#pragma unroll
    for (int i = 0; i < ILP; i++) d[i][0] = d[i][1] = d[i][2] = d[i][3] = 0.0f;
    __syncthreads();
    long long start = clock64();
    for (int s = 0; s < steps; s++) {
#pragma unroll
        for (int i = 0; i < ILP; i++) {
            asm volatile("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, {%0,%1,%2,%3}, %12, 0x0;"
                         : "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(meta));
        }
    }
    __syncthreads();
    long long stop = clock64();
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < ILP; i++) sum += d[i][0] + d[i][1] + d[i][2] + d[i][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) cycles[0] = stop - start;
}

// ---------------------------------------------------------------------------------------------
// Global atomics under contention: every thread adds `iters` times to `counters[slot]`, where
// the slot is 0 for all (one address), the thread's warp (one address a warp, 128 bytes apart)
// or the thread itself (no two lanes on one address). Inline PTX, so nvcc does not fold a
// warp's adds into one; the value differs per lane for the same reason.

extern "C" __global__ void atomics(unsigned *counters, int mode, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned slot = mode == 0 ? 0u : mode == 1 ? (tid / 32u) * 32u : tid;
    unsigned *p = counters + slot;
    unsigned add = threadIdx.x + 1u;
    for (int i = 0; i < iters; i++) {
        unsigned old;
        asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(add) : "memory");
        add += old & 1u;
    }
}

// ---------------------------------------------------------------------------------------------
// Pointer chase: `slots` slots `stride` bytes apart, each holding the byte offset of the next
// in a full-period linear congruential order (as asm/bench/chase_random.s walks them); one
// thread runs `warm` hops untimed, then `hops` timed.

extern "C" __global__ void chase_init(unsigned char *base, uint64_t slots, uint64_t stride) {
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    for (; i < slots; i += (uint64_t)gridDim.x * blockDim.x) {
        // Full period modulo a power of two: c odd, a - 1 a multiple of 4 (Hull-Dobell).
        uint64_t next = (i * 0x5DEECE66Dull * 4ull + i + 11ull) & (slots - 1);
        *(uint64_t *)(base + i * stride) = next * stride;
    }
}

extern "C" __global__ void chase(const unsigned char *base, uint64_t warm, uint64_t hops, uint64_t *out, long long *cycles) {
    uint64_t off = 0;
    for (uint64_t h = 0; h < warm; h++) off = *(const uint64_t *)(base + off);
    long long start = clock64();
    for (uint64_t h = 0; h < hops; h++) off = *(const uint64_t *)(base + off);
    __syncthreads();
    long long stop = clock64();
    out[0] = off;
    cycles[0] = stop - start;
}


// ---------------------------------------------------------------------------------------------
// The kernels the cases launch: NAME_ILP.

#define INSTANCE(NAME, T, ILP) \
    extern "C" __global__ void NAME##_##ILP(int steps, T *out, long long *cycles) { NAME<ILP>(steps, out, cycles); }

INSTANCE(shfl_chains, int, 1)
INSTANCE(shfl_chains, int, 4)
INSTANCE(shfl_chains, int, 8)
#define SFU_INSTANCES(NAME) INSTANCE(NAME, float, 1) INSTANCE(NAME, float, 8) INSTANCE(NAME, float, 32)
SFU_INSTANCES(sfu_ex2)
SFU_INSTANCES(sfu_lg2)
SFU_INSTANCES(sfu_sin)
SFU_INSTANCES(sfu_rsqrt)
#define MMA_INSTANCES(NAME, T) INSTANCE(NAME, T, 1) INSTANCE(NAME, T, 4) INSTANCE(NAME, T, 8)
MMA_INSTANCES(mma_f16_f32, float)
MMA_INSTANCES(mma_f16_f16, uint32_t)
MMA_INSTANCES(mma_bf16_f32, float)
MMA_INSTANCES(mma_tf32_f32, float)
MMA_INSTANCES(mma_s8_s32, int)
MMA_INSTANCES(mma_f64, double)
MMA_INSTANCES(mma_sp_f16_f32, float)
