//! GLOBAL memory: host-created buffers at 256-byte aligned addresses.
//!
//! SMs run on several OS threads and share this memory, so words are atomics:
//! plain loads and stores are `Relaxed` (ordinary moves on x86), and `ATOM`
//! uses real read-modify-write operations. Race-free kernels therefore see
//! the same values whatever the thread count.

use std::any::Any;
use std::ptr::NonNull;
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

    /// The words, the last one zero-padded past [`len`](Self::len): handed on without a copy.
    pub fn into_words(self) -> Vec<u32> {
        self.words
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

/// A buffer's words: simt's own allocation, or memory a caller lent the launch
/// (a numpy array), whose lender is dropped, and so gets it back, with the buffer.
struct Words {
    first: NonNull<AtomicU32>,
    count: usize,
    lender: Option<Box<dyn Any + Send + Sync>>,
}

// SAFETY: the words are atomics, shareable between threads like `Box<[AtomicU32]>`,
// and the lender is `Send + Sync`.
unsafe impl Send for Words {}
unsafe impl Sync for Words {}

impl Words {
    /// Takes `words` over, now shareable between SM threads, without touching them: a
    /// launch's buffers can be a quarter of a gigabyte.
    fn owned(words: Vec<u32>) -> Words {
        const _: () = assert!(std::mem::align_of::<AtomicU32>() == std::mem::align_of::<u32>());
        let words = Box::into_raw(words.into_boxed_slice());
        // SAFETY: `AtomicU32` has the size and bit validity of `u32` (its documentation
        // promises both) and, checked above, its alignment; the box gave up its pointer.
        Words { first: NonNull::new(words.cast::<AtomicU32>()).expect("a box is never null"), count: words.len(), lender: None }
    }

    fn into_contents(self, len: usize) -> Contents {
        let mut this = std::mem::ManuallyDrop::new(self);
        match this.lender.take() {
            Some(lender) => Contents::Lent(lender),
            None => {
                // SAFETY: owned words came from `Box::into_raw` of `count` `u32`s (in `owned`),
                // and `this` is never dropped, so the box is rebuilt once.
                let words = unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(this.first.as_ptr().cast::<u32>(), this.count)) };
                Contents::Simt(WordBytes { words: words.into_vec(), len })
            }
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU32];

    #[inline]
    fn deref(&self) -> &[AtomicU32] {
        // SAFETY: `first` points to `count` words, owned by `self` or kept valid by the
        // lender (the promise of `Lent::new`) for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.first.as_ptr(), self.count) }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        if self.lender.is_none() {
            // SAFETY: as in `into_contents`; this is the only other place the box is rebuilt.
            drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.first.as_ptr(), self.count)) });
        }
    }
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} words{}", self.count, if self.lender.is_some() { ", lent" } else { "" })
    }
}

/// Memory a caller lends a launch to hold a buffer, so that a large array goes in
/// without a copy and the kernel's stores land in it (see [`GlobalMemory::lend`]).
#[derive(Debug)]
pub struct Lent {
    words: Words,
    len: usize,
}

impl Lent {
    /// Lends the `len` bytes at `bytes`, kept alive by `lender`; `None` unless they are
    /// whole aligned words (the caller then copies them in instead).
    ///
    /// # Safety
    /// The bytes must stay valid for reads and writes for as long as `lender` lives, and
    /// nothing else may write them while the launch runs.
    pub unsafe fn new(bytes: *mut u8, len: usize, lender: Box<dyn Any + Send + Sync>) -> Option<Lent> {
        let first = NonNull::new(bytes)?;
        if first.as_ptr().align_offset(4) != 0 || !len.is_multiple_of(4) {
            return None;
        }
        Some(Lent { words: Words { first: first.cast(), count: len / 4, lender: Some(lender) }, len })
    }
}

/// What a buffer holds once its launch is over (see [`GlobalMemory::into_contents`]).
#[derive(Debug)]
pub enum Contents {
    /// simt's own bytes, handed on without a copy.
    Simt(WordBytes),
    /// The lender of [`Lent`] memory, now holding the buffer's final bytes.
    Lent(Box<dyn Any + Send + Sync>),
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
    words: Words,
}

