//! Decoding: instructions into the executor's compact form.
//!
//! Done once per launch, so the hot loop never looks at the instruction
//! table: registers become indices into the warp's register file (with `RZ`
//! mapped to an always-zero row and writes to `RZ` to a scratch row),
//! literals become 32-lane broadcasts, and typed modifiers become the
//! operation enums each family executes (`exec/arith.rs`, `exec/memory.rs`,
//! `exec/control.rs`, `exec/collective.rs`, `exec/tensor.rs`).
//! `Decoder::op` is one exhaustive match over the table's forms: a row added
//! without its arm does not compile.
//!
//! Three steps share the word "translate" elsewhere; here they are apart: the PTX
//! front end *translates* PTX into simt instructions (`simt-ptx`), this module
//! *decodes* instructions for execution, and `lanes.rs` holds each operation's
//! per-lane semantics.

use simt_isa::*;

use crate::exec::arith::{ArithOp, Wide, flags, narrow_format, pair_format, signed};
use crate::exec::collective::CollectiveOp;
use crate::exec::control::ControlOp;
use crate::exec::memory::MemOp;
use crate::exec::{arith, collective, control, memory, print, tensor, tma, tmem};
use crate::lanes::{DOp, FFlags, FOp, Int64Op, IntOp, TriOp, UnOp};

/// Index of a register row in a warp's register file.
pub(crate) type Reg = u16;

/// Where a predicate index points; `PT` reads as all lanes, writes to it are dropped.
pub(crate) const PRED_TRUE: u8 = 7;
pub(crate) const PRED_SINK: u8 = 8;
pub(crate) const PRED_ROWS: usize = 9;

/// A source modifier, resolved for the operand's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Modifier {
    None,
    /// Two's complement negation (integer `-R`).
    INeg,
    /// Sign-bit operations on an f32 (or on the high word of an f64).
    FNeg,
    FAbs,
    FNegAbs,
}

/// A 32-bit source.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Val {
    Reg(Reg, Modifier),
    Imm(u32),
}

/// A 64-bit source: a register pair (low row first) or a literal.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Val64 {
    Pair(Reg, Modifier),
    Imm(u64),
}

/// A source predicate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PredIn {
    pub index: u8,
    pub negated: bool,
}

/// A memory address `[base + offset]`; `base` is the zero row for absolute addresses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Address {
    pub base: Reg,
    /// The high word of a 64-bit base (the zero row for `RZ` and 32-bit addresses).
    pub high: Reg,
    pub offset: u32,
    /// No base register: every lane has the same address.
    pub uniform: bool,
    pub addressing: Addressing,
}

/// How wide an address is, and how its space is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Addressing {
    /// A 32-bit offset in the instruction's space.
    Narrow,
    /// A 64-bit address in the instruction's space: the high word must name a mapped region.
    Wide,
    /// A 64-bit generic address: its window names the space, lane by lane.
    Generic,
}

/// One executable operation, by family; each family executes its own enum.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Arith(arith::ArithOp),
    Memory(memory::MemOp),
    Control(control::ControlOp),
    Collective(collective::CollectiveOp),
    Tensor(tensor::MmaOp),
    ScaledTensor(tensor::ScaledMmaOp),
    Warpgroup(tensor::WgmmaOp),
    Mbarrier(tma::MbarOp),
    TensorCopy(tma::CopyOp),
    Tmem(tmem::TmemOp),
    Print(print::PrintOp),
}

/// One instruction ready to execute.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Decoded {
    pub op: Op,
    pub guard: PredIn,
    /// Every non-exited thread of the warp must arrive together (under `its`).
    pub collective: bool,
}

/// A kernel ready to execute.
pub(crate) struct Program {
    pub code: Vec<Decoded>,
    /// What each instruction reads, writes and accesses, by pc.
    pub effects: Vec<Effects>,
    /// Register rows per warp: the kernel's registers, then the zero row, then the scratch row.
    pub rows: usize,
    /// The kernel's `PRINTF` formats, checked.
    pub formats: Vec<simt_isa::printf::Format>,
}

