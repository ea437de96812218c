//! The memory-efficiency report: address arithmetic on the functional run, per pc.
//!
//! For every memory instruction a warp issues (with at least one executing lane):
//! GLOBAL and LOCAL accesses count the distinct 32-byte sectors and 128-byte lines
//! their lanes touch, against the ideal for the bytes moved (perfectly contiguous and
//! aligned); SHARED accesses count the passes 32 banks of 4 bytes need (n distinct
//! words in one bank take n passes; lanes reading the same word share one, a
//! broadcast; wide accesses go in parts, see [`crate::banks`]); atomics count how many lanes hit the same address, which serialises
//! them. No timing model is involved: this is what the addresses say.

use simt_isa::Space;

use crate::banks::{ideal_passes, most_lanes_at_one_address, shared_passes};
use crate::exec::lanes;
use crate::exec::memory::MemOp;

/// The memory-efficiency counts of one pc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MemCounts {
    /// Warp instructions with at least one executing lane.
    pub requests: u64,
    /// 32-byte sectors touched (GLOBAL, LOCAL), and the ideal for the bytes moved.
    pub sectors: u64,
    pub ideal_sectors: u64,
    /// 128-byte lines touched, and the ideal.
    pub lines: u64,
    pub ideal_lines: u64,
    /// Shared-memory passes (bank conflicts), and the ideal.
    pub passes: u64,
    pub ideal_passes: u64,
    /// Atomics: the longest run of lanes on one address, which serialise.
    pub atomic_steps: u64,
}

impl MemCounts {
    fn add(&mut self, o: &MemCounts) {
        self.requests += o.requests;
        self.sectors += o.sectors;
        self.ideal_sectors += o.ideal_sectors;
        self.lines += o.lines;
        self.ideal_lines += o.ideal_lines;
        self.passes += o.passes;
        self.ideal_passes += o.ideal_passes;
        self.atomic_steps += o.atomic_steps;
    }
}

/// Distinct values of `items` (sorts them).
fn distinct(items: &mut [u32]) -> u64 {
    items.sort_unstable();
    let mut n = 0;
    let mut last = None;
    for &x in items.iter() {
        if last != Some(x) {
            n += 1;
            last = Some(x);
        }
    }
    n
}

/// What one warp's access costs, added to `c`. `addrs` are the lanes' addresses (LOCAL
/// ones physical, interleaved across the block's threads), `size` bytes each.
pub(crate) fn account(c: &mut MemCounts, space: Space, atomic: bool, exec: u32, addrs: &[u32; 32], size: u32) {
    let active = exec.count_ones();
    if active == 0 {
        return;
    }
    c.requests += 1;
    let bytes = u64::from(active) * u64::from(size);
    match space {
        Space::Global | Space::Local => {
            // Each lane touches [a, a + size): its first and last sector (accesses are aligned,
            // at most 16 bytes, so at most two sectors and one line).
            let mut sectors = [0u32; 64];
            let mut lines = [0u32; 32];
            let mut n = 0;
            for (k, l) in lanes(exec).enumerate() {
                // Accounting happens before the bounds check faults a lane, so an address may sit
                // at the top of the address space.
                let (first, last) = (addrs[l] >> 5, addrs[l].saturating_add(size - 1) >> 5);
                sectors[n] = first;
                n += 1;
                if last != first {
                    sectors[n] = last;
                    n += 1;
                }
                lines[k] = addrs[l] >> 7;
            }
            c.sectors += distinct(&mut sectors[..n]);
            c.lines += distinct(&mut lines[..active as usize]);
            c.ideal_sectors += bytes.div_ceil(32);
            c.ideal_lines += bytes.div_ceil(128);
        }
        Space::Shared => {
            c.passes += u64::from(shared_passes(addrs, exec, size, false));
            c.ideal_passes += u64::from(ideal_passes(exec, size));
        }
        Space::Param => {}
    }
    if atomic {
        c.atomic_steps += u64::from(most_lanes_at_one_address(addrs, exec));
    }
}

/// The memory-efficiency report of one or more blocks, per pc: empty until a memory
/// instruction is counted, so a run without the report keeps nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Efficiency {
    per_pc: Vec<MemCounts>,
}

