//! Register-to-register arithmetic: moves, conversions, integer, f32 and f64
//! operations, comparisons and special functions. The lane semantics live in
//! `crate::lanes`; this file turns table forms into operations and runs them
//! over a warp's lanes.

use simt_isa::*;

use super::Executor;
use super::{fetch, fetch64, map1, map2, mask_of, per_lane, pred, set_pred, src, write, write64};
use crate::decode::{PredIn, Reg, Val, Val64};
use crate::directed;
use crate::lanes::{self, DOp, FFlags, FOp, Int64Op, IntOp, TriOp, UnOp};
use simt_tensor::formats::MiniFloat;

/// An arithmetic operation with its registers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ArithOp {
    Mov {
        d: Reg,
        a: Val,
    },
    Mov64 {
        d: Reg,
        value: u64,
    },
    S2r {
        d: Reg,
        sr: SpecialReg,
    },
    Sel {
        d: Reg,
        a: Val,
        b: Val,
        p: PredIn,
    },
    Cvt {
        d: Reg,
        a: Val64,
        wide_src: bool,
        to: CvtType,
        from: CvtType,
        neg: bool,
        abs: bool,
    },
    Pack {
        d: Reg,
        a: Val,
        b: Val,
        bf16: bool,
    },
    CvtTf32 {
        d: Reg,
        a: Val,
    },
    CvtPair {
        d: Reg,
        a: Val,
        b: Val,
        format: MiniFloat,
    },
    CvtWiden {
        d: Reg,
        a: Val,
        format: MiniFloat,
    },
    CvtPairWiden {
        d: Reg,
        a: Val,
        format: MiniFloat,
        bf16: bool,
    },
    Int {
        op: IntOp,
        d: Reg,
        a: Val,
        b: Val,
    },
    Un {
        op: UnOp,
        d: Reg,
        a: Val,
    },
    Tri {
        op: TriOp,
        d: Reg,
        a: Val,
        b: Val,
        c: Val,
    },
    Isetp {
        p: u8,
        a: Val,
        b: Val,
        cmp: Cmp,
        signed: bool,
        bop: BoolOp,
        q: PredIn,
    },
    Isetp64 {
        p: u8,
        a: Wide,
        b: Wide,
        cmp: Cmp,
        signed: bool,
        bop: BoolOp,
        q: PredIn,
    },
    Fsetp {
        p: u8,
        a: Val,
        b: Val,
        cmp: FCmp,
        bop: BoolOp,
        q: PredIn,
    },
    /// `HSETP2`: `p` from the low halves, `q` from the high ones.
    Hsetp2 {
        p: u8,
        q: u8,
        a: Val,
        b: Val,
        cmp: FCmp,
        bop: BoolOp,
        c: PredIn,
        ty: PackType,
    },
    Dsetp {
        p: u8,
        a: Val64,
        b: Val64,
        cmp: FCmp,
        bop: BoolOp,
        q: PredIn,
    },
    F2 {
        op: FOp,
        d: Reg,
        a: Val,
        b: Val,
        flags: FFlags,
    },
    Ffma {
        d: Reg,
        a: Val,
        b: Val,
        c: Val,
        flags: FFlags,
    },
    FfmaRounded {
        d: Reg,
        a: Val,
        b: Val,
        c: Val,
        rnd: Round,
        flags: FFlags,
    },
    Frnd {
        d: Reg,
        a: Val,
        rnd: Round,
        flags: FFlags,
    },
    /// The hot case of FFMA: three plain registers, no flags.
    FfmaRegs {
        d: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },
    Mufu {
        op: MufuOp,
        ftz: bool,
        d: Reg,
        a: Val,
    },
    D2 {
        op: DOp,
        d: Reg,
        a: Val64,
        b: Val64,
    },
    /// A 64-bit integer operation; 32-bit sources arrive zero-extended.
    Int64 {
        op: Int64Op,
        d: Reg,
        a: Wide,
        b: Wide,
    },
    /// `IMAD.WIDE`: the 64-bit product of two words plus a pair.
    ImadWide {
        d: Reg,
        a: Val,
        b: Val,
        c: Wide,
        ty: IntType,
    },
    Plop {
        p: u8,
        a: PredIn,
        b: PredIn,
        bop: BoolOp,
    },
    Dfma {
        d: Reg,
        a: Val64,
        b: Val64,
        c: Val64,
    },
    Dsqrt {
        d: Reg,
        a: Val64,
    },
    Drnd {
        d: Reg,
        a: Val64,
        rnd: Round,
    },
    Bfi {
        d: Reg,
        a: Val,
        b: Val,
        pos: Val,
        len: Val,
    },
    Lop3 {
        d: Reg,
        a: Val,
        b: Val,
        c: Val,
        lut: Val,
    },
    DfmaDirected {
        d: Reg,
        a: Val64,
        b: Val64,
        c: Val64,
        rnd: Round,
    },
    DdivDirected {
        d: Reg,
        a: Val64,
        b: Val64,
        rnd: Round,
    },
    DsqrtDirected {
        d: Reg,
        a: Val64,
        rnd: Round,
    },
    FdivDirected {
        d: Reg,
        a: Val,
        b: Val,
        rnd: Round,
    },
    Fsqrt {
        d: Reg,
        a: Val,
        rnd: Round,
    },
    CvtDirected {
        d: Reg,
        a: Val64,
        wide_src: bool,
        to: CvtType,
        from: CvtType,
        neg: bool,
        abs: bool,
        rnd: Round,
    },
}

