//! Cache tags: set-associative, sectored, least-recently-used. Values stay in the
//! functional memory; a cache here is only which lines and sectors it holds.

/// A sectored, set-associative LRU tag store. Lines are identified by their line
/// number (address / line size); each line holds up to 8 sectors (a bit mask).
///
/// Each field of a way lies in its own array, a set's ways side by side, so that an access
/// touches few host cache lines: an H100's L2 has 400,000 lines, far beyond the host's
/// caches, and the boundary between windows looks every request up in it. A lookup compares a
/// byte hashed from each way's line first (a set's 40 or 64 bytes at once), and reads a full
/// tag only where its byte matches; LRU keeps each way's rank in its set (0 the most recently
/// used), so a victim is found among a set's ranks, two bytes a way.
#[derive(Clone, Debug)]
pub struct SectorCache {
    sets: u64,
    /// `sets` as a multiplier that takes a remainder without dividing (see [`fast_mod`]):
    /// every access needs a set, and a 64-bit division costs as much as the rest of a hit.
    sets_inverse: u128,
    /// log2 of the shards a cache was cut into ([`SectorCache::split`]); 0 for a whole cache.
    shard_shift: u32,
    ways: usize,
    /// The line each way holds (meaningless where `hints` says [`NO_LINE`]).
    tags: Vec<u64>,
    /// [`hint`] of each way's line, [`NO_LINE`] for an empty way.
    hints: Vec<u8>,
    /// Each way's place in its set's LRU order: 0 the most recently used, [`UNRANKED`] for an
    /// empty way. The ranks of a set's full ways are 0, 1, ... in some order.
    ranks: Vec<u16>,
    /// Each way's sectors.
    sectors: Vec<Sectors>,
}

/// The sectors a way holds, and which of them are dirty.
#[derive(Clone, Copy, Debug, Default)]
struct Sectors {
    valid: u8,
    dirty: u8,
}

/// The [`hint`] of an empty way.
const NO_LINE: u8 = 0;
/// The rank of an empty way: never below another's, so making a way the most recent leaves it be.
const UNRANKED: u16 = u16::MAX;

/// What one access found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lookup {
    /// Sectors of the request that were present.
    pub hit: u8,
    /// Dirty sectors of a line evicted to make room.
    pub evicted_dirty: u8,
    /// The line those dirty sectors belong to (meaningful when `evicted_dirty` is not 0).
    pub evicted_line: u64,
}

impl SectorCache {
    /// `lines` lines in sets of `ways` (at least one set; a zero-line cache misses always).
    pub fn new(lines: u64, ways: u32) -> SectorCache {
        Self::shard(lines, ways, 0)
    }

    /// The sets `lines` lines in sets of `ways` make.
    pub fn sets(lines: u64, ways: u32) -> u64 {
        lines / u64::from(ways.max(1))
    }

    /// The cache of `lines` lines in sets of `ways`, cut into `shards` (a power of two dividing
    /// its sets): shard `k` holds the sets whose index is `k` modulo `shards`, and takes the
    /// lines [`shard_of`] sends it. LRU compares ways only within a set, so the shards, each
    /// taking its lines in their order, decide what the whole cache would.
    pub fn split(lines: u64, ways: u32, shards: u32) -> Vec<SectorCache> {
        debug_assert!(shards.is_power_of_two() && Self::sets(lines, ways).is_multiple_of(u64::from(shards)));
        (0..shards).map(|_| Self::shard(lines / u64::from(shards), ways, shards.trailing_zeros())).collect()
    }

    fn shard(lines: u64, ways: u32, shard_shift: u32) -> SectorCache {
        // Ranks are u16: the machine files allow at most 4096 ways.
        let ways = ways.clamp(1, u32::from(UNRANKED)) as usize;
        let sets = lines / ways as u64;
        let n = (sets as usize) * ways;
        SectorCache {
            sets,
            sets_inverse: (u128::MAX / u128::from(sets.max(1))).wrapping_add(1),
            shard_shift,
            ways,
            tags: written(n, 0),
            hints: written(n, NO_LINE),
            ranks: written(n, UNRANKED),
            sectors: written(n, Sectors::default()),
        }
    }

