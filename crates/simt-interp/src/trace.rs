//! Execution traces: every warp instruction a launch issues, with its lane masks and
//! the reconvergence events around it, and per-branch divergence summaries.
//!
//! [`trace`] runs a launch through the stepping API, one block after another and each
//! warp until it blocks (the order `run` uses, so results and masks are the same),
//! and records the issues of the blocks and warps a [`Filter`] selects. Events are
//! derived from consecutive issues of one warp: a `split` when a branch sends its
//! lanes two ways, a `rejoin` when lanes that were waiting issue again with the
//! others, a `switch` when the warp turns to another group of its threads without
//! either (the `its` scheduler yielding or a group waiting at a barrier).

use simt_isa::{Kernel, NO_RECONV};

use crate::block::StepResult;
use crate::launch::{Launch, Progress};
use crate::stats::Counters;
use crate::{Fault, GlobalMemory, LaunchConfig, RunOptions, Stats};

/// Which issues to record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this block (linear index, x fastest).
    pub block: Option<u64>,
    /// Only this warp of each block.
    pub warp: Option<u32>,
    /// Stop recording after this many issues (the launch still runs to the end).
    pub max_issues: usize,
    /// Keep the register values the first this many recorded issues write.
    pub values: usize,
}

/// A reconvergence event at an issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// The branch issued here sent its lanes two ways.
    Split,
    /// Lanes that were waiting issue again together with the others.
    Rejoin,
    /// The warp turned to another group of its threads.
    Switch,
}

/// One issued warp instruction.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Issue {
    /// Position in the launch's issue order (from 0, counting every recorded block's issues).
    pub seq: u64,
    /// Block (linear index).
    pub block: u64,
    /// Warp in the block.
    pub warp: u32,
    /// Program counter.
    pub pc: u32,
    /// Source line.
    pub line: u32,
    /// Opcode, as written in full (`LD`, `MMA.SP.M16N16K32`).
    pub opcode: String,
    /// Threads that issued it.
    pub active: u32,
    /// Of those, threads whose guard held.
    pub executed: u32,
    /// Threads of the warp that had exited (or do not exist) when it issued.
    pub gone: u32,
    /// Reconvergence events.
    pub events: Vec<Event>,
}

impl Issue {
    /// The lanes as 32 characters, lane 0 first: `x` executed, `o` active but guarded
    /// off, `.` waiting (not in this group), ` ` exited.
    pub fn lanes(&self) -> String {
        lane_chars(self.active, self.executed, self.gone)
    }
}

/// Lanes as 32 characters, lane 0 first: `x` in `executed`, `o` in `active` but not
/// `executed` (guarded off), ` ` in `gone` (exited), `.` otherwise (waiting). The
/// notation of [`Issue::lanes`], for other tools that show masks.
pub fn lane_chars(active: u32, executed: u32, gone: u32) -> String {
    (0..32)
        .map(|l| {
            let bit = 1 << l;
            if executed & bit != 0 {
                'x'
            } else if active & bit != 0 {
                'o'
            } else if gone & bit != 0 {
                ' '
            } else {
                '.'
            }
        })
        .collect()
}

/// What happened at one branch that can diverge, over the whole trace.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BranchSummary {
    /// Program counter.
    pub pc: u32,
    /// Source line.
    pub line: u32,
    /// Its reconvergence pc (the code length is the virtual exit).
    pub reconv: u32,
    /// Source line of the reconvergence pc (0 at the virtual exit).
    pub reconv_line: u32,
    /// Times a warp issued it.
    pub executions: u64,
    /// Times its lanes split.
    pub diverged: u64,
    /// Per lane of a warp, summed over the warps recorded: issues it spent waiting for
    /// its siblings before they met again. An issue counts once for a lane however many
    /// divergences of this branch are open around it (one per trip of a loop).
    pub waits: Vec<u64>,
    /// Issues of the warps while divergences of this branch were open (each issue once).
    pub issues_while_diverged: u64,
    /// Share of the SIMD width those issues lost to lanes waiting (0 .. 1).
    pub simd_lost: f64,
}

