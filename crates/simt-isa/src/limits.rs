//! Every limit simt enforces, in one place: the assembler, the bytecode
//! loader, the host side, the launch checks and the command line read them
//! from here, and `docs/cli.md` lists them (a test walks that table).
//!
//! Each is checked before anything of that size is allocated.

/// The most threads in one block (CUDA's limit).
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// The largest grid extent in x, y and z (CUDA's limits: 2^31 - 1 blocks in x, 65535 in y and z).
pub const MAX_GRID_DIMS: [u32; 3] = [i32::MAX as u32, 65535, 65535];
/// The most blocks one launch may have.
pub const MAX_BLOCKS: u64 = 1 << 32;
/// The most SHARED memory one block may declare (an H100 SM's maximum).
pub const MAX_SHARED_BYTES: u32 = 228 * 1024;
/// The most LOCAL memory one thread may declare.
pub const MAX_LOCAL_BYTES: u32 = 512 * 1024;
/// The most LOCAL memory one block may need (`.local` bytes times threads): it is allocated per resident block.
pub const MAX_LOCAL_BLOCK_BYTES: u64 = 64 << 20;
/// The largest kernel, in instructions (branch targets are 24-bit).
pub const MAX_CODE_LEN: usize = 0xFF_FFFE;
/// The largest constant pool of one kernel.
pub const MAX_POOL_LEN: usize = 1 << 18;
/// The most bytes of GLOBAL buffers one launch may have in all. Buffers lie below 2^32, where a
/// 32-bit address reaches them (`asm/`'s kernels use 32-bit addresses); the top 16 MiB stay
/// unmapped, so no buffer's end or guard wraps around.
pub const MAX_TOTAL_BUFFER_BYTES: u64 = (1 << 32) - (16 << 20);
/// The largest `@FILE` argument: a full buffer plus room for an `.npy` header.
pub const MAX_BUFFER_FILE_BYTES: u64 = MAX_TOTAL_BUFFER_BYTES + (1 << 20);
/// The largest source or bytecode file simt reads (a kernel is at most 16M instructions,
/// but no real one comes near this).
pub const MAX_INPUT_BYTES: u64 = 64 << 20;
/// The longest line of `simt debug` commands, from a file or a pipe: commands are short, and
/// input without line ends (`simt debug K.s </dev/zero`) must end with an error, not fill memory.
pub const MAX_COMMAND_LINE_BYTES: usize = 64 << 10;
/// The most OS threads `--threads` may ask for.
pub const MAX_THREADS: u64 = 1024;
/// Tokens in one statement of `.s` source (a literal list of a million elements, or an
/// address of as many terms, is the most a line holds: larger data belongs in a file).
pub const MAX_LINE_TOKENS: usize = 1 << 20;
/// Diagnostics the assembler renders in full; the rest are counted.
pub const MAX_RENDERED_DIAGNOSTICS: usize = 100;
/// Source lines longer than this are shown as their location only.
pub const LONG_LINE: usize = 1000;
/// The most memory the OS threads of one launch may hold in per-thread state (statistics
/// counters and a resident block) besides the buffers: a launch whose threads would need
/// more runs on fewer threads.
pub const THREAD_STATE_BUDGET: u64 = 512 << 20;
/// The most arguments one `PRINTF` format takes (CUDA's `printf` takes 32 besides the format).
pub const MAX_PRINTF_ARGS: usize = 32;
/// The largest width or precision of a `PRINTF` conversion, written or from an argument.
pub const MAX_PRINTF_FIELD: u32 = 1024;
/// The most bytes of a `%s` string `PRINTF` reads before its NUL.
pub const MAX_PRINTF_STRING: usize = 64 << 10;
/// The default bound on the bytes of the records one launch prints (`--printf-limit`): CUDA
/// keeps 1 MiB and drops the rest; simt keeps every record in order and stops the launch past this.
pub const DEFAULT_PRINTF_LIMIT: u64 = 64 << 20;
/// What one `PRINTF` record costs besides its text, counted against the limit: where it was
/// made (block, interval, warp, thread) and its text's handle, so that the limit bounds the
/// memory the records take however short their texts.
pub const PRINTF_RECORD_BYTES: u64 = 64;
