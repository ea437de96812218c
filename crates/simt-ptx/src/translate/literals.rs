//! Registers that hold one literal, read as that literal. tinygrad writes every constant
//! into a register first (`mov.b32 %cast_s32_0, 4;` ... `mad.lo.s32 %r, %i, %cast_s32_0, 1;`)
//! and Triton hoists its constants above its loops; ptxas folds them into the instructions
//! that read them, where the move costs nothing. Here a register written once, by an
//! unguarded `mov` of a literal, and otherwise only read as a plain operand, is a literal
//! register. The kernel is translated once with each read of one that an instruction can
//! take as a literal (an operand of `src32`, `src64` or `src_f64`) taking it so; those reads
//! become the literal in the PTX, and a register no longer read loses its `mov`; the kernel
//! is translated again from that, its allocator no longer keeping the register alive.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::Item;
use crate::ast::{self, Immediate, OperandKind, Span};
use crate::ops::{MulMode, Op, Type, Typed};

/// The value a literal register holds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Literal {
    /// The register's bits, as its `mov` leaves them (a narrow type's only).
    pub bits: u64,
    /// The register's width: 16, 32 or 64.
    pub width: u32,
    /// Whether the `mov` wrote a float literal (`0f...`, `0d...`).
    pub float: bool,
}

impl Literal {
    /// The literal a 32-bit read takes (`src32`): for registers of at most 32 bits.
    pub fn word(self) -> Option<Immediate> {
        (self.width <= 32).then_some(if self.float { Immediate::F32(self.bits as u32) } else { Immediate::Int(self.bits as i64) })
    }

    /// The literal a 64-bit integer read takes (`src64`): one that sign-extends from 32 bits,
    /// which the 64-bit instructions take in place (a wider one would need a scratch pair).
    pub fn wide(self) -> Option<Immediate> {
        (self.width == 64 && i32::try_from(self.bits as i64).is_ok()).then_some(Immediate::Int(self.bits as i64))
    }

    /// The literal an f64 read takes (`src_f64`).
    pub fn double(self) -> Option<Immediate> {
        (self.width == 64).then_some(Immediate::F64(self.bits))
    }
}

/// The literal registers of `items`, by name.
pub(super) fn literal_registers<'a>(items: &[Item<'_, 'a>]) -> HashMap<&'a str, Literal> {
    let mut found: HashMap<&'a str, Literal> = HashMap::default();
    // Registers written more than once, by anything else, or named other than as a plain source.
    let mut not: HashSet<&'a str> = HashSet::default();
    let mut names = Vec::new();
    for item in items {
        let Item::Inst(inst) = item else { continue };
        if let Some(g) = inst.guard {
            not.insert(g.predicate);
        }
        let writes = inst.op.writes_first_operand();
        for (k, operand) in inst.operands.iter().enumerate() {
            match operand.kind {
                OperandKind::Name(n) if k == 0 && writes => {
                    if let Some(literal) = literal_move(inst).filter(|_| !found.contains_key(n)) {
                        found.insert(n, literal);
                    } else {
                        not.insert(n);
                    }
                }
                OperandKind::Name(_) => {}
                _ => {
                    names.clear();
                    operand.names(&mut names);
                    not.extend(names.iter().copied());
                }
            }
        }
    }
    found.retain(|n, _| !not.contains(n));
    found
}

/// The literal an unguarded `mov.T %d, literal` writes, for 16-, 32- and 64-bit integer types
/// and f32 and f64 (a float literal only of its own width).
pub(super) fn literal_move(inst: &ast::Instruction<'_>) -> Option<Literal> {
    let Op::Mov(t) = inst.op else { return None };
    let [_, ast::Operand { kind: OperandKind::Immediate(imm), .. }] = inst.operands.as_slice() else { return None };
    let integer = matches!(t.ty, Type::B16 | Type::U16 | Type::S16 | Type::B32 | Type::U32 | Type::S32 | Type::B64 | Type::U64 | Type::S64);
    if inst.guard.is_some() || !(integer || matches!(t.ty, Type::F32 | Type::F64)) {
        return None;
    }
    let width = t.ty.bits();
    let (bits, float) = match (*imm, width) {
        (Immediate::Int(v), _) => (v as u64 & (u64::MAX >> (64 - width)), false),
        (Immediate::F32(b), 32) => (u64::from(b), true),
        (Immediate::F64(b), 64) => (b, true),
        _ => return None,
    };
    Some(Literal { bits, width, float })
}

