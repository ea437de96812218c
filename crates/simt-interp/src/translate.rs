//! Translation of decoded instructions into the executor's compact form.
//!
//! Done once per launch, so the hot loop never looks at the instruction
//! table: registers become indices into the warp's register file (with `RZ`
//! mapped to an always-zero row and writes to `RZ` to a scratch row),
//! literals become 32-lane broadcasts, and modifiers become small enums.

use simt_isa::*;

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
    pub offset: u32,
}

/// Float flags of FADD/FMUL/FFMA/FMIN/FMAX.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FFlags {
    pub ftz: bool,
    pub sat: bool,
}

/// Integer ALU operations with two sources.
#[derive(Clone, Copy, Debug)]
pub(crate) enum IntOp {
    Add,
    Sub,
    Mul,
    MulHiS,
    MulHiU,
    MinS,
    MinU,
    MaxS,
    MaxU,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
}

/// Integer ALU operations with one source.
#[derive(Clone, Copy, Debug)]
pub(crate) enum UnOp {
    Abs,
    Not,
    Popc,
    Clz,
    Brev,
}

/// f32 operations with two sources.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FOp {
    Add,
    Mul,
    Min,
    Max,
}

/// f64 operations with two sources.
#[derive(Clone, Copy, Debug)]
pub(crate) enum DOp {
    Add,
    Mul,
}

/// One executable operation.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Mov { d: Reg, a: Val },
    Mov64 { d: Reg, value: u64 },
    S2r { d: Reg, sr: SpecialReg },
    Sel { d: Reg, a: Val, b: Val, p: PredIn },
    Cvt { d: Reg, a: Val64, wide_src: bool, to: CvtType, from: CvtType, neg: bool, abs: bool },
    Pack { d: Reg, a: Val, b: Val, bf16: bool },
    Int { op: IntOp, d: Reg, a: Val, b: Val },
    Un { op: UnOp, d: Reg, a: Val },
    Imad { d: Reg, a: Val, b: Val, c: Val },
    Lea { d: Reg, a: Val, b: Val, s: Val },
    Isetp { p: u8, a: Val, b: Val, cmp: Cmp, signed: bool, bop: BoolOp, q: PredIn },
    Fsetp { p: u8, a: Val, b: Val, cmp: FCmp, bop: BoolOp, q: PredIn },
    Dsetp { p: u8, a: Val64, b: Val64, cmp: FCmp, bop: BoolOp, q: PredIn },
    F2 { op: FOp, d: Reg, a: Val, b: Val, flags: FFlags },
    Ffma { d: Reg, a: Val, b: Val, c: Val, flags: FFlags },
    /// The hot case of FFMA: three plain registers, no flags.
    FfmaRegs { d: Reg, a: Reg, b: Reg, c: Reg },
    Mufu { op: MufuOp, d: Reg, a: Val },
    D2 { op: DOp, d: Reg, a: Val64, b: Val64 },
    Dfma { d: Reg, a: Val64, b: Val64, c: Val64 },
    /// `size`: bytes per lane; `regs`: registers per lane.
    Ld { space: Space, ty: MemType, size: u32, regs: u8, d: Reg, addr: Address },
    St { space: Space, size: u32, regs: u8, a: Reg, addr: Address },
    Atom { space: Space, op: AtomOp, ty: AtomType, d: Reg, addr: Address, b: Val },
    AtomCas { space: Space, d: Reg, addr: Address, b: Val, c: Val },
    Membar { global: bool },
    Shfl { mode: ShflMode, d: Reg, a: Reg, b: Val, width: u32 },
    Vote { all: bool, p: u8, q: PredIn },
    Ballot { d: Reg, q: PredIn },
    Warpsync,
    Mma { opcode: Opcode, acc: MmaAcc, input: MmaIn, d: Reg, a: Reg, b: Reg, c: Reg, e: Reg },
    Bra { target: u32, reconv: u32 },
    Exit,
    BarSync,
    Nop,
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
    /// Register rows per warp: the kernel's registers, then the zero row, then the scratch row.
    pub rows: usize,
}

