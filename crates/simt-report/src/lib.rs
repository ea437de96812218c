//! A run as a student explores it: one self-contained HTML file (no server, no
//! network) with the kernel's source beside a zoomable timeline of every issued warp
//! instruction (lanes as rows, issues as columns), per-line counters as a heat column,
//! and for a timed run the warps' stall reasons and the issue slots over cycles.
//!
//! The pieces:
//! - [`RunView`]: what a functional run shows, built from a trace. It is also the JSON
//!   that `simt run --trace --format json` writes, so `simt report TRACE.json` can
//!   draw a trace recorded earlier.
//! - [`TimingView`]: what a timed run adds, binned over cycles.
//! - [`render`]: the HTML page. Issues travel packed (five little-endian words each,
//!   base64) so that a million of them load in a browser in about a second; the page
//!   draws only the cells in view.
#![warn(missing_docs)]

mod html;
mod timing;

use serde::{Deserialize, Serialize};
use simt_interp::trace::{BranchSummary, Issue, Trace};
use simt_interp::{LaunchConfig, SimtModel, Stats};
use simt_isa::{Kernel, Module, Symbols};

pub use html::render;
pub use timing::TimingView;

/// The most `printf` records a report shows (the first ones, in print order): the page stays
/// small however much a kernel printed; the summary counts them all.
pub const PRINTED_RECORDS: usize = 4096;

/// The most recorded issues whose written register values a report keeps: about 4 KiB
/// each at most, so the page stays small. Hovering a later cell shows the registers
/// without values.
pub const VALUE_ISSUES: usize = 16_384;

/// What a report shows of a functional run (and what `--trace --format json` writes).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunView {
    /// Everything but the issues and their values.
    #[serde(flatten)]
    pub meta: RunMeta,
    /// The recorded issues, in order.
    pub issues: Vec<Issue>,
    /// What the first [`RunMeta::values_kept`] issues wrote (see [`Trace::written_values`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub written_values: Vec<u32>,
}

/// The run, its source and its counters.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunMeta {
    /// Kernel name.
    pub kernel: String,
    /// The source file's name, as given.
    pub file: String,
    /// The source text, line by line (empty when the module came without it).
    pub source: Vec<String>,
    /// SIMT model: `its` or `stack`.
    pub simt: String,
    /// Blocks in the grid.
    pub grid: [u32; 3],
    /// Threads per block.
    pub block: [u32; 3],
    /// Per pc: its source line, text, registers and memory efficiency.
    pub pcs: Vec<PcView>,
    /// Per source line that has instructions: its counters.
    pub lines: Vec<LineView>,
    /// Sanitizer findings.
    pub findings: Vec<FindingView>,
    /// Branches that can diverge, as the trace summarised them.
    pub branches: Vec<BranchSummary>,
    /// Whether recording stopped before the launch did.
    pub truncated: bool,
    /// How many of the first issues have their written values in `written_values`.
    #[serde(default)]
    pub values_kept: usize,
    /// What the launch printed (`PRINTF`, CUDA's `printf`), in print order: the first
    /// [`PRINTED_RECORDS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub printed: Vec<PrintedView>,
    /// How many records the launch printed in all.
    #[serde(default)]
    pub printed_total: usize,
}

/// One thread's `printf` record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrintedView {
    /// The source line that printed it (0 when unknown).
    pub line: u32,
    /// The block's index in the grid as one number, x fastest.
    pub block: u64,
    /// The thread's index in the block.
    pub thread: [u32; 3],
    /// The text.
    pub text: String,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PcView {
    /// Source line (0 when unknown).
    pub line: u32,
    /// The instruction as the disassembler writes it.
    pub text: String,
    /// Registers read.
    pub reads: Vec<u8>,
    /// Registers written, in the order their values are kept.
    pub writes: Vec<u8>,
}

/// The counters of one source line. Issues and lanes count the recorded issues; memory
/// figures and findings count the whole launch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LineView {
    /// Source line.
    pub line: u32,
    /// Recorded issues of its instructions.
    pub issues: u64,
    /// Lanes active over those issues (SIMD efficiency is this over 32 per issue).
    pub active_lanes: u64,
    /// Memory requests (warp issues with a lane accessing memory).
    pub requests: u64,
    /// GLOBAL and LOCAL: 32-byte sectors per request, and the ideal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sectors: Option<(f64, f64)>,
    /// GLOBAL and LOCAL: 128-byte lines per request, and the ideal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_lines: Option<(f64, f64)>,
    /// SHARED: passes per request through the banks, and the ideal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bank_passes: Option<(f64, f64)>,
    /// Sanitizer findings at this line (each distinct one counted once).
    pub findings: u64,
}

/// A sanitizer finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FindingView {
    /// Source line (0 when unknown).
    pub line: u32,
    /// Its kind.
    pub kind: String,
    /// What happened.
    pub message: String,
    /// How often (absent when the launch stopped at a fault).
    pub count: Option<u64>,
}

/// A report that cannot be made from what it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadTrace(pub String);

impl std::fmt::Display for BadTrace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadTrace {}

