//! How far host memory reaches from an address a caller passed as a pointer argument.
//!
//! GPU Ocelot's `ptx_run` receives bare host addresses, with no sizes. A kernel may read
//! and write from such an address up to the end of the caller's allocation, which simt
//! learns in one of two ways: the caller registered the allocation ([`register`]), so
//! accesses past its end are faults, or, failing that, the address lies in a readable and
//! writable mapping of the process (`/proc/self/maps`), which the kernel may use up to the
//! mapping's end. Memory outside every mapping is never lent, so a bad pointer is a fault
//! of the kernel, not a crash of the caller.

use std::collections::BTreeMap;
use std::sync::RwLock;

/// Allocations callers registered: start address to length.
static REGISTERED: RwLock<BTreeMap<usize, usize>> = RwLock::new(BTreeMap::new());

/// Records that `[start, start + len)` is one allocation the caller owns, so pointers
/// into it reach exactly its end. A later registration at the same start replaces it.
pub fn register(start: usize, len: usize) {
    REGISTERED.write().unwrap_or_else(|e| e.into_inner()).insert(start, len);
}

/// Forgets the allocation registered at `start`; whether there was one.
pub fn unregister(start: usize) -> bool {
    REGISTERED.write().unwrap_or_else(|e| e.into_inner()).remove(&start).is_some()
}

/// The host memory a pointer argument may reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reach {
    /// Bytes from the address to the end of what it may use.
    pub len: usize,
    /// Where the bound comes from, for messages.
    pub source: ReachSource,
}

/// Where a [`Reach`] comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReachSource {
    /// A registered allocation: its end is the buffer's end.
    Registered,
    /// A readable and writable mapping of the process.
    Mapping,
}

/// Why an address cannot be lent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NoReach {
    /// No registered allocation or mapping holds it.
    Unmapped,
    /// It lies in a mapping the process cannot write (code, constants).
    ReadOnly,
}

impl std::fmt::Display for NoReach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoReach::Unmapped => "not mapped in this process",
            NoReach::ReadOnly => "in memory this process cannot write",
        })
    }
}

/// How far the memory at `addr` reaches, by registrations first and then the process's mappings.
pub(crate) fn reach(addr: usize) -> Result<Reach, NoReach> {
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    if let Some((&start, &len)) = registered.range(..=addr).next_back()
        && addr - start < len
    {
        return Ok(Reach { len: start + len - addr, source: ReachSource::Registered });
    }
    drop(registered);
    #[cfg(target_os = "linux")]
    if let Some(found) = query::reach(addr) {
        return found.map(|len| Reach { len, source: ReachSource::Mapping });
    }
    // Reading the whole file costs about 200 µs in a Python process that has imported
    // torch; the query above costs a microsecond or two where the kernel has it (Linux 6.11).
    let maps = std::fs::read_to_string("/proc/self/maps").map_err(|_| NoReach::Unmapped)?;
    reach_in(&parse_maps(&maps), addr).map(|len| Reach { len, source: ReachSource::Mapping })
}

/// The mapping holding an address, asked of the kernel with `PROCMAP_QUERY` (an ioctl on
/// `/proc/self/maps`, Linux 6.11 and later) instead of reading the whole file.
#[cfg(target_os = "linux")]
mod query {
    use std::os::fd::AsRawFd;
    use std::sync::Mutex;

    use super::NoReach;

    /// `struct procmap_query` of `linux/fs.h`.
    #[repr(C)]
    #[derive(Default)]
    struct ProcmapQuery {
        size: u64,
        query_flags: u64,
        query_addr: u64,
        vma_start: u64,
        vma_end: u64,
        vma_flags: u64,
        vma_page_size: u64,
        vma_offset: u64,
        inode: u64,
        dev_major: u32,
        dev_minor: u32,
        vma_name_size: u32,
        build_id_size: u32,
        vma_name_addr: u64,
        build_id_addr: u64,
    }

    /// `_IOWR('f', 17, struct procmap_query)`.
    const PROCMAP_QUERY: u64 = (3 << 30) | ((std::mem::size_of::<ProcmapQuery>() as u64) << 16) | ((b'f' as u64) << 8) | 17;
    const VMA_READABLE: u64 = 1;
    const VMA_WRITABLE: u64 = 2;

    /// The open maps file and the process it belongs to (a forked child must open its own).
    static MAPS: Mutex<Option<(u32, std::fs::File)>> = Mutex::new(None);

