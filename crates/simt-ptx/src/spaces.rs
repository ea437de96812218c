//! Address-space inference: which state space each register's address points into, so a
//! generic `ld`, `st` or `atom` (clang's -O0 output uses nothing else) whose space is known
//! becomes a load, store or atomic in that space: the fast path beside `.GENERIC.E`, which
//! finds each lane's space from its address's window as it runs.
//!
//! PTX code builds generic addresses with `cvta` from an address of one space and uses them
//! in that space. This follows every register's value, flow-insensitively and to a
//! fixpoint, from where addresses are made (`cvta`, a variable's name) through moves,
//! additions, conversions and selections, and through 64-bit stack slots (`st.u64
//! [%SP+8]` then `ld.u64 [%SP+8]`, the -O0 pattern for a pointer). A register that may
//! point into more than one space, or whose origin is unknown (a pointer loaded from
//! memory), has no single space: a 64-bit one goes through `.GENERIC.E`, a 32-bit one
//! (which cannot hold a window) is refused.

// Keys are short names from the source: FxHash beats SipHash several-fold here.
use rustc_hash::FxHashMap as HashMap;

use crate::ast::{self, Address, OperandKind};
use crate::ops::{Op, StateSpace};

/// A set of state spaces, plus "unknown".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spaces(u8);

impl Spaces {
    const UNKNOWN: Spaces = Spaces(1 << 7);

    fn of(space: StateSpace) -> Spaces {
        match space {
            // Module `.const` variables live in global buffers (`Entry::module_variable`).
            StateSpace::Global | StateSpace::Const => Spaces(1),
            StateSpace::Shared => Spaces(2),
            StateSpace::Local => Spaces(4),
            _ => Spaces::UNKNOWN,
        }
    }

    fn union(self, other: Spaces) -> Spaces {
        Spaces(self.0 | other.0)
    }

    /// The one space these addresses point into, if there is exactly one.
    pub(crate) fn single(self) -> Option<StateSpace> {
        match self.0 {
            1 => Some(StateSpace::Global),
            2 => Some(StateSpace::Shared),
            4 => Some(StateSpace::Local),
            _ => None,
        }
    }

    /// The spaces, for messages.
    pub(crate) fn describe(self) -> String {
        let names: Vec<&str> = [(1, ".global"), (2, ".shared"), (4, ".local"), (1 << 7, "an unknown space")]
            .iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|&(_, name)| name)
            .collect();
        if names.is_empty() { "no known space (it is not made from an address)".into() } else { names.join(" or ") }
    }
}

/// A memory slot a value may be kept in and read back from: a register base and a constant
/// offset (`[%SP+8]`), or a LOCAL address (`[param0+0]`: a call's `.param` variables, and a
/// copy's formal parameters bound to them, name the same place).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Slot<'a> {
    Reg(&'a str, i64),
    Local(i64),
}

/// The slot an address names, if it names one.
pub(crate) fn slot<'a>(address: Option<&ast::Operand<'a>>, symbol: &impl Fn(&str) -> Option<(StateSpace, u32)>) -> Option<Slot<'a>> {
    match address.map(|o| &o.kind) {
        Some(OperandKind::Address(Address { base: Some(b), offset })) => match symbol(b.value) {
            Some((StateSpace::Local, at)) => Some(Slot::Local(i64::from(at) + offset)),
            Some(_) => None,
            None => Some(Slot::Reg(b.value, *offset)),
        },
        _ => None,
    }
}

