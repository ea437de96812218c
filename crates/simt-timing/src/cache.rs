//! Cache tags: set-associative, sectored, least-recently-used. Values stay in the
//! functional memory; a cache here is only which lines and sectors it holds.

/// A sectored, set-associative LRU tag store. Lines are identified by their line
/// number (address / line size); each line holds up to 8 sectors (a bit mask).
#[derive(Clone, Debug)]
pub struct SectorCache {
    sets: u64,
    ways: usize,
    tags: Vec<u64>,
    valid: Vec<u8>,
    dirty: Vec<u8>,
    used: Vec<u64>,
    clock: u64,
}

const EMPTY: u64 = u64::MAX;

/// What one access found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lookup {
    /// Sectors of the request that were present.
    pub hit: u8,
    /// Dirty sectors of a line evicted to make room.
    pub evicted_dirty: u8,
}

impl SectorCache {
    /// `lines` lines in sets of `ways` (at least one set; a zero-line cache misses always).
    pub fn new(lines: u64, ways: u32) -> SectorCache {
        let ways = ways.max(1) as usize;
        let sets = lines / ways as u64;
        let n = (sets as usize) * ways;
        SectorCache { sets, ways, tags: vec![EMPTY; n], valid: vec![0; n], dirty: vec![0; n], used: vec![0; n], clock: 0 }
    }

    /// Whether the cache holds anything at all.
    pub fn is_empty(&self) -> bool {
        self.sets == 0
    }

    fn set_of(&self, line: u64) -> std::ops::Range<usize> {
        // A multiplicative hash spreads strided lines over the sets as real index hashing does.
        let set = (line.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20) % self.sets;
        let start = set as usize * self.ways;
        start..start + self.ways
    }

    /// Looks `sectors` of `line` up. With `fill`, missing sectors are then present (the line
    /// allocated over the least recently used one when absent); with `write`, the given
    /// sectors become dirty. Hits and fills make the line most recently used.
    pub fn access(&mut self, line: u64, sectors: u8, fill: bool, write: bool) -> Lookup {
        if self.sets == 0 {
            return Lookup::default();
        }
        self.clock += 1;
        let range = self.set_of(line);
        if let Some(i) = range.clone().find(|&i| self.tags[i] == line) {
            let hit = self.valid[i] & sectors;
            if fill {
                self.valid[i] |= sectors;
            }
            if write {
                self.dirty[i] |= sectors;
            }
            self.used[i] = self.clock;
            return Lookup { hit, evicted_dirty: 0 };
        }
        if !fill {
            return Lookup::default();
        }
        let victim = range.min_by_key(|&i| (self.tags[i] != EMPTY, self.used[i])).unwrap_or(0);
        let evicted_dirty = if self.tags[victim] == EMPTY { 0 } else { self.dirty[victim] };
        self.tags[victim] = line;
        self.valid[victim] = sectors;
        self.dirty[victim] = if write { sectors } else { 0 };
        self.used[victim] = self.clock;
        Lookup { hit: 0, evicted_dirty }
    }

    /// Forgets every line.
    pub fn clear(&mut self) {
        self.tags.fill(EMPTY);
        self.valid.fill(0);
        self.dirty.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
