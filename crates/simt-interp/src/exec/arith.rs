//! Register-to-register arithmetic: moves, conversions, integer, f32 and f64
//! operations, comparisons and special functions. The lane semantics live in
//! `crate::arith`; this file turns table forms into operations and runs them
//! over a warp's lanes.

use simt_isa::*;

use super::{fetch, fetch64, map1, map2, mask_of, per_lane, pred, set_pred, src, write, write64};
use crate::arith::{self, DOp, FFlags, FOp, Int64Op, IntOp, TriOp, UnOp};
use crate::block::BlockSim;
use crate::directed;
use crate::translate::{Modifier, PredIn, Reg, Translator, Val, Val64};
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

fn flags(ftz: Ftz, sat: Sat) -> FFlags {
    FFlags { ftz: ftz == Ftz::Yes, sat: sat == Sat::Yes }
}

fn signed(ty: IntType) -> bool {
    ty == IntType::S32
}

fn pair_format(to: CvtPair) -> MiniFloat {
    match to {
        CvtPair::E4M3x2 => MiniFloat::E4M3,
        CvtPair::E5M2x2 => MiniFloat::E5M2,
        CvtPair::E2M1x2 => MiniFloat::E2M1,
    }
}

fn narrow_format(from: NarrowFloat) -> MiniFloat {
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

/// The arithmetic operation of `inst`, if it is one.
pub(crate) fn translate(t: &Translator, inst: &Instruction) -> Option<ArithOp> {
    let o = &inst.operands;
    let int2 = |op: IntOp| ArithOp::Int { op, d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false) };
    let un = |op: UnOp| ArithOp::Un { op, d: t.dst(&o[0]), a: t.val(&o[1], false) };
    let tri = |op: TriOp| ArithOp::Tri { op, d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false), c: t.val(&o[3], false) };
    let f2 = |op: FOp, flags: FFlags| ArithOp::F2 { op, d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), flags };
    let d2 = |op: DOp| ArithOp::D2 { op, d: t.dst(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]) };
    // A literal in a pair position is a 32-bit value, sign-extended.
    let pair = |i: usize| match o[i] {
        Operand::Src(Src::Imm { bits, wide: false }) => Wide::Pair(Val64::Imm(i64::from(bits as u32 as i32) as u64)),
        _ => Wide::Pair(t.val64(&o[i])),
    };
    let word = |i: usize| Wide::Word(t.val(&o[i], false));
    let int64 = |op: Int64Op, a: Wide, b: Wide| ArithOp::Int64 { op, d: t.dst(&o[0]), a, b };
    Some(match inst.form {
        Form::Mov(_) => match o[1] {
            Operand::Src(Src::Imm { bits, wide: true }) => ArithOp::Mov64 { d: t.dst(&o[0]), value: bits },
            _ => ArithOp::Mov { d: t.dst(&o[0]), a: t.val(&o[1], false) },
        },
        Form::S2r(_) => match o[1] {
            Operand::Special(sr) => ArithOp::S2r { d: t.dst(&o[0]), sr },
            _ => return None,
        },
        Form::Sel(_) => ArithOp::Sel { d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false), p: Translator::pred_in(&o[3]) },
        Form::Cvt(mods::Cvt { to, from, rnd }) => {
            let (neg, abs) = match o[1] {
                Operand::Src(Src::Reg { neg, abs, .. }) => (neg, abs),
                _ => (false, false),
            };
            // The sign modifiers apply to the converted value, not to the bits of the pair.
            let a = match t.val64(&o[1]) {
                Val64::Pair(r, _) => Val64::Pair(r, Modifier::None),
                imm => imm,
            };
            match rnd {
                Round::Rn => ArithOp::Cvt { d: t.dst(&o[0]), a, wide_src: from.is_pair(), to, from, neg, abs },
                rnd => ArithOp::CvtDirected { d: t.dst(&o[0]), a, wide_src: from.is_pair(), to, from, neg, abs, rnd },
            }
        }
        Form::Pack(mods::Pack { ty }) => ArithOp::Pack { d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), bf16: ty == PackType::Bf16x2 },
        Form::CvtTf32(_) => ArithOp::CvtTf32 { d: t.dst(&o[0]), a: t.val(&o[1], true) },
        Form::CvtX2(mods::CvtX2 { to }) => ArithOp::CvtPair { d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), format: pair_format(to) },
        Form::CvtWiden(mods::CvtWiden { from }) => ArithOp::CvtWiden { d: t.dst(&o[0]), a: t.val(&o[1], false), format: narrow_format(from) },
        Form::Iadd(_) => int2(IntOp::Add),
        Form::Isub(_) => int2(IntOp::Sub),
        Form::Imul(_) => int2(IntOp::Mul),
        Form::ImulHi(mods::ImulHi { ty }) => int2(if signed(ty) { IntOp::MulHiS } else { IntOp::MulHiU }),
        Form::Imad(_) => tri(TriOp::Imad),
        Form::Imin(mods::Imin { ty }) => int2(if signed(ty) { IntOp::MinS } else { IntOp::MinU }),
        Form::Imax(mods::Imax { ty }) => int2(if signed(ty) { IntOp::MaxS } else { IntOp::MaxU }),
        Form::Iabs(_) => un(UnOp::Abs),
        Form::Lea(_) => tri(TriOp::Lea),
        Form::And(_) => int2(IntOp::And),
        Form::Or(_) => int2(IntOp::Or),
        Form::Xor(_) => int2(IntOp::Xor),
        Form::Not(_) => un(UnOp::Not),
        Form::Shl(_) => int2(IntOp::Shl),
        Form::Shr(mods::Shr { ty }) => int2(if signed(ty) { IntOp::ShrS } else { IntOp::ShrU }),
        Form::Popc(_) => un(UnOp::Popc),
        Form::Clz(_) => un(UnOp::Clz),
        Form::Brev(_) => un(UnOp::Brev),
        Form::Isetp(mods::Isetp { cmp, ty, bop }) => ArithOp::Isetp {
            p: Translator::pred_out(&o[0]),
            a: t.val(&o[1], false),
            b: t.val(&o[2], false),
            cmp,
            signed: signed(ty),
            bop,
            q: Translator::pred_in(&o[3]),
        },
        Form::Fsetp(mods::Fsetp { cmp, bop }) => {
            ArithOp::Fsetp { p: Translator::pred_out(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), cmp, bop, q: Translator::pred_in(&o[3]) }
        }
        Form::Dsetp(mods::Dsetp { cmp, bop }) => {
            ArithOp::Dsetp { p: Translator::pred_out(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]), cmp, bop, q: Translator::pred_in(&o[3]) }
        }
        Form::Fadd(mods::Fadd { ftz, sat }) => f2(FOp::Add, flags(ftz, sat)),
        Form::Fmul(mods::Fmul { ftz, sat }) => f2(FOp::Mul, flags(ftz, sat)),
        Form::Fmin(mods::Fmin { ftz }) => f2(FOp::Min, flags(ftz, Sat::No)),
        Form::Fmax(mods::Fmax { ftz }) => f2(FOp::Max, flags(ftz, Sat::No)),
        Form::Ffma(mods::Ffma { ftz, sat, rnd: Round::Rn }) => match (t.val(&o[1], true), t.val(&o[2], true), t.val(&o[3], true), flags(ftz, sat)) {
            (Val::Reg(a, Modifier::None), Val::Reg(b, Modifier::None), Val::Reg(c, Modifier::None), FFlags { ftz: false, sat: false }) => {
                ArithOp::FfmaRegs { d: t.dst(&o[0]), a, b, c }
            }
            (a, b, c, flags) => ArithOp::Ffma { d: t.dst(&o[0]), a, b, c, flags },
        },
        Form::Ffma(mods::Ffma { ftz, sat, rnd }) => {
            ArithOp::FfmaRounded { d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), c: t.val(&o[3], true), rnd, flags: flags(ftz, sat) }
        }
        Form::Mufu(mods::Mufu { op }) => ArithOp::Mufu { op, d: t.dst(&o[0]), a: t.val(&o[1], true) },
        Form::Frnd(mods::Frnd { rnd, ftz }) => ArithOp::Frnd { d: t.dst(&o[0]), a: t.val(&o[1], true), rnd, flags: flags(ftz, Sat::No) },
        Form::Dadd(_) => d2(DOp::Add),
        Form::Dmul(_) => d2(DOp::Mul),
        Form::Dmin(_) => d2(DOp::Min),
        Form::Dmax(_) => d2(DOp::Max),
        Form::Shf(mods::Shf { dir, amount }) => tri(match (dir, amount) {
            (ShfDir::L, ShfAmount::Wrap) => TriOp::ShfLWrap,
            (ShfDir::L, ShfAmount::Clamp) => TriOp::ShfLClamp,
            (ShfDir::R, ShfAmount::Wrap) => TriOp::ShfRWrap,
            (ShfDir::R, ShfAmount::Clamp) => TriOp::ShfRClamp,
        }),
        Form::Iadd64(_) => int64(Int64Op::Add, pair(1), pair(2)),
        Form::Isub64(_) => int64(Int64Op::Sub, pair(1), pair(2)),
        Form::Idiv64(mods::Idiv64 { ty }) => int64(if ty == Int64Type::S64 { Int64Op::DivS } else { Int64Op::DivU }, pair(1), pair(2)),
        Form::Irem64(mods::Irem64 { ty }) => int64(if ty == Int64Type::S64 { Int64Op::RemS } else { Int64Op::RemU }, pair(1), pair(2)),
        Form::Imin64(mods::Imin64 { ty }) => int64(if ty == Int64Type::S64 { Int64Op::MinS } else { Int64Op::MinU }, pair(1), pair(2)),
        Form::Imax64(mods::Imax64 { ty }) => int64(if ty == Int64Type::S64 { Int64Op::MaxS } else { Int64Op::MaxU }, pair(1), pair(2)),
        Form::Isetp64(mods::Isetp64 { cmp, ty, bop }) => {
            ArithOp::Isetp64 { p: Translator::pred_out(&o[0]), a: pair(1), b: pair(2), cmp, signed: ty == Int64Type::S64, bop, q: Translator::pred_in(&o[3]) }
        }
        Form::Imul64(_) => int64(Int64Op::Mul, pair(1), pair(2)),
        Form::ImulHi64(mods::ImulHi64 { ty }) => int64(if ty == Int64Type::S64 { Int64Op::MulHiS } else { Int64Op::MulHiU }, pair(1), pair(2)),
        Form::Prmt(mods::Prmt { mode }) => tri(match mode {
            PrmtMode::Idx => TriOp::PrmtIdx,
            PrmtMode::F4e => TriOp::PrmtF4e,
            PrmtMode::B4e => TriOp::PrmtB4e,
            PrmtMode::Rc8 => TriOp::PrmtRc8,
            PrmtMode::Ecl => TriOp::PrmtEcl,
            PrmtMode::Ecr => TriOp::PrmtEcr,
            PrmtMode::Rc16 => TriOp::PrmtRc16,
        }),
        Form::ImulWide(mods::ImulWide { ty }) => int64(if signed(ty) { Int64Op::MulWideS } else { Int64Op::MulWideU }, word(1), word(2)),
        Form::Shl64(_) => int64(Int64Op::Shl, pair(1), word(2)),
        Form::Shr64(mods::Shr64 { ty }) => int64(if ty == Int64Type::S64 { Int64Op::ShrS } else { Int64Op::ShrU }, pair(1), word(2)),
        Form::Plop(mods::Plop { bop }) => ArithOp::Plop { p: Translator::pred_out(&o[0]), a: Translator::pred_in(&o[1]), b: Translator::pred_in(&o[2]), bop },
        Form::Fdiv(mods::Fdiv { rnd: Round::Rn }) => f2(FOp::Div, FFlags::default()),
        Form::Fdiv(mods::Fdiv { rnd }) => ArithOp::FdivDirected { d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), rnd },
        Form::Idiv(mods::Idiv { ty }) => int2(if signed(ty) { IntOp::DivS } else { IntOp::DivU }),
        Form::Irem(mods::Irem { ty }) => int2(if signed(ty) { IntOp::RemS } else { IntOp::RemU }),
        Form::Bfe(mods::Bfe { ty }) => tri(if signed(ty) { TriOp::BfeS } else { TriOp::BfeU }),
        Form::Dfma(mods::Dfma { rnd: Round::Rn }) => ArithOp::Dfma { d: t.dst(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]), c: t.val64(&o[3]) },
        Form::Dfma(mods::Dfma { rnd }) => ArithOp::DfmaDirected { d: t.dst(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]), c: t.val64(&o[3]), rnd },
        Form::Ddiv(mods::Ddiv { rnd: Round::Rn }) => d2(DOp::Div),
        Form::Ddiv(mods::Ddiv { rnd }) => ArithOp::DdivDirected { d: t.dst(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]), rnd },
        Form::Dsqrt(mods::Dsqrt { rnd: Round::Rn }) => ArithOp::Dsqrt { d: t.dst(&o[0]), a: t.val64(&o[1]) },
        Form::Dsqrt(mods::Dsqrt { rnd }) => ArithOp::DsqrtDirected { d: t.dst(&o[0]), a: t.val64(&o[1]), rnd },
        Form::Drnd(mods::Drnd { rnd }) => ArithOp::Drnd { d: t.dst(&o[0]), a: t.val64(&o[1]), rnd },
        Form::Fsqrt(mods::Fsqrt { rnd }) => ArithOp::Fsqrt { d: t.dst(&o[0]), a: t.val(&o[1], true), rnd },
        Form::Bfi(_) => ArithOp::Bfi { d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false), pos: t.val(&o[3], false), len: t.val(&o[4], false) },
        _ => return None,
    })
}