    /// Whether the cache holds anything at all.
    pub fn is_empty(&self) -> bool {
        self.sets == 0
    }

    fn set_of(&self, line: u64) -> std::ops::Range<usize> {
        let set = fast_mod(set_hash(line) >> self.shard_shift, self.sets_inverse, self.sets);
        let start = set as usize * self.ways;
        start..start + self.ways
    }

    /// Asks the host to start loading what an [`access`](Self::access) to `line` reads first
    /// (its set's hints, ranks and sectors), so that one a few requests later does not wait
    /// for memory.
    #[inline]
    pub fn prefetch(&self, line: u64) {
        #[cfg(target_arch = "x86_64")]
        if self.sets > 0 {
            /// Every host cache line of `ways`.
            fn lines<T>(ways: &[T]) {
                let (start, end) = (ways.as_ptr() as usize, ways.as_ptr_range().end as usize);
                for at in (start & !63..end).step_by(64) {
                    prefetch_at(at as *const i8);
                }
            }
            let range = self.set_of(line);
            lines(&self.hints[range.clone()]);
            lines(&self.ranks[range.clone()]);
            lines(&self.sectors[range]);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = line;
    }

    /// Asks the host to start loading the tag an [`access`](Self::access) to `line` will read:
    /// the way holding it, or the one it would replace. Reads what [`prefetch`](Self::prefetch)
    /// loads, so it comes a few requests after that.
    #[inline]
    pub fn prefetch_way(&self, line: u64) {
        #[cfg(target_arch = "x86_64")]
        if self.sets > 0 {
            let range = self.set_of(line);
            let way = self.candidate(range.clone(), line).unwrap_or_else(|| self.victim(range.clone()));
            prefetch_at((&self.tags[range.start + way] as *const u64).cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = line;
    }

    /// Looks `sectors` of `line` up. With `fill`, missing sectors are then present (the line
    /// allocated over the least recently used one when absent); with `write`, the given
    /// sectors become dirty. Hits and fills make the line most recently used.
    pub fn access(&mut self, line: u64, sectors: u8, fill: bool, write: bool) -> Lookup {
        if self.sets == 0 {
            return Lookup::default();
        }
        let range = self.set_of(line);
        if let Some(i) = self.find(range.clone(), line) {
            let way = &mut self.sectors[range.start + i];
            let hit = way.valid & sectors;
            if fill {
                way.valid |= sectors;
            }
            if write {
                way.dirty |= sectors;
            }
            self.make_recent(range, i);
            return Lookup { hit, ..Lookup::default() };
        }
        if !fill {
            return Lookup::default();
        }
        let victim = self.victim(range.clone());
        let at = range.start + victim;
        let evicted_dirty = if self.hints[at] == NO_LINE { 0 } else { self.sectors[at].dirty };
        let evicted_line = self.tags[at];
        self.tags[at] = line;
        self.hints[at] = hint(line);
        self.sectors[at] = Sectors { valid: sectors, dirty: if write { sectors } else { 0 } };
        self.make_recent(range, victim);
        Lookup { hit: 0, evicted_dirty, evicted_line }
    }

    /// Drops `sectors` of `line` if present (another copy was written), keeping its LRU place.
    /// The way keeps its tag, so ways still fill in order and are never emptied.
    pub fn invalidate(&mut self, line: u64, sectors: u8) {
        if self.sets == 0 {
            return;
        }
        let range = self.set_of(line);
        if let Some(i) = self.find(range.clone(), line) {
            let way = &mut self.sectors[range.start + i];
            way.valid &= !sectors;
            way.dirty &= !sectors;
        }
    }

    /// The way of the set at `range` (numbered within it) a new line takes: the first empty
    /// one, else the least recently used. Ways fill in order and are never emptied, so a set
    /// whose last way is taken has no empty one.
    #[inline]
    fn victim(&self, range: std::ops::Range<usize>) -> usize {
        let hints = &self.hints[range.clone()];
        if hints[hints.len() - 1] == NO_LINE {
            first_with(hints, NO_LINE).unwrap_or(0)
        } else {
            way_ranked(&self.ranks[range], (self.ways - 1) as u16).unwrap_or(0)
        }
    }

    /// The first way of the set at `range` whose hint is `line`'s: the way holding it, if any
    /// (another line's hint may match too, which the tag tells).
    #[inline]
    fn candidate(&self, range: std::ops::Range<usize>, line: u64) -> Option<usize> {
        first_with(&self.hints[range], hint(line))
    }

    /// The way of the set at `range` (numbered within it) holding `line`.
    #[inline]
    fn find(&self, range: std::ops::Range<usize>, line: u64) -> Option<usize> {
        let tags = &self.tags[range.clone()];
        let want = hint(line);
        for (c, chunk) in self.hints[range].chunks(64).enumerate() {
            let mut candidates = matching(chunk, want);
            while candidates != 0 {
                let i = c * 64 + candidates.trailing_zeros() as usize;
                if tags[i] == line {
                    return Some(i);
                }
                candidates &= candidates - 1;
            }
        }
        None
    }

    /// Makes way `i` of the set at `range` the most recently used: the ways used since it
    /// (all full ones, for a way just filled) move one place back.
    #[inline]
    fn make_recent(&mut self, range: std::ops::Range<usize>, i: usize) {
        let ranks = &mut self.ranks[range];
        let was = ranks[i];
        if was == 0 {
            // Already the most recent: the usual case for a TLB, or a line read again.
            return;
        }
        // Over every way, with no branch, so that it becomes vector instructions.
        for r in ranks.iter_mut() {
            *r += u16::from(*r < was);
        }
        ranks[i] = 0;
    }
}

/// `n` copies of `value`, written now rather than when first read. Memory the allocator hands out
/// zeroed is faulted in page by page as lookups first touch it, and when the shards' threads do
/// that together the faults wait for each other: saxpy's first window took 21 ms on two threads,
/// 8 on one, and 2.5 once the tags were written here.
fn written<T: Copy>(n: usize, value: T) -> Vec<T> {
    // Hidden from the optimiser, which may turn allocating and then writing zeros into asking for
    // zeroed memory: the very pages this avoids.
    let mut v = std::hint::black_box(Vec::with_capacity(n));
    v.resize(n, value);
    v
}

/// Asks the host to start loading the cache line at `p`, a pointer into one of a cache's arrays.
#[cfg(target_arch = "x86_64")]
#[inline]
fn prefetch_at(p: *const i8) {
    // SAFETY: prefetching is a hint: it changes no memory and never faults, whatever the address
    // (the callers' lie in or at the start of a host line of one of the cache's arrays).
    unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
}

/// The first way (index into `hints`) whose hint is `byte`.
#[inline]
fn first_with(hints: &[u8], byte: u8) -> Option<usize> {
    hints.chunks(64).enumerate().find_map(|(c, chunk)| {
        let mask = matching(chunk, byte);
        (mask != 0).then(|| c * 64 + mask.trailing_zeros() as usize)
    })
}

/// Bit `i` set where `hints[i]` is `byte`, for up to 64 hints: sixteen compared at once.
#[inline]
fn matching(hints: &[u8], byte: u8) -> u64 {
    let mut mask = 0u64;
    // Elsewhere every element takes the scalar loop below.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
        // SAFETY: SSE2 is part of every x86_64 CPU; the callers keep `at + 16 <= hints.len()`.
        let sixteen =
            |at: usize| unsafe { _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(hints.as_ptr().add(at).cast()), _mm_set1_epi8(byte as i8))) as u16 };
        while done + 16 <= hints.len() {
            mask |= u64::from(sixteen(done)) << done;
            done += 16;
        }
        // The rest (an L2's 40 ways leave 8) as the top of the last sixteen, which overlap those done.
        if done < hints.len() && hints.len() >= 16 {
            mask |= u64::from(sixteen(hints.len() - 16) >> (16 - (hints.len() - done))) << done;
            done = hints.len();
        }
    }
    for (i, &h) in hints.iter().enumerate().skip(done) {
        mask |= u64::from(h == byte) << i;
    }
    mask
}