/// A source of a 64-bit integer operation: a pair, or one 32-bit value.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wide {
    Pair(Val64),
    Word(Val),
}

impl Wide {
    #[inline(always)]
    fn lanes(self, warp: &crate::warp::Warp) -> [u64; 32] {
        match self {
            Wide::Pair(v) => fetch64(warp, v),
            Wide::Word(v) => {
                let words = fetch(warp, v);
                per_lane(|l| u64::from(words[l]))
            }
        }
    }
}

pub(crate) fn flags(ftz: Ftz, sat: Sat) -> FFlags {
    FFlags { ftz: ftz == Ftz::Yes, sat: sat == Sat::Yes }
}

pub(crate) fn signed(ty: IntType) -> bool {
    ty == IntType::S32
}

pub(crate) fn pair_format(to: CvtPair) -> MiniFloat {
    match to {
        CvtPair::E4M3x2 => MiniFloat::E4M3,
        CvtPair::E5M2x2 => MiniFloat::E5M2,
        CvtPair::E2M1x2 => MiniFloat::E2M1,
    }
}

pub(crate) fn narrow_format(from: NarrowFloat) -> MiniFloat {
    match from {
        NarrowFloat::E4M3 => MiniFloat::E4M3,
        NarrowFloat::E5M2 => MiniFloat::E5M2,
        NarrowFloat::E2M1 => MiniFloat::E2M1,
    }
}

/// The source of a conversion: a pair read whole, or one register zero-extended.
#[inline(always)]
fn converted_source(warp: &crate::warp::Warp, a: Val64, wide: bool) -> [u64; 32] {
    if wide {
        return fetch64(warp, a);
    }
    match a {
        Val64::Pair(r, _) => warp.row(r).map(u64::from),
        Val64::Imm(x) => [x; 32],
    }
}

/// Writes a conversion's results: a pair for the 64-bit types, else one register.
#[inline(always)]
fn write_converted(warp: &mut crate::warp::Warp, d: Reg, v: &[u64; 32], to: CvtType, exec: u32) {
    if to.is_pair() {
        write64(warp, d, v, exec);
    } else {
        write(warp, d, &v.map(|x| x as u32), exec);
    }
}