/// The spaces each register's address may point into.
pub(crate) fn infer<'a>(insts: &[&ast::Instruction<'a>], symbol: impl Fn(&str) -> Option<(StateSpace, u32)>) -> HashMap<&'a str, Spaces> {
    let symbol_space = |n: &str| symbol(n).map(|(space, _)| space);
    let mut regs: HashMap<&'a str, Spaces> = HashMap::default();
    let mut slots: HashMap<Slot<'a>, Spaces> = HashMap::default();
    // Values stored through a local address that is not a constant slot.
    let mut anywhere_local = Spaces::default();
    let name = |o: Option<&ast::Operand<'a>>| match o.map(|o| &o.kind) {
        Some(OperandKind::Name(n)) => Some(*n),
        _ => None,
    };
    // Only these carry addresses; the fixpoint passes over nothing else.
    let insts: Vec<&ast::Instruction<'a>> = insts
        .iter()
        .filter(|i| {
            matches!(i.op, Op::Cvta(_) | Op::Mov(_) | Op::Cvt(_) | Op::Add(_) | Op::Sub(_) | Op::Or(_) | Op::And(_) | Op::Selp(_) | Op::Ld(_) | Op::St(_))
        })
        .copied()
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        let get = |regs: &HashMap<&'a str, Spaces>, o: Option<&ast::Operand<'a>>| -> Spaces {
            match o.map(|o| &o.kind) {
                Some(OperandKind::Name(n)) => regs.get(n).copied().or_else(|| symbol_space(n).map(Spaces::of)).unwrap_or_default(),
                _ => Spaces::default(),
            }
        };
        for inst in &insts {
            let ops = &inst.operands;
            let value = match inst.op {
                Op::Cvta(c) => Spaces::of(c.space),
                Op::Mov(_) | Op::Cvt(_) => get(&regs, ops.get(1)),
                // `or` and `and` keep a pointer's space when they only touch its low bits
                // (-O0 addresses the fields of a stack `float4` as `%SP + 32 | 8`).
                Op::Add(_) | Op::Sub(_) | Op::Or(_) | Op::And(_) => get(&regs, ops.get(1)).union(get(&regs, ops.get(2))),
                Op::Selp(_) => get(&regs, ops.get(1)).union(get(&regs, ops.get(2))),
                Op::Ld(m) if m.ty.bits() == 64 => {
                    let space = param_space(m.space, ops.get(1), &symbol_space).or_else(|| access_space(&regs, ops.get(1), &symbol_space));
                    match (space, slot(ops.get(1), &symbol)) {
                        (Some(StateSpace::Local), Some(s)) => slots.get(&s).copied().unwrap_or_default().union(anywhere_local),
                        (Some(StateSpace::Local), None) => slots.values().fold(anywhere_local, |a, &b| a.union(b)),
                        // A kernel's pointer parameters come from the host: global buffers.
                        (Some(StateSpace::Param), _) => Spaces::of(StateSpace::Global),
                        _ => Spaces::UNKNOWN,
                    }
                }
                Op::St(m) if m.ty.bits() == 64 => {
                    let stored = get(&regs, ops.get(1));
                    let space = param_space(m.space, ops.first(), &symbol_space).or_else(|| access_space(&regs, ops.first(), &symbol_space));
                    if space == Some(StateSpace::Local) && stored != Spaces::default() {
                        let target = match slot(ops.first(), &symbol) {
                            Some(s) => slots.entry(s).or_default(),
                            None => &mut anywhere_local,
                        };
                        if target.union(stored) != *target {
                            *target = target.union(stored);
                            changed = true;
                        }
                    }
                    continue;
                }
                _ => continue,
            };
            if let Some(d) = name(ops.first()) {
                let entry = regs.entry(d).or_default();
                if entry.union(value) != *entry {
                    *entry = entry.union(value);
                    changed = true;
                }
            }
        }
    }
    regs
}

/// The space of an access's address: its state space modifier, else what the base points into.
pub(crate) fn access_space(
    regs: &HashMap<&str, Spaces>,
    address: Option<&ast::Operand<'_>>,
    symbol_space: &impl Fn(&str) -> Option<StateSpace>,
) -> Option<StateSpace> {
    match address.map(|o| &o.kind) {
        Some(OperandKind::Address(Address { base: Some(b), .. })) => regs.get(b.value).copied().and_then(Spaces::single).or_else(|| symbol_space(b.value)),
        _ => None,
    }
}

/// An access's state space, where a `.param` variable's is where it lives: a call's (LOCAL
/// memory) and bytes passed to the kernel by value (a GLOBAL buffer).
pub(crate) fn param_space(
    space: Option<StateSpace>,
    address: Option<&ast::Operand<'_>>,
    symbol_space: &impl Fn(&str) -> Option<StateSpace>,
) -> Option<StateSpace> {
    match (space, address.map(|o| &o.kind)) {
        (Some(StateSpace::Param), Some(OperandKind::Address(Address { base: Some(b), .. }))) => match symbol_space(b.value) {
            Some(lives @ (StateSpace::Local | StateSpace::Global)) => Some(lives),
            _ => space,
        },
        _ => space,
    }
}

/// What the constant inference knows of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    /// Every definition seen so far gives this value.
    Const(i64),
    /// Definitions disagree, or one is not a constant.
    Varies,
}

fn join(a: Option<Known>, b: Known) -> Known {
    match (a, b) {
        (None, b) => b,
        (Some(Known::Const(x)), Known::Const(y)) if x == y => Known::Const(x),
        _ => Known::Varies,
    }
}

/// `op` on two constants where it is 32-bit integer arithmetic the constant inference follows
/// (`cuda_fp16.h` computes a shuffle's clamp as `((WARP_SZ << 8) - 8192) | 31`), as PTX
/// computes it in 32 bits; `None` for any other instruction.
fn fold(op: Op, x: i64, y: i64) -> Option<i64> {
    let word = |ty: crate::ops::Type| ty.is_integer() && ty.bits() == 32;
    let (x, y) = (x as u32, y as u32);
    let value = match op {
        Op::Add(a) if word(a.ty) && !a.cc && !a.sat => x.wrapping_add(y),
        Op::Sub(a) if word(a.ty) && !a.cc && !a.sat => x.wrapping_sub(y),
        Op::Mul(m) if word(m.ty) && m.mode == Some(crate::ops::MulMode::Lo) && !m.cc => x.wrapping_mul(y),
        // PTX clamps a shift past the width: everything shifts out.
        Op::Shl(t) if t.ty.bits() == 32 => x.checked_shl(y).unwrap_or(0),
        Op::And(t) if t.ty.bits() == 32 => x & y,
        Op::Or(t) if t.ty.bits() == 32 => x | y,
        Op::Xor(t) if t.ty.bits() == 32 => x ^ y,
        _ => return None,
    };
    Some(i64::from(value))
}