impl Buffer {
    /// Who lent the buffer its memory ([`GlobalMemory::lend`]), if anyone did.
    pub fn lender(&self) -> Option<&(dyn Any + Send + Sync)> {
        self.words.lender.as_deref()
    }

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
    #[error("buffer `{name}` of {bytes} bytes does not fit: all buffers of a launch may hold at most {MAX_TOTAL_BYTES} bytes together")]
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
    /// Host memory a C caller lent at its own address (a `.u64` argument that is an
    /// address): 64-bit addresses in `[host, host + len)` reach the buffer at `base`.
    host_windows: Vec<HostWindow>,
}

/// Host memory seen at its host address in the 64-bit address space.
#[derive(Clone, Copy, Debug)]
struct HostWindow {
    host: u64,
    len: u64,
    base: u32,
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
        let len = bytes.len();
        self.place(name, len, Words::owned(bytes.words))
    }

    /// Creates a buffer backed by `lent` memory (no copy; the kernel's stores land in it)
    /// and returns its GLOBAL address: how a C caller's host memory becomes a buffer.
    ///
    /// # Errors
    /// When the buffers of the launch would exceed [`MAX_TOTAL_BYTES`].
    pub fn alloc_lent(&mut self, name: &str, lent: Lent) -> Result<u32, MemoryError> {
        self.place(name, lent.len, lent.words)
    }

    fn place(&mut self, name: &str, len: usize, words: Words) -> Result<u32, MemoryError> {
        let base =
            self.buffers.last().map_or(u64::from(FIRST_BUFFER), |b| (u64::from(b.base) + u64::from(b.len) + u64::from(GUARD_BYTES)).next_multiple_of(256));
        if base + len as u64 > MAX_TOTAL_BYTES {
            return Err(MemoryError::TooLarge { name: name.to_string(), bytes: len as u64 });
        }
        self.buffers.push(Buffer { name: name.to_string(), base: base as u32, len: len as u32, words });
        Ok(base as u32)
    }

    /// Makes the 64-bit addresses `host .. host + len` reach the buffer at GLOBAL address
    /// `base`: a C caller's `.u64` argument keeps its value (the kernel may use it as a
    /// number) and reaches the memory it was lent when used as an address.
    pub fn map_host(&mut self, host: u64, len: u64, base: u32) {
        self.host_windows.push(HostWindow { host, len, base });
    }

    /// Whether any host memory is lent at its own address ([`GlobalMemory::map_host`]).
    #[inline]
    pub fn has_host_windows(&self) -> bool {
        !self.host_windows.is_empty()
    }

    /// The 32-bit GLOBAL address a 64-bit one names: a host window's, else the low word of
    /// an address below 2^32 (every buffer lies there). `None`: no region has it.
    #[inline]
    pub fn global_address(&self, addr: u64) -> Option<u32> {
        for w in &self.host_windows {
            let off = addr.wrapping_sub(w.host);
            if off < w.len {
                return Some(w.base.wrapping_add(off as u32));
            }
        }
        u32::try_from(addr).ok()
    }

    /// A copy of every buffer at the same address: a launch run on it starts from the
    /// same inputs (a report traces a timed launch this way).
    pub fn duplicate(&self) -> GlobalMemory {
        GlobalMemory {
            host_windows: self.host_windows.clone(),
            buffers: self
                .buffers
                .iter()
                .map(|b| Buffer { name: b.name.clone(), base: b.base, len: b.len, words: Words::owned(WordBytes::from_bytes(&b.bytes()).words) })
                .collect(),
        }
    }

    /// Backs buffer `index` with `lent` memory of its size instead of its own words, which
    /// are dropped: the host makes an argument array's buffer as zeros (never touched, so
    /// never resident), then lends it the array. Gives `lent` back if the sizes differ.
    ///
    /// # Errors
    /// `lent`, when it does not hold exactly the buffer's bytes.
    pub fn lend(&mut self, index: usize, lent: Lent) -> Result<(), Lent> {
        match self.buffers.get_mut(index) {
            Some(b) if b.len as usize == lent.len => {
                b.words = lent.words;
                Ok(())
            }
            _ => Err(lent),
        }
    }

    /// Every buffer's name and final contents, in address order, without a copy.
    pub fn into_contents(self) -> impl Iterator<Item = (String, Contents)> {
        self.buffers.into_iter().map(|b| (b.name, b.words.into_contents(b.len as usize)))
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
        Some((&*b.words, b.base))
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

    /// Replaces the 8-byte-aligned pair of words at `off` with `f(old)` (low word first) and
    /// returns the old value, atomically with respect to every other 64-bit update: one of a
    /// fixed set of locks, picked by address, serialises them (the host words are only 4-byte
    /// aligned, so there is no 64-bit atomic to use).
    pub fn update64(&self, index: usize, off: u32, f: impl Fn(u64) -> u64) -> u64 {
        static STRIPES: [std::sync::Mutex<()>; 64] = [const { std::sync::Mutex::new(()) }; 64];
        let at = (off / 4) as usize;
        let words = &self.buffers[index].words;
        let _serialised = STRIPES[(index * 131 + at / 2) % STRIPES.len()].lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let old = u64::from(words[at].load(Relaxed)) | u64::from(words[at + 1].load(Relaxed)) << 32;
        let new = f(old);
        words[at].store(new as u32, Relaxed);
        words[at + 1].store((new >> 32) as u32, Relaxed);
        old
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

    /// Lends `content`, placed `skew` bytes past a 4-aligned address inside a lender that
    /// owns it, as a numpy array does; also says where in the lender it starts.
    fn lent(content: &[u8], skew: usize, len: usize) -> (Option<Lent>, usize) {
        let mut bytes: Box<Vec<u8>> = Box::new(Vec::with_capacity(content.len() + 4 + skew));
        let at = bytes.as_ptr().align_offset(4) + skew;
        bytes.resize(at, 0);
        bytes.extend_from_slice(content);
        let start = bytes.as_mut_ptr().wrapping_add(at);
        // SAFETY: the box keeps the bytes alive and in place, and only the launch writes them.
        (unsafe { Lent::new(start, len, bytes) }, at)
    }

    #[test]
    fn lent_memory_is_read_and_written_in_place_and_given_back() {
        let mut m = GlobalMemory::new();
        m.alloc("a", WordBytes::zeroed(8)).unwrap();
        m.alloc("b", WordBytes::from_bytes(&[7, 8, 9])).unwrap();
        let words: Vec<u8> = (1..=8).collect();
        assert!(m.lend(0, lent(&words, 0, 4).0.unwrap()).is_err(), "a lent region must match the buffer's size");
        let (region, at) = lent(&words, 0, 8);
        m.lend(0, region.unwrap()).unwrap();
        assert_eq!(m.read(0, 4, 4), u32::from_le_bytes([5, 6, 7, 8]));
        m.write(0, 0, 2, 0xBBAA);
        let contents: Vec<(String, Contents)> = m.into_contents().collect();
        let Contents::Lent(lender) = &contents[0].1 else { panic!("buffer a was lent") };
        assert_eq!(&lender.downcast_ref::<Vec<u8>>().unwrap()[at..], &[0xAA, 0xBB, 3, 4, 5, 6, 7, 8]);
        let Contents::Simt(own) = &contents[1].1 else { panic!("buffer b is simt's") };
        assert_eq!((contents[1].0.as_str(), own.as_bytes()), ("b", &[7u8, 8, 9][..]));
    }

    #[test]
    fn only_whole_aligned_words_can_be_lent() {
        assert!(lent(&[0; 8], 1, 8).0.is_none());
        assert!(lent(&[0; 8], 0, 6).0.is_none());
        assert!(lent(&[0; 8], 0, 8).0.is_some());
    }
}