/// The instructions of `items` that change once the reads in `taken` (item, operand span:
/// the literal it took) are literals: each such instruction with them in its place, and the
/// `mov` of a register every read of which is among them left out.
pub(super) fn substituted<'a>(
    items: &[Item<'_, 'a>],
    literals: &HashMap<&'a str, Literal>,
    taken: &HashMap<(usize, Span), Immediate>,
) -> HashMap<usize, Option<ast::Instruction<'a>>> {
    let mut edits = HashMap::default();
    // Reads of each literal register that stay reads of the register.
    let mut kept: HashMap<&'a str, u32> = HashMap::default();
    let mut moves: HashMap<&'a str, usize> = HashMap::default();
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(inst) = item else { continue };
        let mut changed = None::<ast::Instruction<'a>>;
        for (k, operand) in inst.operands.iter().enumerate() {
            let OperandKind::Name(n) = operand.kind else { continue };
            if !literals.contains_key(n) {
                continue;
            }
            if k == 0 && literal_move(inst).is_some() {
                moves.insert(n, at);
                continue;
            }
            match taken.get(&(at, operand.span)) {
                Some(&imm) => changed.get_or_insert_with(|| (*inst).clone()).operands[k].kind = OperandKind::Immediate(imm),
                None => *kept.entry(n).or_default() += 1,
            }
        }
        if let Some(inst) = changed {
            edits.insert(at, Some(as_copy(&inst).unwrap_or(inst)));
        }
    }
    for (n, at) in moves {
        if !kept.contains_key(n) {
            edits.insert(at, None);
        }
    }
    edits
}

/// An integer instruction that its literals make a copy of one source, as that copy: an add,
/// subtraction, or, xor or shift of 0, a product by 1, or a `mad.lo`/`mad.wide` by 0
/// (tinygrad's address of element 0, `mad.lo.s64 %addr, %idx, 4, %base` with `%idx` 0). A
/// copy may share its source's register, where the instruction needed one of its own.
fn as_copy<'a>(inst: &ast::Instruction<'a>) -> Option<ast::Instruction<'a>> {
    let is = |k: usize, value: i64| matches!(inst.operands.get(k), Some(ast::Operand { kind: OperandKind::Immediate(Immediate::Int(v)), .. }) if *v == value);
    // The source left when the other is `identity` (the first only if the operation commutes).
    let beside = |identity: i64, commutes: bool| {
        if is(2, identity) {
            Some(1)
        } else if commutes && is(1, identity) {
            Some(2)
        } else {
            None
        }
    };
    let (bits, source) = match inst.op {
        Op::Add(a) if a.ty.is_integer() && !a.sat && !a.cc => (a.ty.bits(), beside(0, true)?),
        Op::Sub(a) if a.ty.is_integer() && !a.sat && !a.cc => (a.ty.bits(), beside(0, false)?),
        Op::Or(t) | Op::Xor(t) => (t.ty.bits(), beside(0, true)?),
        Op::Shl(t) | Op::Shr(t) => (t.ty.bits(), beside(0, false)?),
        Op::Mul(m) if m.ty.is_integer() && m.mode == Some(MulMode::Lo) => (m.ty.bits(), beside(1, true)?),
        Op::Mad(m) if m.ty.is_integer() && !m.sat && !m.cc && (is(1, 0) || is(2, 0)) => match m.mode {
            Some(MulMode::Lo) => (m.ty.bits(), 3),
            Some(MulMode::Wide) => (2 * m.ty.bits(), 3),
            _ => return None,
        },
        _ => return None,
    };
    let ty = match bits {
        16 => Type::B16,
        32 => Type::B32,
        64 => Type::B64,
        _ => return None,
    };
    let (dest, from) = (inst.operands.first()?, inst.operands.get(source)?);
    if !matches!(dest.kind, OperandKind::Name(_)) || !matches!(from.kind, OperandKind::Name(_)) {
        return None;
    }
    Some(ast::Instruction { op: Op::Mov(Typed { ty }), operands: vec![dest.clone(), from.clone()], ..inst.clone() })
}
