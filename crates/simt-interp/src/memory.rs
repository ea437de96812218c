//! GLOBAL memory: host-created buffers at 256-byte aligned addresses.
//!
//! SMs run on several OS threads and share this memory, so words are atomics:
//! plain loads and stores are `Relaxed` (ordinary moves on x86), and `ATOM`
//! uses real read-modify-write operations. Race-free kernels therefore see
//! the same values whatever the thread count.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};


/// Address of the first buffer; everything below, address 0 included, is unmapped.
pub const FIRST_BUFFER: u32 = 0x100;
/// Unmapped bytes left after every buffer, so small overruns fault instead of
/// landing in the next buffer.
pub const GUARD_BYTES: u32 = 0x100;
use simt_isa::MAX_TOTAL_BUFFER_BYTES as MAX_TOTAL_BYTES;

// GLOBAL memory keeps bytes as words whose in-memory order is the byte order.
#[cfg(target_endian = "big")]
compile_error!("simt keeps memory as little-endian words and needs a little-endian host");

/// Little-endian words of `bytes`, the last one zero-padded.
pub(crate) fn words_of(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes.chunks(4).map(|c| {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        u32::from_le_bytes(w)
    })
}

/// Bytes held as 32-bit words, the form GLOBAL memory keeps, so a buffer made by
/// the host moves into memory without a copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordBytes {
    words: Vec<u32>,
    len: usize,
}

impl WordBytes {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> WordBytes {
        let words = vec![0; len.div_ceil(4)];
        advise_huge_pages(&words);
        WordBytes { words, len }
    }

    /// A copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> WordBytes {
        let mut out = WordBytes::zeroed(bytes.len());
        out.as_bytes_mut().copy_from_slice(bytes);
        out
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &bytemuck::cast_slice(&self.words)[..self.len]
    }

    /// The bytes, to fill.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        &mut bytemuck::cast_slice_mut(&mut self.words)[..self.len]
    }

    /// How many bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Asks the kernel to back a large, not yet touched allocation with 2 MiB pages.
///
/// A large `vec![0; n]` is fresh zero pages from `mmap`; filling 128 MiB of them
/// 4 KiB at a time costs 32,768 page faults, a tenth of a second of system time
/// before a kernel runs. Huge pages cut that 512-fold. It is advice: a kernel
/// without transparent huge pages, or any error, leaves ordinary pages.
fn advise_huge_pages(words: &[u32]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = words.as_ptr() as usize;
        let end = start + std::mem::size_of_val(words);
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if first < last {
            // SAFETY: the range lies inside `words`' allocation, and MADV_HUGEPAGE
            // changes how pages are backed, never their contents.
            unsafe { libc::madvise(first as *mut libc::c_void, last - first, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = words;
}

/// The same words, now shareable between SM threads, without touching them: a
/// launch's buffers can be a quarter of a gigabyte.
fn atomic_words(words: Box<[u32]>) -> Box<[AtomicU32]> {
    const _: () = assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>());
    // SAFETY: `AtomicU32` has the size and bit validity of `u32` (its documentation
    // promises both) and, checked above, its alignment; the box gives up its pointer.
    unsafe { Box::from_raw(Box::into_raw(words) as *mut [AtomicU32]) }
}

/// Buffers are read out in pieces of this many words, so a dump of a large one
/// never needs a second copy of it.
const PIECE: usize = 1 << 16;

/// One host buffer.
#[derive(Debug)]
pub struct Buffer {
    /// The parameter (or caller-chosen) name, for messages.
    pub name: String,
    /// GLOBAL address of the first byte.
    pub base: u32,
    /// Size in bytes.
    pub len: u32,
    words: Box<[AtomicU32]>,
}

impl Buffer {
    /// A copy of the contents.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = vec![0u8; self.len as usize];
        let _ = self.for_each_piece(|at, bytes| {
            out[at..at + bytes.len()].copy_from_slice(bytes);
            Ok::<(), ()>(())
        });
        out
    }

    /// Hands the contents to `f` a piece at a time on every core (`f(offset, bytes)`),
    /// stopping at the first error: how a large dump is written out.
    ///
    /// # Errors
    /// The first error `f` returned.
    pub fn par_for_each_piece<E: Send>(&self, f: impl Fn(usize, &[u8]) -> Result<(), E> + Sync) -> Result<(), E> {
        use rayon::prelude::*;
        self.words.par_chunks(PIECE).enumerate().try_for_each_init(
            || Vec::with_capacity(4 * PIECE),
            |piece, (i, words)| {
                piece.clear();
                piece.extend(words.iter().flat_map(|w| w.load(Relaxed).to_le_bytes()));
                let at = 4 * PIECE * i;
                piece.truncate((self.len as usize).saturating_sub(at));
                f(at, piece)
            },
        )
    }

    /// Hands the contents to `f` in order, a piece at a time (`f(offset, bytes)`),
    /// without copying the whole buffer: how dumps stream a large buffer out. Pieces
    /// are a multiple of 8 bytes long (but the last), so no element is ever split.
    ///
    /// # Errors
    /// The first error `f` returned.
    pub fn for_each_piece<E>(&self, mut f: impl FnMut(usize, &[u8]) -> Result<(), E>) -> Result<(), E> {
        let mut piece = Vec::with_capacity(4 * PIECE);
        for (i, words) in self.words.chunks(PIECE).enumerate() {
            piece.clear();
            piece.extend(words.iter().flat_map(|w| w.load(Relaxed).to_le_bytes()));
            let at = 4 * PIECE * i;
            piece.truncate((self.len as usize).saturating_sub(at));
            f(at, &piece)?;
        }
        Ok(())
    }
}

/// Encountered when buffers cannot be created.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MemoryError {
    /// The buffers would not fit the address space or the limit.
    #[error(
        "buffer `{name}` of {bytes} bytes does not fit: all buffers of a launch may hold at most {MAX_TOTAL_BYTES} bytes together"
    )]
    TooLarge {
        /// Buffer name.
        name: String,
        /// Requested size.
        bytes: u64,
    },
}