impl BlockSim<'_> {
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
                let v: [u64; 32] = per_lane(|l| arith::cvt(src[l], from, to, neg, abs));
                write_converted(warp, d, &v, to, exec);
            }
            ArithOp::CvtDirected { d, a, wide_src, to, from, neg, abs, rnd } => {
                let src = converted_source(warp, a, wide_src);
                let v: [u64; 32] = per_lane(|l| arith::cvt_directed(src[l], from, to, neg, abs, rnd));
                write_converted(warp, d, &v, to, exec);
            }
            ArithOp::DfmaDirected { d, a, b, c, rnd } => {
                let (a, b, c) = (fetch64(warp, a), fetch64(warp, b), fetch64(warp, c));
                let v = per_lane(|l| arith::canon64(directed::dfma(f64::from_bits(a[l]), f64::from_bits(b[l]), f64::from_bits(c[l]), rnd)));
                write64(warp, d, &v, exec);
            }
            ArithOp::DdivDirected { d, a, b, rnd } => {
                let (a, b) = (fetch64(warp, a), fetch64(warp, b));
                let v = per_lane(|l| arith::canon64(directed::ddiv(f64::from_bits(a[l]), f64::from_bits(b[l]), rnd)));
                write64(warp, d, &v, exec);
            }
            ArithOp::DsqrtDirected { d, a, rnd } => {
                let a = fetch64(warp, a);
                let v = per_lane(|l| arith::canon64(directed::dsqrt(f64::from_bits(a[l]), rnd)));
                write64(warp, d, &v, exec);
            }
            ArithOp::FdivDirected { d, a, b, rnd } => {
                let v = map2(&fetch(warp, a), &fetch(warp, b), |x, y| arith::canon32(directed::fdiv(f32::from_bits(x), f32::from_bits(y), rnd)));
                write(warp, d, &v, exec);
            }
            ArithOp::Fsqrt { d, a, rnd } => {
                let v = map1(&fetch(warp, a), |x| arith::canon32(directed::fsqrt(f32::from_bits(x), rnd)));
                write(warp, d, &v, exec);
            }
            ArithOp::Pack { d, a, b, bf16 } => {
                let v = map2(&fetch(warp, a), &fetch(warp, b), |x, y| arith::pack(x, y, bf16));
                write(warp, d, &v, exec);
            }
            ArithOp::CvtTf32 { d, a } => {
                let v = map1(&fetch(warp, a), arith::cvt_tf32);
                write(warp, d, &v, exec);
            }
            ArithOp::CvtPair { d, a, b, format } => {
                let v = map2(&fetch(warp, a), &fetch(warp, b), |x, y| arith::cvt_pair(format, x, y));
                write(warp, d, &v, exec);
            }
            ArithOp::CvtWiden { d, a, format } => {
                let v = map1(&fetch(warp, a), |x| arith::cvt_widen(format, x));
                write(warp, d, &v, exec);
            }
            ArithOp::Int { op, d, a, b } => {
                let (mut ta, mut tb) = (None, None);
                let v = arith::int_op_lanes(op, src(warp, a, &mut ta), src(warp, b, &mut tb));
                write(warp, d, &v, exec);
            }
            ArithOp::Un { op, d, a } => {
                let mut ta = None;
                let v = arith::un_op_lanes(op, src(warp, a, &mut ta));
                write(warp, d, &v, exec);
            }
            ArithOp::Tri { op, d, a, b, c } => {
                let (mut ta, mut tb, mut tc) = (None, None, None);
                let v = arith::tri_op_lanes(op, src(warp, a, &mut ta), src(warp, b, &mut tb), src(warp, c, &mut tc));
                write(warp, d, &v, exec);
            }
            ArithOp::Isetp { p, a, b, cmp, signed, bop, q } => {
                let (mut ta, mut tb) = (None, None);
                let (a, b) = (src(warp, a, &mut ta), src(warp, b, &mut tb));
                let c = arith::icmp_lanes(cmp, signed, a, b);
                let v = arith::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            ArithOp::Isetp64 { p, a, b, cmp, signed, bop, q } => {
                let c = arith::icmp_lanes(cmp, signed, &a.lanes(warp), &b.lanes(warp));
                let v = arith::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            ArithOp::Fsetp { p, a, b, cmp, bop, q } => {
                let (a, b) = (fetch(warp, a), fetch(warp, b));
                let c = mask_of(|l| arith::fcmp(cmp, f64::from(f32::from_bits(a[l])), f64::from(f32::from_bits(b[l]))));
                let v = arith::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            ArithOp::Dsetp { p, a, b, cmp, bop, q } => {
                let (a, b) = (fetch64(warp, a), fetch64(warp, b));
                let c = mask_of(|l| arith::fcmp(cmp, f64::from_bits(a[l]), f64::from_bits(b[l])));
                let v = arith::combine(bop, c, pred(warp, q));
                set_pred(warp, p, v, exec);
            }
            ArithOp::F2 { op, d, a, b, flags } => {
                let (mut ta, mut tb) = (None, None);
                let (a, b) = (src(warp, a, &mut ta), src(warp, b, &mut tb));
                let v = if !flags.ftz && !flags.sat {
                    match op {
                        FOp::Add => map2(a, b, |x, y| arith::f32_op(FOp::Add, x, y, FFlags::default())),
                        FOp::Mul => map2(a, b, |x, y| arith::f32_op(FOp::Mul, x, y, FFlags::default())),
                        FOp::Min => map2(a, b, |x, y| arith::f32_op(FOp::Min, x, y, FFlags::default())),
                        FOp::Max => map2(a, b, |x, y| arith::f32_op(FOp::Max, x, y, FFlags::default())),
                        FOp::Div => map2(a, b, |x, y| arith::f32_op(FOp::Div, x, y, FFlags::default())),
                    }
                } else {
                    map2(a, b, |x, y| arith::f32_op(op, x, y, flags))
                };
                write(warp, d, &v, exec);
            }
            ArithOp::Ffma { d, a, b, c, flags } => {
                let (a, b, c) = (fetch(warp, a), fetch(warp, b), fetch(warp, c));
                let v = per_lane(|l| arith::ffma(a[l], b[l], c[l], flags));
                write(warp, d, &v, exec);
            }
            ArithOp::FfmaRounded { d, a, b, c, rnd, flags } => {
                let (a, b, c) = (fetch(warp, a), fetch(warp, b), fetch(warp, c));
                let v = per_lane(|l| arith::ffma_rounded(a[l], b[l], c[l], rnd, flags));
                write(warp, d, &v, exec);
            }
            ArithOp::FfmaRegs { d, a, b, c } => {
                let (a, b, c) = (warp.row(a), warp.row(b), warp.row(c));
                let v = per_lane(|l| arith::ffma(a[l], b[l], c[l], FFlags::default()));
                write(warp, d, &v, exec);
            }
            ArithOp::Frnd { d, a, rnd, flags } => {
                let v = map1(&fetch(warp, a), |x| arith::frnd(x, rnd, flags));
                write(warp, d, &v, exec);
            }
            ArithOp::Mufu { op, d, a } => {
                let v = map1(&fetch(warp, a), |x| arith::mufu(op, x));
                write(warp, d, &v, exec);
            }
            ArithOp::D2 { op, d, a, b } => {
                let (a, b) = (fetch64(warp, a), fetch64(warp, b));
                let v = per_lane(|l| arith::f64_op(op, a[l], b[l]));
                write64(warp, d, &v, exec);
            }
            ArithOp::Int64 { op, d, a, b } => {
                let (a, b) = (a.lanes(warp), b.lanes(warp));
                // One loop per operation, so each vectorises (PTX address arithmetic is hot).
                macro_rules! per_op {
                    ($($o:ident),*) => { match op { $(Int64Op::$o => per_lane(|l| arith::int64_op(Int64Op::$o, a[l], b[l])),)* } };
                }
                let v = per_op!(Add, Sub, Mul, MinS, MinU, MaxS, MaxU, DivS, DivU, RemS, RemU, MulWideS, MulWideU, MulHiS, MulHiU, Shl, ShrU, ShrS);
                write64(warp, d, &v, exec);
            }
            ArithOp::Plop { p, a, b, bop } => {
                let v = arith::combine(bop, pred(warp, a), pred(warp, b));
                set_pred(warp, p, v, exec);
            }
            ArithOp::Dfma { d, a, b, c } => {
                let (a, b, c) = (fetch64(warp, a), fetch64(warp, b), fetch64(warp, c));
                let v = per_lane(|l| arith::dfma(a[l], b[l], c[l]));
                write64(warp, d, &v, exec);
            }
            ArithOp::Dsqrt { d, a } => {
                let a = fetch64(warp, a);
                let v = per_lane(|l| arith::dsqrt(a[l]));
                write64(warp, d, &v, exec);
            }
            ArithOp::Drnd { d, a, rnd } => {
                let a = fetch64(warp, a);
                let v = per_lane(|l| arith::drnd(a[l], rnd));
                write64(warp, d, &v, exec);
            }
            ArithOp::Bfi { d, a, b, pos, len } => {
                let (a, b, pos, len) = (fetch(warp, a), fetch(warp, b), fetch(warp, pos), fetch(warp, len));
                let v = per_lane(|l| arith::bfi(a[l], b[l], pos[l], len[l]));
                write(warp, d, &v, exec);
            }
        }
    }
}