    /// `(start, end, flags)` of the mapping holding `addr`; `Err` when none does, `None` when
    /// the kernel cannot answer the query.
    fn vma(file: &std::fs::File, addr: usize) -> Option<Result<(usize, usize, u64), ()>> {
        let mut q = ProcmapQuery { size: std::mem::size_of::<ProcmapQuery>() as u64, query_addr: addr as u64, ..ProcmapQuery::default() };
        // SAFETY: the ioctl reads and writes exactly one `procmap_query`, sized in `size`, and
        // asks for no name or build id (their buffers are null, their sizes 0).
        let rc = unsafe { libc::ioctl(file.as_raw_fd(), PROCMAP_QUERY as _, &mut q as *mut ProcmapQuery) };
        if rc == 0 {
            return Some(Ok((q.vma_start as usize, q.vma_end as usize, q.vma_flags)));
        }
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::ENOENT) => Some(Err(())),
            _ => None,
        }
    }

    /// Bytes from `addr` to the end of the run of adjacent writable mappings holding it, or
    /// `None` when the kernel has no `PROCMAP_QUERY`.
    pub(super) fn reach(addr: usize) -> Option<Result<usize, NoReach>> {
        let mut maps = MAPS.lock().unwrap_or_else(|e| e.into_inner());
        let pid = std::process::id();
        if maps.as_ref().is_none_or(|(owner, _)| *owner != pid) {
            *maps = Some((pid, std::fs::File::open("/proc/self/maps").ok()?));
        }
        let (_, file) = maps.as_ref()?;
        let (_, mut end, flags) = match vma(file, addr)? {
            Ok(found) => found,
            Err(()) => return Some(Err(NoReach::Unmapped)),
        };
        if flags & (VMA_READABLE | VMA_WRITABLE) != VMA_READABLE | VMA_WRITABLE {
            return Some(Err(NoReach::ReadOnly));
        }
        // Adjacent writable mappings join (an array may straddle two).
        while let Some(Ok((start, next_end, flags))) = vma(file, end) {
            if start != end || flags & (VMA_READABLE | VMA_WRITABLE) != VMA_READABLE | VMA_WRITABLE {
                break;
            }
            end = next_end;
        }
        Some(Ok(end - addr))
    }
}

/// One run of mappings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mapping {
    start: usize,
    end: usize,
    writable: bool,
}

/// The runs of `/proc/self/maps`' text (sorted by address; `start-end perms ...` per line).
fn parse_maps(maps: &str) -> Vec<Mapping> {
    let mut runs: Vec<Mapping> = Vec::new();
    for line in maps.lines() {
        let Some((range, rest)) = line.split_once(' ') else { continue };
        let Some((start, end)) = range.split_once('-') else { continue };
        let (Ok(start), Ok(end)) = (usize::from_str_radix(start, 16), usize::from_str_radix(end, 16)) else { continue };
        let writable = rest.as_bytes().get(..2) == Some(b"rw");
        match runs.last_mut() {
            Some(last) if last.writable && writable && last.end == start => last.end = end,
            _ => runs.push(Mapping { start, end, writable }),
        }
    }
    runs
}

/// Bytes from `addr` to the end of the writable run holding it.
fn reach_in(runs: &[Mapping], addr: usize) -> Result<usize, NoReach> {
    let at = runs.partition_point(|m| m.end <= addr);
    match runs.get(at) {
        Some(m) if m.start <= addr && m.writable => Ok(m.end - addr),
        Some(m) if m.start <= addr => Err(NoReach::ReadOnly),
        _ => Err(NoReach::Unmapped),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAPS: &str = "\
55d0a0000000-55d0a0002000 r--p 00000000 08:01 1 /usr/bin/python3
55d0a1000000-55d0a1021000 rw-p 00000000 00:00 0 [heap]
55d0a1021000-55d0a1030000 rw-p 00000000 00:00 0
55d0a1030000-55d0a1031000 ---p 00000000 00:00 0
7f0000000000-7f0000100000 rw-p 00000000 00:00 0
";

    fn reach_in_maps(maps: &str, addr: usize) -> Result<usize, NoReach> {
        reach_in(&parse_maps(maps), addr)
    }

    #[test]
    fn a_pointer_reaches_to_the_end_of_its_run_of_writable_mappings() {
        assert_eq!(reach_in_maps(MAPS, 0x55d0a1000010), Ok(0x30000 - 0x10), "adjacent writable mappings join");
        assert_eq!(reach_in_maps(MAPS, 0x7f00000fff00), Ok(0x100));
        assert_eq!(reach_in_maps(MAPS, 0x55d0a0000100), Err(NoReach::ReadOnly));
        assert_eq!(reach_in_maps(MAPS, 0x55d0a1030000), Err(NoReach::ReadOnly), "a guard page is not writable");
        assert_eq!(reach_in_maps(MAPS, 0x10), Err(NoReach::Unmapped));
        assert_eq!(reach_in_maps(MAPS, 0x6000_0000_0000), Err(NoReach::Unmapped));
        assert_eq!(reach_in_maps(MAPS, 0x7f0000100000), Err(NoReach::Unmapped), "a mapping's end is outside it");
    }

    #[test]
    fn a_registered_allocation_bounds_its_pointers_exactly() {
        let memory = Box::new([0u32; 16]);
        let start = memory.as_ptr() as usize;
        register(start, 40);
        assert_eq!(reach(start + 8), Ok(Reach { len: 32, source: ReachSource::Registered }));
        assert!(unregister(start));
        assert!(!unregister(start));
        assert!(matches!(reach(start + 8), Ok(Reach { source: ReachSource::Mapping, .. })), "the heap is a writable mapping");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn the_mappings_are_asked_afresh_each_time() {
        const LEN: usize = 1 << 20;
        let map = |prot| {
            // SAFETY: a fresh anonymous mapping, unmapped below.
            let region = unsafe { libc::mmap(std::ptr::null_mut(), LEN, prot, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
            assert_ne!(region, libc::MAP_FAILED);
            region
        };
        let region = map(libc::PROT_READ | libc::PROT_WRITE);
        let addr = region as usize + 64;
        assert!(reach(addr).is_ok_and(|r| r.len >= LEN - 64));
        // SAFETY: the mapping made above.
        unsafe { libc::mprotect(region, LEN, libc::PROT_READ) };
        assert_eq!(reach(addr), Err(NoReach::ReadOnly));
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(region, LEN) };
        assert_eq!(reach(addr), Err(NoReach::Unmapped));
    }
}
