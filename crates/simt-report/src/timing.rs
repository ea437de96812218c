//! What a timed run adds to a report: its changes of issue slots and warp states,
//! binned over cycles so the page's size does not grow with the run's length.

use serde::Serialize;
use simt_timing::{Change, OccupancyStats, Reason, Report, WarpState};

/// Columns of the cycle charts at most.
pub const BINS: u64 = 400;
/// Warps drawn one row each at most (all of them count in the stacked chart).
pub const WARP_ROWS: usize = 256;
/// SM partitions drawn one row each at most (all of them count in the totals).
pub const PARTITION_ROWS: usize = 256;

/// The states a resident warp's cycles are counted in, in chart order.
const WARP_STATES: [&str; 7] = ["issued", "eligible", "scoreboard", "unit_busy", "memory_throttle", "branch/reconvergence", "barrier"];

/// A timed run over cycles.
#[derive(Clone, Debug, Serialize)]
pub struct TimingView {
    /// The machine's name and description.
    pub machine: String,
    /// Cycles the charts cover: the launch's, or fewer when recording stopped.
    pub cycles: u64,
    /// Cycles per column.
    pub bin_cycles: u64,
    /// Columns.
    pub bins: usize,
    /// SMs of the machine, and those that ran a block.
    pub sms: u32,
    /// SMs that ran at least one block.
    pub sms_used: u32,
    /// Partitions per SM.
    pub partitions_per_sm: u32,
    /// Issue-slot reasons, in the order of `slot_cycles`.
    pub slot_reasons: Vec<&'static str>,
    /// Per reason, per column: partition-cycles of every partition together.
    pub slot_cycles: Vec<Vec<u64>>,
    /// Per partition that ran a warp (the first [`PARTITION_ROWS`]): share of each column's cycles it issued.
    pub partitions: Vec<PartitionRow>,
    /// Warp states, in the order of `warp_cycles`.
    pub warp_states: Vec<&'static str>,
    /// Per state, per column: the average number of warps in it.
    pub warp_average: Vec<Vec<f64>>,
    /// Per warp (the first [`WARP_ROWS`]): the state it spent most of each column in.
    pub warps: Vec<WarpRow>,
    /// Warps that ran.
    pub warps_total: usize,
    /// Occupancy, as the calculator says and as the run had it.
    pub occupancy: OccupancyStats,
    /// The cycle from which nothing was recorded, when the records reached their limit:
    /// the charts end there.
    pub recorded_until: Option<u64>,
}

/// One SM partition's issue-slot use.
#[derive(Clone, Debug, Serialize)]
pub struct PartitionRow {
    /// SM.
    pub sm: u32,
    /// Partition in the SM.
    pub partition: u32,
    /// Per column: issued cycles over the column's cycles (0 .. 1).
    pub issued: Vec<f32>,
}

/// One warp's states.
#[derive(Clone, Debug, Serialize)]
pub struct WarpRow {
    /// Block (linear index).
    pub block: u64,
    /// Warp in the block.
    pub warp: u64,
    /// Per column: index into `warp_states` of the state it spent most cycles in, or -1 when not resident.
    pub states: Vec<i8>,
}

/// Spreads the cycles `[from, to)` over columns of `bin` cycles.
fn spread(from: u64, to: u64, bin: u64, mut add: impl FnMut(usize, u64)) {
    let mut c = from;
    while c < to {
        let b = c / bin;
        let end = ((b + 1) * bin).min(to);
        add(b as usize, end - c);
        c = end;
    }
}

fn warp_state_index(state: WarpState) -> Option<usize> {
    match state {
        WarpState::Issued => Some(0),
        WarpState::Eligible => Some(1),
        WarpState::Stalled(reason) => WARP_STATES.iter().position(|s| *s == reason.name()),
    }
}

