//! Warp-collective operations that exchange values between lanes: `SHFL`,
//! `VOTE`, `REDUX`, `MATCH`, `ELECT` and `WARPSYNC`. The SIMT model has already gathered the warp (under
//! `its`) before one of these issues.

use simt_isa::*;

use super::Executor;
use super::{fetch, per_lane, pred, set_pred, write};
use crate::decode::{PredIn, Reg, Val};
use crate::lanes;

/// A warp-collective operation.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CollectiveOp {
    Shfl { mode: ShflMode, d: Reg, a: Reg, b: Val, width: u32 },
    Vote { all: bool, p: u8, q: PredIn },
    Ballot { d: Reg, q: PredIn },
    Redux { op: ReduxOp, signed: bool, d: Reg, a: Reg, m: Val },
    ReduxF32 { max: bool, abs: bool, nan: bool, d: Reg, a: Reg, m: Val },
    Match { all: bool, d: Reg, a: Reg, m: Val },
    Elect { d: Reg, p: u8, m: Val },
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
            CollectiveOp::Redux { op, signed, d, a, m } => {
                let values = *warp.row(a);
                let v = per_group(exec, &fetch(warp, m), |group| {
                    let taking = (0..32).filter(|&l| group >> l & 1 != 0).map(|l| values[l]);
                    match (op, signed) {
                        (ReduxOp::Add, _) => taking.fold(0u32, u32::wrapping_add),
                        (ReduxOp::Min, true) => taking.map(|x| x as i32).min().unwrap_or(0) as u32,
                        (ReduxOp::Min, false) => taking.min().unwrap_or(0),
                        (ReduxOp::Max, true) => taking.map(|x| x as i32).max().unwrap_or(0) as u32,
                        (ReduxOp::Max, false) => taking.max().unwrap_or(0),
                        (ReduxOp::And, _) => taking.fold(u32::MAX, |x, y| x & y),
                        (ReduxOp::Or, _) => taking.fold(0, |x, y| x | y),
                        (ReduxOp::Xor, _) => taking.fold(0, |x, y| x ^ y),
                    }
                });
                write(warp, d, &v, exec);
            }
            CollectiveOp::ReduxF32 { max, abs, nan, d, a, m } => {
                let values = *warp.row(a);
                let v = per_group(exec, &fetch(warp, m), |group| {
                    let taking = (0..32).filter(|&l| group >> l & 1 != 0).map(|l| if abs { values[l] & 0x7FFF_FFFF } else { values[l] });
                    lanes::reduce_f32(taking, max, nan)
                });
                write(warp, d, &v, exec);
            }
            CollectiveOp::Match { all, d, a, m } => {
                let values = *warp.row(a);
                let equal_to = |group: u32, value: u32| (0..32).filter(|&l| group >> l & 1 != 0 && values[l] == value).fold(0u32, |mask, l| mask | 1 << l);
                let members = fetch(warp, m);
                let v = if all {
                    per_group(exec, &members, |group| {
                        let first = values[group.trailing_zeros() as usize % 32];
                        if equal_to(group, first) == group { group } else { 0 }
                    })
                } else {
                    per_lane(|lane| equal_to(members[lane] & exec, values[lane]))
                };
                write(warp, d, &v, exec);
            }
            CollectiveOp::Elect { d, p, m } => {
                let leaders = per_group(exec, &fetch(warp, m), |group| if group == 0 { u32::MAX } else { group.trailing_zeros() });
                let elected = (0..32).filter(|&l| leaders[l] == l as u32).fold(0u32, |mask, l| mask | 1 << l);
                write(warp, d, &leaders, exec);
                set_pred(warp, p, elected, exec);
            }
            CollectiveOp::Warpsync => {}
        }
    }
}

/// Each guard-true lane's result of `combine` over its group: the guard-true lanes of its
/// member mask. Lanes with the same mask (a tile's) share one combining.
#[inline(always)]
fn per_group(exec: u32, members: &[u32; 32], mut combine: impl FnMut(u32) -> u32) -> [u32; 32] {
    let mut out = [0; 32];
    let mut last: Option<(u32, u32)> = None;
    for lane in (0..32).filter(|&l| exec >> l & 1 != 0) {
        let group = members[lane] & exec;
        out[lane] = match last {
            Some((seen, result)) if seen == group => result,
            _ => {
                let result = combine(group);
                last = Some((group, result));
                result
            }
        };
    }
    out
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