/// All GLOBAL buffers of a launch.
#[derive(Debug, Default)]
pub struct GlobalMemory {
    buffers: Vec<Buffer>,
}

/// Why a GLOBAL access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessError {
    /// Address 0 .. 255.
    Null,
    /// No buffer contains the address.
    Unmapped,
    /// The access starts inside buffer `index` but runs past its end.
    OutOfBounds(usize),
}

impl GlobalMemory {
    /// No buffers.
    pub fn new() -> GlobalMemory {
        GlobalMemory::default()
    }

    /// Creates a buffer holding `bytes` (taken without a copy) and returns its GLOBAL address.
    ///
    /// # Errors
    /// When the buffers of the launch would exceed [`MAX_TOTAL_BYTES`].
    pub fn alloc(&mut self, name: &str, bytes: WordBytes) -> Result<u32, MemoryError> {
        let base = self.buffers.last().map_or(u64::from(FIRST_BUFFER), |b| {
            (u64::from(b.base) + u64::from(b.len) + u64::from(GUARD_BYTES)).next_multiple_of(256)
        });
        let end = base + bytes.len() as u64;
        if end > MAX_TOTAL_BYTES {
            return Err(MemoryError::TooLarge { name: name.to_string(), bytes: bytes.len() as u64 });
        }
        let len = bytes.len() as u32;
        let words = atomic_words(bytes.words.into_boxed_slice());
        self.buffers.push(Buffer { name: name.to_string(), base: base as u32, len, words });
        Ok(base as u32)
    }

    /// All buffers in address order.
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The buffer called `name`.
    pub fn buffer(&self, name: &str) -> Option<&Buffer> {
        self.buffers.iter().find(|b| b.name == name)
    }

    /// The buffer at `index`.
    pub fn buffer_at(&self, index: usize) -> &Buffer {
        &self.buffers[index]
    }

    /// Finds the buffer holding `[addr, addr + size)`; `hint` is tried first.
    #[inline]
    pub fn locate(&self, addr: u32, size: u32, hint: &mut usize) -> Result<(usize, u32), AccessError> {
        if let Some(b) = self.buffers.get(*hint) {
            let off = addr.wrapping_sub(b.base);
            if off < b.len && b.len - off >= size {
                return Ok((*hint, off));
            }
        }
        self.locate_slow(addr, size, hint)
    }