/// Turns operands into register rows and broadcasts.
pub(crate) struct Decoder {
    zero: Reg,
    sink: Reg,
}

impl Decoder {
    pub(crate) fn dst(&self, op: &Operand) -> Reg {
        match *op {
            Operand::Reg(r) if r != RZ => Reg::from(r),
            _ => self.sink,
        }
    }

    pub(crate) fn reg(&self, r: u8) -> Reg {
        if r == RZ { self.zero } else { Reg::from(r) }
    }

    /// A 32-bit source; `float` decides whether `-R` flips the sign bit or negates.
    pub(crate) fn val(&self, op: &Operand, float: bool) -> Val {
        match *op {
            Operand::Src(Src::Reg { reg, neg, abs }) => {
                let m = match (neg, abs, float) {
                    (false, false, _) => Modifier::None,
                    (true, false, false) => Modifier::INeg,
                    (true, false, true) => Modifier::FNeg,
                    (false, true, _) => Modifier::FAbs,
                    (true, true, _) => Modifier::FNegAbs,
                };
                Val::Reg(self.reg(reg), m)
            }
            Operand::Src(Src::Imm { bits, .. }) => Val::Imm(bits as u32),
            Operand::Imm(v) => Val::Imm(v),
            _ => Val::Imm(0),
        }
    }

    pub(crate) fn val64(&self, op: &Operand) -> Val64 {
        match *op {
            Operand::Src(Src::Reg { reg, neg, abs }) => {
                let m = match (neg, abs) {
                    (false, false) => Modifier::None,
                    (true, false) => Modifier::FNeg,
                    (false, true) => Modifier::FAbs,
                    (true, true) => Modifier::FNegAbs,
                };
                Val64::Pair(self.reg(reg), m)
            }
            Operand::Src(Src::Imm { bits, .. }) => Val64::Imm(bits),
            _ => Val64::Imm(0),
        }
    }

    pub(crate) fn pred_out(p: &Operand) -> u8 {
        match *p {
            Operand::Pred(p) if p < PT => p,
            _ => PRED_SINK,
        }
    }

    pub(crate) fn pred_in(p: &Operand) -> PredIn {
        match *p {
            Operand::PredSrc { pred, negated } => PredIn { index: pred.min(PRED_TRUE), negated },
            _ => PredIn { index: PRED_TRUE, negated: false },
        }
    }

    /// A 32-bit `[base + offset]` that names no memory space: a TMEM address.
    pub(crate) fn narrow_addr(&self, op: &Operand) -> Address {
        match *op {
            Operand::Addr { base, offset } => {
                Address { base: self.reg(base), high: self.zero, offset: offset as u32, uniform: base == RZ, addressing: Addressing::Narrow }
            }
            _ => Address { base: self.zero, high: self.zero, offset: 0, uniform: true, addressing: Addressing::Narrow },
        }
    }

    pub(crate) fn addr(&self, op: &Operand, access: MemAccess) -> Address {
        let addressing = match (access.wide, access.generic) {
            (false, _) => Addressing::Narrow,
            (true, false) => Addressing::Wide,
            (true, true) => Addressing::Generic,
        };
        match *op {
            Operand::Addr { base, offset } => {
                let high = if addressing == Addressing::Narrow || base == RZ { self.zero } else { Reg::from(base) + 1 };
                Address { base: self.reg(base), high, offset: offset as u32, uniform: base == RZ, addressing }
            }
            _ => Address { base: self.zero, high: self.zero, offset: 0, uniform: true, addressing },
        }
    }

    /// The first row of a register range (a fragment, vector data or a plain register source).
    pub(crate) fn first(&self, op: &Operand) -> Reg {
        match *op {
            Operand::Reg(r) | Operand::Src(Src::Reg { reg: r, .. }) => self.reg(r),
            _ => self.zero,
        }
    }

