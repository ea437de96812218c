// A minimal CUDA prelude for compiling the corpus with clang and no CUDA SDK:
//   clang -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 \
//         -include prelude.h -S -o out.ptx kernel.cu
// Everything maps onto clang's own NVPTX builtins, so the PTX is what clang
// emits for the same code written against the SDK's headers (math functions
// are the fast intrinsic forms: no libdevice).
#pragma once

#include "__clang_cuda_builtin_vars.h"

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))

#define DEVICE static __device__ __forceinline__

typedef unsigned int uint32;

// Barriers and warp collectives.
DEVICE void __syncwarp(unsigned mask = 0xffffffffu) { __nvvm_bar_warp_sync(mask); }
DEVICE int __syncthreads_count(int pred) { return __nvvm_bar0_popc(pred); }
DEVICE int __syncthreads_and(int pred) { return __nvvm_bar0_and(pred); }
DEVICE int __syncthreads_or(int pred) { return __nvvm_bar0_or(pred); }
DEVICE int __shfl_sync(unsigned mask, int v, int lane) { return __nvvm_shfl_sync_idx_i32(mask, v, lane, 0x1f); }
DEVICE float __shfl_sync(unsigned mask, float v, int lane) { return __nvvm_shfl_sync_idx_f32(mask, v, lane, 0x1f); }
DEVICE int __shfl_up_sync(unsigned mask, int v, unsigned delta) { return __nvvm_shfl_sync_up_i32(mask, v, delta, 0); }
DEVICE float __shfl_up_sync(unsigned mask, float v, unsigned delta) { return __nvvm_shfl_sync_up_f32(mask, v, delta, 0); }
DEVICE int __shfl_down_sync(unsigned mask, int v, unsigned delta) { return __nvvm_shfl_sync_down_i32(mask, v, delta, 0x1f); }
DEVICE float __shfl_down_sync(unsigned mask, float v, unsigned delta) { return __nvvm_shfl_sync_down_f32(mask, v, delta, 0x1f); }
DEVICE int __shfl_xor_sync(unsigned mask, int v, int lane_mask) { return __nvvm_shfl_sync_bfly_i32(mask, v, lane_mask, 0x1f); }
DEVICE float __shfl_xor_sync(unsigned mask, float v, int lane_mask) { return __nvvm_shfl_sync_bfly_f32(mask, v, lane_mask, 0x1f); }
DEVICE unsigned __ballot_sync(unsigned mask, int pred) { return __nvvm_vote_ballot_sync(mask, pred); }
DEVICE int __all_sync(unsigned mask, int pred) { return __nvvm_vote_all_sync(mask, pred); }
DEVICE int __any_sync(unsigned mask, int pred) { return __nvvm_vote_any_sync(mask, pred); }
DEVICE unsigned __match_any_sync(unsigned mask, int v) { return __nvvm_match_any_sync_i32(mask, v); }
DEVICE int __reduce_add_sync(unsigned mask, int v) { return __nvvm_redux_sync_add(v, mask); }
DEVICE int __reduce_min_sync(unsigned mask, int v) { return __nvvm_redux_sync_min(v, mask); }
DEVICE int __reduce_max_sync(unsigned mask, int v) { return __nvvm_redux_sync_max(v, mask); }
DEVICE unsigned __reduce_or_sync(unsigned mask, unsigned v) { return __nvvm_redux_sync_or(v, mask); }
DEVICE unsigned __reduce_xor_sync(unsigned mask, unsigned v) { return __nvvm_redux_sync_xor(v, mask); }
DEVICE unsigned __match_all_sync(unsigned mask, int v, int *pred) { return __nvvm_match_all_sync_i32p(mask, v, pred); }
DEVICE unsigned __lane_id() { return __nvvm_read_ptx_sreg_laneid(); }
DEVICE unsigned __activemask() {
  unsigned mask;
  asm volatile("activemask.b32 %0;" : "=r"(mask));
  return mask;
}

// Atomics (generic addresses, as the SDK's atomicAdd and friends are).
DEVICE int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
DEVICE unsigned atomicAdd(unsigned *p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v); }
DEVICE float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
DEVICE int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
DEVICE int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
DEVICE int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
DEVICE int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
DEVICE unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { return __nvvm_atom_add_gen_ll((long long *)p, (long long)v); }
DEVICE double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
DEVICE long long atomicMax(long long *p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
DEVICE unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v) {
  return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)cmp, (long long)v);
}

// Math: the fast hardware forms.
DEVICE float expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
DEVICE float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
DEVICE float sqrtf(float x) { return __nvvm_sqrt_rn_f(x); }
DEVICE float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
DEVICE float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
DEVICE float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
DEVICE float fabsf(float x) { return __nvvm_fabs_f(x); }
DEVICE int __popc(unsigned x) { return __builtin_popcount(x); }
DEVICE int __clz(int x) { return __builtin_clz((unsigned)x) /* clz(0) is 32 in PTX */; }
DEVICE unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
DEVICE float floorf(float x) { return __builtin_floorf(x); }
DEVICE float ceilf(float x) { return __builtin_ceilf(x); }
DEVICE float truncf(float x) { return __builtin_truncf(x); }
DEVICE float rintf(float x) { return __builtin_rintf(x); }
DEVICE float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
DEVICE int __float2int_rn(float x) { return __nvvm_f2i_rn(x); }
DEVICE double sqrt(double x) { return __nvvm_sqrt_rn_d(x); }
DEVICE double fabs(double x) { return __builtin_fabs(x); }
DEVICE double floor(double x) { return __builtin_floor(x); }
DEVICE double rint(double x) { return __builtin_rint(x); }
DEVICE double fmin(double a, double b) { return __nvvm_fmin_d(a, b); }
DEVICE double fmax(double a, double b) { return __nvvm_fmax_d(a, b); }
DEVICE long long __float2ll_rn(float x) { return __nvvm_f2ll_rn(x); }
DEVICE unsigned __float_as_uint(float x) { return (unsigned)__nvvm_bitcast_f2i(x); }
DEVICE int min(int a, int b) { return a < b ? a : b; }
DEVICE int max(int a, int b) { return a > b ? a : b; }

// Vector types with the alignment the SDK gives them, so clang emits .v2/.v4 accesses.
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };

// Bits and wide products (the SDK writes the funnel shifts as inline asm too).
DEVICE unsigned __byte_perm(unsigned x, unsigned y, unsigned s) { return __nvvm_prmt(x, y, s); }
DEVICE unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  unsigned r;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
DEVICE unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  unsigned r;
  asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(lo), "r"(hi), "r"(shift));
  return r;
}
DEVICE unsigned long long __umul64hi(unsigned long long a, unsigned long long b) { return __nvvm_mulhi_ull(a, b); }
DEVICE long long __mul64hi(long long a, long long b) { return __nvvm_mulhi_ll(a, b); }

// CUDA's device printf: clang lowers a call of it to the runtime's `vprintf`.
extern "C" __device__ int printf(const char *format, ...);

// CUDA's device assert: a failed one calls the runtime's `__assertfail`.
extern "C" __device__ void __assertfail(const char *message, const char *file, unsigned line, const char *function, unsigned long size);
#define assert(e) ((e) ? (void)0 : __assertfail(#e, __FILE__, __LINE__, __func__, 1))
