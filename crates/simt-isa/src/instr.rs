//! Decoded instructions, their fixed-width encoding and their static checks.
//!
//! An instruction word is 128 bits, little-endian:
//!
//! | bits     | field                                                   |
//! |----------|---------------------------------------------------------|
//! | 0..8     | opcode (the row of [`TABLE`])                           |
//! | 8..24    | four 4-bit modifier values, group 0 in the lowest bits  |
//! | 24..27   | guard predicate (7 = `PT`)                              |
//! | 27       | guard negated                                           |
//! | 28..32   | reserved, zero                                          |
//! | 32..128  | operands, packed in table order, widths below           |
//!
//! Operand fields: destination register 8 bits; source 20 bits (bit 0 set:
//! literal, bit 1 wide, bits 2..20 constant-pool index; bit 0 clear: bits
//! 1..9 register, bit 9 negate, bit 10 absolute value); register-only source
//! ([`OperandKind::Reg`], rows whose sources would not fit as 20 bits) 8 bits; destination predicate
//! 3 bits; source predicate 4 bits (3 + negate); special register 5 bits;
//! address 27 bits (8-bit base register, `RZ` for none, then a 19-bit pool
//! index of the signed offset); label 48 bits (24-bit target pc, 24-bit
//! reconvergence pc, all ones for none); integer literal 19-bit pool index; format 35 bits
//! (16-bit index into the kernel's formats, an 18-bit pool index of the mask of argument words
//! it reads, 1 bit: a pair among them).
//! Literals live in a per-kernel pool of 64-bit values so that an
//! instruction can carry several of them in one fixed-width word.

use std::collections::HashMap;

use crate::semantics::{MmaForm, MmaShape, ScaleSelectors};
use crate::table::*;

/// `RZ`: reads as zero, ignores writes.
pub const RZ: u8 = 255;
/// `PT`: reads as true, ignores writes.
pub const PT: u8 = 7;
/// Registers `R0 .. R254` exist.
pub const NUM_REGS: u32 = 255;
/// Marks a branch that cannot diverge (no reconvergence point).
pub const NO_RECONV: u32 = 0xFF_FFFF;

/// A predicate guard `@P0` / `@!P0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// Predicate index, `PT` for an unguarded instruction.
    pub pred: u8,
    /// `@!P`.
    pub negated: bool,
}

impl Guard {
    /// No guard.
    pub const ALWAYS: Guard = Guard { pred: PT, negated: false };

    /// Whether the guard can be false for some lane.
    pub fn can_be_false(self) -> bool {
        self != Guard::ALWAYS
    }
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    /// A register, optionally negated and/or made absolute (`-|R3|`).
    Reg {
        /// Register index, `RZ` for zero.
        reg: u8,
        /// `-R`.
        neg: bool,
        /// `|R|`.
        abs: bool,
    },
    /// A literal, as raw bits; `wide` for 64-bit values (f64 pairs).
    Imm {
        /// Value bits (32-bit values in the low half).
        bits: u64,
        /// Whether the literal fills a register pair.
        wide: bool,
    },
}

impl Src {
    /// A plain register source.
    pub const fn reg(reg: u8) -> Src {
        Src::Reg { reg, neg: false, abs: false }
    }

    /// A 32-bit literal.
    pub const fn imm(bits: u32) -> Src {
        Src::Imm { bits: bits as u64, wide: false }
    }
}

/// One operand of a decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// An unused position.
    None,
    /// A destination register.
    Reg(u8),
    /// A source.
    Src(Src),
    /// A destination predicate.
    Pred(u8),
    /// A source predicate.
    PredSrc {
        /// Predicate index, `PT` for true.
        pred: u8,
        /// `!P`.
        negated: bool,
    },
    /// A special register.
    Special(SpecialReg),
    /// A memory address `[base + offset]`; `base` is `RZ` for an absolute address.
    Addr {
        /// Base register or `RZ`.
        base: u8,
        /// Signed byte offset.
        offset: i32,
    },
    /// A branch target and, for a branch that may diverge, its reconvergence pc.
    Label {
        /// Target pc.
        target: u32,
        /// Immediate post-dominator pc (`code.len()` is the virtual exit), or [`NO_RECONV`].
        reconv: u32,
    },
    /// An integer literal.
    Imm(u32),
    /// A format string: its index in the kernel's [`formats`](crate::Kernel::formats), the
    /// argument words it reads and whether one of them is a pair (decided by the format,
    /// kept here so that what an instruction reads is known without the kernel).
    Format {
        /// Index in the kernel's formats.
        index: u16,
        /// Bit `i`: the format reads argument word `i` (register `a + i`); the words between
        /// pad a pair to its alignment.
        used: u64,
        /// Whether an argument is a pair, so that `a` is an even register.
        pairs: bool,
    },
}