impl Executor<'_> {
    /// Runs an arithmetic operation on the `exec` lanes of warp `w`.
    #[inline(always)]
    pub(crate) fn arith(&mut self, w: usize, op: &ArithOp, exec: u32) {
        if let ArithOp::S2r { d, sr } = *op {
            let v = self.special(w, sr);
            write(&mut self.warps[w], d, &v, exec);
            return;
        }
        let warp = &mut self.warps[w];
        match *op {
            ArithOp::S2r { .. } => {}
            ArithOp::Mov { d, a } => {
                let v = fetch(warp, a);
                write(warp, d, &v, exec);
            }
            ArithOp::Mov64 { d, value } => write64(warp, d, &[value; 32], exec),
            ArithOp::Sel { d, a, b, p } => {
                let (a, b, p) = (fetch(warp, a), fetch(warp, b), pred(warp, p));
                let v = per_lane(|l| if (p >> l) & 1 != 0 { a[l] } else { b[l] });
                write(warp, d, &v, exec);
            }
            ArithOp::Cvt { d, a, wide_src, to, from, neg, abs } => {
                let src = converted_source(warp, a, wide_src);
                let v: [u64; 32] = per_lane(|l| lanes::cvt(src[l], from, to, neg, abs));
                write_converted(warp, d, &v, to, exec);
            }
            ArithOp::CvtDirected { d, a, wide_src, to, from, neg, abs, rnd } => {
                let src = converted_source(warp, a, wide_src);
                let v: [u64; 32] = per_lane(|l| lanes::cvt_directed(src[l], from, to, neg, abs, rnd));
                write_converted(warp, d, &v, to, exec);
            }
            ArithOp::DfmaDirected { d, a, b, c, rnd } => {
                let (a, b, c) = (fetch64(warp, a), fetch64(warp, b), fetch64(warp, c));
                let v = per_lane(|l| lanes::canon64(directed::dfma(f64::from_bits(a[l]), f64::from_bits(b[l]), f64::from_bits(c[l]), rnd)));
                write64(warp, d, &v, exec);
            }
            ArithOp::DdivDirected { d, a, b, rnd } => {
                let (a, b) = (fetch64(warp, a), fetch64(warp, b));
                let v = per_lane(|l| lanes::canon64(directed::ddiv(f64::from_bits(a[l]), f64::from_bits(b[l]), rnd)));
                write64(warp, d, &v, exec);
            }
            ArithOp::DsqrtDirected { d, a, rnd } => {
                let a = fetch64(warp, a);
                let v = per_lane(|l| lanes::canon64(directed::dsqrt(f64::from_bits(a[l]), rnd)));
                write64(warp, d, &v, exec);
            }
            ArithOp::FdivDirected { d, a, b, rnd } => {
                let v = map2(&fetch(warp, a), &fetch(warp, b), |x, y| lanes::canon32(directed::fdiv(f32::from_bits(x), f32::from_bits(y), rnd)));
                write(warp, d, &v, exec);
            }
            ArithOp::Fsqrt { d, a, rnd } => {
                let v = map1(&fetch(warp, a), |x| lanes::canon32(directed::fsqrt(f32::from_bits(x), rnd)));
                write(warp, d, &v, exec);
            }
            ArithOp::Pack { d, a, b, bf16 } => {
                let v = map2(&fetch(warp, a), &fetch(warp, b), |x, y| lanes::pack(x, y, bf16));
                write(warp, d, &v, exec);
            }
            ArithOp::CvtTf32 { d, a } => {
                let v = map1(&fetch(warp, a), lanes::cvt_tf32);
                write(warp, d, &v, exec);
            }
            ArithOp::CvtPair { d, a, b, format } => {
                let v = map2(&fetch(warp, a), &fetch(warp, b), |x, y| lanes::cvt_pair(format, x, y));
                write(warp, d, &v, exec);
            }
            ArithOp::CvtWiden { d, a, format } => {
                let v = map1(&fetch(warp, a), |x| lanes::cvt_widen(format, x));
                write(warp, d, &v, exec);
            }
            ArithOp::CvtPairWiden { d, a, format, bf16 } => {
                let v = map1(&fetch(warp, a), |x| lanes::cvt_pair_widen(format, x, bf16));
                write(warp, d, &v, exec);
            }
            ArithOp::Int { op, d, a, b } => {
                let (mut ta, mut tb) = (None, None);
                let v = lanes::int_op_lanes(op, src(warp, a, &mut ta), src(warp, b, &mut tb));
                write(warp, d, &v, exec);
            }
            ArithOp::Un { op, d, a } => {
                let mut ta = None;
                let v = lanes::un_op_lanes(op, src(warp, a, &mut ta));
                write(warp, d, &v, exec);
            }
            ArithOp::Tri { op, d, a, b, c } => {
                let (mut ta, mut tb, mut tc) = (None, None, None);
                let v = lanes::tri_op_lanes(op, src(warp, a, &mut ta), src(warp, b, &mut tb), src(warp, c, &mut tc));
                write(warp, d, &v, exec);
            }
            ArithOp::Isetp { p, a, b, cmp, signed, bop, q } => {
                let (mut ta, mut tb) = (None, None);
                let (a, b) = (src(warp, a, &mut ta), src(warp, b, &mut tb));
                let c = lanes::icmp_lanes(cmp, signed, a, b);
                let v = lanes::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            ArithOp::Isetp64 { p, a, b, cmp, signed, bop, q } => {
                let c = lanes::icmp_lanes(cmp, signed, &a.lanes(warp), &b.lanes(warp));
                let v = lanes::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            ArithOp::Fsetp { p, a, b, cmp, bop, q } => {
                let (a, b) = (fetch(warp, a), fetch(warp, b));
                let c = mask_of(|l| lanes::fcmp(cmp, f64::from(f32::from_bits(a[l])), f64::from(f32::from_bits(b[l]))));
                let v = lanes::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            ArithOp::Hsetp2 { p, q, a, b, cmp, bop, c, ty } => {
                let (a, b) = (fetch(warp, a), fetch(warp, b));
                let c = pred(warp, c);
                let compare = |shift: u32| mask_of(|l| lanes::fcmp(cmp, lanes::half_value(a[l] >> shift, ty), lanes::half_value(b[l] >> shift, ty)));
                let (low, high) = (compare(0), compare(16));
                set_pred(warp, p, lanes::combine(bop, low, c), exec);
                set_pred(warp, q, lanes::combine(bop, high, c), exec);
            }
            ArithOp::Dsetp { p, a, b, cmp, bop, q } => {
                let (a, b) = (fetch64(warp, a), fetch64(warp, b));
                let c = mask_of(|l| lanes::fcmp(cmp, f64::from_bits(a[l]), f64::from_bits(b[l])));
                let v = lanes::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            ArithOp::F2 { op, d, a, b, flags } => {
                let (mut ta, mut tb) = (None, None);
                let (a, b) = (src(warp, a, &mut ta), src(warp, b, &mut tb));
                let v = if !flags.ftz && !flags.sat {
                    match op {
                        FOp::Add => map2(a, b, |x, y| lanes::f32_op(FOp::Add, x, y, FFlags::default())),
                        FOp::Mul => map2(a, b, |x, y| lanes::f32_op(FOp::Mul, x, y, FFlags::default())),
                        FOp::Min => map2(a, b, |x, y| lanes::f32_op(FOp::Min, x, y, FFlags::default())),
                        FOp::Max => map2(a, b, |x, y| lanes::f32_op(FOp::Max, x, y, FFlags::default())),
                        FOp::Div => map2(a, b, |x, y| lanes::f32_op(FOp::Div, x, y, FFlags::default())),
                        FOp::MinNan | FOp::MaxNan => map2(a, b, |x, y| lanes::f32_op(op, x, y, FFlags::default())),
                    }
                } else {
                    map2(a, b, |x, y| lanes::f32_op(op, x, y, flags))
                };
                write(warp, d, &v, exec);
            }
            ArithOp::Ffma { d, a, b, c, flags } => {
                let (a, b, c) = (fetch(warp, a), fetch(warp, b), fetch(warp, c));
                let v = per_lane(|l| lanes::ffma(a[l], b[l], c[l], flags));
                write(warp, d, &v, exec);
            }
            ArithOp::FfmaRounded { d, a, b, c, rnd, flags } => {
                let (a, b, c) = (fetch(warp, a), fetch(warp, b), fetch(warp, c));
                let v = per_lane(|l| lanes::ffma_rounded(a[l], b[l], c[l], rnd, flags));
                write(warp, d, &v, exec);
            }
            ArithOp::FfmaRegs { d, a, b, c } => {
                let (a, b, c) = (warp.row(a), warp.row(b), warp.row(c));
                let v = per_lane(|l| lanes::ffma(a[l], b[l], c[l], FFlags::default()));
                write(warp, d, &v, exec);
            }
            ArithOp::Frnd { d, a, rnd, flags } => {
                let v = map1(&fetch(warp, a), |x| lanes::frnd(x, rnd, flags));
                write(warp, d, &v, exec);
            }
            ArithOp::Mufu { op, ftz, d, a } => {
                let v = map1(&fetch(warp, a), |x| lanes::mufu(op, x, ftz));
                write(warp, d, &v, exec);
            }
            ArithOp::D2 { op, d, a, b } => {
                let (a, b) = (fetch64(warp, a), fetch64(warp, b));
                let v = per_lane(|l| lanes::f64_op(op, a[l], b[l]));
                write64(warp, d, &v, exec);
            }
            ArithOp::Int64 { op, d, a, b } => {
                let (a, b) = (a.lanes(warp), b.lanes(warp));
                // One loop per operation and modifier, the operation a constant in it, so each
                // loop's lane function folds to its one case and vectorises (PTX address
                // arithmetic is hot; with `op` itself in the loop, none did).
                use simt_isa::Int64Type::{S64, U64};
                use simt_isa::IntType::{S32, U32};
                macro_rules! per_op {
                    ($($o:ident $(($m:ident))?),*) => {
                        match op { $(Int64Op::$o $(($m))? => per_lane(|l| lanes::int64_op(Int64Op::$o $(($m))?, a[l], b[l])),)* }
                    };
                }
                let v = per_op!(
                    Add,
                    Sub,
                    Mul,
                    Shl,
                    Min(S64),
                    Min(U64),
                    Max(S64),
                    Max(U64),
                    Div(S64),
                    Div(U64),
                    Rem(S64),
                    Rem(U64),
                    MulWide(S32),
                    MulWide(U32),
                    MulHi(S64),
                    MulHi(U64),
                    Shr(S64),
                    Shr(U64)
                );
                write64(warp, d, &v, exec);
            }
            ArithOp::ImadWide { d, a, b, c, ty } => {
                let (a, b, c) = (fetch(warp, a), fetch(warp, b), c.lanes(warp));
                let product = |ty| per_lane(|l| lanes::int64_op(Int64Op::MulWide(ty), u64::from(a[l]), u64::from(b[l])).wrapping_add(c[l]));
                // One loop per signedness, as for the other 64-bit operations.
                let v = match ty {
                    IntType::S32 => product(IntType::S32),
                    IntType::U32 => product(IntType::U32),
                };
                write64(warp, d, &v, exec);
            }
            ArithOp::Plop { p, a, b, bop } => {
                let v = lanes::combine(bop, pred(warp, a), pred(warp, b));
                set_pred(warp, p, v, exec);
            }
            ArithOp::Dfma { d, a, b, c } => {
                let (a, b, c) = (fetch64(warp, a), fetch64(warp, b), fetch64(warp, c));
                let v = per_lane(|l| lanes::dfma(a[l], b[l], c[l]));
                write64(warp, d, &v, exec);
            }
            ArithOp::Dsqrt { d, a } => {
                let a = fetch64(warp, a);
                let v = per_lane(|l| lanes::dsqrt(a[l]));
                write64(warp, d, &v, exec);
            }
            ArithOp::Drnd { d, a, rnd } => {
                let a = fetch64(warp, a);
                let v = per_lane(|l| lanes::drnd(a[l], rnd));
                write64(warp, d, &v, exec);
            }
            ArithOp::Bfi { d, a, b, pos, len } => {
                let (a, b, pos, len) = (fetch(warp, a), fetch(warp, b), fetch(warp, pos), fetch(warp, len));
                let v = per_lane(|l| lanes::bfi(a[l], b[l], pos[l], len[l]));
                write(warp, d, &v, exec);
            }
            ArithOp::Lop3 { d, a, b, c, lut } => {
                let (a, b, c, lut) = (fetch(warp, a), fetch(warp, b), fetch(warp, c), fetch(warp, lut));
                let v = per_lane(|l| lanes::lop3(a[l], b[l], c[l], lut[l]));
                write(warp, d, &v, exec);
            }
        }
    }
}
