/* simt.h: simt as a C library (libsimt.so; libgpuocelot.so exports the same functions).
 *
 * Load a module from PTX or .s text, launch its kernels over your own memory, read what
 * went wrong as text. Kernels read and write host memory in place (no copies); every
 * access is checked against the memory an argument lends, so a bad pointer is a reported
 * fault, never a crash of your process. See docs/c-api.md.
 *
 * Errors: a function that fails returns NULL or a non-zero code and sets the calling
 * thread's last error (simt_last_error). All functions may be called from several threads.
 */
#ifndef SIMT_H
#define SIMT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct simt_module simt_module;

/* Reads a module from `len` bytes of text: PTX when `name` ends in ".ptx" or the text
 * starts with `.version`, simt assembly otherwise. `name` (may be NULL) names the text in
 * messages. Returns NULL on error, with every diagnostic in simt_last_error(). */
simt_module *simt_module_load(const char *text, size_t len, const char *name);
void simt_module_free(simt_module *module);
size_t simt_module_kernel_count(const simt_module *module);
/* The name of kernel `index`, NULL past the last; valid while the module lives. */
const char *simt_module_kernel_name(const simt_module *module, size_t index);

enum { SIMT_ARG_WORD = 0, SIMT_ARG_FLOAT = 1, SIMT_ARG_BUFFER = 2 };

/* One kernel argument, matched to the parameter in the same position. Make them with the
 * helpers below rather than by hand. */
typedef struct simt_arg {
  uint32_t kind;
  uint64_t bits;  /* SIMT_ARG_WORD: a scalar's bits (the low 32 for a 32-bit parameter), or
                     for a pointer parameter a host address (0 is NULL): it reaches to the end
                     of its simt_register()ed allocation, else of its memory mapping */
  double number;  /* SIMT_ARG_FLOAT: the value of an .f32 or .f64 parameter */
  void *ptr;      /* SIMT_ARG_BUFFER: `len` bytes of your memory for a pointer parameter; */
  size_t len;     /*   the kernel reaches exactly these */
} simt_arg;

static inline simt_arg simt_arg_u32(uint32_t v) { simt_arg a = {SIMT_ARG_WORD, v, 0, NULL, 0}; return a; }
static inline simt_arg simt_arg_i32(int32_t v) { return simt_arg_u32((uint32_t)v); }
static inline simt_arg simt_arg_u64(uint64_t v) { simt_arg a = {SIMT_ARG_WORD, v, 0, NULL, 0}; return a; }
static inline simt_arg simt_arg_f32(float v) { simt_arg a = {SIMT_ARG_FLOAT, 0, v, NULL, 0}; return a; }
static inline simt_arg simt_arg_f64(double v) { simt_arg a = {SIMT_ARG_FLOAT, 0, v, NULL, 0}; return a; }
static inline simt_arg simt_arg_buffer(void *ptr, size_t len) { simt_arg a = {SIMT_ARG_BUFFER, 0, 0, ptr, len}; return a; }
static inline simt_arg simt_arg_address(const void *ptr) { return simt_arg_u64((uint64_t)(uintptr_t)ptr); }

/* What a launch did. */
typedef struct simt_stats {
  uint64_t blocks, warps, threads;
  uint64_t warp_instructions, thread_instructions;
  double simd_efficiency; /* thread_instructions / (32 * warp_instructions) */
} simt_stats;

enum { SIMT_OK = 0, SIMT_REFUSED = 1, SIMT_FAULT = 2 };

/* Runs kernel `kernel` of `module` on grid[0..3] blocks of block[0..3] threads, with
 * `shared_bytes` of dynamic shared memory per block (CUDA's sharedMemBytes: what a PTX
 * `.extern .shared` array addresses, after the static shared variables). Returns
 * SIMT_OK (and fills `stats`, which may be NULL), SIMT_REFUSED (nothing ran: wrong
 * arguments or shape) or SIMT_FAULT (the kernel faulted; the memory it was lent holds what
 * it stored before the fault). The message is in simt_last_error(). */
int simt_launch(const simt_module *module, const char *kernel, const simt_arg *args, size_t n_args,
                const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes, simt_stats *stats);

/* Registers [ptr, ptr + len) as one of your allocations, so pointer arguments into it reach
 * exactly its end (an overrun is a fault) instead of the end of its mapping. */
int simt_register(const void *ptr, size_t len);
/* Forgets the allocation registered at `ptr`: 0, or -1 if none was. */
int simt_unregister(const void *ptr);

/* The last error of the calling thread ("" after a success); valid until its next call. */
const char *simt_last_error(void);

/* GPU Ocelot's entry point, as tinygrad's mock CUDA driver calls it: runs the first kernel
 * of the NUL-terminated PTX once. args[i] is the i-th parameter's value (a host address for
 * a pointer); block comes before grid; shared_mem_size is the dynamic shared memory per
 * block. Errors and faults are printed to stderr and kept in simt_last_error(). */
void ptx_run(const char *ptx, int n_args, void **args, int block_x, int block_y, int block_z,
             int grid_x, int grid_y, int grid_z, int shared_mem_size);

#ifdef __cplusplus
}
#endif

#endif /* SIMT_H */