/// Maximum number of operands of any row.
pub const MAX_OPERANDS: usize = 7;

/// A decoded instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    /// Which table row, with its typed modifiers.
    pub form: Form,
    /// The guard.
    pub guard: Guard,
    /// Operands in table order; positions past the row's operands are `None`.
    pub operands: [Operand; MAX_OPERANDS],
}

/// Where a static check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorAt {
    /// The mnemonic's modifiers.
    Modifiers,
    /// The operand at this index.
    Operand(usize),
    /// The guard.
    Guard,
}

/// Encountered when an instruction breaks a static rule of the contract.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct InstrError {
    /// Where.
    pub at: ErrorAt,
    /// What is wrong, lowercase.
    pub message: String,
}

fn err(at: ErrorAt, message: impl Into<String>) -> InstrError {
    InstrError { at, message: message.into() }
}

impl Instruction {
    /// An instruction with default modifiers and no operands.
    pub fn new(opcode: Opcode) -> Instruction {
        Instruction { form: Form::new(opcode), guard: Guard::ALWAYS, operands: [Operand::None; MAX_OPERANDS] }
    }

    /// Which table row.
    pub fn opcode(&self) -> Opcode {
        self.form.opcode()
    }

    /// This instruction's table row.
    pub fn info(&self) -> &'static OpInfo {
        self.form.info()
    }

    /// The operands the row defines.
    pub fn operands(&self) -> &[Operand] {
        &self.operands[..self.info().operands.len()]
    }

    /// Checks everything that can be known without the rest of the kernel:
    /// modifier combinations, register ranges and alignment, MMA operand overlaps.
    ///
    /// # Errors
    /// The first rule broken, with the place it was broken.
    pub fn validate(&self) -> Result<(), InstrError> {
        self.validate_modifiers()?;
        if self.guard.pred > PT {
            return Err(err(ErrorAt::Guard, "there are only predicates P0 .. P6 and PT"));
        }
        let info = self.info();
        let required = info.operands.len() - usize::from(info.optional);
        for (i, spec) in info.operands.iter().enumerate() {
            // An optional operand whose default is no value at all (`BAR.SYNC`'s) may be absent.
            if i >= required && self.operands[i] == Operand::None {
                continue;
            }
            self.validate_operand(i, spec.kind)?;
        }
        if self.form.mma().is_some() {
            self.validate_mma_overlap()?;
        }
        if let (Some((kind, ..)), Operand::Imm(sel)) = (self.form.scaled_mma(), self.operands[6]) {
            ScaleSelectors::check(sel, kind).map_err(|why| err(ErrorAt::Operand(6), why))?;
        }
        Ok(())
    }

    fn validate_modifiers(&self) -> Result<(), InstrError> {
        let combo = |ok: bool, message: &str| if ok { Ok(()) } else { Err(err(ErrorAt::Modifiers, message)) };
        match self.form {
            Form::Ld(mods::Ld { vec, ty, .. }) | Form::St(mods::St { vec, ty, .. }) => {
                combo(vec == VecWidth::Scalar || ty == MemType::B32, "vector accesses move .B32 elements: write .V2.B32 or .V4.B32")
            }
            _ => Ok(()),
        }?;
        if let Some(access) = self.form.access() {
            combo(!access.generic || access.wide, "a generic address is 64 bits: write .GENERIC.E and a register pair")?;
        }
        match self.form {
            Form::St(mods::St { space: MemSpace::Param, .. }) => combo(false, "parameters are read-only: ST cannot write the PARAM space"),
            Form::Atom(mods::Atom { op, ty, .. }) => {
                let types: Vec<String> = op.types().iter().map(ToString::to_string).collect();
                let allowed = match types.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => String::new(),
                };
                combo(op.types().contains(&ty), &format!("ATOM.{op} takes type {allowed}, not {ty}"))
            }
            Form::Wgmma(mods::Wgmma { src, acc, input, trans }) => {
                let types = [MmaShape::M16N8K16, MmaShape::M16N8K8, MmaShape::M16N8K32].map(MmaForm::defined_types).join(", ");
                combo(self.form.mma().is_some_and(|m| m.is_defined()), &format!("WGMMA takes types {types}, not .{acc}.{input}"))?;
                let message = if src == WgmmaSrc::Rs && input.bits() == 16 {
                    "A in registers (.RS) is not transposed: write .NN or .NT"
                } else {
                    "only F16 and BF16 multiplicands may be transposed (.NN for other types)"
                };
                combo(self.form.is_defined(), &format!("{message}, not .{trans}"))
            }
            Form::TmemLd(mods::TmemLd { shape, num, .. }) | Form::TmemSt(mods::TmemSt { shape, num, .. }) => combo(
                self.form.is_defined(),
                &format!("{shape}.{num} moves {} registers a thread; at most {} (fewer repetitions)", shape.registers(num), TmemShape::MAX_REGISTERS),
            ),
            Form::MmaScaled(mods::MmaScaled { kind, a, b }) => {
                let wanted = if kind == MmaScaledKind::Mxf8f6f4 { "E4M3, E5M2, E3M2, E2M3 or E2M1 each" } else { ".E2M1.E2M1" };
                combo(self.form.is_defined(), &format!("MMA.SCALED.{kind} multiplies {wanted}, not .{a}.{b}"))
            }
            form => match form.mma() {
                Some(mma) if !mma.is_defined() => {
                    combo(false, &format!("{} takes types {}, not .{}.{}", self.opcode(), MmaForm::defined_types(mma.shape), mma.acc, mma.input))
                }
                _ => Ok(()),
            },
        }
    }

    fn validate_operand(&self, i: usize, kind: OperandKind) -> Result<(), InstrError> {
        let at = ErrorAt::Operand(i);
        let count = self.reg_count(i);
        let check_reg = |reg: u8| -> Result<(), InstrError> {
            if let Operand::Format { pairs, .. } = self.operands[0] {
                return match (count, reg) {
                    (0, RZ) => Ok(()),
                    (0, _) => Err(err(at, "the format takes no arguments: leave `a` out")),
                    (_, RZ) => Err(err(at, format!("the format takes {count} argument register{}: give the first as `a`", if count == 1 { "" } else { "s" }))),
                    _ if u32::from(reg) + u32::from(count) > NUM_REGS => {
                        Err(err(at, format!("the format's {count} argument registers from R{reg} run past R{}", NUM_REGS - 1)))
                    }
                    _ if pairs && !reg.is_multiple_of(2) => {
                        Err(err(at, format!("the format takes a pair (a 64-bit or float argument), so its arguments start at an even register, not R{reg}")))
                    }
                    _ => Ok(()),
                };
            }
            // `TMEM.ST`'s `a` may be `RZ`, zero for every register (SASS's `STTM ..., RZ`):
            // compilers clear an accumulator in tensor memory so.
            if reg == RZ {
                return if count == 1 || matches!(self.form, Form::TmemSt(_)) {
                    Ok(())
                } else {
                    Err(err(at, format!("RZ cannot stand for {count} registers")))
                };
            }
            let last = u32::from(reg) + u32::from(count) - 1;
            if last >= NUM_REGS {
                return Err(err(at, format!("R{reg} .. R{last} runs past R{}", NUM_REGS - 1)));
            }
            // Fragments are unaligned except where their elements are f64 pairs; a `WGMMA`'s
            // descriptors are pairs.
            let align = match self.form.mma() {
                Some(_) if self.form.wgmma().is_some() => 1 + u32::from(count == 2 && kind != OperandKind::Dst(Width::Warpgroup(FragRole::C))),
                Some(mma) => u32::from(mma.reg_align()),
                // A tensor copy's coordinates and tensor memory's cells are words, consecutive from anywhere.
                None if matches!(kind, OperandKind::Src { width: Width::Coordinates | Width::Tmem, .. } | OperandKind::Dst(Width::Tmem)) => 1,
                None if matches!(count, 2 | 4) => u32::from(count),
                None => 1,
            };
            if u32::from(reg) % align != 0 {
                let what = if count == 2 || align == 2 { "a register pair" } else { "a 4-register vector" };
                return Err(err(at, format!("R{reg} cannot start {what}: use a register index divisible by {align}")));
            }
            Ok(())
        };
        match (kind, self.operands[i]) {
            (OperandKind::Dst(_), Operand::Reg(r)) => check_reg(r),
            (OperandKind::Reg(_), Operand::Src(Src::Reg { reg, neg: false, abs: false })) => check_reg(reg),
            (OperandKind::Reg(_), Operand::Src(Src::Reg { .. })) => Err(err(at, format!("{} takes no source modifiers", self.opcode()))),
            (OperandKind::Reg(_), Operand::Src(Src::Imm { .. })) => Err(err(at, "this operand must be a register")),
            (OperandKind::Src { mods, .. }, Operand::Src(src)) => match src {
                Src::Reg { reg, neg, abs } => {
                    check_reg(reg)?;
                    match mods {
                        SrcMods::Plain if neg || abs => Err(err(at, format!("{} takes no source modifiers", self.opcode()))),
                        SrcMods::Neg if abs => Err(err(at, format!("{} takes `-R` but not `|R|`", self.opcode()))),
                        _ => Ok(()),
                    }
                }
                Src::Imm { wide, bits } => {
                    if matches!(self.opcode(), Opcode::BarSync | Opcode::BarArrive) {
                        return named_barrier_literal(i, bits).map_err(|message| err(at, message));
                    }
                    let lit = self.lit_kind(i);
                    match lit {
                        LitKind::NoLiteral => Err(err(at, "this operand must be a register")),
                        LitKind::F64 if !wide => Err(err(at, "an f64 operand needs a 64-bit literal")),
                        LitKind::Any if wide && self.opcode() == Opcode::Mov => Ok(()),
                        LitKind::F64 => Ok(()),
                        _ if wide => Err(err(at, "a 64-bit literal does not fit a 32-bit operand")),
                        _ => Ok(()),
                    }
                }
            },
            (OperandKind::PredDst, Operand::Pred(p)) | (OperandKind::PredSrc, Operand::PredSrc { pred: p, .. }) => {
                if p > PT {
                    Err(err(at, "there are only predicates P0 .. P6 and PT"))
                } else {
                    Ok(())
                }
            }
            (OperandKind::Special, Operand::Special(_)) => Ok(()),
            (OperandKind::Addr, Operand::Addr { base, .. }) => {
                let wide = self.form.access().is_some_and(|a| a.wide);
                if base != RZ && u32::from(base) >= NUM_REGS {
                    Err(err(at, "address base register out of range"))
                } else if wide && base != RZ && base % 2 != 0 {
                    Err(err(at, "a 64-bit address (.E) is a register pair: its base must be an even register"))
                } else if wide && base != RZ && u32::from(base) + 1 >= NUM_REGS {
                    Err(err(at, format!("a 64-bit address (.E) is a register pair: R{base} has no partner (registers end at R{})", NUM_REGS - 1)))
                } else {
                    Ok(())
                }
            }
            (OperandKind::Label, Operand::Label { .. }) => Ok(()),
            // Whether the words match the format's is the kernel's to check (`Kernel::validate`).
            (OperandKind::Format, Operand::Format { .. }) => Ok(()),
            (OperandKind::Imm, Operand::Imm(v)) => {
                if self.opcode() == Opcode::Shfl && !(v.is_power_of_two() && v <= 32) {
                    Err(err(at, format!("segment width {v} must be a power of two from 1 to 32")))
                } else if self.opcode() == Opcode::Wgmma && !(v.is_multiple_of(8) && (8..=256).contains(&v)) {
                    Err(err(at, format!("n = {v}: a warpgroup MMA is 8 to 256 columns wide, a multiple of 8")))
                } else {
                    Ok(())
                }
            }
            (kind, found) => Err(err(at, format!("operand {i} should be {kind:?}, found {found:?}"))),
        }
    }

    fn validate_mma_overlap(&self) -> Result<(), InstrError> {
        let range = |i: usize| match self.operands[i] {
            Operand::Reg(r) | Operand::Src(Src::Reg { reg: r, .. }) => {
                let start = u32::from(r);
                Some(start..start + u32::from(self.reg_count(i)))
            }
            _ => None,
        };
        let Some(d) = range(0) else { return Ok(()) };
        for i in 1..self.info().operands.len() {
            let Some(s) = range(i) else { continue };
            let exact_accumulator = i == 3 && s == d;
            if !exact_accumulator && s.start < d.end && d.start < s.end {
                let name = self.info().operands[i].name;
                return Err(err(
                    ErrorAt::Operand(0),
                    format!("d (R{} .. R{}) overlaps {name} (R{} .. R{}): d may only equal c exactly", d.start, d.end - 1, s.start, s.end - 1),
                ));
            }
        }
        Ok(())
    }
}