/// The first way whose rank is `rank`: eight compared at once.
#[inline]
fn way_ranked(ranks: &[u16], rank: u16) -> Option<usize> {
    // Elsewhere every element takes the scalar loop below.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi16};
        while done + 8 <= ranks.len() {
            // SAFETY: SSE2 is part of every x86_64 CPU; the load reads the 8 ranks from `done`,
            // which the loop's condition keeps inside `ranks`.
            let bits = unsafe { _mm_movemask_epi8(_mm_cmpeq_epi16(_mm_loadu_si128(ranks.as_ptr().add(done).cast()), _mm_set1_epi16(rank as i16))) };
            if bits != 0 {
                // Two mask bits a rank.
                return Some(done + bits.trailing_zeros() as usize / 2);
            }
            done += 8;
        }
    }
    ranks[done..].iter().position(|&r| r == rank).map(|i| done + i)
}

/// A byte of a line number for [`SectorCache`]'s first comparison, taken from other bits of
/// another product than the set index, so that the lines of one set still differ in it.
/// It is never [`NO_LINE`].
#[inline]
fn hint(line: u64) -> u8 {
    ((line.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 56) as u8).max(1)
}

/// A multiplicative hash of a line that spreads strided lines over the sets, as real index
/// hashing does: its remainder by the sets is the line's set.
#[inline]
fn set_hash(line: u64) -> u64 {
    line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20
}

