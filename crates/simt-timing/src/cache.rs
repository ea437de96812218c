//! Cache tags: set-associative, sectored, least-recently-used. Values stay in the
//! functional memory; a cache here is only which lines and sectors it holds.

/// A sectored, set-associative LRU tag store. Lines are identified by their line
/// number (address / line size); each line holds up to 8 sectors (a bit mask).
///
/// A set's tags lie side by side, 8 bytes each, apart from their sectors and ages: a lookup
/// compares a run of tags eight at a time (a streaming L1 misses all 64 ways of a set on
/// nearly every access), and looks at ages only to choose a victim. An H100's L2 has 400,000
/// lines, far beyond the host's caches, and the boundary between windows looks every request
/// up in it.
#[derive(Clone, Debug)]
pub struct SectorCache {
    sets: u64,
    /// `sets` as a multiplier that takes a remainder without dividing (see [`fast_mod`]):
    /// every access needs a set, and a 64-bit division costs as much as the rest of a hit.
    sets_inverse: u128,
    /// log2 of the shards a cache was cut into ([`SectorCache::split`]); 0 for a whole cache.
    shard_shift: u32,
    ways: usize,
    /// The line each way holds, [`EMPTY`] if none.
    tags: Vec<u64>,
    /// Each way's sectors and last use, in the order of `tags`.
    state: Vec<Way>,
    clock: u64,
}

/// One way's sectors and when it was last used.
#[derive(Clone, Copy, Debug)]
struct Way {
    used: u32,
    valid: u8,
    dirty: u8,
}