/// The registers that hold one constant wherever they are read: every definition moves
/// that literal, directly or through a 32-bit stack slot (-O0 keeps `0xffffffff`, the
/// member mask of `__shfl_sync`, in one). Flow-insensitive, so it only ever says
/// "constant" when that holds on every path.
pub(crate) fn constants<'a>(insts: &[&ast::Instruction<'a>], spaces: &HashMap<&'a str, Spaces>) -> HashMap<&'a str, i64> {
    let mut regs: HashMap<&'a str, Known> = HashMap::default();
    let mut slots: HashMap<Slot<'a>, Known> = HashMap::default();
    // Slots are the stack pointer's constant offsets. Any other store that may reach local
    // memory (through an address-taken local array) may overwrite a slot: then no slot is
    // trusted.
    let stack_slot = |o: Option<&ast::Operand<'a>>| slot(o, &|_| None).filter(|s| matches!(s, Slot::Reg(base, _) if base.starts_with("%SP")));
    let unknown_store = insts.iter().any(|i| {
        let Op::St(m) = i.op else { return false };
        let base_spaces = match i.operands.first().map(|o| &o.kind) {
            Some(OperandKind::Address(Address { base: Some(b), .. })) => spaces.get(b.value).copied().unwrap_or(Spaces::UNKNOWN),
            _ => Spaces::UNKNOWN,
        };
        let may_be_local = match m.space {
            Some(space) => space == StateSpace::Local,
            None => base_spaces.0 & (Spaces::of(StateSpace::Local).0 | Spaces::UNKNOWN.0) != 0,
        };
        may_be_local && stack_slot(i.operands.first()).is_none()
    });
    let value_of = |regs: &HashMap<&'a str, Known>, o: Option<&ast::Operand<'a>>| match o.map(|o| &o.kind) {
        Some(OperandKind::Immediate(ast::Immediate::Int(v))) => Known::Const(*v),
        Some(OperandKind::Name(n)) => regs.get(n).copied().unwrap_or(Known::Varies),
        _ => Known::Varies,
    };
    // Every other instruction that writes a register makes it vary, once and for all; the
    // fixpoint passes over moves, loads, stores and the 32-bit arithmetic `fold` computes.
    let followed = |op: Op| matches!(op, Op::Mov(_) | Op::Ld(_) | Op::St(_)) || fold(op, 0, 0).is_some();
    for inst in insts {
        if !followed(inst.op)
            && !matches!(inst.op, Op::Red(_) | Op::Bra(_) | Op::Call(_))
            && let Some(OperandKind::Name(d)) = inst.operands.first().map(|o| &o.kind)
        {
            regs.insert(d, Known::Varies);
        }
    }
    let insts: Vec<&ast::Instruction<'a>> = insts.iter().filter(|i| followed(i.op)).copied().collect();
    let mut changed = true;
    while changed {
        changed = false;
        for inst in &insts {
            let ops = &inst.operands;
            if let Op::St(m) = inst.op {
                if m.ty.bits() == 32
                    && let Some(s) = stack_slot(ops.first())
                {
                    let joined = join(slots.get(&s).copied(), value_of(&regs, ops.get(1)));
                    if slots.insert(s, joined) != Some(joined) {
                        changed = true;
                    }
                }
                continue;
            }
            let Some(OperandKind::Name(d)) = ops.first().map(|o| &o.kind) else { continue };
            let value = match inst.op {
                Op::Mov(_) => value_of(&regs, ops.get(1)),
                op @ (Op::Add(_) | Op::Sub(_) | Op::Mul(_) | Op::Shl(_) | Op::And(_) | Op::Or(_) | Op::Xor(_)) => {
                    match (value_of(&regs, ops.get(1)), value_of(&regs, ops.get(2))) {
                        (Known::Const(x), Known::Const(y)) => fold(op, x, y).map_or(Known::Varies, Known::Const),
                        _ => Known::Varies,
                    }
                }
                Op::Ld(m) if m.ty.bits() == 32 && !unknown_store => stack_slot(ops.get(1)).and_then(|s| slots.get(&s).copied()).unwrap_or(Known::Varies),
                _ => Known::Varies,
            };
            let joined = join(regs.get(d).copied(), value);
            if regs.insert(d, joined) != Some(joined) {
                changed = true;
            }
        }
    }
    regs.into_iter().filter_map(|(name, k)| if let Known::Const(v) = k { Some((name, v)) } else { None }).collect()
}
