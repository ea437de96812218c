//! Words taken apart only to be put back together. Triton keeps each `ldmatrix` result
//! as two `.b16` halves (`mov.b32 {%lo, %hi}, %w`) across its pipelined loop and packs them
//! again for `mma` (`mov.b32 %x, {%lo, %hi}`); ptxas keeps the word. Where a pair of halves
//! is only ever written together by such an unpack and only ever read together by such a
//! pack, `%lo` holds the whole word instead: the unpack becomes `mov.b32 %lo, %w` and the
//! pack `mov.b32 %x, %lo`, copies the register allocator can make vanish, and `%hi` is no
//! longer mentioned. Each pack reads what the last unpack wrote, so it gets the same word.

use rustc_hash::FxHashMap as HashMap;

use super::Item;
use crate::ast::{self, OperandKind};
use crate::ops::{Op, Type};

/// How a register is mentioned: as the low or high half of unpacks and packs (with its
/// partner), or any other way.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role<'a> {
    Low { high: &'a str },
    High { low: &'a str },
    Other,
}

/// The two halves of a `mov.b32` between a word and a vector of two names.
fn halves<'a>(inst: &ast::Instruction<'a>, vector: usize) -> Option<(&'a str, &'a str)> {
    if !matches!(inst.op, Op::Mov(t) if t.ty == Type::B32) || inst.operands.len() != 2 {
        return None;
    }
    let (OperandKind::Name(_), OperandKind::Vector(v)) = (&inst.operands[1 - vector].kind, &inst.operands[vector].kind) else { return None };
    match v.as_slice() {
        [ast::Operand { kind: OperandKind::Name(lo), .. }, ast::Operand { kind: OperandKind::Name(hi), .. }] if lo != hi => Some((lo, hi)),
        _ => None,
    }
}

/// The position of the vector of halves in a `mov.b32` that unpacks (0) or packs (1) a
/// word, and the halves.
fn unpack_or_pack<'a>(inst: &ast::Instruction<'a>) -> Option<(usize, &'a str, &'a str)> {
    [0, 1].into_iter().find_map(|vector| halves(inst, vector).map(|(lo, hi)| (vector, lo, hi)))
}

/// For each instruction of `items` to be read otherwise, its replacement: the unpacks and
/// packs of the pairs of halves that only ever travel together.
pub(super) fn whole_words<'a>(items: &[Item<'_, 'a>]) -> HashMap<usize, ast::Instruction<'a>> {
    let mut roles: HashMap<&'a str, Role<'a>> = HashMap::default();
    let mut note = |name: &'a str, role: Role<'a>| {
        let seen = roles.entry(name).or_insert(role);
        if *seen != role {
            *seen = Role::Other;
        }
    };
    let mut names = Vec::new();
    for item in items {
        let Item::Inst(inst) = item else { continue };
        let pair = unpack_or_pack(inst);
        if let Some((_, lo, hi)) = pair {
            note(lo, Role::Low { high: hi });
            note(hi, Role::High { low: lo });
        }
        if let Some(guard) = inst.guard {
            note(guard.predicate, Role::Other);
        }
        for (k, operand) in inst.operands.iter().enumerate() {
            if pair.is_some_and(|(vector, _, _)| vector == k) {
                continue;
            }
            names.clear();
            operand.names(&mut names);
            for &name in &names {
                note(name, Role::Other);
            }
        }
    }
    let mut replaced = HashMap::default();
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(inst) = item else { continue };
        let Some((vector, lo, hi)) = unpack_or_pack(inst) else { continue };
        if roles.get(lo) == Some(&Role::Low { high: hi }) && roles.get(hi) == Some(&Role::High { low: lo }) {
            let mut whole = (*inst).clone();
            let span = whole.operands[vector].span;
            whole.operands[vector] = ast::Operand { kind: OperandKind::Name(lo), span };
            replaced.insert(at, whole);
        }
    }
    replaced
}