impl TimingView {
    /// The view of a timed run that recorded its timeline; `warps_per_block` splits warp numbers into block and warp.
    pub fn new(report: &Report, machine: &str, warps_per_block: u64) -> TimingView {
        let stats = &report.stats;
        // Past the cycle the records stopped at, nothing is known: the charts end there.
        let cycles = report.recording_stopped.unwrap_or(stats.cycles).clamp(1, stats.cycles.max(1));
        let bin = cycles.div_ceil(BINS).max(1);
        let bins = cycles.div_ceil(bin) as usize;
        let parts = report.partitions.max(1);

        let mut slot_cycles = vec![vec![0u64; bins]; Reason::ALL.len()];
        let mut partitions: std::collections::BTreeMap<u32, (u64, Reason, Vec<f32>)> = std::collections::BTreeMap::new();
        let mut warp_changes: Vec<(u64, u64, Option<usize>)> = Vec::new();
        let mut close_slot = |from: u64, to: u64, reason: Reason, issued: &mut Vec<f32>| {
            let index = Reason::ALL.iter().position(|r| *r == reason).unwrap_or(0);
            spread(from, to, bin, |b, n| {
                slot_cycles[index][b] += n;
                if reason == Reason::Issued
                    && let Some(cell) = issued.get_mut(b)
                {
                    *cell += n as f32 / bin as f32;
                }
            });
        };
        for change in report.changes() {
            match change {
                Change::Slot { partition, cycle, reason } => {
                    let (from, last, issued) = partitions.entry(partition).or_insert_with(|| (0, Reason::NoWarp, vec![0.0; bins]));
                    close_slot(*from, cycle.min(cycles), *last, issued);
                    (*from, *last) = (cycle.min(cycles), reason);
                }
                Change::Warp { warp, cycle, state } => warp_changes.push((warp, cycle.min(cycles), warp_state_index(state))),
            }
        }
        for (from, last, issued) in partitions.values_mut() {
            close_slot(*from, cycles, *last, issued);
        }
        // Partitions that never had a warp issue nothing: leave them out of the rows.
        let partition_rows = partitions
            .into_iter()
            .filter(|(_, (_, _, issued))| issued.iter().any(|v| *v > 0.0))
            .take(PARTITION_ROWS)
            .map(|(p, (_, _, issued))| PartitionRow { sm: p / parts, partition: p % parts, issued })
            .collect();

        // A warp's changes are in cycle order (a warp lives on one SM); group them by warp.
        warp_changes.sort_by_key(|&(warp, _, _)| warp);
        let mut warp_average = vec![vec![0f64; bins]; WARP_STATES.len()];
        let mut rows = Vec::new();
        let mut warps_total = 0;
        for group in warp_changes.chunk_by(|a, b| a.0 == b.0) {
            warps_total += 1;
            let warp = group[0].0;
            let mut per_bin = (rows.len() < WARP_ROWS).then(|| vec![[0u64; WARP_STATES.len()]; bins]);
            for (i, &(_, from, state)) in group.iter().enumerate() {
                let Some(state) = state else { continue };
                let to = group.get(i + 1).map_or(cycles, |next| next.1);
                spread(from, to, bin, |b, n| {
                    warp_average[state][b] += n as f64;
                    if let Some(per_bin) = &mut per_bin {
                        per_bin[b][state] += n;
                    }
                });
            }
            if let Some(per_bin) = per_bin {
                let states = per_bin
                    .iter()
                    .map(|counts| match counts.iter().enumerate().max_by_key(|&(i, n)| (*n, std::cmp::Reverse(i))) {
                        Some((i, n)) if *n > 0 => i as i8,
                        _ => -1,
                    })
                    .collect();
                rows.push(WarpRow { block: warp / warps_per_block.max(1), warp: warp % warps_per_block.max(1), states });
            }
        }
        for b in 0..bins {
            let width = bin.min(cycles - b as u64 * bin) as f64;
            for state in &mut warp_average {
                state[b] /= width;
            }
        }
        TimingView {
            machine: machine.to_string(),
            cycles,
            bin_cycles: bin,
            bins,
            sms: stats.sms,
            sms_used: stats.sms_used,
            partitions_per_sm: parts,
            slot_reasons: Reason::ALL.iter().map(|r| r.name()).collect(),
            slot_cycles,
            partitions: partition_rows,
            warp_states: WARP_STATES.to_vec(),
            warp_average,
            warps: rows,
            warps_total,
            occupancy: stats.occupancy.clone(),
            recorded_until: report.recording_stopped,
        }
    }
}
