//! Words taken apart only to be put back together. Triton keeps each `ldmatrix` result
//! as two `.b16` halves (`mov.b32 {%lo, %hi}, %w`) across its pipelined loop and packs them
//! again for `mma` (`mov.b32 %x, {%lo, %hi}`); ptxas keeps the word. Where a pair of halves
//! is only ever written together by such an unpack and only ever read together by such a
//! pack, `%lo` holds the whole word instead: the unpack becomes `mov.b32 %lo, %w` and the
//! pack `mov.b32 %x, %lo`, copies the register allocator can make vanish, and `%hi` is no
//! longer mentioned. Each pack reads what the last unpack wrote, so it gets the same word.
//!
//! The halves may also pass through copies (`mov.b16 %x, %lo; mov.b16 %y, %hi`, the loop's
//! phi copies in Triton's fp8 matmuls for sm_80 and sm_89, which carry the halves of each
//! widened word to the next iteration). In a run of such copies the low half's copy becomes
//! a `mov.b32` of the word and the high half's is left out, where the run leaves every pair
//! it writes holding, as a word, the two halves the copies give it; else the pairs it
//! mentions stay halves.
use rustc_hash::FxHashMap as HashMap;

use super::{Item, mention_counts, names_written};
use crate::ast::{self, OperandKind};
use crate::ops::{Op, Prmt, Type, Typed};

/// How a register is mentioned: as the low or high half of unpacks and packs (with its
/// partner), or any other way.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role<'a> {
    Low { high: &'a str },
    High { low: &'a str },
    Other,
}

/// The two halves of a `mov` of type `ty` between a register and a vector of two names.
fn halves<'a>(inst: &ast::Instruction<'a>, vector: usize, ty: Type) -> Option<(&'a str, &'a str)> {
    if !matches!(inst.op, Op::Mov(t) if t.ty == ty) || inst.operands.len() != 2 {
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
    [0, 1].into_iter().find_map(|vector| halves(inst, vector, Type::B32).map(|(lo, hi)| (vector, lo, hi)))
}

/// Pairs built from two loaded words only to be unpacked again: Triton's f32 matmul for
/// sm_120a loads each pair of B's values into 64-bit registers (`ld.shared.b32 %lo64, [a];
/// ld.shared.b32 %hi64, [a + 4]`, zero-extended), packs them (`shl.b64 %s, %hi64, 32; or.b64
/// %p, %s, %lo64`) and later unpacks the pair for its FMAs (`mov.b64 {%x, %y}, %p`); ptxas
/// loads the two words into `%x`'s and `%y`'s registers. Where each register between is
/// mentioned only by the chain, the chain lies in one block, and `%x` and `%y` are not
/// mentioned between the loads and the unpack, the loads load `%x` and `%y` and the rest of
/// the chain goes: five to seven instructions a pair fewer, in the loop.
pub(super) fn pairs_of_loaded_words<'a>(items: &[Item<'_, 'a>]) -> HashMap<usize, Option<ast::Instruction<'a>>> {
    let mentions = mention_counts(items);
    let once = |name: &str| mentions.get(name) == Some(&2);
    // Where each register is written, within the current block (a label starts a new one).
    let mut written: HashMap<&str, usize> = HashMap::default();
    let mut block_start = 0;
    let mut edits = HashMap::default();
    let mut names = Vec::new();
    let name_of = |o: &ast::Operand<'a>| match o.kind {
        OperandKind::Name(n) => Some(n),
        _ => None,
    };
    let inst_at = |at: usize| match items[at] {
        Item::Inst(inst) => Some(inst),
        Item::Label(..) => None,
    };
    // The unguarded `ld` of a 32-bit word into 64-bit `name` (zero-extended), if `name`'s writer is one.
    let loaded_word = |at: usize| -> Option<&ast::Instruction<'a>> {
        let inst = inst_at(at)?;
        let Op::Ld(m) = inst.op else { return None };
        (matches!(m.ty, Type::B32 | Type::U32) && m.vector.is_none() && inst.guard.is_none()).then_some(inst)
    };
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(inst) = item else {
            written.clear();
            block_start = at + 1;
            continue;
        };
        if let Some((x, y)) = halves(inst, 0, Type::B64)
            && let Some(packed) = name_of(&inst.operands[1]).filter(|&p| once(p) && x != y && inst.guard.is_none())
            && let Some(&or_at) = written.get(packed)
            && let Some(or) = inst_at(or_at).filter(|i| matches!(i.op, Op::Or(t) if t.ty == Type::B64) && i.guard.is_none())
            && let [_, first, second] = or.operands.as_slice()
            && let (Some(first), Some(second)) = (name_of(first), name_of(second))
            && once(first)
            && once(second)
        {
            // The shifted word is the high one: `or %p, %s, %lo` or `or %p, %lo, %s`.
            let chain = [(first, second), (second, first)].into_iter().find_map(|(shifted, low)| {
                let shl = inst_at(*written.get(shifted)?).filter(|i| matches!(i.op, Op::Shl(t) if t.ty == Type::B64) && i.guard.is_none())?;
                let [_, high, amount] = shl.operands.as_slice() else { return None };
                if !matches!(amount.kind, OperandKind::Immediate(ast::Immediate::Int(32))) {
                    return None;
                }
                let high = name_of(high).filter(|&h| once(h))?;
                Some((*written.get(shifted)?, *written.get(high)?, *written.get(low)?))
            });
            if let Some((shl_at, high_at, low_at)) = chain
                && let (Some(high_load), Some(low_load)) = (loaded_word(high_at), loaded_word(low_at))
            {
                // `%x` and `%y` then live from the first load: nothing between may name them,
                // or leave for where they might be read.
                let first_load = high_at.min(low_at);
                let untouched = (first_load + 1..at).filter_map(inst_at).all(|between| {
                    names.clear();
                    between.operands.iter().for_each(|o| o.names(&mut names));
                    let leaves = matches!(between.op, Op::Bra(_) | Op::Brx(_) | Op::Ret(_) | Op::Exit | Op::Trap);
                    !leaves && !names.contains(&x) && !names.contains(&y)
                });
                if untouched && first_load >= block_start {
                    let load_into = |load: &ast::Instruction<'a>, name: &'a str| {
                        let mut into = load.clone();
                        into.operands[0] = ast::Operand { kind: OperandKind::Name(name), span: load.operands[0].span };
                        into
                    };
                    edits.insert(low_at, Some(load_into(low_load, x)));
                    edits.insert(high_at, Some(load_into(high_load, y)));
                    for gone in [shl_at, or_at, at] {
                        edits.insert(gone, None);
                    }
                }
            }
        }
        names.clear();
        names_written(inst, &mut names);
        names.iter().for_each(|&n| _ = written.insert(n, at));
    }
    edits
}

