//! Warp-collective operations that exchange values between lanes: `SHFL`,
//! `VOTE`, `REDUX`, `MATCH` and `WARPSYNC`. The SIMT model has already gathered the warp (under
//! `its`) before one of these issues.

use simt_isa::*;

use super::Executor;
use super::{fetch, per_lane, pred, set_pred, write};
use crate::decode::{PredIn, Reg, Val};

/// A warp-collective operation.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CollectiveOp {
    Shfl { mode: ShflMode, d: Reg, a: Reg, b: Val, width: u32 },
    Vote { all: bool, p: u8, q: PredIn },
    Ballot { d: Reg, q: PredIn },
    Redux { op: ReduxOp, signed: bool, d: Reg, a: Reg },
    Match { all: bool, d: Reg, a: Reg },
    Warpsync,
}

impl Executor<'_> {
    /// Runs a collective operation on warp `w`: the guard-true lanes `exec` take part in the result.
    #[inline(always)]
    pub(crate) fn collective(&mut self, w: usize, op: CollectiveOp, exec: u32) {
        let warp = &mut self.warps[w];
        match op {
            CollectiveOp::Shfl { mode, d, a, b, width } => {
                let (src, b) = (*warp.row(a), fetch(warp, b));
                let v = per_lane(|lane| src[shfl_source(mode, lane, b[lane], width)]);
                write(warp, d, &v, exec);
            }
            CollectiveOp::Vote { all, p, q } => {
                // Contract v0.3: guard-false lanes take no part in the result (ALL of no lanes is true).
                let votes = pred(warp, q) & exec;
                let result = if all { votes == exec } else { votes != 0 };
                set_pred(warp, p, if result { u32::MAX } else { 0 }, exec);
            }
            CollectiveOp::Ballot { d, q } => {
                let votes = pred(warp, q) & exec;
                write(warp, d, &[votes; 32], exec);
            }
            CollectiveOp::Redux { op, signed, d, a } => {
                let values = *warp.row(a);
                let taking = (0..32).filter(|&l| exec >> l & 1 != 0).map(|l| values[l]);
                let combined = match (op, signed) {
                    (ReduxOp::Add, _) => taking.fold(0u32, u32::wrapping_add),
                    (ReduxOp::Min, true) => taking.map(|x| x as i32).min().unwrap_or(0) as u32,
                    (ReduxOp::Min, false) => taking.min().unwrap_or(0),
                    (ReduxOp::Max, true) => taking.map(|x| x as i32).max().unwrap_or(0) as u32,
                    (ReduxOp::Max, false) => taking.max().unwrap_or(0),
                    (ReduxOp::And, _) => taking.fold(u32::MAX, |x, y| x & y),
                    (ReduxOp::Or, _) => taking.fold(0, |x, y| x | y),
                    (ReduxOp::Xor, _) => taking.fold(0, |x, y| x ^ y),
                };
                write(warp, d, &[combined; 32], exec);
            }
            CollectiveOp::Match { all, d, a } => {
                let values = *warp.row(a);
                let same = |l: usize| (0..32).filter(|&m| exec >> m & 1 != 0 && values[m] == values[l]).fold(0u32, |mask, m| mask | 1 << m);
                let v = if all {
                    let first = (exec != 0).then(|| same(exec.trailing_zeros() as usize));
                    [if first == Some(exec) { exec } else { 0 }; 32]
                } else {
                    per_lane(same)
                };
                write(warp, d, &v, exec);
            }
            CollectiveOp::Warpsync => {}
        }
    }
}

/// The lane `lane` reads in a `SHFL`: PTX `shfl.sync`'s rule with segment width `width`.
#[inline(always)]
pub(crate) fn shfl_source(mode: ShflMode, lane: usize, b: u32, width: u32) -> usize {
    let segmask = !(width.wrapping_sub(1)) & 31;
    let c = if mode == ShflMode::Up { 0 } else { width.wrapping_sub(1) & 31 };
    let l = lane as i32;
    let bval = (b & 31) as i32;
    let max_lane = ((lane as u32 & segmask) | (c & !segmask)) as i32;
    let min_lane = (lane as u32 & segmask) as i32;
    let (j, ok) = match mode {
        ShflMode::Up => (l - bval, l - bval >= max_lane),
        ShflMode::Down => (l + bval, l + bval <= max_lane),
        ShflMode::Bfly => (l ^ bval, (l ^ bval) <= max_lane),
        ShflMode::Idx => {
            let j = min_lane | (bval & !(segmask as i32));
            (j, j <= max_lane)
        }
    };
    if ok { j as usize } else { lane }
}
