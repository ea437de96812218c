//! 64-bit addresses from 32-bit indices, as tinygrad writes them: `cvt.s64.s32 %t, %i` and
//! later `mad.lo.s64 %d, %t, 4, %base`. ptxas makes one `IMAD.WIDE` of the two; here they
//! become one `mad.wide.s32 %d, %i, 4, %base` at the `mad`'s place. That is the same value
//! whenever the literal multiplier fits 32 bits of the index's signedness: the product of
//! two extended 32-bit values is exact in 64 bits, and the low 64 bits of the 64-bit product
//! are that product.
//!
//! The pair is fused only where nothing can tell: both unguarded, in one basic block, nothing
//! between them mentioning `%t` or writing `%i`, and the converted value read by that `mad`
//! alone (the `mad` writes `%t` itself, or `%t` is named nowhere else).

use rustc_hash::FxHashMap as HashMap;

use super::Item;
use crate::ast::{self, Immediate, OperandKind};
use crate::ops::{Mul, MulMode, Op, Type};

/// For each instruction of `items` that the fusion changes, what stands in its place: the
/// fused `mad.wide` at the `mad`'s position, nothing at the `cvt`'s.
pub(super) fn fused_index_products<'a>(items: &[Item<'_, 'a>]) -> HashMap<usize, Option<ast::Instruction<'a>>> {
    let mut mentions: HashMap<&'a str, u32> = HashMap::default();
    let mut names = Vec::new();
    for item in items {
        let Item::Inst(inst) = item else { continue };
        names.clear();
        inst.names(&mut names);
        for &name in &names {
            *mentions.entry(name).or_default() += 1;
        }
    }
    let mut edits = HashMap::default();
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(cvt) = item else { continue };
        let Some((t, index, signed)) = widening(cvt) else { continue };
        for (later, next) in items.iter().enumerate().skip(at + 1) {
            let Item::Inst(next) = next else { break };
            if let Some(fused) = fuse(next, t, index, signed)
                && (writes(next, t) || mentions.get(t) == Some(&2))
            {
                edits.insert(at, None);
                edits.insert(later, Some(fused));
                break;
            }
            names.clear();
            next.names(&mut names);
            if names.contains(&t) || writes(next, index) || next.op.ends_block() {
                break;
            }
        }
    }
    edits
}

/// `cvt.{s64,u64}.{s32,u32} %t, %i`, unguarded: `%t`, `%i` and whether `%i` is signed.
fn widening<'a>(inst: &ast::Instruction<'a>) -> Option<(&'a str, &'a str, bool)> {
    let Op::Cvt(c) = inst.op else { return None };
    let plain = !c.sat && !c.ftz && !c.relu && c.rounding.is_none() && inst.guard.is_none();
    if !plain || !matches!(c.dst, Type::S64 | Type::U64) || !matches!(c.src, Type::S32 | Type::U32) {
        return None;
    }
    match inst.operands.as_slice() {
        [ast::Operand { kind: OperandKind::Name(t), .. }, ast::Operand { kind: OperandKind::Name(i), .. }] => Some((t, i, c.src == Type::S32)),
        _ => None,
    }
}

/// `mad.lo.{s64,u64} %d, %t, k, %c` (or `k, %t`), unguarded, with `k` a literal that fits 32
/// bits of the index's signedness and `%c` not `%t`: the fused `mad.wide`.
fn fuse<'a>(inst: &ast::Instruction<'a>, t: &str, index: &'a str, signed: bool) -> Option<ast::Instruction<'a>> {
    let Op::Mad(m) = inst.op else { return None };
    if m.mode != Some(MulMode::Lo) || m.cc || m.sat || !matches!(m.ty, Type::S64 | Type::U64) || inst.guard.is_some() {
        return None;
    }
    let [d, x, y, c] = inst.operands.as_slice() else { return None };
    let is_t = |o: &ast::Operand<'_>| o.kind == OperandKind::Name(t);
    let factor = match (is_t(x), is_t(y)) {
        (true, false) => y,
        (false, true) => x,
        _ => return None,
    };
    let fits = match factor.kind {
        OperandKind::Immediate(Immediate::Int(k)) if signed => i32::try_from(k).is_ok(),
        OperandKind::Immediate(Immediate::Int(k)) => u32::try_from(k).is_ok(),
        _ => false,
    };
    if !fits || is_t(c) {
        return None;
    }
    let ty = if signed { Type::S32 } else { Type::U32 };
    let index = ast::Operand { kind: OperandKind::Name(index), span: x.span };
    Some(ast::Instruction {
        op: Op::Mad(Mul { ty, mode: Some(MulMode::Wide), ..m }),
        operands: vec![d.clone(), index, factor.clone(), c.clone()],
        ..inst.clone()
    })
}

/// Whether `inst` may write `name`: in its first operand ([`Op::writes_first_operand`]), or
/// anywhere in a call, whose results are counted as written.
fn writes(inst: &ast::Instruction<'_>, name: &str) -> bool {
    let mut names = Vec::new();
    match inst.op {
        Op::Call(_) => inst.operands.iter().for_each(|o| o.names(&mut names)),
        op if op.writes_first_operand() => {
            inst.operands.iter().take(1).filter(|o| !matches!(o.kind, OperandKind::Address(_))).for_each(|o| o.names(&mut names))
        }
        _ => {}
    }
    names.contains(&name)
}