/// Narrowings that keep every bit: Triton's fp8 matmul for sm_89 takes each byte of an
/// `ldmatrix` word apart (`prmt.b32 %b, %w, 0, 0x7770`, the byte zero-extended) and narrows
/// it to 16 bits (`cvt.u16.u32 %h, %b`), which is an `AND` of bits already clear. Where the
/// word's only writer is an unguarded `prmt.b32` with a zero `b` whose selector fills the
/// upper two bytes from `b` (nibbles 4 to 7), the `cvt` becomes `mov.b32 %h, %b`, a copy
/// the register allocator mostly removes.
pub(super) fn narrowings_of_small_words<'a>(items: &[Item<'_, 'a>]) -> HashMap<usize, Option<ast::Instruction<'a>>> {
    // How many instructions write each name, and the last of them.
    let mut writers: HashMap<&str, (u32, &ast::Instruction<'a>)> = HashMap::default();
    let mut names = Vec::new();
    for item in items {
        let Item::Inst(inst) = item else { continue };
        names.clear();
        names_written(inst, &mut names);
        for &n in &names {
            writers.entry(n).and_modify(|(count, last)| (*count, *last) = (*count + 1, inst)).or_insert((1, inst));
        }
    }
    let small = |name: &str| match writers.get(name) {
        Some(&(1, inst)) => match (inst.op, inst.operands.as_slice()) {
            (Op::Prmt(Prmt { mode: None }), [_, _, b, selector]) if inst.guard.is_none() => {
                let zero = matches!(b.kind, OperandKind::Immediate(ast::Immediate::Int(0)));
                let upper_from_b = matches!(selector.kind, OperandKind::Immediate(ast::Immediate::Int(sel))
                    if [(sel >> 8) & 0xF, (sel >> 12) & 0xF].iter().all(|nibble| (4..8).contains(nibble)));
                zero && upper_from_b
            }
            _ => false,
        },
        _ => false,
    };
    let mut edits = HashMap::default();
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(inst) = item else { continue };
        let Op::Cvt(c) = inst.op else { continue };
        let plain = !c.sat && !c.relu && !c.ftz && !c.satfinite && c.rounding.is_none();
        if plain
            && matches!(c.dst, Type::U16 | Type::B16 | Type::S16)
            && matches!(c.src, Type::U32 | Type::B32 | Type::S32)
            && let [_, ast::Operand { kind: OperandKind::Name(word), .. }] = inst.operands.as_slice()
            && small(word)
        {
            edits.insert(at, Some(word_copy(inst)));
        }
    }
    edits
}