    #[cold]
    fn locate_slow(&self, addr: u32, size: u32, hint: &mut usize) -> Result<(usize, u32), AccessError> {
        if addr < FIRST_BUFFER {
            return Err(AccessError::Null);
        }
        let i = self.buffers.partition_point(|b| b.base <= addr);
        let Some(index) = i.checked_sub(1) else { return Err(AccessError::Unmapped) };
        let b = &self.buffers[index];
        let off = addr - b.base;
        // Addresses in the guard gap after a buffer are overruns of that buffer.
        if off >= b.len.saturating_add(GUARD_BYTES) {
            return Err(AccessError::Unmapped);
        }
        if off >= b.len || b.len - off < size {
            return Err(AccessError::OutOfBounds(index));
        }
        *hint = index;
        Ok((index, off))
    }

    /// The words of the buffer holding all of `[lo, end)`, and the buffer's base address.
    #[inline]
    pub(crate) fn span(&self, lo: u32, end: u64, hint: &mut usize) -> Option<(&[AtomicU32], u32)> {
        let size = u32::try_from(end.checked_sub(u64::from(lo))?).ok()?;
        let (index, _) = self.locate(lo, size, hint).ok()?;
        let b = &self.buffers[index];
        Some((&b.words, b.base))
    }

    /// Reads `size` (1, 2 or 4) bytes at byte offset `off` of buffer `index`; `off` is aligned to `size`.
    #[inline]
    pub fn read(&self, index: usize, off: u32, size: u32) -> u32 {
        let word = self.buffers[index].words[(off / 4) as usize].load(Relaxed);
        match size {
            4 => word,
            _ => (word >> ((off % 4) * 8)) & ((1u32 << (size * 8)) - 1),
        }
    }

    /// Writes the low `size` (1, 2 or 4) bytes of `value` at aligned byte offset `off`.
    #[inline]
    pub fn write(&self, index: usize, off: u32, size: u32, value: u32) {
        let word = &self.buffers[index].words[(off / 4) as usize];
        match size {
            4 => word.store(value, Relaxed),
            _ => {
                let shift = (off % 4) * 8;
                let mask = ((1u32 << (size * 8)) - 1) << shift;
                // Neighbouring bytes may belong to other threads' elements: merge atomically.
                let _ = word.fetch_update(Relaxed, Relaxed, |w| Some((w & !mask) | ((value << shift) & mask)));
            }
        }
    }

    /// Atomically replaces the word at aligned offset `off` with `f(old)` and returns the old value.
    #[inline]
    pub fn update(&self, index: usize, off: u32, f: impl Fn(u32) -> u32) -> u32 {
        let word = &self.buffers[index].words[(off / 4) as usize];
        match word.fetch_update(Relaxed, Relaxed, |w| Some(f(w))) {
            Ok(old) | Err(old) => old,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_guarded_and_never_at_zero() {
        let mut m = GlobalMemory::new();
        let a = m.alloc("a", WordBytes::from_bytes(&[1, 2, 3, 4, 5])).unwrap();
        let b = m.alloc("b", WordBytes::zeroed(8)).unwrap();
        assert_eq!(a, FIRST_BUFFER);
        assert_eq!(b % 256, 0);
        assert!(b >= a + 5 + GUARD_BYTES);
        let mut hint = 0;
        assert_eq!(m.locate(0, 4, &mut hint), Err(AccessError::Null));
        assert_eq!(m.locate(a + 4, 1, &mut hint), Ok((0, 4)));
        assert_eq!(m.locate(a + 4, 4, &mut hint), Err(AccessError::OutOfBounds(0)));
        assert_eq!(m.locate(a + 8, 4, &mut hint), Err(AccessError::OutOfBounds(0)));
        assert_eq!(m.locate(a + 5 + GUARD_BYTES, 4, &mut hint), Err(AccessError::Unmapped));
        assert_eq!(m.locate(b + 4, 4, &mut hint), Ok((1, 4)));
    }

    #[test]
    fn sub_word_writes_keep_their_neighbours() {
        let mut m = GlobalMemory::new();
        m.alloc("a", WordBytes::from_bytes(&[0xAA; 4])).unwrap();
        m.write(0, 1, 1, 0x11);
        m.write(0, 2, 2, 0x3322);
        assert_eq!(m.buffer_at(0).bytes(), vec![0xAA, 0x11, 0x22, 0x33]);
        assert_eq!(m.read(0, 2, 2), 0x3322);
        assert_eq!(m.update(0, 0, |w| w.wrapping_add(1)), 0x3322_11AA);
    }
}
