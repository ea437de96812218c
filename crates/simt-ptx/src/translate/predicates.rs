//! Comparisons combined with the one piece of predicate logic that reads them. Triton's
//! sorts (`tl.sort`, a bitonic network) compare and then combine each comparison once with
//! another predicate (`setp.gt.f32 %p24, %r45, %r47; ... xor.pred %p27, %p26, %p24`); ptxas
//! makes each pair one `FSETP` with its Boolean operation, as PTX's own
//! `setp.gt.xor.f32 %p27, %r45, %r47, %p26` is. Where a `setp` without one has its predicate
//! read only by one unguarded `and`, `or` or `xor.pred` below it in its block, and nothing
//! between writes what it compares, the comparison moves into that place with the operation:
//! an instruction fewer, and a predicate fewer live from the one place to the other (the
//! network's predicates outnumber simt's seven, and spill to registers without this).

use rustc_hash::FxHashMap as HashMap;

use super::{Item, mention_counts, names_written};
use crate::ast::{self, OperandKind};
use crate::ops::{BoolOp, Op, Setp, Type};

/// For each `setp` fused into the predicate logic that reads it, nothing (it is left out),
/// and for that logic, the `setp` with the operation in its place.
pub(super) fn fused_comparisons<'a>(items: &[Item<'_, 'a>]) -> HashMap<usize, Option<ast::Instruction<'a>>> {
    let mentions = mention_counts(items);
    let mut names = Vec::new();
    // Each comparison waiting for its reader, by the predicate it writes: its place, itself.
    let mut waiting: HashMap<&str, (usize, &ast::Instruction<'a>, Setp)> = HashMap::default();
    let mut edits = HashMap::default();
    let mut compared = Vec::new();
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(inst) = item else {
            waiting.clear();
            continue;
        };
        if let Some((combine, p, q)) = logic(inst) {
            let fused = [(p, q), (q, p)].into_iter().find_map(|(read, other)| match read.kind {
                OperandKind::Name(read) => waiting.remove(read).map(|setp| (setp, other)),
                _ => None,
            });
            if let Some(((from, setp, s), other)) = fused {
                let mut operands = setp.operands.clone();
                operands[0] = inst.operands[0].clone();
                operands.push(other.clone());
                edits.insert(from, None);
                edits.insert(at, Some(ast::Instruction { op: Op::Setp(Setp { combine: Some(combine), ..s }), operands, ..setp.clone() }));
            }
        }
        // A comparison read by anything else waits no more: its one reader has gone by.
        names.clear();
        inst.operands.iter().for_each(|o| o.names(&mut names));
        names.extend(inst.guard.map(|g| g.predicate));
        names.iter().for_each(|n| _ = waiting.remove(n));
        // A write to what a waiting comparison compares, or to its predicate, ends its wait.
        names.clear();
        names_written(inst, &mut names);
        if !names.is_empty() {
            waiting.retain(|_, (_, setp, _)| {
                compared.clear();
                setp.operands.iter().for_each(|o| o.names(&mut compared));
                !compared.iter().any(|n| names.contains(n))
            });
        }
        if let Some((p, s)) = lone_comparison(inst).filter(|(p, _)| mentions.get(p) == Some(&2)) {
            waiting.insert(p, (at, inst, s));
        }
    }
    edits
}

/// An unguarded `and`, `or` or `xor.pred d, p, q`: the operation and its two sources.
fn logic<'t, 'a>(inst: &'t ast::Instruction<'a>) -> Option<(BoolOp, &'t ast::Operand<'a>, &'t ast::Operand<'a>)> {
    let combine = match inst.op {
        Op::And(t) if t.ty == Type::Pred => BoolOp::And,
        Op::Or(t) if t.ty == Type::Pred => BoolOp::Or,
        Op::Xor(t) if t.ty == Type::Pred => BoolOp::Xor,
        _ => return None,
    };
    match inst.operands.as_slice() {
        [_, p, q] if inst.guard.is_none() => Some((combine, p, q)),
        _ => None,
    }
}

/// The predicate an unguarded `setp` without a Boolean operation writes alone, and the `setp`.
fn lone_comparison<'a>(inst: &ast::Instruction<'a>) -> Option<(&'a str, Setp)> {
    match (inst.op, inst.operands.as_slice()) {
        (Op::Setp(s @ Setp { combine: None, .. }), [ast::Operand { kind: OperandKind::Name(p), .. }, _, _]) if inst.guard.is_none() => Some((p, s)),
        _ => None,
    }
}
