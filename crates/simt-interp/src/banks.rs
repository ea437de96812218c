//! Shared-memory banks: how many passes one warp's access takes. The timing backend charges
//! them (shared memory and the L1's data banks, the same SRAM) and the memory-efficiency
//! report counts them, so both use this one definition.

use crate::exec::lanes as lanes_of;

/// Banks of 4 bytes, one word each a pass.
pub const BANKS: u32 = 32;

/// Passes shared memory (and the L1's data banks, the same SRAM) needs for one warp access.
/// Data returns 128 bytes a cycle, one register for 32 lanes (NVIDIA's developer forum,
/// "Unexpected shared memory bank conflict", 2019), so an access of 8 bytes a lane goes in two
/// parts of half a warp and one of 16 bytes in four of a quarter: each part takes as many passes
/// as the most distinct 4-byte words one of its banks must deliver (lanes reading one word share
/// a broadcast). When every active lane reads what its neighbour `n ^ 1` or `n ^ 2` reads, two
/// lanes' data pack into one return and the parts are twice as wide (the same post). For
/// atomics, also the most lanes that hit one address, since they serialise.
#[inline]
pub fn shared_passes(addresses: &[u32; 32], lanes: u32, size: u32, atomic: bool) -> u32 {
    let per_lane = size.div_ceil(4).max(1);
    // The usual access, every lane reading the element after its left neighbour's, covers
    // 32 x per_lane consecutive words: each part one word in every bank, no two lanes at one
    // address. Every global access asks, so it is answered without counting words.
    // Lane `l`'s word is `l << shift` past lane 0's: one shift count for all lanes compares as
    // vectors on SSE2, which has no 32-bit multiply (with one, the check took 140 instructions).
    let base = addresses[0] / 4;
    let shift = per_lane.trailing_zeros();
    if lanes == u32::MAX && per_lane.is_power_of_two() && every_lane(addresses, |l, a| a / 4 == base + (l << shift)) {
        return per_lane;
    }
    passes_in_parts(addresses, lanes, per_lane, atomic)
}

/// The passes `lanes` reading `size` bytes each would take without a conflict: their words,
/// 32 a pass (at least one).
pub fn ideal_passes(lanes: u32, size: u32) -> u32 {
    (lanes.count_ones() * size.div_ceil(4)).div_ceil(BANKS).max(1)
}

/// Whether `holds(lane, address)` for all 32 lanes' addresses. Every lane is asked, with no
/// early exit, so that the compiler compares them as vectors.
#[inline]
pub fn every_lane(addresses: &[u32; 32], holds: impl Fn(u32, u32) -> bool) -> bool {
    (0..32u32).fold(true, |all, l| all & holds(l, addresses[l as usize]))
}

/// [`shared_passes`] by counting each part's banks' distinct words.
fn passes_in_parts(addresses: &[u32; 32], lanes: u32, per_lane: u32, atomic: bool) -> u32 {
    let mut parts = per_lane.next_power_of_two().min(4);
    if parts > 1 && (paired(addresses, lanes, 1) || paired(addresses, lanes, 2)) {
        parts /= 2;
    }
    let width = 32 / parts;
    let part = u32::MAX >> (32 - width);
    let mut passes = (0..parts).map(|p| most_words_in_a_bank(addresses, lanes & (part << (p * width)), per_lane)).sum::<u32>().max(1);
    if atomic {
        passes = passes.max(most_lanes_at_one_address(addresses, lanes));
    }
    passes
}

/// The most of `lanes` that address one place (0 for no lanes): atomics to one address serialise.
pub(crate) fn most_lanes_at_one_address(addresses: &[u32; 32], lanes: u32) -> u32 {
    let mut same = [0u32; 32];
    let mut n = 0;
    for l in lanes_of(lanes) {
        same[n] = addresses[l];
        n += 1;
    }
    let same = &mut same[..n];
    same.sort_unstable();
    same.chunk_by(|a, b| a == b).map(|run| run.len() as u32).max().unwrap_or(0)
}

/// Whether every active lane whose partner `lane ^ distance` is active reads the partner's address.
fn paired(addresses: &[u32; 32], lanes: u32, distance: usize) -> bool {
    lanes_of(lanes).all(|l| lanes & (1 << (l ^ distance)) == 0 || addresses[l] == addresses[l ^ distance])
}

/// The most distinct words one bank holds of what `lanes` read, `per_lane` words each (0 for no
/// lanes): the passes one part of an access takes.
fn most_words_in_a_bank(addresses: &[u32; 32], lanes: u32, per_lane: u32) -> u32 {
    // Aligned vectors of `per_lane` words (a power of two) cover whole groups of `per_lane`
    // banks, and two different ones share no word: counting each group's distinct vectors
    // gives its banks' distinct words in a per_lane-th of the steps (a float4 load: a quarter).
    if per_lane > 1 && per_lane.is_power_of_two() && per_lane <= BANKS && lanes_of(lanes).all(|l| addresses[l] & ((per_lane - 1) << 2) == 0) {
        most_in_a_group(addresses, lanes, 2 + per_lane.trailing_zeros(), BANKS / per_lane - 1, 1)
    } else {
        most_in_a_group(addresses, lanes, 2, BANKS - 1, per_lane)
    }
}