/// A recorded trace and the launch's statistics.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Trace {
    /// Kernel name.
    pub kernel: String,
    /// The recorded issues, in order.
    pub issues: Vec<Issue>,
    /// Whether recording stopped at the filter's `max_issues`.
    pub truncated: bool,
    /// Every branch that can diverge and was issued while recording.
    pub branches: Vec<BranchSummary>,
    /// The values the first [`Filter::values`] recorded issues wrote: per issue, per register
    /// it writes (in register order), each executed lane's value (in lane order). What a
    /// register held before an issue is then the last value written to it in its warp.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub written_values: Vec<u32>,
    /// The statistics of the whole launch.
    #[serde(skip)]
    pub stats: Stats,
}

/// A divergence not yet closed: the lanes of `group` split at branch `branch`.
struct Open {
    branch: usize,
    reconv: u32,
    group: u32,
}

/// One warp's view while tracing.
#[derive(Default)]
struct WarpState {
    previous: Option<u32>,
    open: Vec<Open>,
}

/// Runs the launch and records the issues `filter` selects.
///
/// # Errors
/// The launch's fault, or an impossible launch.
pub fn trace(
    kernel: &Kernel,
    config: &LaunchConfig,
    memory: &GlobalMemory,
    options: &RunOptions,
    filter: Filter,
    progress: Option<&Progress>,
) -> Result<Trace, Fault> {
    let mut launch = Launch::new(kernel, config, memory, options).map_err(|e| Fault::invalid_launch(&kernel.name, e))?;
    if let Some(p) = progress {
        launch.watch(p);
    }
    let mut counters = Counters::new(kernel.code.len());
    let mut out =
        Trace { kernel: kernel.name.clone(), issues: Vec::new(), truncated: false, branches: Vec::new(), written_values: Vec::new(), stats: Stats::default() };
    let mut branch_index = vec![usize::MAX; kernel.code.len()];
    let line = |pc: u32| kernel.line(pc).unwrap_or(0);
    let mut seq = 0;
    // Per branch with open divergences, the lanes waiting at the current issue.
    let mut waiting: Vec<(usize, u32)> = Vec::new();
    for b in 0..launch.blocks() {
        let mut block = launch.block(b, crate::launch::sm_of_block(b, options.sms));
        let record_block = filter.block.is_none_or(|f| f == b);
        let mut warps: Vec<WarpState> = (0..block.warp_count()).map(|_| WarpState::default()).collect();
        while !block.is_done() {
            let mut progressed = false;
            for (w, state) in warps.iter_mut().enumerate() {
                while let StepResult::Issued(step) = block.step(w)? {
                    progressed = true;
                    let record = record_block && filter.warp.is_none_or(|f| f as usize == w);
                    if !record {
                        continue;
                    }
                    if out.issues.len() >= filter.max_issues {
                        out.truncated = true;
                        continue;
                    }
                    let mut events = Vec::new();
                    if let Some(previous) = state.previous {
                        let joined = step.issued.active & !previous != 0;
                        if joined && step.issued.active & previous == previous {
                            events.push(Event::Rejoin);
                        } else if joined {
                            events.push(Event::Switch);
                        }
                    }
                    // Close the divergences whose lanes are all issuing at their reconvergence point.
                    while let Some(open) = state.open.last() {
                        if step.issued.pc == open.reconv && step.issued.active & open.group == open.group {
                            state.open.pop();
                        } else {
                            break;
                        }
                    }
                    // A loop's branch leaves one open divergence per trip, nested: a lane
                    // waiting in several of them still waits once per issue.
                    waiting.clear();
                    for open in &state.open {
                        match waiting.iter_mut().find(|(branch, _)| *branch == open.branch) {
                            Some((_, lanes)) => *lanes |= open.group & !step.issued.active,
                            None => waiting.push((open.branch, open.group & !step.issued.active)),
                        }
                    }
                    for &(branch, lanes) in &waiting {
                        let summary = &mut out.branches[branch];
                        summary.issues_while_diverged += 1;
                        for l in 0..32 {
                            if lanes & (1 << l) != 0 {
                                summary.waits[l] += 1;
                            }
                        }
                    }
                    let diverged = step.branch.is_some_and(|br| br.diverged);
                    if let Some(br) = step.branch.filter(|br| br.reconv.is_some()) {
                        let i = &mut branch_index[step.issued.pc as usize];
                        if *i == usize::MAX {
                            *i = out.branches.len();
                            let reconv = br.reconv.unwrap_or(NO_RECONV);
                            out.branches.push(BranchSummary {
                                pc: step.issued.pc,
                                line: line(step.issued.pc),
                                reconv,
                                reconv_line: line(reconv),
                                waits: vec![0; 32],
                                ..BranchSummary::default()
                            });
                        }
                        let summary = &mut out.branches[*i];
                        summary.executions += 1;
                        if diverged {
                            summary.diverged += 1;
                            state.open.push(Open { branch: *i, reconv: br.reconv.unwrap_or(NO_RECONV), group: step.issued.active });
                            events.push(Event::Split);
                        }
                    }
                    state.previous = Some(step.issued.active);
                    if out.issues.len() < filter.values {
                        let regs = block.registers(w).0;
                        for values in launch.program.effects[step.issued.pc as usize].writes.iter().filter_map(|r| regs.get(usize::from(r))) {
                            out.written_values.extend((0..32).filter(|l| step.issued.executed & (1 << l) != 0).map(|l| values[l]));
                        }
                    }
                    let gone = step.gone(block.live_lanes(w));
                    out.issues.push(Issue {
                        seq,
                        block: b,
                        warp: w as u32,
                        pc: step.issued.pc,
                        line: line(step.issued.pc),
                        opcode: simt_isa::format_mnemonic(&kernel.code[step.issued.pc as usize].form),
                        active: step.issued.active,
                        executed: step.issued.executed,
                        gone,
                        events,
                    });
                    seq += 1;
                }
            }
            if !progressed && !block.release_barrier() {
                block.force_progress()?;
            }
        }
        counters.add(&block.into_counters());
        if let Some(p) = progress {
            p.blocks_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
    for b in &mut out.branches {
        let waited: u64 = b.waits.iter().sum();
        if b.issues_while_diverged > 0 {
            b.simd_lost = waited as f64 / (32 * b.issues_while_diverged) as f64;
        }
    }
    out.stats = launch.stats(&counters);
    Ok(out)
}

/// "lanes 0-7, 9" for a mask.
fn lane_list(mask: u64) -> String {
    crate::exec::describe_lanes(mask as u32)
}

impl Trace {
    /// The trace as text: one row per issue, then the branch summaries.
    pub fn render_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "trace of kernel `{}`: {} issues{}", self.kernel, self.issues.len(), if self.truncated { " (truncated)" } else { "" });
        let _ = writeln!(s, "lanes, lane 0 first: x executed, o guarded off, . waiting, blank exited");
        let _ = writeln!(s, "{:>7} {:>6} {:>5} {:>5} {:>5}  {:<18} {:<34} events", "issue", "block", "warp", "pc", "line", "opcode", "lanes");
        for i in &self.issues {
            let events: Vec<&str> = i
                .events
                .iter()
                .map(|e| match e {
                    Event::Split => "split",
                    Event::Rejoin => "rejoin",
                    Event::Switch => "switch",
                })
                .collect();
            let _ = writeln!(s, "{:>7} {:>6} {:>5} {:>5} {:>5}  {:<18} [{}] {}", i.seq, i.block, i.warp, i.pc, i.line, i.opcode, i.lanes(), events.join(" "));
        }
        if !self.branches.is_empty() {
            let _ = writeln!(s, "branches that can diverge:");
            for b in &self.branches {
                let at = if b.reconv_line == 0 { "the exit".to_string() } else { format!("line {} (pc {})", b.reconv_line, b.reconv) };
                let _ = writeln!(s, "  line {} (pc {}), reconverging at {at}: {} executions, {} diverged", b.line, b.pc, b.executions, b.diverged);
                let waited: u64 = b.waits.iter().sum();
                if waited > 0 {
                    // Group lanes that waited equally long.
                    let mut by_wait: Vec<(u64, u64)> = Vec::new();
                    for (l, &n) in b.waits.iter().enumerate().filter(|(_, n)| **n > 0) {
                        match by_wait.iter_mut().find(|(w, _)| *w == n) {
                            Some((_, mask)) => *mask |= 1 << l,
                            None => by_wait.push((n, 1 << l)),
                        }
                    }
                    let parts: Vec<String> = by_wait.iter().map(|(n, mask)| format!("{} for {n}", lane_list(*mask))).collect();
                    let _ = writeln!(
                        s,
                        "    issues spent waiting, summed over the warps traced: {}; {:.1}% of the SIMD width lost over {} issues while diverged",
                        parts.join("; "),
                        100.0 * b.simd_lost,
                        b.issues_while_diverged
                    );
                }
            }
        }
        s
    }

    /// Writes the trace as Chrome trace events: a process per block, a track per warp,
    /// a slice per issue (one microsecond per issue step of the launch).
    ///
    /// # Errors
    /// What writing `out` said.
    pub fn write_chrome<W: std::io::Write>(&self, out: W) -> std::io::Result<W> {
        let mut c = crate::trace_event::TraceWriter::new(out)?;
        let mut named = std::collections::BTreeSet::new();
        for i in &self.issues {
            if named.insert((i.block, u64::MAX)) {
                c.process_name(i.block, &format!("block {}", i.block))?;
            }
            if named.insert((i.block, u64::from(i.warp))) {
                c.thread_name(i.block, u64::from(i.warp), &format!("warp {}", i.warp))?;
            }
            let args = [
                ("pc", i.pc.to_string()),
                ("lanes", i.lanes()),
                ("active", i.active.count_ones().to_string()),
                ("executed", i.executed.count_ones().to_string()),
            ];
            c.complete(i.block, u64::from(i.warp), &format!("{} (line {})", i.opcode, i.line), "issue", i.seq as f64, 1.0, &args)?;
        }
        c.finish("ns")
    }

    /// The divergence picture: for each recorded warp, its 32 lanes (rows) against its
    /// issue steps (columns), each executing lane coloured by the basic block of the pc,
    /// guarded-off lanes grey, waiting lanes pale, exited lanes dark; splits and rejoins
    /// marked above the lanes. Beyond `max_steps` steps per warp the picture stops and
    /// says how many more there were.
    pub fn render_svg(&self, kernel: &Kernel, max_steps: usize) -> String {
        use std::fmt::Write;
        const CELL: usize = 6;
        // Wide enough for the two-line legend however few steps there are.
        const MIN_WIDTH: usize = 560;
        const LABEL: usize = 90;
        const PALETTE: [&str; 10] = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#86bc86"];
        // Basic blocks start at pc 0, at branch targets and after branches and exits.
        let mut leader = vec![false; kernel.code.len() + 1];
        leader[0] = true;
        for (pc, inst) in kernel.code.iter().enumerate() {
            if inst.info().flags.intersects(simt_isa::Flags::BRANCH.union(simt_isa::Flags::TERMINATOR)) {
                leader[pc + 1] = true;
            }
            for op in inst.operands() {
                if let simt_isa::Operand::Label { target, .. } = *op {
                    leader[target as usize] = true;
                }
            }
        }
        let block_of: Vec<usize> = leader[..kernel.code.len()]
            .iter()
            .scan(0usize, |b, &l| {
                if l {
                    *b += 1;
                }
                Some(*b - 1)
            })
            .collect();
        let mut warps: Vec<(u64, u32, Vec<&Issue>)> = Vec::new();
        for i in &self.issues {
            match warps.iter_mut().find(|(b, w, _)| *b == i.block && *w == i.warp) {
                Some((_, _, list)) => list.push(i),
                None => warps.push((i.block, i.warp, vec![i])),
            }
        }
        let widest = warps.iter().map(|(_, _, l)| l.len().min(max_steps)).max().unwrap_or(0);
        // Each warp: event marks, 32 lanes, then the step axis and its labels.
        let band = 32 * CELL + 44;
        const TOP: usize = 50;
        let (width, height) = ((LABEL + widest * CELL + 20).max(MIN_WIDTH), TOP + warps.len() * band + 8);
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
        );
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(s, r#"<text x="4" y="14" font-size="13">kernel {}: lanes (rows) against issue steps (columns)</text>"#, escape(&self.kernel));
        // The legend: a swatch per lane state, the marks of events.
        let mut x = 4;
        for (i, colour) in PALETTE.iter().take(3).enumerate() {
            let _ = write!(s, r#"<rect x="{}" y="22" width="{CELL}" height="10" fill="{colour}"/>"#, x + i * CELL);
        }
        x += 3 * CELL + 4;
        let _ = write!(s, r#"<text x="{x}" y="31">executed (colour: basic block)</text>"#);
        x += 170;
        for (fill, label, advance) in [("#bbbbbb", "guarded off", 80), ("#eeeeee", "waiting", 62), ("#444444", "exited", 70)] {
            let _ = write!(
                s,
                r##"<rect x="{x}" y="22" width="10" height="10" fill="{fill}" stroke="#999" stroke-width="0.5"/><text x="{}" y="31">{label}</text>"##,
                x + 14
            );
            x += advance;
        }
        let _ = writeln!(s, r##"<text x="{x}" y="31"><tspan fill="#c00">▼</tspan> split  <tspan fill="#080">▲</tspan> rejoin</text>"##);
        for (k, (block, warp, list)) in warps.iter().enumerate() {
            let top = TOP + k * band;
            let _ = writeln!(s, r#"<text x="4" y="{}">block {block}</text><text x="4" y="{}">warp {warp}</text>"#, top + 24, top + 38);
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" font-size="9" fill="#555" transform="rotate(-90 {0} {1})" text-anchor="middle">lane</text>"##,
                LABEL - 22,
                top + 16 + 16 * CELL
            );
            for lane in (0..32).step_by(8).chain([31]) {
                let _ =
                    writeln!(s, r##"<text x="{}" y="{}" font-size="8" fill="#555" text-anchor="end">{lane}</text>"##, LABEL - 3, top + 16 + lane * CELL + CELL);
            }
            // The step axis: a tick every 10 steps, labelled every 50 (every 10 for short warps).
            let steps = list.len().min(max_steps);
            let axis = top + 16 + 32 * CELL + 2;
            let every = if steps > 100 { 50 } else { 10 };
            let _ = write!(s, r##"<line x1="{LABEL}" y1="{axis}" x2="{}" y2="{axis}" stroke="#888" stroke-width="0.5"/>"##, LABEL + steps * CELL);
            for step in (0..=steps).step_by(10) {
                let x = LABEL + step * CELL;
                let _ = write!(s, r##"<line x1="{x}" y1="{axis}" x2="{x}" y2="{}" stroke="#888" stroke-width="0.5"/>"##, axis + 3);
                if step % every == 0 {
                    let _ = write!(s, r##"<text x="{x}" y="{}" font-size="8" fill="#555" text-anchor="middle">{step}</text>"##, axis + 11);
                }
            }
            let _ = writeln!(s, r##"<text x="{}" y="{}" font-size="8" fill="#555" text-anchor="end">issue step →</text>"##, LABEL + steps * CELL, axis + 21);
            for (step, i) in list.iter().take(max_steps).enumerate() {
                let x = LABEL + step * CELL;
                let colour = PALETTE[block_of[i.pc as usize] % PALETTE.len()];
                for lane in 0..32 {
                    let bit = 1u32 << lane;
                    let fill = if i.executed & bit != 0 {
                        colour
                    } else if i.active & bit != 0 {
                        "#bbbbbb"
                    } else if i.gone & bit != 0 {
                        "#444444"
                    } else {
                        "#eeeeee"
                    };
                    let _ = write!(s, r#"<rect x="{x}" y="{}" width="{CELL}" height="{CELL}" fill="{fill}"/>"#, top + 16 + lane * CELL);
                }
                for e in &i.events {
                    let (mark, colour) = match e {
                        Event::Split => ("▼", "#c00"),
                        Event::Rejoin => ("▲", "#080"),
                        Event::Switch => continue,
                    };
                    let _ = write!(s, r#"<text x="{}" y="{}" font-size="8" fill="{colour}">{mark}</text>"#, x.saturating_sub(2), top + 12);
                }
                s.push('\n');
            }
            if list.len() > max_steps {
                let _ = writeln!(
                    s,
                    r##"<text x="{}" y="{}" fill="#c00">… {} more steps (see the text trace)</text>"##,
                    LABEL + 80,
                    top + 16 + 32 * CELL + 23,
                    list.len() - max_steps
                );
            }
        }
        s.push_str("</svg>\n");
        s
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