impl RunView {
    /// The view of `trace`, a run of `kernel` from `module`.
    pub fn new(module: &Module, kernel: &Kernel, config: &LaunchConfig, simt: SimtModel, trace: Trace) -> RunView {
        let symbols = Symbols::of(kernel);
        let pcs: Vec<PcView> = kernel
            .code
            .iter()
            .enumerate()
            .map(|(pc, inst)| {
                let effects = inst.effects();
                PcView {
                    line: kernel.line(pc as u32).unwrap_or(0),
                    text: simt_isa::format_instruction(inst, &symbols),
                    reads: effects.reads.iter().collect(),
                    writes: effects.writes.iter().collect(),
                }
            })
            .collect();
        let values_kept = count_kept(&pcs, &trace.issues, trace.written_values.len());
        let meta = RunMeta {
            kernel: kernel.name.clone(),
            file: module.source_name.clone(),
            source: module.source.as_deref().map(|s| s.lines().map(str::to_string).collect()).unwrap_or_default(),
            simt: simt.name().to_string(),
            grid: config.grid,
            block: config.block,
            lines: line_counters(&pcs, &trace.issues, &trace.stats),
            findings: trace
                .stats
                .findings
                .iter()
                .map(|f| FindingView {
                    line: f.fault.line.unwrap_or(0),
                    kind: serde_json::to_value(f.fault.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
                    message: f.fault.message.clone(),
                    count: f.count,
                })
                .collect(),
            pcs,
            branches: trace.branches,
            truncated: trace.truncated,
            values_kept,
            printed: trace
                .stats
                .printed
                .iter()
                .take(PRINTED_RECORDS)
                .map(|p| PrintedView { line: p.line, block: p.block, thread: p.thread, text: p.text.clone() })
                .collect(),
            printed_total: trace.stats.printed.len(),
        };
        RunView { meta, issues: trace.issues, written_values: trace.written_values }
    }

    /// Reads a view from the JSON `simt run --trace --format json` wrote, checking that
    /// every issue names an instruction it describes and the kept values add up.
    ///
    /// # Errors
    /// What is wrong with the text, in words.
    pub fn from_json(text: &str) -> Result<RunView, BadTrace> {
        let view: RunView = serde_json::from_str(text).map_err(|e| {
            BadTrace(format!(
                "not a trace simt can draw ({e}); write one with `simt run FILE --trace --format json -o trace.json`, which records the source and instructions a report needs"
            ))
        })?;
        if let Some(issue) = view.issues.iter().find(|i| i.pc as usize >= view.meta.pcs.len()) {
            return Err(BadTrace(format!("issue {} is at pc {}, but the trace describes {} instructions", issue.seq, issue.pc, view.meta.pcs.len())));
        }
        if view.meta.values_kept > view.issues.len() || count_kept(&view.meta.pcs, &view.issues, view.written_values.len()) != view.meta.values_kept {
            return Err(BadTrace(format!(
                "the trace keeps {} register values, which is not what its first {} issues write",
                view.written_values.len(),
                view.meta.values_kept
            )));
        }
        Ok(view)
    }
}

/// Values one issue writes: a value per executed lane per register written.
fn values_of(pcs: &[PcView], issue: &Issue) -> usize {
    pcs.get(issue.pc as usize).map_or(0, |p| p.writes.len()) * issue.executed.count_ones() as usize
}

/// How many leading issues `values` written values cover exactly (0 when they cover none exactly).
fn count_kept(pcs: &[PcView], issues: &[Issue], values: usize) -> usize {
    let mut total = 0;
    for (i, issue) in issues.iter().enumerate() {
        if total == values {
            return i;
        }
        total += values_of(pcs, issue);
        if total > values {
            return 0;
        }
    }
    if total == values { issues.len() } else { 0 }
}

fn line_counters(pcs: &[PcView], issues: &[Issue], stats: &Stats) -> Vec<LineView> {
    let mut lines: std::collections::BTreeMap<u32, LineView> =
        pcs.iter().filter(|p| p.line > 0).map(|p| (p.line, LineView { line: p.line, ..LineView::default() })).collect();
    for issue in issues {
        if let Some(l) = lines.get_mut(&issue.line) {
            l.issues += 1;
            l.active_lanes += u64::from(issue.active.count_ones());
        }
    }
    // Several memory instructions on one line: per-request figures weighted by requests.
    let weighted = |acc: Option<(f64, f64)>, acc_requests: u64, add: Option<(f64, f64)>, requests: u64| match (acc, add) {
        (None, add) => add,
        (acc, None) => acc,
        (Some((a, ai)), Some((b, bi))) => {
            let total = (acc_requests + requests).max(1) as f64;
            Some(((a * acc_requests as f64 + b * requests as f64) / total, (ai * acc_requests as f64 + bi * requests as f64) / total))
        }
    };
    for m in &stats.memory_lines {
        if let Some(l) = lines.get_mut(&m.line) {
            l.sectors = weighted(l.sectors, l.requests, m.sectors, m.requests);
            l.cache_lines = weighted(l.cache_lines, l.requests, m.lines, m.requests);
            l.bank_passes = weighted(l.bank_passes, l.requests, m.bank_passes, m.requests);
            l.requests += m.requests;
        }
    }
    for f in &stats.findings {
        if let Some(l) = f.fault.line.and_then(|line| lines.get_mut(&line)) {
            l.findings += 1;
        }
    }
    lines.into_values().collect()
}
