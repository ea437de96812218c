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
    BarSync { barrier: BarrierOperands },
    BarRed { op: BarRedOp, d: Reg, q: PredIn },
    BarArrive { barrier: BarrierOperands },
    Membar { global: bool },
    Nop,
    Trap { assert: Option<Assertion> },
}

/// A block barrier's number and, for a counted one, how many threads complete it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BarrierOperands {
    pub id: Val,
    pub count: Option<Val>,
}

/// Which barrier a warp's threads wait at: its number, and the threads that complete it
/// (0: every non-exited thread of the block).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BarrierKey {
    pub id: u8,
    pub count: u32,
}

impl std::fmt::Display for BarrierKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.id, self.count) {
            (0, 0) => f.write_str("the block barrier"),
            (id, 0) => write!(f, "barrier {id} (every thread)"),
            (id, count) => write!(f, "barrier {id} ({count} threads)"),
        }
    }
}

/// A counted barrier's phase in progress: the count its participants gave, and the warps that
/// arrived with `BAR.ARRIVE` (those waiting at `BAR.SYNC` are found among the warps).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CountedBarrier {
    pub count: u32,
    pub arrivals: u32,
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
                if exec != 0 && !self.tmem.is_free() && self.warps.iter().all(|w| w.live() == 0) {
                    return Err(self.tmem_leak(w, pc));
                }
                Moved::Yes
            }
            // `BAR.RED` is barrier 0, with the waiting threads' votes.
            ControlOp::BarSync { .. } | ControlOp::BarRed { .. } => {
                if exec == 0 {
                    warp.advance(mask);
                    return Ok(Moved::Yes);
                }
                let key = match op {
                    ControlOp::BarSync { barrier } => self.barrier_key(w, pc, barrier, exec)?,
                    _ => BarrierKey::default(),
                };
                let warp = &self.warps[w];
                if warp.at_barrier() != 0 && warp.barrier != key {
                    let message = format!(
                        "{} of warp {w} arrive at {key} while {} of the warp wait at {}: a warp arrives at a barrier whole, so neither can complete",
                        describe_lanes(exec),
                        describe_lanes(warp.at_barrier()),
                        warp.barrier
                    );
                    return Err(self.fault(FaultKind::Deadlock, w, Some(exec.trailing_zeros() as usize), Some(pc), message));
                }
                if let ControlOp::BarRed { op, d, q } = op {
                    let warp = &mut self.warps[w];
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
                warp.barrier = key;
                warp.arrive_at_barrier(mask, exec);
                if key.count != 0 {
                    self.join_counted(w, pc, key, 0)?;
                }
                Moved::Yes
            }
            ControlOp::BarArrive { barrier } => {
                if exec != 0 {
                    let key = self.barrier_key(w, pc, barrier, exec)?;
                    let warp = &mut self.warps[w];
                    warp.progress_at = warp.issued;
                    self.join_counted(w, pc, key, 1)?;
                }
                Moved::No
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

    /// The barrier a `BAR.SYNC` or `BAR.ARRIVE` names for its `exec` lanes, checked: the same
    /// number and count in every lane, a number PTX has, a count of whole warps this block can reach.
    fn barrier_key(&self, w: usize, pc: u32, barrier: BarrierOperands, exec: u32) -> Result<BarrierKey, Fault> {
        let first = exec.trailing_zeros() as usize;
        let warp = &self.warps[w];
        let uniform = |v: Val, what: &str| -> Result<u32, Fault> {
            let values = super::fetch(warp, v);
            match crate::warp::lanes(exec).find(|&l| values[l] != values[first]) {
                None => Ok(values[first]),
                Some(l) => Err(self.fault(
                    FaultKind::Barrier,
                    w,
                    Some(l),
                    Some(pc),
                    format!("the barrier's {what} is {} in lane {first} but {} in lane {l}: a warp names one barrier", values[first], values[l]),
                )),
            }
        };
        let id = uniform(barrier.id, "number")?;
        let count = barrier.count.map(|c| uniform(c, "thread count")).transpose()?;
        let warps = self.warps.len() as u32;
        let problem = if id >= simt_isa::BARRIERS {
            Some(format!("barrier {id} does not exist: a block has barriers 0 .. {}", simt_isa::BARRIERS - 1))
        } else {
            match count {
                Some(c) if c == 0 || !c.is_multiple_of(32) => {
                    Some(format!("barrier {id} is given a thread count of {c}: it counts whole warps, a multiple of 32"))
                }
                Some(c) if c > 32 * warps => Some(format!(
                    "barrier {id} waits for {c} threads, but the block has {warps} warps ({} threads as barriers count them): it could never complete",
                    32 * warps
                )),
                _ => None,
            }
        };
        match problem {
            Some(message) => Err(self.fault(FaultKind::Barrier, w, Some(first), Some(pc), message)),
            None => Ok(BarrierKey { id: id as u8, count: count.unwrap_or(0) }),
        }
    }

    /// Warp `w` joins counted barrier `key`'s phase: waiting (its threads are at `BAR.SYNC`) or
    /// with `arrivals` = 1 (`BAR.ARRIVE`). The phase completes at once when enough warps have.
    fn join_counted(&mut self, w: usize, pc: u32, key: BarrierKey, arrivals: u32) -> Result<(), Fault> {
        let phase = &mut self.counted[usize::from(key.id)];
        if phase.count != 0 && phase.count != key.count {
            let message = format!(
                "warp {w} arrives at barrier {} counting {} threads, but the warps before it in this phase count {}: every arrival at a barrier gives the same count",
                key.id, key.count, phase.count
            );
            let first = self.warps[w].live().trailing_zeros() as usize;
            return Err(self.fault(FaultKind::Barrier, w, Some(first), Some(pc), message));
        }
        phase.count = key.count;
        phase.arrivals += arrivals;
        self.note_sync(super::Sync::Arrive { warp: w as u8, barrier: key.id });
        self.open_counted(key.id);
        Ok(())
    }
}
