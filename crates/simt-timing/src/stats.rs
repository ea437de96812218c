//! The statistics of a timed launch, as text a student can read and as JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use simt_interp::Launch;
use simt_isa::Unit;

use crate::memsys::L2Figures;
use crate::occupancy::{Limiter, Occupancy};
use crate::reason::Reason;
use crate::sim::{Ctx, PipeRow, Sm, TraceRec};

/// Hits of one cache.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct CacheStats {
    /// Sectors (lines for the constant cache) looked up.
    pub accesses: u64,
    /// Of those, present.
    pub hits: u64,
    /// `hits / accesses`, percent (0 without accesses).
    pub hit_rate_percent: f64,
}

impl CacheStats {
    fn new(accesses: u64, hits: u64) -> CacheStats {
        CacheStats { accesses, hits, hit_rate_percent: percent(hits, accesses) }
    }
}

/// Device-memory traffic.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct DramStats {
    /// Bytes read (L2 misses, 32-byte sectors).
    pub read_bytes: u64,
    /// Bytes written back (dirty sectors evicted from L2).
    pub write_bytes: u64,
    /// `(read + write) / time`, GB/s.
    pub achieved_gbs: f64,
    /// The configured bandwidth, GB/s.
    pub peak_gbs: f64,
    /// `achieved / peak`, percent.
    pub percent_of_peak: f64,
}

/// Occupancy, as the calculator says and as the run had it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct OccupancyStats {
    /// Resident warps the calculator allows, percent of the SM's maximum.
    pub theoretical_percent: f64,
    /// Average resident warps over the cycles an SM had any, percent of the maximum.
    pub achieved_percent: f64,
    /// Blocks per SM the calculator allows.
    pub blocks_per_sm: u32,
    /// Warps per SM the calculator allows.
    pub warps_per_sm: u32,
    /// What limits them.
    pub limiter: Limiter,
}

/// One execution unit type over all partitions.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct UnitStats {
    /// Unit name (`FP32`, `LD/ST`, ...).
    pub unit: String,
    /// Warp instructions it accepted.
    pub instructions: u64,
    /// Cycles it could not accept another (32 / lanes per instruction, or the MMA interval).
    pub busy_cycles: u64,
    /// `busy_cycles / (cycles x partitions x SMs)`, percent.
    pub utilization_percent: f64,
}

/// Everything a timed launch measured.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TimingStats {
    /// Machine name.
    pub machine: String,
    /// SM clock, GHz.
    pub clock_ghz: f64,
    /// The clock tensor TFLOPS are given at, GHz (`tensor_clock_ghz`).
    pub tensor_clock_ghz: f64,
    /// SMs on the machine.
    pub sms: u32,
    /// SMs that ran at least one block.
    pub sms_used: u32,
    /// Cycles from the first issue to the end of the last block.
    pub cycles: u64,
    /// `cycles / clock`, microseconds.
    pub time_us: f64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Warp instructions per cycle per SM, averaged over all SMs.
    pub ipc_per_sm: f64,
    /// Issue slots (cycles x partitions x SMs) by reason; they sum to `issue_slots_total`.
    pub issue_slots: BTreeMap<String, u64>,
    /// `cycles x partitions x SMs`.
    pub issue_slots_total: u64,
    /// Issue slots of the SMs that ran at least one block, by reason: a small grid leaves most
    /// SMs idle, and these say how the busy ones spent their cycles.
    pub busy_sm_issue_slots: BTreeMap<String, u64>,
    /// `cycles x partitions x SMs that ran blocks`.
    pub busy_sm_issue_slots_total: u64,
    /// Theoretical and achieved occupancy.
    pub occupancy: OccupancyStats,
    /// L1 data cache (global and local loads, by sector).
    pub l1: CacheStats,
    /// L2 (by sector).
    pub l2: CacheStats,
    /// Constant cache (PARAM loads, by line).
    pub constant: CacheStats,
    /// Device memory.
    pub dram: DramStats,
    /// Shared-memory warp accesses.
    pub shared_accesses: u64,
    /// Extra shared-memory passes caused by bank conflicts.
    pub shared_bank_conflicts: u64,
    /// Extra register-read cycles bank conflicts would cost (charged only if the machine models them).
    pub register_bank_conflicts: u64,
    /// Per unit.
    pub units: Vec<UnitStats>,
    /// Multiply-accumulates the tensor cores performed (useful ones: twice the stored A for 2:4 sparse).
    pub tensor_macs: u64,
    /// `tensor_macs / cycles / SMs used`.
    pub tensor_macs_per_cycle_per_sm: f64,
    /// `2 x tensor_macs` per second at the machine's `tensor_clock_ghz`, in TFLOPS: the rate a
    /// datasheet would quote for this many MACs per cycle.
    pub tensor_tflops: f64,
}

