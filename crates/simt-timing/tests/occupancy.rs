//! Occupancy against the calculator's rules (contract §4 and §7.6), the seed's two
//! figures included; expected values computed from the config's numbers.

use simt_timing::{Impossible, Limiter, Machine, occupancy};

#[test]
fn the_seeds_two_figures_on_h100() {
    let h = Machine::builtin("h100");
    let o = occupancy(&h, 256, 255, 0);
    assert_eq!(o.warps_per_sm, h.sm.max_warps / 8, "255 registers per thread: an eighth of 64 warps");
    assert_eq!(o.limiter, Limiter::Registers);
    // 227 KB usable per block (+1 KB reserved) is the whole 228 KB: one block per SM.
    let o = occupancy(&h, 256, 32, h.sm.max_shared_per_block);
    assert_eq!((o.blocks_per_sm, o.limiter), (1, Limiter::SharedMemory));
    // 228 KB asked by one block is more than a block may have: it cannot run.
    let o = occupancy(&h, 256, 32, h.sm.shared_bytes);
    assert_eq!(o.blocks_per_sm, 0);
    let why = o.impossible.expect("no block fits");
    assert_eq!(why, Impossible::SharedMemory { bytes: h.sm.shared_bytes, max: h.sm.max_shared_per_block });
    assert!(why.to_string().contains("227 KB"), "{why}");
}

/// The calculator's rules written out once more, independently, for the table below.
fn rule(m: &Machine, threads: u32, regs: u32, shared: u32) -> u32 {
    let sm = &m.sm;
    let warps = threads.div_ceil(32);
    let per_warp = (regs * 32).div_ceil(sm.register_allocation_unit) * sm.register_allocation_unit;
    let by_regs = (sm.registers / sm.partitions / per_warp) * sm.partitions / warps;
    let alloc = shared.div_ceil(sm.shared_allocation_unit) * sm.shared_allocation_unit + sm.shared_reserved_per_block;
    let by_shared = sm.shared_bytes.checked_div(alloc).unwrap_or(u32::MAX);
    by_regs.min(by_shared).min(sm.max_warps / warps).min(sm.max_blocks).min(sm.max_threads / (warps * 32))
}

#[test]
fn a_table_of_cases_on_every_machine() {
    let cases = [
        (256, 32, 0),
        (256, 64, 0),
        (128, 40, 16384),
        (1024, 32, 0),
        (64, 255, 0),
        (96, 24, 48 * 1024),
        (32, 16, 0),
        (512, 72, 100 * 1024),
        (256, 168, 0),
        (1000, 20, 1),
    ];
    for (name, _) in simt_timing::config::BUILTIN {
        let m = Machine::builtin(name);
        for &(threads, regs, shared) in &cases {
            if shared > m.sm.max_shared_per_block || threads > m.sm.max_threads {
                continue;
            }
            let o = occupancy(&m, threads, regs, shared);
            assert_eq!(o.blocks_per_sm, rule(&m, threads, regs, shared), "{name}: {threads} threads, {regs} registers, {shared} bytes");
            assert_eq!(o.warps_per_sm, o.blocks_per_sm * threads.div_ceil(32));
        }
    }
    // Worked by hand on h100: 64 registers -> 2048 per warp -> 8 warps per partition -> 32 per SM.
    let h = Machine::builtin("h100");
    assert_eq!(occupancy(&h, 256, 64, 0).warps_per_sm, 32);
    // 32 registers allow 16 blocks of 4 warps; shared memory allows fewer.
    assert_eq!(occupancy(&h, 128, 32, 16384).blocks_per_sm, 13, "shared: 228 KB / (16 KB + 1 KB) = 13");
    assert_eq!(occupancy(&h, 128, 40, 16384).blocks_per_sm, 12, "registers: 40 x 32 = 1280 per warp, 12 warps per partition");
}