/// The shard of a cache [`SectorCache::split`] into `shards` that holds `line`'s set.
#[inline]
pub fn shard_of(line: u64, shards: usize) -> usize {
    (set_hash(line) & (shards as u64 - 1)) as usize
}

/// `a % d` for `d` > 0 given `inverse` = `u128::MAX / d + 1` (wrapping), by Lemire, Kaser and
/// Kurz's direct remainder ("Faster remainder by direct computation", 2019): exact for every
/// 64-bit `a` and `d`.
#[inline]
fn fast_mod(a: u64, inverse: u128, d: u64) -> u64 {
    let low = inverse.wrapping_mul(u128::from(a));
    let bottom = (u128::from(low as u64) * u128::from(d)) >> 64;
    let top = (low >> 64) * u128::from(d);
    ((bottom + top) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_mod_is_the_remainder() {
        let divisors = [1u64, 2, 3, 7, 16, 40, 5120, 10240, 12_345_677, u64::from(u32::MAX), u64::MAX - 1, u64::MAX];
        let mut next = crate::xorshift(0x0123_4567_89AB_CDEF);
        for &d in &divisors {
            let inverse = (u128::MAX / u128::from(d)).wrapping_add(1);
            for edge in [0, 1, d - 1, d, d.wrapping_add(1), u64::MAX, u64::MAX - 1] {
                assert_eq!(fast_mod(edge, inverse, d), edge % d, "{edge} % {d}");
            }
            for _ in 0..10_000 {
                let a = next();
                assert_eq!(fast_mod(a, inverse, d), a % d, "{a} % {d}");
                assert_eq!(fast_mod(a >> 20, inverse, d), (a >> 20) % d);
            }
        }
    }

    /// `n` pseudo-random accesses to lines below `lines`: (index, line, sectors, fill, write).
    fn accesses(n: u64, lines: u64) -> impl Iterator<Item = (u64, u64, u8, bool, bool)> {
        let mut next = crate::xorshift(0x2545_F491_4F6C_DD1D);
        (0..n).map(move |i| {
            let x = next();
            (i, x % lines, (x >> 40) as u8 | 1, x >> 50 & 3 != 0, x >> 52 & 1 != 0)
        })
    }

    #[test]
    fn shards_decide_what_the_whole_cache_would() {
        let (lines, ways) = (4096, 16);
        let mut whole = SectorCache::new(lines, ways);
        let mut shards = SectorCache::split(lines, ways, 4);
        // Lines from a range about twice the cache, so that sets fill, hit and evict.
        for (i, line, sectors, fill, write) in accesses(200_000, 2 * lines) {
            let shard = &mut shards[shard_of(line, 4)];
            if i % 7 == 0 {
                whole.invalidate(line, sectors);
                shard.invalidate(line, sectors);
            } else {
                assert_eq!(whole.access(line, sectors, fill, write), shard.access(line, sectors, fill, write), "access {i}, line {line}");
            }
        }
    }

    #[test]
    fn lru_evicts_the_least_recently_used_line() {
        let mut c = SectorCache::new(2, 2); // one set of two ways
        assert_eq!(c.access(1, 0b1, true, false).hit, 0);
        assert_eq!(c.access(2, 0b1, true, false).hit, 0);
        assert_eq!(c.access(1, 0b1, true, false).hit, 0b1, "line 1 is present");
        c.access(3, 0b1, true, false); // evicts 2, the least recently used
        assert_eq!(c.access(2, 0b1, false, false).hit, 0);
        assert_eq!(c.access(1, 0b1, false, false).hit, 0b1);
    }

    #[test]
    fn sectors_fill_separately_and_dirty_ones_are_reported_on_eviction() {
        let mut c = SectorCache::new(1, 1);
        c.access(7, 0b0011, true, true);
        assert_eq!(c.access(7, 0b0110, true, false).hit, 0b0010);
        assert_eq!(c.access(8, 0b1, true, false).evicted_dirty, 0b0011);
    }

    #[test]
    fn invalidated_sectors_miss_and_the_rest_still_hit() {
        let mut c = SectorCache::new(4, 2);
        c.access(5, 0b1111, true, false);
        c.invalidate(5, 0b0101);
        assert_eq!(c.access(5, 0b1111, false, false).hit, 0b1010);
        c.invalidate(6, 0b1); // absent: nothing happens
        assert_eq!(c.access(6, 0b1, false, false).hit, 0);
    }

    /// The obvious LRU cache: each set a list of (line, valid, dirty, last use), searched in
    /// full, the victim the first empty way or the one used longest ago.
    struct Reference {
        sets: Vec<Vec<Option<RefWay>>>,
        clock: u64,
    }

    /// A way of [`Reference`]: line, valid sectors, dirty sectors, last use.
    type RefWay = (u64, u8, u8, u64);

    impl Reference {
        fn access(&mut self, set: usize, line: u64, sectors: u8, fill: bool, write: bool) -> Lookup {
            self.clock += 1;
            let ways = &mut self.sets[set];
            if let Some((_, valid, dirty, used)) = ways.iter_mut().flatten().find(|w| w.0 == line) {
                let hit = *valid & sectors;
                if fill {
                    *valid |= sectors;
                }
                if write {
                    *dirty |= sectors;
                }
                *used = self.clock;
                return Lookup { hit, ..Lookup::default() };
            }
            if !fill {
                return Lookup::default();
            }
            let victim = ways.iter().position(Option::is_none).unwrap_or_else(|| (0..ways.len()).min_by_key(|&i| ways[i].map_or(0, |w| w.3)).unwrap_or(0));
            let evicted = ways[victim].map_or(Lookup::default(), |(l, _, d, _)| Lookup { hit: 0, evicted_dirty: d, evicted_line: l });
            ways[victim] = Some((line, sectors, if write { sectors } else { 0 }, self.clock));
            Lookup { evicted_line: if evicted.evicted_dirty == 0 { 0 } else { evicted.evicted_line }, ..evicted }
        }

        fn invalidate(&mut self, set: usize, line: u64, sectors: u8) {
            if let Some((_, valid, dirty, _)) = self.sets[set].iter_mut().flatten().find(|w| w.0 == line) {
                *valid &= !sectors;
                *dirty &= !sectors;
            }
        }
    }

    #[test]
    fn ranks_decide_what_the_obvious_lru_cache_would() {
        for (lines, ways) in [(64u64, 64u32), (160, 40), (24, 3), (8, 1)] {
            let mut cache = SectorCache::new(lines, ways);
            let sets = cache.sets as usize;
            let mut reference = Reference { sets: vec![vec![None; ways as usize]; sets], clock: 0 };
            for (i, line, sectors, fill, write) in accesses(100_000, 3 * lines) {
                let set = cache.set_of(line).start / ways as usize;
                if i % 9 == 0 {
                    cache.invalidate(line, sectors);
                    reference.invalidate(set, line, sectors);
                } else {
                    let mut got = cache.access(line, sectors, fill, write);
                    if got.evicted_dirty == 0 {
                        got.evicted_line = 0;
                    }
                    assert_eq!(got, reference.access(set, line, sectors, fill, write), "{ways} ways, access {i}, line {line}");
                }
            }
        }
    }
}
