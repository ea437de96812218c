//! Translation of decoded instructions into the executor's compact form.
//!
//! Done once per launch, so the hot loop never looks at the instruction
//! table: registers become indices into the warp's register file (with `RZ`
//! mapped to an always-zero row and writes to `RZ` to a scratch row),
//! literals become 32-lane broadcasts, and typed modifiers become the
//! operation enums of each family. Each family (`exec/arith.rs`,
//! `exec/memory.rs`, `exec/control.rs`, `exec/collective.rs`,
//! `exec/tensor.rs`) translates the forms it executes; an instruction no
//! family takes is an error, which `tests/instructions.rs` rules out for every
//! row of the table.

use simt_isa::*;

use crate::exec::{arith, collective, control, memory, tensor};

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
    /// No base register: every lane has the same address.
    pub uniform: bool,
}

/// One executable operation, by family; each family executes its own enum.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    Arith(arith::ArithOp),
    Memory(memory::MemOp),
    Control(control::ControlOp),
    Collective(collective::CollectiveOp),
    Tensor(tensor::MmaOp),
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
}

/// Turns operands into register rows and broadcasts.
pub(crate) struct Translator {
    zero: Reg,
    sink: Reg,
}

impl Translator {
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

    pub(crate) fn addr(&self, op: &Operand) -> Address {
        match *op {
            Operand::Addr { base, offset } => Address { base: self.reg(base), offset: offset as u32, uniform: base == RZ },
            _ => Address { base: self.zero, offset: 0, uniform: true },
        }
    }

    /// The first row of a register range (a fragment, vector data or a plain register source).
    pub(crate) fn first(&self, op: &Operand) -> Reg {
        match *op {
            Operand::Reg(r) | Operand::Src(Src::Reg { reg: r, .. }) => self.reg(r),
            _ => self.zero,
        }
    }

    fn op(&self, inst: &Instruction) -> Option<Op> {
        arith::translate(self, inst)
            .map(Op::Arith)
            .or_else(|| memory::translate(self, inst).map(Op::Memory))
            .or_else(|| control::translate(inst).map(Op::Control))
            .or_else(|| collective::translate(self, inst).map(Op::Collective))
            .or_else(|| tensor::translate(self, inst).map(Op::Tensor))
    }
}

/// Encountered when a kernel holds an instruction the interpreter has no family for
/// (a table row added without its semantics).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the interpreter has no implementation of {opcode} (pc {pc}); add it to a family in crates/simt-interp/src/exec")]
pub struct Unimplemented {
    /// The opcode.
    pub opcode: Opcode,
    /// Where it is.
    pub pc: u32,
}

/// Translates a validated kernel.
pub(crate) fn translate(kernel: &Kernel) -> Result<Program, Unimplemented> {
    let regs = kernel.regs as usize;
    let t = Translator { zero: regs as Reg, sink: (regs + 1) as Reg };
    let code = kernel
        .code
        .iter()
        .enumerate()
        .map(|(pc, inst)| {
            let op = t.op(inst).ok_or(Unimplemented { opcode: inst.opcode(), pc: pc as u32 })?;
            Ok(Decoded {
                op,
                guard: PredIn { index: inst.guard.pred.min(PRED_TRUE), negated: inst.guard.negated },
                collective: inst.info().flags.contains(Flags::COLLECTIVE),
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(Program { code, effects: kernel.code.iter().map(Instruction::effects).collect(), rows: regs + 2 })
}