impl Efficiency {
    /// Adds warp instruction `op` at `pc` (of a kernel of `len` instructions) on the `exec`
    /// lanes, addressing `space` at `addrs` (LOCAL ones physical, as [`account`] takes them).
    #[inline(always)]
    pub(crate) fn record(&mut self, len: usize, pc: u32, op: &MemOp, space: Space, exec: u32, addrs: &[u32; 32]) {
        let (_, size, atomic) = op.shape();
        if self.per_pc.is_empty() {
            self.per_pc.resize(len, MemCounts::default());
        }
        account(&mut self.per_pc[pc as usize], space, atomic, exec, addrs, size);
    }

    /// Adds another block's (or SM's) report.
    pub(crate) fn add(&mut self, other: &Efficiency) {
        if self.per_pc.len() < other.per_pc.len() {
            self.per_pc.resize(other.per_pc.len(), MemCounts::default());
        }
        for (d, s) in self.per_pc.iter_mut().zip(&other.per_pc) {
            d.add(s);
        }
    }

    /// The counts of each pc (none when nothing was counted).
    pub(crate) fn per_pc(&self) -> &[MemCounts] {
        &self.per_pc
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(space: Space, atomic: bool, addrs: impl Fn(u32) -> u32, size: u32) -> MemCounts {
        let mut c = MemCounts::default();
        account(&mut c, space, atomic, u32::MAX, &std::array::from_fn(|l| addrs(l as u32)), size);
        c
    }

    #[test]
    fn coalescing_counts_sectors_and_lines() {
        let c = one(Space::Global, false, |l| 0x1000 + 4 * l, 4);
        assert_eq!((c.sectors, c.lines, c.ideal_sectors, c.ideal_lines), (4, 1, 4, 1));
        // A stride of 32 floats: every lane its own sector and line.
        let c = one(Space::Global, false, |l| 0x1000 + 128 * l, 4);
        assert_eq!((c.sectors, c.lines, c.ideal_sectors, c.ideal_lines), (32, 32, 4, 1));
        // Misaligned by 16 bytes: one more sector and one more line.
        let c = one(Space::Global, false, |l| 0x1010 + 4 * l, 4);
        assert_eq!((c.sectors, c.lines), (5, 2));
        // Everyone reads one word: one sector.
        let c = one(Space::Global, false, |_| 0x1000, 4);
        assert_eq!((c.sectors, c.ideal_sectors), (1, 4));
    }

    #[test]
    fn shared_memory_bank_conflicts_and_broadcast() {
        assert_eq!(one(Space::Shared, false, |l| 4 * l, 4).passes, 1);
        assert_eq!(one(Space::Shared, false, |l| 128 * l, 4).passes, 32, "a tile column of 32 x 32 floats");
        assert_eq!(one(Space::Shared, false, |l| 132 * l, 4).passes, 1, "padded to 33 columns");
        assert_eq!(one(Space::Shared, false, |_| 64, 4).passes, 1, "a broadcast");
        assert_eq!(one(Space::Shared, false, |l| 8 * l, 4).passes, 2, "stride 2: a 2-way conflict");
        let c = one(Space::Shared, false, |l| 16 * l, 16);
        assert_eq!((c.passes, c.ideal_passes), (4, 4), "16-byte accesses take four passes however laid out");
        // The report counts what the timing backend charges: a float4 2-way conflict in quarter warps.
        let c = one(Space::Shared, false, |l| 16 * ((l % 2) * 32 + l / 2), 16);
        assert_eq!((c.passes, c.ideal_passes), (8, 4), "a 2-way conflict of float4s, a quarter warp at a time");
    }

    /// Found by the `run_bytecode` fuzzer: a lane's last byte past 2^32 overflowed.
    #[test]
    fn addresses_at_the_top_of_the_space_are_counted() {
        let c = one(Space::Global, false, |l| u32::MAX - 15 - 16 * (l % 2), 16);
        assert_eq!((c.sectors, c.lines), (1, 1));
        let c = one(Space::Shared, false, |_| u32::MAX - 3, 16);
        assert_eq!(c.requests, 1);
    }

    #[test]
    fn atomics_to_one_address_serialise() {
        assert_eq!(one(Space::Global, true, |_| 0x1000, 4).atomic_steps, 32);
        assert_eq!(one(Space::Global, true, |l| 0x1000 + 4 * (l % 4), 4).atomic_steps, 8);
        assert_eq!(one(Space::Shared, true, |l| 4 * l, 4).atomic_steps, 1);
    }
}