/// Pairs of words packed only to be unpacked by the next instruction (`mov.b64 %p, {%a, %b};
/// mov.b64 {%c, %d}, %p`, as Triton hands tensor memory's words to `cvt.rn.f16x2.f32` on
/// sm_100a): the pack becomes `mov.b32 %c, %a` and the unpack `mov.b32 %d, %b`, copies the
/// register allocator can make vanish, and `%p`, mentioned nowhere else, goes.
pub(super) fn pairs_unpacked_at_once<'a>(items: &[Item<'_, 'a>]) -> HashMap<usize, Option<ast::Instruction<'a>>> {
    let mentions = mention_counts(items);
    let copy = |inst: &ast::Instruction<'a>, to: &'a str, from: &'a str| {
        let operand = |name| ast::Operand { kind: OperandKind::Name(name), span: inst.span };
        ast::Instruction { operands: vec![operand(to), operand(from)], ..word_copy(inst) }
    };
    let mut edits = HashMap::default();
    for (at, two) in items.windows(2).enumerate() {
        let [Item::Inst(pack), Item::Inst(unpack)] = two else { continue };
        let (Some((a, b)), Some((c, d))) = (halves(pack, 1, Type::B64), halves(unpack, 0, Type::B64)) else { continue };
        let (OperandKind::Name(packed), OperandKind::Name(unpacked)) = (&pack.operands[0].kind, &unpack.operands[1].kind) else { continue };
        // `%c` is written before `%b` is read.
        if packed != unpacked || mentions.get(packed) != Some(&2) || pack.guard.is_some() || unpack.guard.is_some() || c == b {
            continue;
        }
        edits.insert(at, Some(copy(pack, c, a)));
        edits.insert(at + 1, Some(copy(unpack, d, b)));
    }
    edits
}

/// `inst`, its operands as they are, as a `mov.b32`: a word copy.
fn word_copy<'a>(inst: &ast::Instruction<'a>) -> ast::Instruction<'a> {
    ast::Instruction { op: Op::Mov(Typed { ty: Type::B32 }), ..inst.clone() }
}

/// A `mov` of one 16-bit register to another, unguarded: `(to, from)`.
fn half_copy<'a>(inst: &ast::Instruction<'a>) -> Option<(&'a str, &'a str)> {
    if !matches!(inst.op, Op::Mov(t) if t.ty.bits() == 16) || inst.guard.is_some() || inst.operands.len() != 2 {
        return None;
    }
    match (&inst.operands[0].kind, &inst.operands[1].kind) {
        (OperandKind::Name(to), OperandKind::Name(from)) if to != from => Some((to, from)),
        _ => None,
    }
}

/// A run of consecutive copies: each one's `to` and `from`.
type Run<'a> = Vec<(&'a str, &'a str)>;

/// The pair `name` is a half of, `(low, high)`, where both halves travel only together.
fn pair_of<'a>(roles: &HashMap<&'a str, Role<'a>>, name: &'a str) -> Option<(&'a str, &'a str)> {
    let (low, high) = match roles.get(name)? {
        Role::Low { high } => (name, *high),
        Role::High { low } => (*low, name),
        Role::Other => return None,
    };
    (roles.get(low) == Some(&Role::Low { high }) && roles.get(high) == Some(&Role::High { low })).then_some((low, high))
}