    /// The executable operation of `inst`: one arm per form of the table, so a row
    /// without its arm does not compile. `None` only for operands validation rules out.
    fn op(&self, inst: &Instruction) -> Option<Op> {
        let t = self;
        let o = &inst.operands;
        let int2 = |op: IntOp| ArithOp::Int { op, d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false) };
        let un = |op: UnOp| ArithOp::Un { op, d: t.dst(&o[0]), a: t.val(&o[1], false) };
        let tri = |op: TriOp| ArithOp::Tri { op, d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false), c: t.val(&o[3], false) };
        let f2 = |op: FOp, flags: FFlags| ArithOp::F2 { op, d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), flags };
        let d2 = |op: DOp| ArithOp::D2 { op, d: t.dst(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]) };
        // A literal in a pair position is a 32-bit value, sign-extended.
        let wide = |i: usize| match o[i] {
            Operand::Src(Src::Imm { bits, wide: false }) => Val64::Imm(i64::from(bits as u32 as i32) as u64),
            _ => t.val64(&o[i]),
        };
        let pair = |i: usize| Wide::Pair(wide(i));
        let word = |i: usize| Wide::Word(t.val(&o[i], false));
        let int64 = |op: Int64Op, a: Wide, b: Wide| ArithOp::Int64 { op, d: t.dst(&o[0]), a, b };
        let access = inst.form.access();
        Some(match inst.form {
            // Arithmetic (exec/arith.rs, lane semantics in lanes.rs).
            Form::Mov(_) => Op::Arith(match o[1] {
                Operand::Src(Src::Imm { bits, wide: true }) => ArithOp::Mov64 { d: t.dst(&o[0]), value: bits },
                _ => ArithOp::Mov { d: t.dst(&o[0]), a: t.val(&o[1], false) },
            }),
            Form::S2r(_) => Op::Arith(match o[1] {
                Operand::Special(sr) => ArithOp::S2r { d: t.dst(&o[0]), sr },
                _ => return None,
            }),
            Form::Sel(_) => Op::Arith(ArithOp::Sel { d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false), p: Decoder::pred_in(&o[3]) }),
            Form::Cvt(mods::Cvt { to, from, rnd }) => Op::Arith({
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
            }),
            Form::Pack(mods::Pack { ty }) => {
                Op::Arith(ArithOp::Pack { d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), bf16: ty == PackType::Bf16x2 })
            }
            Form::CvtTf32(_) => Op::Arith(ArithOp::CvtTf32 { d: t.dst(&o[0]), a: t.val(&o[1], true) }),
            Form::CvtX2(mods::CvtX2 { to }) => {
                Op::Arith(ArithOp::CvtPair { d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), format: pair_format(to) })
            }
            Form::CvtWiden(mods::CvtWiden { from }) => Op::Arith(ArithOp::CvtWiden { d: t.dst(&o[0]), a: t.val(&o[1], false), format: narrow_format(from) }),
            Form::CvtF16x2Widen(mods::CvtF16x2Widen { from }) => {
                Op::Arith(ArithOp::CvtPairWiden { d: t.dst(&o[0]), a: t.val(&o[1], false), format: pair_format(from), bf16: false })
            }
            Form::CvtBf16x2Widen(mods::CvtBf16x2Widen { from }) => {
                Op::Arith(ArithOp::CvtPairWiden { d: t.dst(&o[0]), a: t.val(&o[1], false), format: pair_format(from), bf16: true })
            }
            Form::Iadd(_) => Op::Arith(int2(IntOp::Add)),
            Form::Isub(_) => Op::Arith(int2(IntOp::Sub)),
            Form::Imul(_) => Op::Arith(int2(IntOp::Mul)),
            Form::ImulHi(mods::ImulHi { ty }) => Op::Arith(int2(IntOp::MulHi(ty))),
            Form::Imad(_) => Op::Arith(tri(TriOp::Imad)),
            Form::Imin(mods::Imin { ty }) => Op::Arith(int2(IntOp::Min(ty))),
            Form::Imax(mods::Imax { ty }) => Op::Arith(int2(IntOp::Max(ty))),
            Form::Iabs(_) => Op::Arith(un(UnOp::Abs)),
            Form::Lea(_) => Op::Arith(tri(TriOp::Lea)),
            Form::And(_) => Op::Arith(int2(IntOp::And)),
            Form::Or(_) => Op::Arith(int2(IntOp::Or)),
            Form::Xor(_) => Op::Arith(int2(IntOp::Xor)),
            Form::Not(_) => Op::Arith(un(UnOp::Not)),
            Form::Shl(_) => Op::Arith(int2(IntOp::Shl)),
            Form::Shr(mods::Shr { ty }) => Op::Arith(int2(IntOp::Shr(ty))),
            Form::Popc(_) => Op::Arith(un(UnOp::Popc)),
            Form::Clz(_) => Op::Arith(un(UnOp::Clz)),
            Form::Brev(_) => Op::Arith(un(UnOp::Brev)),
            Form::Isetp(mods::Isetp { cmp, ty, bop }) => Op::Arith(ArithOp::Isetp {
                p: Decoder::pred_out(&o[0]),
                a: t.val(&o[1], false),
                b: t.val(&o[2], false),
                cmp,
                signed: signed(ty),
                bop,
                q: Decoder::pred_in(&o[3]),
            }),
            Form::Fsetp(mods::Fsetp { cmp, bop }) => Op::Arith({
                ArithOp::Fsetp { p: Decoder::pred_out(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), cmp, bop, q: Decoder::pred_in(&o[3]) }
            }),
            Form::Dsetp(mods::Dsetp { cmp, bop }) => {
                Op::Arith(ArithOp::Dsetp { p: Decoder::pred_out(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]), cmp, bop, q: Decoder::pred_in(&o[3]) })
            }
            Form::Fadd(mods::Fadd { ftz, sat }) => Op::Arith(f2(FOp::Add, flags(ftz, sat))),
            Form::Fmul(mods::Fmul { ftz, sat }) => Op::Arith(f2(FOp::Mul, flags(ftz, sat))),
            Form::Fmin(mods::Fmin { ftz }) => Op::Arith(f2(FOp::Min, flags(ftz, Sat::No))),
            Form::Fmax(mods::Fmax { ftz }) => Op::Arith(f2(FOp::Max, flags(ftz, Sat::No))),
            Form::FminNan(mods::FminNan { ftz }) => Op::Arith(f2(FOp::MinNan, flags(ftz, Sat::No))),
            Form::FmaxNan(mods::FmaxNan { ftz }) => Op::Arith(f2(FOp::MaxNan, flags(ftz, Sat::No))),
            Form::Ffma(mods::Ffma { ftz, sat, rnd: Round::Rn }) => {
                Op::Arith(match (t.val(&o[1], true), t.val(&o[2], true), t.val(&o[3], true), flags(ftz, sat)) {
                    (Val::Reg(a, Modifier::None), Val::Reg(b, Modifier::None), Val::Reg(c, Modifier::None), FFlags { ftz: false, sat: false }) => {
                        ArithOp::FfmaRegs { d: t.dst(&o[0]), a, b, c }
                    }
                    (a, b, c, flags) => ArithOp::Ffma { d: t.dst(&o[0]), a, b, c, flags },
                })
            }
            Form::Ffma(mods::Ffma { ftz, sat, rnd }) => Op::Arith({
                ArithOp::FfmaRounded { d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), c: t.val(&o[3], true), rnd, flags: flags(ftz, sat) }
            }),
            Form::Mufu(mods::Mufu { op, ftz }) => Op::Arith(ArithOp::Mufu { op, ftz: ftz == simt_isa::Ftz::Yes, d: t.dst(&o[0]), a: t.val(&o[1], true) }),
            Form::Frnd(mods::Frnd { rnd, ftz }) => Op::Arith(ArithOp::Frnd { d: t.dst(&o[0]), a: t.val(&o[1], true), rnd, flags: flags(ftz, Sat::No) }),
            Form::Dadd(_) => Op::Arith(d2(DOp::Add)),
            Form::Dmul(_) => Op::Arith(d2(DOp::Mul)),
            Form::Dmin(_) => Op::Arith(d2(DOp::Min)),
            Form::Dmax(_) => Op::Arith(d2(DOp::Max)),
            Form::Shf(mods::Shf { dir, amount }) => Op::Arith(tri(TriOp::Shf(dir, amount))),
            Form::Iadd64(_) => Op::Arith(int64(Int64Op::Add, pair(1), pair(2))),
            Form::Isub64(_) => Op::Arith(int64(Int64Op::Sub, pair(1), pair(2))),
            Form::Idiv64(mods::Idiv64 { ty }) => Op::Arith(int64(Int64Op::Div(ty), pair(1), pair(2))),
            Form::Irem64(mods::Irem64 { ty }) => Op::Arith(int64(Int64Op::Rem(ty), pair(1), pair(2))),
            Form::Imin64(mods::Imin64 { ty }) => Op::Arith(int64(Int64Op::Min(ty), pair(1), pair(2))),
            Form::Imax64(mods::Imax64 { ty }) => Op::Arith(int64(Int64Op::Max(ty), pair(1), pair(2))),
            Form::Isetp64(mods::Isetp64 { cmp, ty, bop }) => Op::Arith({
                ArithOp::Isetp64 { p: Decoder::pred_out(&o[0]), a: pair(1), b: pair(2), cmp, signed: ty == Int64Type::S64, bop, q: Decoder::pred_in(&o[3]) }
            }),
            Form::Imul64(_) => Op::Arith(int64(Int64Op::Mul, pair(1), pair(2))),
            Form::ImulHi64(mods::ImulHi64 { ty }) => Op::Arith(int64(Int64Op::MulHi(ty), pair(1), pair(2))),
            Form::Prmt(mods::Prmt { mode }) => Op::Arith(tri(TriOp::Prmt(mode))),
            Form::Idp4a(mods::Idp4a { a, b }) => Op::Arith(tri(TriOp::Dp4a(a, b))),
            Form::Idp2a(mods::Idp2a { half, a, b }) => Op::Arith(tri(TriOp::Dp2a(half, a, b))),
            Form::Hadd2(mods::Hadd2 { ty }) => Op::Arith(int2(IntOp::Hadd2(ty))),
            Form::Hmul2(mods::Hmul2 { ty }) => Op::Arith(int2(IntOp::Hmul2(ty))),
            Form::Hfma2(mods::Hfma2 { ty }) => Op::Arith(tri(TriOp::Hfma2(ty))),
            Form::Hmin2(mods::Hmin2 { ty }) => Op::Arith(int2(IntOp::Hmin2(ty))),
            Form::Hmax2(mods::Hmax2 { ty }) => Op::Arith(int2(IntOp::Hmax2(ty))),
            Form::Hmin2Nan(mods::Hmin2Nan { ty }) => Op::Arith(int2(IntOp::Hmin2Nan(ty))),
            Form::Hmax2Nan(mods::Hmax2Nan { ty }) => Op::Arith(int2(IntOp::Hmax2Nan(ty))),
            Form::Hsetp2(mods::Hsetp2 { cmp, bop, ty }) => Op::Arith(ArithOp::Hsetp2 {
                p: Decoder::pred_out(&o[0]),
                q: Decoder::pred_out(&o[1]),
                a: t.val(&o[2], false),
                b: t.val(&o[3], false),
                cmp,
                bop,
                c: Decoder::pred_in(&o[4]),
                ty,
            }),
            Form::ImulWide(mods::ImulWide { ty }) => Op::Arith(int64(Int64Op::MulWide(ty), word(1), word(2))),
            Form::ImadWide(mods::ImadWide { ty }) => {
                Op::Arith(ArithOp::ImadWide { d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false), c: pair(3), ty })
            }
            Form::Shl64(_) => Op::Arith(int64(Int64Op::Shl, pair(1), word(2))),
            Form::Shr64(mods::Shr64 { ty }) => Op::Arith(int64(Int64Op::Shr(ty), pair(1), word(2))),
            Form::Plop(mods::Plop { bop }) => {
                Op::Arith(ArithOp::Plop { p: Decoder::pred_out(&o[0]), a: Decoder::pred_in(&o[1]), b: Decoder::pred_in(&o[2]), bop })
            }
            Form::Fdiv(mods::Fdiv { rnd: Round::Rn }) => Op::Arith(f2(FOp::Div, FFlags::default())),
            Form::Fdiv(mods::Fdiv { rnd }) => Op::Arith(ArithOp::FdivDirected { d: t.dst(&o[0]), a: t.val(&o[1], true), b: t.val(&o[2], true), rnd }),
            Form::Idiv(mods::Idiv { ty }) => Op::Arith(int2(IntOp::Div(ty))),
            Form::Irem(mods::Irem { ty }) => Op::Arith(int2(IntOp::Rem(ty))),
            Form::Bfe(mods::Bfe { ty }) => Op::Arith(tri(TriOp::Bfe(ty))),
            Form::Dfma(mods::Dfma { rnd: Round::Rn }) => Op::Arith(ArithOp::Dfma { d: t.dst(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]), c: t.val64(&o[3]) }),
            Form::Dfma(mods::Dfma { rnd }) => {
                Op::Arith(ArithOp::DfmaDirected { d: t.dst(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]), c: t.val64(&o[3]), rnd })
            }
            Form::Ddiv(mods::Ddiv { rnd: Round::Rn }) => Op::Arith(d2(DOp::Div)),
            Form::Ddiv(mods::Ddiv { rnd }) => Op::Arith(ArithOp::DdivDirected { d: t.dst(&o[0]), a: t.val64(&o[1]), b: t.val64(&o[2]), rnd }),
            Form::Dsqrt(mods::Dsqrt { rnd: Round::Rn }) => Op::Arith(ArithOp::Dsqrt { d: t.dst(&o[0]), a: t.val64(&o[1]) }),
            Form::Dsqrt(mods::Dsqrt { rnd }) => Op::Arith(ArithOp::DsqrtDirected { d: t.dst(&o[0]), a: t.val64(&o[1]), rnd }),
            Form::Drnd(mods::Drnd { rnd }) => Op::Arith(ArithOp::Drnd { d: t.dst(&o[0]), a: t.val64(&o[1]), rnd }),
            Form::Fsqrt(mods::Fsqrt { rnd }) => Op::Arith(ArithOp::Fsqrt { d: t.dst(&o[0]), a: t.val(&o[1], true), rnd }),
            Form::Bfi(_) => {
                Op::Arith(ArithOp::Bfi { d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false), pos: t.val(&o[3], false), len: t.val(&o[4], false) })
            }
            Form::Lop3(_) => {
                Op::Arith(ArithOp::Lop3 { d: t.dst(&o[0]), a: t.val(&o[1], false), b: t.val(&o[2], false), c: t.val(&o[3], false), lut: t.val(&o[4], false) })
            }
            // Memory (exec/memory.rs).
            // A generic access's `space` is GLOBAL, as `MemAccess` reports it; each lane's
            // address decides its own.
            Form::Ld(mods::Ld { ty, .. }) => {
                let a = access?;
                Op::Memory(MemOp::Ld { space: a.space, ty, size: a.size, regs: a.regs, d: t.dst(&o[0]), addr: t.addr(&o[1], a) })
            }
            Form::St(_) => {
                let a = access?;
                Op::Memory(MemOp::St { space: a.space, size: a.size, regs: a.regs, a: t.first(&o[1]), addr: t.addr(&o[0], a) })
            }
            Form::Atom(mods::Atom { op, ty, .. }) if ty.is_wide() => {
                Op::Memory(MemOp::Atom64 { space: access?.space, op, ty, d: t.dst(&o[0]), addr: t.addr(&o[1], access?), b: wide(2) })
            }
            Form::Atom(mods::Atom { op, ty, .. }) => {
                Op::Memory(MemOp::Atom { space: access?.space, op, ty, d: t.dst(&o[0]), addr: t.addr(&o[1], access?), b: t.val(&o[2], false) })
            }
            Form::AtomCas(mods::AtomCas { ty: CasType::B64, .. }) => {
                Op::Memory(MemOp::AtomCas64 { space: access?.space, d: t.dst(&o[0]), addr: t.addr(&o[1], access?), b: wide(2), c: wide(3) })
            }
            Form::AtomCas(_) => Op::Memory(MemOp::AtomCas {
                space: access?.space,
                d: t.dst(&o[0]),
                addr: t.addr(&o[1], access?),
                b: t.val(&o[2], false),
                c: t.val(&o[3], false),
            }),
            Form::Ldgsts(_) => {
                let a = access?;
                Op::Memory(MemOp::CopyAsync { size: a.size, shared: t.val(&o[0], false), n: t.val(&o[2], false), addr: t.addr(&o[1], a) })
            }
            Form::Ldsm(mods::Ldsm { count, trans }) => {
                Op::Memory(MemOp::Ldsm { count, trans: trans == Trans::Yes, d: t.dst(&o[0]), addr: t.addr(&o[1], access?) })
            }
            Form::Stsm(mods::Stsm { count, trans }) => {
                Op::Memory(MemOp::Stsm { count, trans: trans == Trans::Yes, a: t.first(&o[1]), addr: t.addr(&o[0], access?) })
            }
            // Control (exec/control.rs).
            Form::Bra(_) => Op::Control(match inst.operands[0] {
                Operand::Label { target, reconv } => ControlOp::Bra { target, reconv },
                _ => return None,
            }),
            Form::Exit(_) => Op::Control(ControlOp::Exit),
            Form::BarSync(_) => Op::Control(ControlOp::BarSync {
                barrier: control::BarrierOperands { id: t.val(&o[0], false), count: (o[1] != Operand::None).then(|| t.val(&o[1], false)) },
            }),
            Form::BarArrive(_) => {
                Op::Control(ControlOp::BarArrive { barrier: control::BarrierOperands { id: t.val(&o[0], false), count: Some(t.val(&o[1], false)) } })
            }
            Form::BarRed(mods::BarRed { op }) => Op::Control(ControlOp::BarRed { op, d: t.dst(&o[0]), q: Decoder::pred_in(&o[1]) }),
            Form::Membar(mods::Membar { scope }) => Op::Control(ControlOp::Membar { global: scope == MembarScope::Gl }),
            // The copies were made as they issued: nothing is left to wait for.
            Form::Nop(_) | Form::Ldgdepbar(_) | Form::Depbar(_) => Op::Control(ControlOp::Nop),
            Form::Trap(_) => Op::Control(ControlOp::Trap { assert: None }),
            Form::TrapAssert(_) => Op::Control(ControlOp::Trap {
                assert: Some(control::Assertion { message: t.first(&o[0]), file: t.first(&o[1]), line: t.val(&o[2], false), function: t.first(&o[3]) }),
            }),
            Form::Printf(_) => match o[0] {
                Operand::Format { index, .. } => Op::Print(print::PrintOp::Registers { format: index, a: t.first(&o[1]) }),
                _ => return None,
            },
            Form::Vprintf(_) => Op::Print(print::PrintOp::Memory { d: t.dst(&o[0]), format: t.first(&o[1]), args: t.first(&o[2]) }),
            // Warp collectives (exec/collective.rs).
            Form::Shfl(mods::Shfl { mode }) => Op::Collective(CollectiveOp::Shfl {
                mode,
                d: t.dst(&o[0]),
                a: t.first(&o[1]),
                b: t.val(&o[2], false),
                width: match o[3] {
                    Operand::Imm(w) => w,
                    _ => 32,
                },
            }),
            Form::Vote(mods::Vote { mode }) => {
                Op::Collective(CollectiveOp::Vote { all: mode == VoteMode::All, p: Decoder::pred_out(&o[0]), q: Decoder::pred_in(&o[1]) })
            }
            Form::VoteBallot(_) => Op::Collective(CollectiveOp::Ballot { d: t.dst(&o[0]), q: Decoder::pred_in(&o[1]) }),
            Form::Warpsync(_) => Op::Collective(CollectiveOp::Warpsync),
            Form::Redux(mods::Redux { op, ty }) => {
                Op::Collective(CollectiveOp::Redux { op, signed: ty == IntType::S32, d: t.dst(&o[0]), a: t.first(&o[1]), m: t.val(&o[2], false) })
            }
            Form::Match(mods::Match { mode }) => {
                Op::Collective(CollectiveOp::Match { all: mode == MatchMode::All, d: t.dst(&o[0]), a: t.first(&o[1]), m: t.val(&o[2], false) })
            }
            Form::ReduxF32(mods::ReduxF32 { op, abs, nan }) => Op::Collective(CollectiveOp::ReduxF32 {
                max: op == MinMax::Max,
                abs: abs == Magnitude::Yes,
                nan: nan == NanProp::Yes,
                d: t.dst(&o[0]),
                a: t.first(&o[1]),
                m: t.val(&o[2], false),
            }),
            Form::Elect(_) => Op::Collective(CollectiveOp::Elect { d: t.dst(&o[0]), p: Decoder::pred_out(&o[1]), m: t.val(&o[2], false) }),
            // Tensor cores (exec/tensor.rs).
            Form::Mma(_) | Form::MmaM16n8k16(_) | Form::MmaSp(_) | Form::MmaM8n8k4(_) | Form::MmaM16n8k8(_) | Form::MmaM16n8k32(_) => {
                Op::Tensor(tensor::decode(t, inst)?)
            }
            Form::MmaScaled(_) => Op::ScaledTensor(tensor::decode_scaled(t, inst)?),
            Form::Wgmma(_) => Op::Warpgroup(tensor::decode_wgmma(t, inst)?),
            // Mbarriers and tensor copies (exec/tma.rs).
            Form::MbarInit(_) | Form::MbarArrive(_) | Form::MbarTx(_) | Form::MbarTest(_) | Form::TcmmaCommit(_) => {
                Op::Mbarrier(tma::decode_mbarrier(t, inst)?)
            }
            Form::TmaLoad(_) | Form::TmaStore(_) => Op::TensorCopy(tma::decode_copy(t, inst)?),
            // Tensor memory (exec/tmem.rs).
            Form::TmemAlloc(_)
            | Form::TmemDealloc(_)
            | Form::TmemRelinquish(_)
            | Form::TmemLd(_)
            | Form::TmemSt(_)
            | Form::Tcmma(_)
            | Form::TcmmaTs(_)
            | Form::TcmmaMx(_) => Op::Tmem(tmem::decode(t, inst)?),
        })
    }
}

