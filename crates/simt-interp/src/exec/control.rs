//! Control flow: branches, exits, the block barrier, fences and `NOP`. These
//! move the warp's threads themselves, through the SIMT model in `warp.rs`.

use std::sync::atomic::{Ordering, fence};

use simt_isa::BarRedOp;

use super::Executor;
use super::{describe_lanes, pred};
use crate::decode::{PredIn, Reg, Val};
use crate::fault::{Fault, FaultKind};
use crate::stats::PcCounts;
use crate::warp::Reduction;

/// A control operation.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ControlOp {
    Bra { target: u32, reconv: u32 },
    Exit,
    BarSync,
    BarRed { op: BarRedOp, d: Reg, q: PredIn },
    Membar { global: bool },
    Nop,
    Trap { assert: Option<Assertion> },
}

/// Where a failed `assert`'s strings and line are (`TRAP.ASSERT`): register pairs holding
/// generic addresses, and the line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Assertion {
    pub message: Reg,
    pub file: Reg,
    pub line: Val,
    pub function: Reg,
}

/// Whether a control operation moved the issuing threads itself (else they go on to the next pc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Moved {
    Yes,
    No,
}

impl Executor<'_> {
    /// Runs a control operation for the `mask` threads of warp `w`, of which `exec` have a true guard;
    /// a branch that splits them counts in `counts`, the pc's statistics.
    /// Returns whether it moved the threads; `TRAP` with a true guard stops the launch.
    #[inline(always)]
    pub(crate) fn control(&mut self, w: usize, pc: u32, op: ControlOp, mask: u32, exec: u32, counts: &mut PcCounts) -> Result<Moved, Fault> {
        let warp = &mut self.warps[w];
        Ok(match op {
            ControlOp::Bra { target, reconv } => {
                if warp.branch(pc, mask, exec, target, reconv) {
                    counts.diverged += 1;
                }
                Moved::Yes
            }
            ControlOp::Exit => {
                if exec != 0 {
                    warp.progress_at = warp.issued;
                }
                warp.exit(mask, exec);
                Moved::Yes
            }
            // `BAR.RED` is the same barrier, with the waiting threads' votes.
            ControlOp::BarSync | ControlOp::BarRed { .. } => {
                if exec == 0 {
                    warp.advance(mask);
                    return Ok(Moved::Yes);
                }
                if let ControlOp::BarRed { op, d, q } = op {
                    let trues = pred(warp, q) & exec;
                    // Under `its` a warp's threads may reach the barrier in groups.
                    match warp.reductions.iter_mut().find(|r| (r.op, r.d) == (op, d)) {
                        Some(r) => r.lanes |= exec,
                        None => warp.reductions.push(Reduction { op, d, lanes: exec }),
                    }
                    self.votes.trues += trues.count_ones();
                    self.votes.falses += (exec & !trues).count_ones();
                }
                let warp = &mut self.warps[w];
                warp.progress_at = warp.issued;
                warp.arrive_at_barrier(mask, exec);
                Moved::Yes
            }
            ControlOp::Membar { global } => {
                if global {
                    fence(Ordering::SeqCst);
                }
                Moved::No
            }
            ControlOp::Trap { assert } if exec != 0 => {
                let lane = exec.trailing_zeros() as usize;
                let message = match assert {
                    None => "a thread executed `TRAP`".into(),
                    Some(a) => {
                        // What CUDA prints for it, without the block and thread the fault names.
                        let mut text = |r: Reg| {
                            let address = self.pair(w, r, lane);
                            self.read_text(w, lane, pc, address)
                        };
                        let (message, file, function) = (text(a.message)?, text(a.file)?, text(a.function)?);
                        let line = super::fetch(&self.warps[w], a.line)[lane];
                        format!("{file}:{line}: {function}: Assertion `{message}` failed.")
                    }
                };
                let mut fault = self.fault(FaultKind::Trap, w, Some(lane), Some(pc), message);
                if exec.count_ones() > 1 {
                    fault.notes.push(format!("{} of the warp executed it", describe_lanes(exec)));
                }
                return Err(fault);
            }
            ControlOp::Nop | ControlOp::Trap { .. } => Moved::No,
        })
    }
}
