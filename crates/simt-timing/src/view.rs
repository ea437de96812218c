//! Rendering what a timed run recorded: the `--pipeview` table and the `--timeline` trace.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::reason::Reason;
use crate::sim::{TraceRec, UNKNOWN};
use crate::stats::Report;
use simt_interp::trace_event::TraceWriter;

fn span(first: u64, cycles: u32) -> String {
    match cycles {
        0 => "-".to_string(),
        1 => first.to_string(),
        n => format!("{first}-{}", first + u64::from(n) - 1),
    }
}

impl Report {
    /// One row per recorded warp instruction: its stages, cycle by cycle.
    pub fn render_pipeview(&self) -> String {
        let mut s = String::new();
        let width = self.pipeview.iter().map(|r| self.instructions[r.pc as usize].len()).max().unwrap_or(11).max(11);
        let _ = writeln!(
            s,
            "{:>4} {:>4} {:>5} {:>4} {:>5}  {:<width$}  {:>6} {:>9} {:>9} {:>13} {:>9} {:>10}  note",
            "sm", "part", "warp", "pc", "line", "instruction", "issue", "read", "dispatch", "execute", "writeback", "dependent"
        );
        for r in &self.pipeview {
            let read = r.issue + 1;
            let dispatch = read + u64::from(r.read);
            let execute = dispatch + u64::from(r.dispatch);
            let (exec, wb, dep) = if r.complete == UNKNOWN {
                ("?".to_string(), "?".to_string(), "?".to_string())
            } else {
                // Control instructions finish without an execute or writeback stage.
                let wb_start = r.complete.saturating_sub(u64::from(r.writeback)).max(execute);
                let exec_len = wb_start.saturating_sub(execute) as u32;
                let wb_len = (r.complete.saturating_sub(wb_start) as u32).min(r.writeback);
                (span(execute, exec_len), span(wb_start, wb_len), r.complete.to_string())
            };
            let _ = writeln!(
                s,
                "{:>4} {:>4} {:>5} {:>4} {:>5}  {:<width$}  {:>6} {:>9} {:>9} {:>13} {:>9} {:>10}  {}",
                r.sm,
                r.partition,
                r.warp,
                r.pc,
                self.lines[r.pc as usize],
                self.instructions[r.pc as usize],
                r.issue,
                span(read, r.read),
                span(dispatch, r.dispatch),
                exec,
                wb,
                dep,
                r.note
            );
        }
        s
    }

    /// Writes the Chrome trace: a track per SM partition (one process per SM), a slice per
    /// issued instruction named by opcode and source line, and each partition's stall
    /// reason as a counter. One microsecond in the viewer is one cycle.
    ///
    /// # Errors
    /// What writing failed with.
    pub fn write_timeline(&self, out: impl Write) -> io::Result<()> {
        let mut w = TraceWriter::new(io::BufWriter::new(out))?;
        let parts = u64::from(self.partitions);
        let mut named = std::collections::BTreeSet::new();
        for rec in &self.trace {
            let part = match *rec {
                TraceRec::Issue { part, .. } | TraceRec::Reason { part, .. } => u64::from(part),
                TraceRec::Warp { .. } => continue,
            };
            if named.insert(part) {
                let (sm, p) = (part / parts, part % parts);
                if p == 0 || !named.contains(&(sm * parts)) {
                    w.process_name(sm, &format!("SM {sm}"))?;
                }
                w.thread_name(sm, p, &format!("partition {p}"))?;
            }
            match *rec {
                TraceRec::Issue { cycle, pc, warp, .. } => {
                    let text = &self.instructions[pc as usize];
                    let opcode = text.trim_start_matches('@').split_whitespace().find(|t| !t.starts_with('!') && !t.starts_with('P')).unwrap_or(text);
                    let line = self.lines[pc as usize];
                    w.complete(
                        part / parts,
                        part % parts,
                        &format!("{opcode} (line {line})"),
                        "issue",
                        cycle as f64,
                        1.0,
                        &[("instruction", text.clone()), ("warp", warp.to_string()), ("pc", pc.to_string())],
                    )?;
                }
                TraceRec::Warp { .. } => {}
                TraceRec::Reason { cycle, reason, .. } => {
                    let series: Vec<(&str, f64)> = Reason::ALL.iter().map(|r| (r.name(), f64::from(u8::from(*r == reason)))).collect();
                    w.counter(part / parts, &format!("partition {} issue slot", part % parts), cycle as f64, &series)?;
                }
            }
        }
        w.finish("ns")?;
        Ok(())
    }
}

/// A change recorded by a timed run with [`crate::TimingOptions::timeline`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// An SM partition's issue slot has this reason from `cycle` on.
    Slot {
        /// SM times partitions per SM plus partition.
        partition: u32,
        /// First cycle.
        cycle: u64,
        /// What the slot did.
        reason: Reason,
    },
    /// A warp (block times warps per block plus warp) is in this state from `cycle` on.
    Warp {
        /// The warp.
        warp: u64,
        /// First cycle.
        cycle: u64,
        /// Its state.
        state: WarpState,
    },
}

/// What a resident warp did in a cycle, as a timed run's timeline records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpState {
    /// It issued an instruction.
    Issued,
    /// It could have issued, but the scheduler picked another warp.
    Eligible,
    /// It could not issue, for this reason (`Done` once its threads have all exited).
    Stalled(Reason),
}

impl Report {
    /// The recorded changes of issue slots and warps, in the order they happened on each
    /// SM (SM by SM). Empty unless the run recorded a timeline.
    pub fn changes(&self) -> impl Iterator<Item = Change> + '_ {
        self.trace.iter().map(|rec| match *rec {
            TraceRec::Issue { cycle, warp, .. } => Change::Warp { warp, cycle, state: WarpState::Issued },
            TraceRec::Warp { warp, cycle, state } => Change::Warp { warp, cycle, state },
            TraceRec::Reason { part, cycle, reason } => Change::Slot { partition: part, cycle, reason },
        })
    }
}