struct Translator {
    zero: Reg,
    sink: Reg,
}

impl Translator {
    fn dst(&self, op: &Operand) -> Reg {
        match *op {
            Operand::Reg(RZ) => self.sink,
            Operand::Reg(r) => Reg::from(r),
            _ => self.sink,
        }
    }

    fn reg(&self, r: u8) -> Reg {
        if r == RZ { self.zero } else { Reg::from(r) }
    }

    fn val(&self, op: &Operand, float: bool) -> Val {
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

    fn val64(&self, op: &Operand) -> Val64 {
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

    fn pred_out(p: &Operand) -> u8 {
        match *p {
            Operand::Pred(p) if p < PT => p,
            _ => PRED_SINK,
        }
    }

    fn pred_in(p: &Operand) -> PredIn {
        match *p {
            Operand::PredSrc { pred, negated } => PredIn { index: pred.min(PRED_TRUE), negated },
            _ => PredIn { index: PRED_TRUE, negated: false },
        }
    }

    fn addr(&self, op: &Operand) -> Address {
        match *op {
            Operand::Addr { base, offset } => Address { base: self.reg(base), offset: offset as u32 },
            _ => Address { base: self.zero, offset: 0 },
        }
    }

    fn frag(&self, op: &Operand) -> Reg {
        match *op {
            Operand::Reg(r) | Operand::Src(Src::Reg { reg: r, .. }) => self.reg(r),
            _ => self.zero,
        }
    }

    fn translate(&self, inst: &Instruction) -> Op {
        let o = &inst.operands;
        let m = |i: usize| inst.mods[i];
        let int2 = |op: IntOp| Op::Int { op, d: self.dst(&o[0]), a: self.val(&o[1], false), b: self.val(&o[2], false) };
        let un = |op: UnOp| Op::Un { op, d: self.dst(&o[0]), a: self.val(&o[1], false) };
        let signed = |i: usize| IntType::from_index(m(i)) == Some(IntType::S32);
        let fflags = |groups: usize| FFlags { ftz: m(0) == 1, sat: groups > 1 && m(1) == 1 };
        let f2 = |op: FOp, groups: usize| Op::F2 {
            op,
            d: self.dst(&o[0]),
            a: self.val(&o[1], true),
            b: self.val(&o[2], true),
            flags: fflags(groups),
        };
        let d2 = |op: DOp| Op::D2 { op, d: self.dst(&o[0]), a: self.val64(&o[1]), b: self.val64(&o[2]) };
        let bool_op = |i: usize| BoolOp::from_index(m(i)).unwrap_or(BoolOp::And);
        let fcmp = || FCmp::from_index(m(0)).unwrap_or(FCmp::Eq);
        let space = |i: usize| Space::from_index(m(i)).unwrap_or(Space::Global);
        match inst.opcode {
            Opcode::Mov => match o[1] {
                Operand::Src(Src::Imm { bits, wide: true }) => Op::Mov64 { d: self.dst(&o[0]), value: bits },
                _ => Op::Mov { d: self.dst(&o[0]), a: self.val(&o[1], false) },
            },
            Opcode::S2r => Op::S2r {
                d: self.dst(&o[0]),
                sr: match o[1] {
                    Operand::Special(sr) => sr,
                    _ => SpecialReg::LaneId,
                },
            },
            Opcode::Sel => Op::Sel { d: self.dst(&o[0]), a: self.val(&o[1], false), b: self.val(&o[2], false), p: Self::pred_in(&o[3]) },
            Opcode::Cvt => {
                let from = CvtType::from_index(m(1)).unwrap_or(CvtType::U32);
                let (neg, abs) = match o[1] {
                    Operand::Src(Src::Reg { neg, abs, .. }) => (neg, abs),
                    _ => (false, false),
                };
                let a = match self.val64(&o[1]) {
                    Val64::Pair(r, _) => Val64::Pair(r, Modifier::None),
                    imm => imm,
                };
                Op::Cvt { d: self.dst(&o[0]), a, wide_src: from == CvtType::F64, to: CvtType::from_index(m(0)).unwrap_or(CvtType::U32), from, neg, abs }
            }
            Opcode::Pack => Op::Pack { d: self.dst(&o[0]), a: self.val(&o[1], true), b: self.val(&o[2], true), bf16: m(0) == 1 },
            Opcode::Iadd => int2(IntOp::Add),
            Opcode::Isub => int2(IntOp::Sub),
            Opcode::Imul => int2(IntOp::Mul),
            Opcode::ImulHi => int2(if signed(1) { IntOp::MulHiS } else { IntOp::MulHiU }),
            Opcode::Imad => Op::Imad { d: self.dst(&o[0]), a: self.val(&o[1], false), b: self.val(&o[2], false), c: self.val(&o[3], false) },
            Opcode::Imin => int2(if signed(0) { IntOp::MinS } else { IntOp::MinU }),
            Opcode::Imax => int2(if signed(0) { IntOp::MaxS } else { IntOp::MaxU }),
            Opcode::Iabs => un(UnOp::Abs),
            Opcode::Lea => Op::Lea { d: self.dst(&o[0]), a: self.val(&o[1], false), b: self.val(&o[2], false), s: self.val(&o[3], false) },
            Opcode::And => int2(IntOp::And),
            Opcode::Or => int2(IntOp::Or),
            Opcode::Xor => int2(IntOp::Xor),
            Opcode::Not => un(UnOp::Not),
            Opcode::Shl => int2(IntOp::Shl),
            Opcode::Shr => int2(if signed(0) { IntOp::ShrS } else { IntOp::ShrU }),
            Opcode::Popc => un(UnOp::Popc),
            Opcode::Clz => un(UnOp::Clz),
            Opcode::Brev => un(UnOp::Brev),
            Opcode::Isetp => Op::Isetp {
                p: Self::pred_out(&o[0]),
                a: self.val(&o[1], false),
                b: self.val(&o[2], false),
                cmp: Cmp::from_index(m(0)).unwrap_or(Cmp::Eq),
                signed: signed(1),
                bop: bool_op(2),
                q: Self::pred_in(&o[3]),
            },
            Opcode::Fsetp => Op::Fsetp {
                p: Self::pred_out(&o[0]),
                a: self.val(&o[1], true),
                b: self.val(&o[2], true),
                cmp: fcmp(),
                bop: bool_op(1),
                q: Self::pred_in(&o[3]),
            },
            Opcode::Dsetp => Op::Dsetp {
                p: Self::pred_out(&o[0]),
                a: self.val64(&o[1]),
                b: self.val64(&o[2]),
                cmp: fcmp(),
                bop: bool_op(1),
                q: Self::pred_in(&o[3]),
            },
            Opcode::Fadd => f2(FOp::Add, 2),
            Opcode::Fmul => f2(FOp::Mul, 2),
            Opcode::Fmin => f2(FOp::Min, 1),
            Opcode::Fmax => f2(FOp::Max, 1),
            Opcode::Ffma => match (self.val(&o[1], true), self.val(&o[2], true), self.val(&o[3], true), fflags(2)) {
                (Val::Reg(a, Modifier::None), Val::Reg(b, Modifier::None), Val::Reg(c, Modifier::None), FFlags { ftz: false, sat: false }) => {
                    Op::FfmaRegs { d: self.dst(&o[0]), a, b, c }
                }
                (a, b, c, flags) => Op::Ffma { d: self.dst(&o[0]), a, b, c, flags },
            },
            Opcode::Mufu => Op::Mufu { op: MufuOp::from_index(m(0)).unwrap_or(MufuOp::Rcp), d: self.dst(&o[0]), a: self.val(&o[1], true) },
            Opcode::Dadd => d2(DOp::Add),
            Opcode::Dmul => d2(DOp::Mul),
            Opcode::Dfma => Op::Dfma { d: self.dst(&o[0]), a: self.val64(&o[1]), b: self.val64(&o[2]), c: self.val64(&o[3]) },
            Opcode::Ld => Op::Ld {
                space: space(0),
                ty: MemType::from_index(m(2)).unwrap_or(MemType::U32),
                size: inst.access_bytes().unwrap_or(4),
                regs: inst.reg_count(0),
                d: self.dst(&o[0]),
                addr: self.addr(&o[1]),
            },
            Opcode::St => Op::St {
                space: space(0),
                size: inst.access_bytes().unwrap_or(4),
                regs: inst.reg_count(1),
                a: self.frag(&o[1]),
                addr: self.addr(&o[0]),
            },
            Opcode::Atom => Op::Atom {
                space: space(0),
                op: AtomOp::from_index(m(1)).unwrap_or(AtomOp::Add),
                ty: AtomType::from_index(m(2)).unwrap_or(AtomType::B32),
                d: self.dst(&o[0]),
                addr: self.addr(&o[1]),
                b: self.val(&o[2], false),
            },
            Opcode::AtomCas => Op::AtomCas {
                space: space(0),
                d: self.dst(&o[0]),
                addr: self.addr(&o[1]),
                b: self.val(&o[2], false),
                c: self.val(&o[3], false),
            },
            Opcode::Membar => Op::Membar { global: MembarScope::from_index(m(0)) == Some(MembarScope::Gl) },
            Opcode::Shfl => Op::Shfl {
                mode: ShflMode::from_index(m(0)).unwrap_or(ShflMode::Idx),
                d: self.dst(&o[0]),
                a: self.frag(&o[1]),
                b: self.val(&o[2], false),
                width: match o[3] {
                    Operand::Imm(w) => w,
                    _ => 32,
                },
            },
            Opcode::Vote => Op::Vote { all: m(0) == VoteMode::All as u8, p: Self::pred_out(&o[0]), q: Self::pred_in(&o[1]) },
            Opcode::VoteBallot => Op::Ballot { d: self.dst(&o[0]), q: Self::pred_in(&o[1]) },
            Opcode::Warpsync => Op::Warpsync,
            Opcode::Mma | Opcode::MmaM16n8k16 | Opcode::MmaSp => {
                let n = inst.info().groups.len();
                Op::Mma {
                    opcode: inst.opcode,
                    acc: MmaAcc::from_index(m(n - 2)).unwrap_or(MmaAcc::F32),
                    input: MmaIn::from_index(m(n - 1)).unwrap_or(MmaIn::F16),
                    d: self.frag(&o[0]),
                    a: self.frag(&o[1]),
                    b: self.frag(&o[2]),
                    c: self.frag(&o[3]),
                    e: self.frag(&o[4]),
                }
            }
            Opcode::Bra => match o[0] {
                Operand::Label { target, reconv } => Op::Bra { target, reconv },
                _ => Op::Nop,
            },
            Opcode::Exit => Op::Exit,
            Opcode::BarSync => Op::BarSync,
            Opcode::Nop => Op::Nop,
        }
    }
}

/// Translates a validated kernel.
pub(crate) fn translate(kernel: &Kernel) -> Program {
    let regs = kernel.regs as usize;
    let t = Translator { zero: regs as Reg, sink: (regs + 1) as Reg };
    let code = kernel
        .code
        .iter()
        .map(|inst| Decoded {
            op: t.translate(inst),
            guard: PredIn { index: inst.guard.pred.min(PRED_TRUE), negated: inst.guard.negated },
            collective: inst.opcode.is_warp_collective(),
        })
        .collect();
    Program { code, rows: regs + 2 }
}