const EMPTY: u64 = u64::MAX;

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
        let ways = ways.max(1) as usize;
        let sets = lines / ways as u64;
        let n = (sets as usize) * ways;
        SectorCache {
            sets,
            sets_inverse: (u128::MAX / u128::from(sets.max(1))).wrapping_add(1),
            shard_shift,
            ways,
            tags: vec![EMPTY; n],
            state: vec![Way { used: 0, valid: 0, dirty: 0 }; n],
            clock: 0,
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

    /// Asks the host to start loading the set `line` maps to, so that an [`access`](Self::access)
    /// a few requests later does not wait for memory.
    #[inline]
    pub fn prefetch(&self, line: u64) {
        #[cfg(target_arch = "x86_64")]
        if self.sets > 0 {
            let range = self.set_of(line);
            let tags = self.tags[range.clone()].iter().step_by(64 / std::mem::size_of::<u64>()).map(|t| (t as *const u64).cast::<i8>());
            let state = self.state[range].iter().step_by(64 / std::mem::size_of::<Way>()).map(|w| (w as *const Way).cast::<i8>());
            for p in tags.chain(state) {
                // SAFETY: prefetching is a hint with no effect on memory; the pointer is in bounds.
                unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
            }
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
        self.tick();
        let clock = self.clock as u32;
        let range = self.set_of(line);
        let tags = &mut self.tags[range.clone()];
        let state = &mut self.state[range];
        if let Some(i) = find(tags, line) {
            let way = &mut state[i];
            let hit = way.valid & sectors;
            if fill {
                way.valid |= sectors;
            }
            if write {
                way.dirty |= sectors;
            }
            way.used = clock;
            return Lookup { hit, ..Lookup::default() };
        }
        if !fill {
            return Lookup::default();
        }
        // The first empty way, else the first least recently used one. Ways fill in order and
        // are never emptied, so a set whose last way is taken has no empty one.
        let victim = if tags[tags.len() - 1] == EMPTY {
            find(tags, EMPTY).unwrap_or(0)
        } else {
            let mut victim = 0;
            for (i, way) in state.iter().enumerate().skip(1) {
                if way.used < state[victim].used {
                    victim = i;
                }
            }
            victim
        };
        let evicted_line = tags[victim];
        let evicted_dirty = if evicted_line == EMPTY { 0 } else { state[victim].dirty };
        tags[victim] = line;
        state[victim] = Way { used: clock, valid: sectors, dirty: if write { sectors } else { 0 } };
        Lookup { hit: 0, evicted_dirty, evicted_line }
    }

    /// Drops `sectors` of `line` if present (another copy was written), keeping its LRU place.
    /// The way keeps its tag, so ways still fill in order and are never emptied.
    pub fn invalidate(&mut self, line: u64, sectors: u8) {
        if self.sets == 0 {
            return;
        }
        let range = self.set_of(line);
        if let Some(i) = find(&self.tags[range.clone()], line) {
            let way = &mut self.state[range.start + i];
            way.valid &= !sectors;
            way.dirty &= !sectors;
        }
    }

    /// Advances the LRU clock. It is 32 bits, to keep a way's state in 8 bytes: before it
    /// wraps, every way's age is renumbered in its set's order, which keeps every LRU decision.
    fn tick(&mut self) {
        self.clock += 1;
        if self.clock > u64::from(u32::MAX) {
            for set in self.state.chunks_mut(self.ways) {
                let mut order: Vec<usize> = (0..set.len()).collect();
                order.sort_by_key(|&i| set[i].used);
                for (age, i) in order.into_iter().enumerate() {
                    set[i].used = age as u32;
                }
            }
            self.clock = self.ways as u64;
        }
    }
}

/// The first way of `tags` holding `line`: eight tags compared at once (no early exit within
/// the eight, so the comparisons become vector instructions).
#[inline]
fn find(tags: &[u64], line: u64) -> Option<usize> {
    let mut chunks = tags.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mask = chunk.iter().enumerate().fold(0u32, |m, (i, &t)| m | (u32::from(t == line) << i));
        if mask != 0 {
            return Some(base + mask.trailing_zeros() as usize);
        }
        base += 8;
    }
    chunks.remainder().iter().position(|&t| t == line).map(|i| base + i)
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
        let mut a = 0x0123_4567_89AB_CDEFu64;
        for &d in &divisors {
            let inverse = (u128::MAX / u128::from(d)).wrapping_add(1);
            for edge in [0, 1, d - 1, d, d.wrapping_add(1), u64::MAX, u64::MAX - 1] {
                assert_eq!(fast_mod(edge, inverse, d), edge % d, "{edge} % {d}");
            }
            for _ in 0..10_000 {
                a ^= a << 13;
                a ^= a >> 7;
                a ^= a << 17;
                assert_eq!(fast_mod(a, inverse, d), a % d, "{a} % {d}");
                assert_eq!(fast_mod(a >> 20, inverse, d), (a >> 20) % d);
            }
        }
    }

    #[test]
    fn shards_decide_what_the_whole_cache_would() {
        let (lines, ways) = (4096, 16);
        let mut whole = SectorCache::new(lines, ways);
        let mut shards = SectorCache::split(lines, ways, 4);
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for i in 0..200_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Lines from a range about twice the cache, so that sets fill, hit and evict.
            let line = x % (2 * lines);
            let sectors = (x >> 40) as u8 | 1;
            let (fill, write) = (x >> 50 & 3 != 0, x >> 52 & 1 != 0);
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

    #[test]
    fn lru_order_survives_the_clock_wrapping() {
        let mut c = SectorCache::new(3, 3); // one set of three ways
        c.access(1, 0b1, true, false);
        c.access(2, 0b1, true, false);
        c.clock = u64::from(u32::MAX) - 1;
        c.access(3, 0b1, true, false); // the last use before the wrap
        c.access(1, 0b1, true, false); // wraps: ages renumbered, 1 most recent, 2 least
        assert!(c.clock < 10, "the clock starts again");
        c.access(4, 0b1, true, false); // evicts 2
        assert_eq!(c.access(2, 0b1, false, false).hit, 0);
        assert_eq!(c.access(3, 0b1, false, false).hit, 0b1);
        assert_eq!(c.access(1, 0b1, false, false).hit, 0b1);
    }
}
