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
use std::sync::{Mutex, RwLock};

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

/// The process's mappings as last read from `/proc/self/maps`: adjacent writable ones
/// joined into runs, in address order. Reading the file costs about 200 µs in a Python
/// process that has imported torch, more than a small launch, so it is read again only when
/// an address is not in a writable run it listed, or that run is no longer mapped.
static MAPPINGS: Mutex<Vec<Mapping>> = Mutex::new(Vec::new());

/// One run of mappings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mapping {
    start: usize,
    end: usize,
    writable: bool,
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
    let mut mappings = MAPPINGS.lock().unwrap_or_else(|e| e.into_inner());
    if let Ok(len) = reach_in(&mappings, addr)
        && still_mapped(addr, len)
    {
        return Ok(Reach { len, source: ReachSource::Mapping });
    }
    let maps = std::fs::read_to_string("/proc/self/maps").map_err(|_| NoReach::Unmapped)?;
    *mappings = parse_maps(&maps);
    reach_in(&mappings, addr).map(|len| Reach { len, source: ReachSource::Mapping })
}

/// Whether every page of `[addr, addr + len)` is still mapped (`msync` of a range with a hole
/// fails with `ENOMEM`; with `MS_ASYNC` it checks and does nothing else).
fn still_mapped(addr: usize, len: usize) -> bool {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: sysconf and msync only inspect the address space.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let start = addr / page * page;
        unsafe { libc::msync(start as *mut libc::c_void, addr + len - start, libc::MS_ASYNC) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (addr, len);
        false
    }
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
    fn memory_unmapped_since_the_maps_were_read_is_not_lent() {
        const LEN: usize = 1 << 20;
        // SAFETY: a fresh anonymous mapping, unmapped below and never touched after.
        let region = unsafe { libc::mmap(std::ptr::null_mut(), LEN, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
        assert_ne!(region, libc::MAP_FAILED);
        let addr = region as usize + 64;
        assert!(reach(addr).is_ok_and(|r| r.len >= LEN - 64), "read from the maps");
        assert!(reach(addr).is_ok(), "from the cached runs");
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(region, LEN) };
        assert_eq!(reach(addr), Err(NoReach::Unmapped), "the cached run fails msync, so the maps are read again");
    }
}
