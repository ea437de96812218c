//! Executing one warp instruction: the dispatcher and the lane helpers every
//! family shares. Each family module holds its operation enum, the
//! translation of table forms into it, and its execution; dispatch is one
//! static `match`, so the hot loop inlines the arithmetic.
//!
//! Architecture invariant: nothing here allocates per instruction. Lane
//! operations are written as whole-row loops over `[u32; 32]` so they
//! vectorise.

pub(crate) mod arith;
pub(crate) mod collective;
pub(crate) mod control;
pub(crate) mod efficiency;
pub(crate) mod memory;
pub(crate) mod tensor;

use crate::block::BlockSim;
use crate::decode::{Modifier, Op, PredIn, Reg, Val, Val64};
use crate::fault::Fault;
use crate::warp::Warp;
pub(crate) use crate::warp::lanes;

const SIGN: u32 = 0x8000_0000;

#[inline(always)]
fn modify(row: &mut [u32; 32], m: Modifier) {
    match m {
        Modifier::None => {}
        Modifier::INeg => row.iter_mut().for_each(|x| *x = x.wrapping_neg()),
        Modifier::FNeg => row.iter_mut().for_each(|x| *x ^= SIGN),
        Modifier::FAbs => row.iter_mut().for_each(|x| *x &= !SIGN),
        Modifier::FNegAbs => row.iter_mut().for_each(|x| *x |= SIGN),
    }
}

/// A source row: the register itself when unmodified, else `tmp` filled with the value.
/// `tmp` starts as `None`, so an unmodified register costs no row of zeros.
#[inline(always)]
pub(crate) fn src<'w>(w: &'w Warp, v: Val, tmp: &'w mut Option<[u32; 32]>) -> &'w [u32; 32] {
    match v {
        Val::Reg(r, Modifier::None) => w.row(r),
        Val::Reg(r, m) => {
            let row = tmp.insert(*w.row(r));
            modify(row, m);
            row
        }
        Val::Imm(x) => tmp.insert([x; 32]),
    }
}

/// An owned copy of a source row.
#[inline(always)]
pub(crate) fn fetch(w: &Warp, v: Val) -> [u32; 32] {
    *src(w, v, &mut None)
}

/// Builds a 32-lane array; a plain loop so it inlines into the AVX2 copy of the executor.
#[inline(always)]
pub(crate) fn per_lane<T: Copy + Default>(f: impl Fn(usize) -> T) -> [T; 32] {
    let mut out = [T::default(); 32];
    for (l, x) in out.iter_mut().enumerate() {
        *x = f(l);
    }
    out
}

#[inline(always)]
pub(crate) fn fetch64(w: &Warp, v: Val64) -> [u64; 32] {
    match v {
        Val64::Imm(x) => [x; 32],
        Val64::Pair(r, m) => {
            let (lo, mut hi) = (*w.row(r), *w.row(r + 1));
            modify(&mut hi, if m == Modifier::INeg { Modifier::None } else { m });
            per_lane(|l| u64::from(lo[l]) | (u64::from(hi[l]) << 32))
        }
    }
}

/// Writes `vals` into row `d` for the lanes in `mask`, branch-free so it vectorises.
#[inline(always)]
pub(crate) fn write(w: &mut Warp, d: Reg, vals: &[u32; 32], mask: u32) {
    let row = &mut w.regs[usize::from(d)];
    if mask == u32::MAX {
        *row = *vals;
        return;
    }
    for l in 0..32 {
        let keep = ((mask >> l) & 1).wrapping_sub(1);
        row[l] = (vals[l] & !keep) | (row[l] & keep);
    }
}

#[inline(always)]
pub(crate) fn write64(w: &mut Warp, d: Reg, vals: &[u64; 32], mask: u32) {
    write(w, d, &per_lane(|l| vals[l] as u32), mask);
    write(w, d + 1, &per_lane(|l| (vals[l] >> 32) as u32), mask);
}

#[inline(always)]
pub(crate) fn map1(a: &[u32; 32], f: impl Fn(u32) -> u32) -> [u32; 32] {
    per_lane(|l| f(a[l]))
}

#[inline(always)]
pub(crate) fn map2(a: &[u32; 32], b: &[u32; 32], f: impl Fn(u32, u32) -> u32) -> [u32; 32] {
    per_lane(|l| f(a[l], b[l]))
}

#[inline(always)]
pub(crate) fn mask_of(f: impl Fn(usize) -> bool) -> u32 {
    let mut m = 0;
    for l in 0..32 {
        m |= u32::from(f(l)) << l;
    }
    m
}

#[inline(always)]
pub(crate) fn pred(w: &Warp, p: PredIn) -> u32 {
    w.preds[usize::from(p.index)] ^ if p.negated { u32::MAX } else { 0 }
}

#[inline(always)]
pub(crate) fn set_pred(w: &mut Warp, p: u8, value: u32, mask: u32) {
    let row = &mut w.preds[usize::from(p)];
    *row = (*row & !mask) | (value & mask);
}

/// Runs `f` for each lane of `mask`; a full warp takes a plain loop the compiler can unroll.
#[inline(always)]
pub(crate) fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == u32::MAX {
        // A plain loop: `for_each` would go through an out-of-line fold.
        for l in 0..32 {
            f(l);
        }
    } else {
        lanes(mask).for_each(f);
    }
}

/// "lanes 0-15, 17" style text for a lane mask.
pub(crate) fn describe_lanes(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask & (1 << l) == 0 {
            l += 1;
            continue;
        }
        let start = l;
        while l < 32 && mask & (1 << l) != 0 {
            l += 1;
        }
        parts.push(if l - 1 == start { format!("{start}") } else { format!("{start}-{}", l - 1) });
    }
    let noun = if mask.count_ones() == 1 { "lane" } else { "lanes" };
    format!("{noun} {}", parts.join(", "))
}

impl BlockSim<'_> {
    /// Issues the instruction at `pc` for the threads in `mask` of warp `w`.
    #[inline(always)]
    pub(crate) fn execute(&mut self, w: usize, pc: u32, mask: u32) -> Result<(), Fault> {
        // Borrowed from the launch, not copied: the arithmetic and memory operations are
        // large enums, and a copy is taken apart field by field onto the stack.
        let ctx = self.ctx;
        let inst = &ctx.program.code[pc as usize];
        let exec = mask & pred(&self.warps[w], inst.guard);
        let at = pc as usize;
        let counts = &mut self.counters.pcs[at];
        counts.issued += 1;
        counts.active += u64::from(mask.count_ones());
        counts.executed += u64::from(exec.count_ones());
        if self.sanitizer.is_some() {
            self.check_issue(w, pc, mask, exec);
        }
        self.warps[w].issued += 1;
        match &inst.op {
            Op::Arith(op) => self.arith(w, op, exec),
            Op::Memory(op) => self.memory(w, pc, op, exec)?,
            Op::Collective(op) => self.collective(w, *op, exec),
            Op::Tensor(op) => self.mma(w, pc, *op, mask, exec)?,
            Op::Control(op) => {
                if self.control(w, pc, *op, mask, exec)? == control::Moved::Yes {
                    return Ok(());
                }
            }
        }
        if self.sanitizer.is_some() {
            self.after_issue(w, pc, exec);
        }
        self.warps[w].advance(mask);
        Ok(())
    }
}