/// Encountered when decoding an instruction word that no encoder could have produced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The opcode byte names no row.
    #[error("unknown opcode byte {0:#04x}")]
    UnknownOpcode(u8),
    /// A field holds a value outside its range.
    #[error("{0}")]
    BadField(String),
}

/// Deduplicating constant pool used while encoding one kernel.
#[derive(Default, Debug)]
pub struct PoolBuilder {
    values: Vec<u64>,
    index: HashMap<u64, u32>,
}

impl PoolBuilder {
    /// The index of `value`, adding it if new.
    pub fn intern(&mut self, value: u64) -> u32 {
        *self.index.entry(value).or_insert_with(|| {
            self.values.push(value);
            (self.values.len() - 1) as u32
        })
    }

    /// The pool, in index order.
    pub fn into_values(self) -> Vec<u64> {
        self.values
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no value was interned.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

struct BitWriter {
    word: u128,
    pos: u32,
}

impl BitWriter {
    fn put(&mut self, value: u64, bits: u32) {
        debug_assert!(bits == 64 || value < (1 << bits), "field overflow");
        debug_assert!(self.pos + bits <= 128, "operand fields overflow the word");
        self.word |= u128::from(value) << self.pos;
        self.pos += bits;
    }
}

struct BitReader {
    word: u128,
    pos: u32,
}

impl BitReader {
    fn take(&mut self, bits: u32) -> u64 {
        let value = (self.word >> self.pos) as u64 & ((1u64 << bits) - 1);
        self.pos += bits;
        value
    }
}

const POOL_BITS: u32 = 18;
/// The reserved bits of a register source field that mark an optional source left out.
const ABSENT_SOURCE: u64 = 1;
const ADDR_POOL_BITS: u32 = 19;

/// Encodes `inst` into one 128-bit word, interning literals into `pool`.
pub fn encode(inst: &Instruction, pool: &mut PoolBuilder) -> u128 {
    let mut w = BitWriter { word: 0, pos: 0 };
    w.put(inst.opcode() as u64, 8);
    for m in inst.form.indices() {
        w.put(u64::from(m), 4);
    }
    w.put(u64::from(inst.guard.pred), 3);
    w.put(u64::from(inst.guard.negated), 1);
    w.put(0, 4);
    for (i, spec) in inst.info().operands.iter().enumerate() {
        match (spec.kind, inst.operands[i]) {
            (OperandKind::Dst(_), Operand::Reg(r)) | (OperandKind::Reg(_), Operand::Src(Src::Reg { reg: r, .. })) => w.put(u64::from(r), 8),
            (OperandKind::Src { .. }, Operand::Src(Src::Reg { reg, neg, abs })) => {
                w.put(0, 1);
                w.put(u64::from(reg), 8);
                w.put(u64::from(neg), 1);
                w.put(u64::from(abs), 1);
                w.put(0, 9);
            }
            (OperandKind::Src { .. }, Operand::Src(Src::Imm { bits, wide })) => {
                w.put(1, 1);
                w.put(u64::from(wide), 1);
                w.put(u64::from(pool.intern(bits)), POOL_BITS);
            }
            // An optional source left out (`BAR.SYNC`'s): a register field marked absent.
            (OperandKind::Src { .. }, Operand::None) => {
                w.put(0, 11);
                w.put(ABSENT_SOURCE, 9);
            }
            (OperandKind::PredDst, Operand::Pred(p)) => w.put(u64::from(p), 3),
            (OperandKind::PredSrc, Operand::PredSrc { pred, negated }) => {
                w.put(u64::from(pred), 3);
                w.put(u64::from(negated), 1);
            }
            (OperandKind::Special, Operand::Special(sr)) => w.put(sr as u64, 5),
            (OperandKind::Addr, Operand::Addr { base, offset }) => {
                w.put(u64::from(base), 8);
                w.put(u64::from(pool.intern(u64::from(offset as u32))), ADDR_POOL_BITS);
            }
            (OperandKind::Label, Operand::Label { target, reconv }) => {
                w.put(u64::from(target), 24);
                w.put(u64::from(reconv), 24);
            }
            (OperandKind::Imm, Operand::Imm(v)) => w.put(u64::from(pool.intern(u64::from(v))), ADDR_POOL_BITS),
            (OperandKind::Format, Operand::Format { index, used, pairs }) => {
                w.put(u64::from(index), 16);
                w.put(u64::from(pool.intern(used)), POOL_BITS);
                w.put(u64::from(pairs), 1);
            }
            (kind, found) => panic!("encode: {} operand {i} should be {kind:?}, found {found:?}", inst.opcode()),
        }
    }
    w.word
}

/// Decodes one word, resolving literals through `pool`.
///
/// # Errors
/// Any field outside its range, an unknown opcode or a pool index past the pool.
pub fn decode(word: u128, pool: &[u64]) -> Result<Instruction, DecodeError> {
    let mut r = BitReader { word, pos: 0 };
    let byte = r.take(8) as u8;
    let opcode = Opcode::from_byte(byte).ok_or(DecodeError::UnknownOpcode(byte))?;
    let info = opcode.info();
    let mut indices = [0u8; 4];
    for m in &mut indices {
        *m = r.take(4) as u8;
    }
    let form = Form::from_indices(opcode, indices).ok_or_else(|| DecodeError::BadField(format!("{opcode}: modifier values {indices:?} are out of range")))?;
    let mut inst = Instruction { form, ..Instruction::new(opcode) };
    inst.guard = Guard { pred: r.take(3) as u8, negated: r.take(1) == 1 };
    if r.take(4) != 0 {
        return Err(DecodeError::BadField(format!("{opcode}: reserved bits are set")));
    }
    let required = info.operands.len() - usize::from(info.optional);
    let lookup = |index: u64| -> Result<u64, DecodeError> {
        pool.get(index as usize)
            .copied()
            .ok_or_else(|| DecodeError::BadField(format!("{opcode}: literal index {index} is past the constant pool ({} entries)", pool.len())))
    };
    for (i, spec) in info.operands.iter().enumerate() {
        inst.operands[i] = match spec.kind {
            OperandKind::Dst(_) => Operand::Reg(r.take(8) as u8),
            OperandKind::Reg(_) => Operand::Src(Src::reg(r.take(8) as u8)),
            OperandKind::Src { .. } => {
                if r.take(1) == 1 {
                    let wide = r.take(1) == 1;
                    let bits = lookup(r.take(POOL_BITS))?;
                    if !wide && bits > u64::from(u32::MAX) {
                        return Err(DecodeError::BadField(format!("{opcode}: 32-bit literal {bits:#x} is wider than 32 bits")));
                    }
                    Operand::Src(Src::Imm { bits, wide })
                } else {
                    let reg = r.take(8) as u8;
                    let neg = r.take(1) == 1;
                    let abs = r.take(1) == 1;
                    match r.take(9) {
                        0 => Operand::Src(Src::Reg { reg, neg, abs }),
                        ABSENT_SOURCE if i >= required && (reg, neg, abs) == (0, false, false) => Operand::None,
                        _ => return Err(DecodeError::BadField(format!("{opcode}: reserved source bits are set"))),
                    }
                }
            }
            OperandKind::PredDst => Operand::Pred(r.take(3) as u8),
            OperandKind::PredSrc => Operand::PredSrc { pred: r.take(3) as u8, negated: r.take(1) == 1 },
            OperandKind::Special => {
                let index = r.take(5) as u8;
                Operand::Special(
                    SpecialReg::from_index(index).ok_or_else(|| DecodeError::BadField(format!("{opcode}: special register {index} does not exist")))?,
                )
            }
            OperandKind::Addr => {
                let base = r.take(8) as u8;
                let offset = lookup(r.take(ADDR_POOL_BITS))?;
                let offset = u32::try_from(offset).map_err(|_| DecodeError::BadField(format!("{opcode}: address offset {offset:#x} is wider than 32 bits")))?;
                Operand::Addr { base, offset: offset as i32 }
            }
            OperandKind::Label => Operand::Label { target: r.take(24) as u32, reconv: r.take(24) as u32 },
            OperandKind::Imm => {
                let v = lookup(r.take(ADDR_POOL_BITS))?;
                Operand::Imm(u32::try_from(v).map_err(|_| DecodeError::BadField(format!("{opcode}: literal {v:#x} is wider than 32 bits")))?)
            }
            OperandKind::Format => Operand::Format { index: r.take(16) as u16, used: lookup(r.take(POOL_BITS))?, pairs: r.take(1) == 1 },
        };
    }
    if r.pos < 128 && (word >> r.pos) != 0 {
        return Err(DecodeError::BadField(format!("{opcode}: bits past the last operand are set")));
    }
    Ok(inst)
}

/// Checks a block barrier's literal operand `i`: its number `a` (0 .. 15) or its thread count `b`.
fn named_barrier_literal(i: usize, value: u64) -> Result<(), String> {
    match i {
        0 if value >= u64::from(crate::BARRIERS) => Err(format!("barrier {value} does not exist: a block has barriers 0 .. {}", crate::BARRIERS - 1)),
        1 if value == 0 || !value.is_multiple_of(32) || value > crate::MAX_BLOCK_THREADS => {
            Err(format!("a barrier's thread count counts whole warps: a multiple of 32 from 32 to {}, not {value}", crate::MAX_BLOCK_THREADS))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(inst: Instruction) {
        let mut pool = PoolBuilder::default();
        let word = encode(&inst, &mut pool);
        assert_eq!(decode(word, &pool.into_values()), Ok(inst));
    }

    #[test]
    fn every_opcode_round_trips_with_default_operands() {
        for row in TABLE {
            let mut inst = Instruction::new(row.opcode);
            for (i, spec) in row.operands.iter().enumerate() {
                inst.operands[i] = match spec.kind {
                    OperandKind::Dst(_) => Operand::Reg(8),
                    OperandKind::Src { .. } | OperandKind::Reg(_) => Operand::Src(Src::reg(16)),
                    OperandKind::PredDst => Operand::Pred(3),
                    OperandKind::PredSrc => Operand::PredSrc { pred: 2, negated: true },
                    OperandKind::Special => Operand::Special(SpecialReg::Clock),
                    OperandKind::Addr => Operand::Addr { base: 4, offset: -8 },
                    OperandKind::Label => Operand::Label { target: 12, reconv: NO_RECONV },
                    OperandKind::Imm => Operand::Imm(16),
                    OperandKind::Format => Operand::Format { index: 3, used: 0b11_1101, pairs: true },
                };
            }
            round_trip(inst);
        }
    }

    /// Each row's operand fields, at their widths above, fit the 96 bits after the header.
    #[test]
    fn every_row_fits_the_word() {
        for row in TABLE {
            let bits: u32 = row
                .operands
                .iter()
                .map(|spec| match spec.kind {
                    OperandKind::Dst(_) | OperandKind::Reg(_) => 8,
                    OperandKind::Src { .. } => 20,
                    OperandKind::PredDst => 3,
                    OperandKind::PredSrc => 4,
                    OperandKind::Special => 5,
                    OperandKind::Addr => 8 + ADDR_POOL_BITS,
                    OperandKind::Label => 48,
                    OperandKind::Imm => ADDR_POOL_BITS,
                    OperandKind::Format => 16 + POOL_BITS + 1,
                })
                .sum();
            assert!(32 + bits <= 128, "{}: {} bits", row.syntax(), 32 + bits);
        }
    }

    #[test]
    fn the_widest_instruction_fits_the_word() {
        let mut inst = Instruction::new(Opcode::AtomCas);
        inst.guard = Guard { pred: 6, negated: true };
        inst.operands[0] = Operand::Reg(254);
        inst.operands[1] = Operand::Addr { base: 3, offset: i32::MIN };
        inst.operands[2] = Operand::Src(Src::imm(u32::MAX));
        inst.operands[3] = Operand::Src(Src::Imm { bits: u64::MAX, wide: true });
        round_trip(inst);
    }

    #[test]
    fn decoding_rejects_corrupt_words() {
        assert_eq!(decode(0xFF, &[]), Err(DecodeError::UnknownOpcode(0xFF)));
        let mut pool = PoolBuilder::default();
        let mut inst = Instruction::new(Opcode::Iadd);
        inst.operands[0] = Operand::Reg(1);
        inst.operands[1] = Operand::Src(Src::imm(7));
        inst.operands[2] = Operand::Src(Src::reg(2));
        let word = encode(&inst, &mut pool);
        assert!(matches!(decode(word, &[]), Err(DecodeError::BadField(_))));
        assert!(matches!(decode(word | (1 << 127), &pool.into_values()), Err(DecodeError::BadField(_))));
    }

    #[test]
    fn sixty_four_bit_addresses_are_pairs_and_generic_ones_need_them() {
        let ld = |space, addr, base| {
            let mut inst = Instruction::new(Opcode::Ld);
            inst.form = Form::Ld(mods::Ld { space, addr, vec: VecWidth::Scalar, ty: MemType::U32 });
            inst.operands[0] = Operand::Reg(1);
            inst.operands[1] = Operand::Addr { base, offset: -8 };
            inst
        };
        let cases: [(MemSpace, AddrWidth, u8, Option<ErrorAt>); 7] = [
            (MemSpace::Global, AddrWidth::W32, 3, None),
            (MemSpace::Global, AddrWidth::E, 4, None),
            (MemSpace::Global, AddrWidth::E, 3, Some(ErrorAt::Operand(1))),
            (MemSpace::Shared, AddrWidth::E, 254, Some(ErrorAt::Operand(1))),
            (MemSpace::Generic, AddrWidth::E, RZ, None),
            (MemSpace::Generic, AddrWidth::E, 252, None),
            (MemSpace::Generic, AddrWidth::W32, 4, Some(ErrorAt::Modifiers)),
        ];
        for (space, addr, base, error) in cases {
            let inst = ld(space, addr, base);
            assert_eq!(inst.validate().err().map(|e| e.at), error, "{space:?} {addr:?} R{base}");
            if error.is_none() {
                round_trip(inst);
            }
        }
    }

    #[test]
    fn validation_names_the_broken_rule() {
        let mut inst = Instruction::new(Opcode::Dadd);
        inst.operands[0] = Operand::Reg(3);
        inst.operands[1] = Operand::Src(Src::reg(4));
        inst.operands[2] = Operand::Src(Src::reg(6));
        assert_eq!(inst.validate().unwrap_err().at, ErrorAt::Operand(0));
        inst.operands[0] = Operand::Reg(2);
        assert_eq!(inst.validate(), Ok(()));

        let mut mma = Instruction::new(Opcode::Mma);
        mma.operands[..4].copy_from_slice(&[Operand::Reg(16), Operand::Src(Src::reg(0)), Operand::Src(Src::reg(4)), Operand::Src(Src::reg(16))]);
        assert_eq!(mma.validate(), Ok(()));
        mma.operands[3] = Operand::Src(Src::reg(20));
        assert!(mma.validate().unwrap_err().message.contains("overlaps c"));

        // f64 fragments are register pairs: every operand starts at an even register.
        let mut dmma = Instruction::new(Opcode::MmaM8n8k4);
        dmma.form = Form::MmaM8n8k4(mods::MmaM8n8k4 { acc: MmaAcc::F64, input: MmaIn::F64 });
        dmma.operands[..4].copy_from_slice(&[Operand::Reg(8), Operand::Src(Src::reg(0)), Operand::Src(Src::reg(2)), Operand::Src(Src::reg(4))]);
        assert_eq!(dmma.validate(), Ok(()));
        dmma.operands[2] = Operand::Src(Src::reg(3));
        assert_eq!(dmma.validate().unwrap_err().at, ErrorAt::Operand(2));
        dmma.operands[2] = Operand::Src(Src::reg(2));
        dmma.form = Form::MmaM8n8k4(mods::MmaM8n8k4 { acc: MmaAcc::F32, input: MmaIn::F16 });
        assert_eq!(dmma.validate().unwrap_err().message, "MMA.M8N8K4 takes types .F64.F64, not .F32.F16");
    }
}