/// A timed launch's outcome: the timing statistics, the functional statistics (identical to a
/// functional run's), and what `--pipeview` and `--timeline` recorded.
#[derive(Clone, Debug)]
pub struct Report {
    /// Timing statistics.
    pub stats: TimingStats,
    /// The functional run's statistics (per opcode, branches, memory traffic).
    pub functional: simt_interp::Stats,
    /// Recorded warp instructions, in issue order.
    pub pipeview: Vec<PipeRow>,
    pub(crate) trace: Vec<TraceRec>,
    /// The cycle from which `--pipeview` and `--timeline` recorded nothing more, having
    /// reached [`MAX_RECORDS`](crate::MAX_RECORDS) records together: both stop there, so
    /// what they hold is every record before that cycle.
    pub recording_stopped: Option<u64>,
    /// Each pc's instruction text, for rendering.
    pub instructions: Vec<String>,
    /// Each pc's source line (0 when unknown).
    pub lines: Vec<u32>,
    /// Partitions per SM.
    pub partitions: u32,
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 { 0.0 } else { 100.0 * part as f64 / whole as f64 }
}

pub(crate) fn report(ctx: &Ctx<'_>, launch: &Launch<'_>, occ: &Occupancy, sms: &mut [Sm<'_>], cycles: u64, l2: &L2Figures) -> Report {
    let m = ctx.machine;
    let parts = u64::from(m.sm.partitions);
    let count = sms.len() as u64;
    let mut slots = [0u64; 8];
    let mut busy_slots = [0u64; 8];
    let mut raw = crate::sim::Raw::default();
    let mut counters = simt_interp::Counters::new(ctx.kernel.code.len());
    let mut pipeview = Vec::new();
    let mut trace = Vec::new();
    let mut used = 0;
    for sm in sms.iter_mut() {
        // Cycles past the launch's end were accounted as empty: take them back.
        let over = sm.cycle.saturating_sub(cycles) * parts;
        sm.raw.slots[Reason::NoWarp.index()] -= over.min(sm.raw.slots[Reason::NoWarp.index()]);
        if sm.cycle < cycles {
            sm.raw.slots[Reason::NoWarp.index()] += (cycles - sm.cycle) * parts;
        }
        for (total, n) in slots.iter_mut().zip(sm.raw.slots) {
            *total += n;
        }
        if sm.blocks_run > 0 {
            for (total, n) in busy_slots.iter_mut().zip(sm.raw.slots) {
                *total += n;
            }
        }
        for (total, n) in raw.unit_instr.iter_mut().zip(sm.raw.unit_instr) {
            *total += n;
        }
        for (total, n) in raw.unit_busy.iter_mut().zip(sm.raw.unit_busy) {
            *total += n;
        }
        raw.instructions += sm.raw.instructions;
        raw.l1_sectors += sm.raw.l1_sectors;
        raw.l1_hits += sm.raw.l1_hits;
        raw.const_accesses += sm.raw.const_accesses;
        raw.const_hits += sm.raw.const_hits;
        raw.shared_accesses += sm.raw.shared_accesses;
        raw.shared_conflicts += sm.raw.shared_conflicts;
        raw.reg_conflicts += sm.raw.reg_conflicts;
        raw.warp_cycles += sm.raw.warp_cycles;
        raw.active_cycles += sm.raw.active_cycles;
        raw.mma_macs += sm.raw.mma_macs;
        sm.add_counters(&mut counters);
        pipeview.append(&mut sm.pipe);
        trace.append(&mut sm.trace);
        used += u32::from(sm.blocks_run > 0);
    }
    pipeview.sort_by_key(|r| (r.issue, r.sm, r.partition));
    let time_us = cycles as f64 / (m.clock_ghz * 1000.0);
    let dram_bytes = l2.dram_read + l2.dram_write;
    let achieved = if cycles == 0 { 0.0 } else { dram_bytes as f64 / (cycles as f64 / m.clock_ghz) };
    let total_slots = cycles * parts * count;
    let stats = TimingStats {
        machine: m.name.clone(),
        clock_ghz: m.clock_ghz,
        tensor_clock_ghz: m.tensor_clock_ghz,
        sms: m.sm.count,
        sms_used: used,
        cycles,
        time_us,
        warp_instructions: raw.instructions,
        ipc_per_sm: if cycles == 0 { 0.0 } else { raw.instructions as f64 / cycles as f64 / count as f64 },
        issue_slots: Reason::ALL.iter().map(|r| (r.name().to_string(), slots[r.index()])).collect(),
        issue_slots_total: total_slots,
        busy_sm_issue_slots: Reason::ALL.iter().map(|r| (r.name().to_string(), busy_slots[r.index()])).collect(),
        busy_sm_issue_slots_total: cycles * parts * u64::from(used),
        occupancy: OccupancyStats {
            theoretical_percent: occ.occupancy_percent,
            achieved_percent: if raw.active_cycles == 0 { 0.0 } else { 100.0 * raw.warp_cycles as f64 / raw.active_cycles as f64 / f64::from(m.sm.max_warps) },
            blocks_per_sm: occ.blocks_per_sm,
            warps_per_sm: occ.warps_per_sm,
            limiter: occ.limiter,
        },
        l1: CacheStats::new(raw.l1_sectors, raw.l1_hits),
        l2: CacheStats::new(l2.sectors, l2.hits),
        constant: CacheStats::new(raw.const_accesses, raw.const_hits),
        dram: DramStats {
            read_bytes: l2.dram_read,
            write_bytes: l2.dram_write,
            achieved_gbs: achieved,
            peak_gbs: m.memory.dram.bandwidth_gbs,
            percent_of_peak: 100.0 * achieved / m.memory.dram.bandwidth_gbs,
        },
        shared_accesses: raw.shared_accesses,
        shared_bank_conflicts: raw.shared_conflicts,
        register_bank_conflicts: raw.reg_conflicts,
        units: Unit::ALL
            .iter()
            .enumerate()
            .map(|(i, u)| UnitStats {
                unit: u.name().to_string(),
                instructions: raw.unit_instr[i],
                busy_cycles: raw.unit_busy[i],
                utilization_percent: percent(raw.unit_busy[i], total_slots),
            })
            .collect(),
        tensor_macs: raw.mma_macs,
        tensor_macs_per_cycle_per_sm: if cycles == 0 || used == 0 { 0.0 } else { raw.mma_macs as f64 / cycles as f64 / f64::from(used) },
        tensor_tflops: if cycles == 0 { 0.0 } else { 2.0 * raw.mma_macs as f64 / cycles as f64 * m.tensor_clock_ghz / 1000.0 },
    };
    let symbols = simt_isa::Symbols::of(ctx.kernel);
    Report {
        stats,
        functional: launch.stats(&counters),
        pipeview,
        trace,
        recording_stopped: None,
        instructions: ctx.kernel.code.iter().map(|i| simt_isa::format_instruction(i, &symbols)).collect(),
        lines: (0..ctx.kernel.code.len() as u32).map(|pc| ctx.kernel.line(pc).unwrap_or(0)).collect(),
        partitions: m.sm.partitions,
    }
}

/// Groups digits by thousands: `1234567` is `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

impl TimingStats {
    /// The report `simt run --timing` prints.
    pub fn render_text(&self, description: &str) -> String {
        let mut s = String::new();
        let row = |s: &mut String, label: &str, value: String| {
            let _ = writeln!(s, "  {label:<22}{value}");
        };
        let _ = writeln!(s, "timing on {} ({description})", self.machine);
        row(&mut s, "cycles", thousands(self.cycles));
        row(&mut s, "time", format!("{:.3} us at {} GHz", self.time_us, self.clock_ghz));
        row(&mut s, "warp instructions", thousands(self.warp_instructions));
        row(&mut s, "IPC per SM", format!("{:.3} warp instructions per cycle ({} SMs, {} ran blocks)", self.ipc_per_sm, self.sms, self.sms_used));
        let _ = writeln!(
            s,
            "  issue slots           {} (cycles x partitions x SMs), by reason; last column: the {} SM{} that ran blocks",
            thousands(self.issue_slots_total),
            self.sms_used,
            if self.sms_used == 1 { "" } else { "s" }
        );
        for r in Reason::ALL {
            let n = self.issue_slots.get(r.name()).copied().unwrap_or(0);
            let busy = self.busy_sm_issue_slots.get(r.name()).copied().unwrap_or(0);
            let _ = writeln!(
                s,
                "    {:<22}{:>6.1}%  {:>16}  {:>6.1}%",
                r.name(),
                percent(n, self.issue_slots_total),
                thousands(n),
                percent(busy, self.busy_sm_issue_slots_total)
            );
        }
        let o = &self.occupancy;
        row(
            &mut s,
            "occupancy",
            format!(
                "achieved {:.1}%, theoretical {:.1}% ({} blocks, {} warps per SM; limited by {})",
                o.achieved_percent,
                o.theoretical_percent,
                o.blocks_per_sm,
                o.warps_per_sm,
                o.limiter.describe()
            ),
        );
        let cache = |c: &CacheStats, what: &str| format!("{:.1}% of {} {what}", c.hit_rate_percent, thousands(c.accesses));
        row(&mut s, "L1 hit rate", cache(&self.l1, "sectors"));
        row(&mut s, "L2 hit rate", cache(&self.l2, "sectors"));
        row(&mut s, "constant cache", cache(&self.constant, "lines"));
        let d = &self.dram;
        row(&mut s, "DRAM", format!("{} bytes read, {} written", thousands(d.read_bytes), thousands(d.write_bytes)));
        row(&mut s, "DRAM bandwidth", format!("{:.1} GB/s achieved, {:.1}% of {:.0} GB/s", d.achieved_gbs, d.percent_of_peak, d.peak_gbs));
        row(
            &mut s,
            "shared memory",
            format!("{} warp accesses, {} extra passes from bank conflicts", thousands(self.shared_accesses), thousands(self.shared_bank_conflicts)),
        );
        row(&mut s, "register banks", format!("{} extra read cycles from bank conflicts", thousands(self.register_bank_conflicts)));
        if self.tensor_macs > 0 {
            row(
                &mut s,
                "tensor cores",
                format!(
                    "{} MACs, {:.1} per cycle per SM, {:.1} TFLOPS at the {} GHz tensor clock",
                    thousands(self.tensor_macs),
                    self.tensor_macs_per_cycle_per_sm,
                    self.tensor_tflops,
                    self.tensor_clock_ghz
                ),
            );
        }
        let _ = writeln!(s, "  units                 {:>16}  {:>16}  {:>11}", "instructions", "busy cycles", "utilisation");
        for u in &self.units {
            let _ = writeln!(s, "    {:<20}{:>16}  {:>16}  {:>10.1}%", u.unit, thousands(u.instructions), thousands(u.busy_cycles), u.utilization_percent);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_grouped() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(1234567), "1,234,567");
    }
}