/// Encountered when an instruction's operands are not the kinds its table row gives
/// (a kernel built without [`Instruction::validate`]): every form has its arm.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pc {pc}: {opcode} has operands of other kinds than its table row gives; validate instructions before building a kernel")]
pub struct Undecodable {
    /// The opcode.
    pub opcode: Opcode,
    /// Where it is.
    pub pc: u32,
}

/// Decodes a validated kernel.
pub(crate) fn decode(kernel: &Kernel) -> Result<Program, Undecodable> {
    let regs = kernel.regs as usize;
    let t = Decoder { zero: regs as Reg, sink: (regs + 1) as Reg };
    let code = kernel
        .code
        .iter()
        .enumerate()
        .map(|(pc, inst)| {
            let op = t.op(inst).ok_or(Undecodable { opcode: inst.opcode(), pc: pc as u32 })?;
            Ok(Decoded {
                op,
                guard: PredIn { index: inst.guard.pred.min(PRED_TRUE), negated: inst.guard.negated },
                collective: inst.info().flags.contains(Flags::COLLECTIVE),
            })
        })
        .collect::<Result<_, _>>()?;
    // A validated kernel's formats parse; one that does not is as undecodable as a bad operand.
    let formats = kernel
        .formats
        .iter()
        .map(|f| simt_isa::printf::Format::parse(f))
        .collect::<Result<_, _>>()
        .map_err(|_| Undecodable { opcode: Opcode::Printf, pc: kernel.code.iter().position(|i| i.opcode() == Opcode::Printf).unwrap_or(0) as u32 })?;
    Ok(Program { code, effects: kernel.code.iter().map(Instruction::effects).collect(), rows: regs + 2, formats })
}