/// The pairs that `run`, its copies all between halves of pairs of the same kind, leaves not
/// holding, in the low half's word, the values its copies give the two halves. Every pair
/// holds its own two halves as the run starts.
fn broken_words<'a>(run: &Run<'a>, roles: &HashMap<&'a str, Role<'a>>) -> Vec<&'a str> {
    // By the half whose value at the run's start it holds: each half as copied, each low
    // half's word as copied.
    let mut value: HashMap<&str, &str> = HashMap::default();
    let mut word: HashMap<&str, (&str, &str)> = HashMap::default();
    for &(to, from) in run {
        value.insert(to, value.get(from).copied().unwrap_or(from));
        if let Some((low, high)) = pair_of(roles, from).filter(|&(low, _)| low == from) {
            word.insert(to, word.get(low).copied().unwrap_or((low, high)));
        }
    }
    let value_of = |half| value.get(half).copied().unwrap_or(half);
    run.iter()
        .filter_map(|&(to, _)| pair_of(roles, to))
        .filter(|&(low, high)| word.get(low).copied().unwrap_or((low, high)) != (value_of(low), value_of(high)))
        .map(|(low, _)| low)
        .collect()
}

/// For each instruction of `items` to be read otherwise, its replacement (`None`: left
/// out): the unpacks, packs and copies of the pairs of halves that only ever travel together.
pub(super) fn whole_words<'a>(items: &[Item<'_, 'a>]) -> HashMap<usize, Option<ast::Instruction<'a>>> {
    let mut roles: HashMap<&'a str, Role<'a>> = HashMap::default();
    let mut note = |name: &'a str, role: Role<'a>| {
        let seen = roles.entry(name).or_insert(role);
        if *seen != role {
            *seen = Role::Other;
        }
    };
    let mut names = Vec::new();
    let mut runs: Vec<Run<'a>> = vec![Vec::new()];
    for item in items {
        let Item::Inst(inst) = item else {
            runs.push(Vec::new());
            continue;
        };
        if let Some((to, from)) = half_copy(inst) {
            runs.last_mut().expect("a run is open").push((to, from));
            continue;
        }
        if !runs.last().expect("a run is open").is_empty() {
            runs.push(Vec::new());
        }
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
    // A copy not between halves of the same kind leaves the pairs it mentions halves, as
    // does a run of copies a pair whose word it breaks; which may spoil other copies.
    let spoil = |roles: &mut HashMap<&'a str, Role<'a>>, name: &'a str| {
        let halves = pair_of(roles, name).map_or([name, name], |(low, high)| [low, high]);
        // Both halves, whether or not the first changed.
        halves.map(|half| roles.insert(half, Role::Other) != Some(Role::Other)).contains(&true)
    };
    let same_kind = |roles: &HashMap<&'a str, Role<'a>>, to: &'a str, from: &'a str| match (pair_of(roles, to), pair_of(roles, from)) {
        (Some((low, _)), Some((from_low, _))) => (low == to) == (from_low == from),
        _ => false,
    };
    // Spoiling settles in a round or two on compilers' code; a kernel that keeps spoiling
    // past `MAX_ROUNDS` keeps every copied pair halves, so the work stays linear.
    const MAX_ROUNDS: usize = 8;
    for round in 1.. {
        let mut changed = false;
        for run in &runs {
            for &(to, from) in run {
                if !same_kind(&roles, to, from) {
                    changed |= spoil(&mut roles, to) | spoil(&mut roles, from);
                }
            }
            let paired: Run<'a> = run.iter().copied().filter(|&(to, _)| pair_of(&roles, to).is_some()).collect();
            for low in broken_words(&paired, &roles) {
                changed |= spoil(&mut roles, low);
            }
        }
        if !changed {
            break;
        }
        if round == MAX_ROUNDS {
            for &(to, from) in runs.iter().flatten() {
                spoil(&mut roles, to);
                spoil(&mut roles, from);
            }
            break;
        }
    }
    let mut replaced = HashMap::default();
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(inst) = item else { continue };
        if let Some((vector, lo, hi)) = unpack_or_pack(inst) {
            if pair_of(&roles, lo) == Some((lo, hi)) {
                let mut whole = (*inst).clone();
                let span = whole.operands[vector].span;
                whole.operands[vector] = ast::Operand { kind: OperandKind::Name(lo), span };
                replaced.insert(at, Some(whole));
            }
        } else if let Some((to, _)) = half_copy(inst)
            && let Some((low, _)) = pair_of(&roles, to)
        {
            let word = (low == to).then(|| word_copy(inst));
            replaced.insert(at, word);
        }
    }
    replaced
}