/// The most distinct items one group holds: lane `l` reads `words` items from
/// `addresses[l] >> shift`, item `i` in group `i & group_mask`.
#[inline(always)]
fn most_in_a_group(addresses: &[u32; 32], lanes: u32, shift: u32, group_mask: u32, words: u32) -> u32 {
    // Each group's first item, then any other distinct items: most accesses (a broadcast, a
    // permutation, half-warps reading one row each) never need the list of others.
    let mut first = [0u32; BANKS as usize];
    let mut per_group = [0u32; BANKS as usize];
    let mut others = [0u32; 128];
    let mut n = 0;
    for l in lanes_of(lanes) {
        for k in 0..words {
            let item = (addresses[l] >> shift) + k;
            let group = (item & group_mask) as usize;
            if per_group[group] == 0 {
                first[group] = item;
                per_group[group] = 1;
            } else if first[group] != item && !others[..n].contains(&item) {
                others[n] = item;
                n += 1;
                per_group[group] += 1;
            }
        }
    }
    per_group.iter().copied().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn shared_bank_conflicts_and_broadcast() {
        let stride = |s: u32| std::array::from_fn(|l| l as u32 * s);
        assert_eq!(shared_passes(&stride(4), u32::MAX, 4, false), 1, "consecutive words: one pass");
        assert_eq!(shared_passes(&stride(128), u32::MAX, 4, false), 32, "a 32-way conflict");
        assert_eq!(shared_passes(&[64; 32], u32::MAX, 4, false), 1, "one word broadcast");
        assert_eq!(shared_passes(&stride(8), u32::MAX, 4, false), 2, "stride 2 words: 2-way");
        assert_eq!(shared_passes(&stride(16), u32::MAX, 16, false), 4, "V4: 512 bytes in four passes");
        assert_eq!(shared_passes(&[64; 32], u32::MAX, 4, true), 32, "atomics on one address serialise");
    }

    /// gpu_shm_microbench's patterns over elements of `size` bytes: lane `l` reads element
    /// `(l % ways) * 32 + l / share`.
    fn pattern(size: u32, ways: u32, share: u32) -> [u32; 32] {
        std::array::from_fn(|l| ((l as u32 % ways) * 32 + l as u32 / share) * size)
    }

    #[test]
    fn wide_accesses_go_in_parts_of_128_bytes() {
        for (size, parts) in [(8, 2), (16, 4)] {
            assert_eq!(shared_passes(&pattern(size, 1, 1), u32::MAX, size, false), parts, "{size} bytes, consecutive");
            for ways in [2, 4, 8, 16] {
                // A part of 32 / parts lanes holds at most that many of the k lanes of each bank.
                let conflict = parts * ways.min(32 / parts);
                assert_eq!(shared_passes(&pattern(size, ways, ways), u32::MAX, size, false), conflict, "{size} bytes, {ways}-way conflict");
            }
            // Lanes in pairs on one address pack their data: parts of twice the lanes.
            for share in [2, 4, 32] {
                assert_eq!(shared_passes(&pattern(size, 1, share), u32::MAX, size, false), parts / 2, "{size} bytes, {share} lanes an element");
            }
        }
        // Pairs whose partner is inactive still pack; a lane apart from its partner does not.
        let pairs = pattern(16, 1, 2);
        assert_eq!(shared_passes(&pairs, 0x5555_5555, 16, false), 2, "every other lane");
        let mut broken = pairs;
        broken[5] = 4 * 16; // element 4: banks its quarter leaves free, so no conflict either
        assert_eq!(shared_passes(&broken, u32::MAX, 16, false), 4, "one lane apart from its partner");
    }

    /// The passes by their definition: each bank's distinct words, counted.
    fn passes_counted(addresses: &[u32; 32], lanes: u32, per_lane: u32) -> u32 {
        let mut words: Vec<u32> = lanes_of(lanes).flat_map(|l| (0..per_lane).map(move |k| addresses[l] / 4 + k)).collect();
        words.sort_unstable();
        words.dedup();
        (0..BANKS).map(|b| words.iter().filter(|&&w| w % BANKS == b).count() as u32).max().unwrap_or(0)
    }

    proptest::proptest! {
        /// Strided lanes, a few of them moved elsewhere, and the upper half maybe repeating the
        /// lower: broadcasts and conflicts of every kind.
        #[test]
        fn bank_passes_are_the_most_distinct_words_of_a_bank(
            per_lane in 1u32..=4,
            stride in 0u32..70,
            base in 0u32..4096,
            moved in proptest::collection::vec((0usize..32, 0u32..512), 0..8),
            halves in proptest::bool::ANY,
            aligned in proptest::bool::ANY,
            lanes in proptest::prop_oneof![proptest::strategy::Just(u32::MAX), proptest::num::u32::ANY.prop_map(|m| m | 1)],
        ) {
            let mut addresses: [u32; 32] = std::array::from_fn(|l| base * 4 + l as u32 * stride * 4);
            for (lane, word) in moved {
                addresses[lane] = word * 4;
            }
            if halves {
                for l in 16..32 {
                    addresses[l] = addresses[l - 16];
                }
            }
            if aligned {
                // Vectors aligned to their size, as loads of 8 and 16 bytes are.
                let bytes = 4 * per_lane.next_power_of_two();
                addresses = addresses.map(|a| a / bytes * bytes);
            }
            proptest::prop_assert_eq!(most_words_in_a_bank(&addresses, lanes, per_lane), passes_counted(&addresses, lanes, per_lane));
        }
    }

    #[test]
    fn consecutive_elements_take_the_passes_counting_gives() {
        for size in [1u32, 2, 4, 8, 16] {
            for base in [0, 2, 4, 124, 4096 + 6] {
                let base = base - base % size;
                let addresses = std::array::from_fn(|l| base + l as u32 * size.div_ceil(4) * 4);
                for atomic in [false, true] {
                    let counted = passes_in_parts(&addresses, u32::MAX, size.div_ceil(4), atomic);
                    assert_eq!(shared_passes(&addresses, u32::MAX, size, atomic), counted, "size {size}, base {base}");
                }
            }
        }
    }
}
