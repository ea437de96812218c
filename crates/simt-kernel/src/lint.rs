//! Divergence lints: what a kernel's code says about how its warps will run,
//! found before it runs.
//!
//! Four lints, each named as `-W`/`-A`/`-D` take it:
//! - `loop_divergence`: a branch that splits a warp inside a loop, with both
//!   sides staying in the loop, whose reconvergence point lies after the loop:
//!   each side then runs the rest of the loop on its own (the Collatz pattern).
//! - `divergent_barrier`: a `BAR.SYNC` that waits for every thread, reachable
//!   between a divergent branch and its reconvergence point (a counted one,
//!   `BAR.SYNC a, b`, is for warps in different roles: it does not count).
//! - `unreachable_code`: instructions no path from the entry reaches.
//! - `uninit_read`: a register or predicate read on some path before anything
//!   wrote it (the contract zero-fills them, which hides such bugs).
//!
//! A branch counts as divergent only when its predicate may differ between the
//! threads of a block: a value is *varying* when it comes from the thread or
//! lane index, the clock, an atomic, a collective, a tensor-core fragment or
//! LOCAL memory, or is computed (or guarded) by anything varying; a loop
//! counter or a block index is uniform. The analysis is flow-insensitive, so it
//! never calls a branch uniform that may diverge through data, but it does not
//! see values made varying only by being set differently on divergent paths.
//!
//! Cost: the control-flow graph, its strongly connected components, the
//! uniformity and reachability passes are linear; the read-before-write
//! dataflow is a worklist over bit sets whose entries only grow (at most once
//! per register per instruction); the barrier regions are walked within a
//! budget proportional to the kernel, so no source makes this quadratic.

use simt_isa::{Effects, Flags, Instruction, NO_RECONV, Opcode, Operand, PT, RegSet, Space, SpecialReg};

use crate::cfg::Cfg;

/// Which lint a finding belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LintKind {
    /// A divergent branch in a loop that reconverges only after the loop.
    LoopDivergence,
    /// `BAR.SYNC` reachable while a warp may be diverged.
    DivergentBarrier,
    /// Code no path reaches.
    UnreachableCode,
    /// A register or predicate read before any write on some path.
    UninitRead,
}

impl LintKind {
    /// Every lint, in the order they are documented.
    pub const ALL: [LintKind; 4] = [LintKind::LoopDivergence, LintKind::DivergentBarrier, LintKind::UnreachableCode, LintKind::UninitRead];

    /// The name `-W`, `-A` and `-D` take.
    pub fn name(self) -> &'static str {
        match self {
            LintKind::LoopDivergence => "loop_divergence",
            LintKind::DivergentBarrier => "divergent_barrier",
            LintKind::UnreachableCode => "unreachable_code",
            LintKind::UninitRead => "uninit_read",
        }
    }

    /// The lint called `name`.
    pub fn from_name(name: &str) -> Option<LintKind> {
        LintKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One lint finding, located by pc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lint {
    /// Which lint.
    pub kind: LintKind,
    /// The instruction it is about.
    pub pc: u32,
    /// What is wrong, as one lowercase sentence.
    pub message: String,
    /// Other instructions involved, with what happens there.
    pub related: Vec<(u32, String)>,
    /// What to do about it.
    pub help: String,
}

/// Predicates get ids after the registers in the bit sets below.
const PRED_BASE: usize = 256;
const IDS: usize = PRED_BASE + 8;

/// Registers and predicates, one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Ids([u64; IDS / 64 + 1]);

impl Ids {
    fn all() -> Ids {
        Ids([u64::MAX; IDS / 64 + 1])
    }
    fn of(regs: RegSet, preds: u8) -> Ids {
        let mut ids = Ids::default();
        regs.iter().for_each(|r| ids.set(usize::from(r)));
        (0..7).filter(|p| preds & (1 << p) != 0).for_each(|p| ids.set(PRED_BASE + p));
        ids
    }
    fn set(&mut self, id: usize) {
        self.0[id / 64] |= 1 << (id % 64);
    }
    fn contains(self, id: usize) -> bool {
        self.0[id / 64] & (1 << (id % 64)) != 0
    }
    fn and(self, other: Ids) -> Ids {
        Ids(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }
    fn minus(self, other: Ids) -> Ids {
        Ids(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }
    /// Adds `other`; whether anything was new.
    fn absorb(&mut self, other: Ids) -> bool {
        let before = *self;
        self.0.iter_mut().zip(other.0).for_each(|(a, b)| *a |= b);
        *self != before
    }
    fn iter(self) -> impl Iterator<Item = usize> {
        (0..IDS).filter(move |&id| self.contains(id))
    }
}

/// `R3` or `P1`.
fn id_name(id: usize) -> String {
    if id >= PRED_BASE { format!("P{}", id - PRED_BASE) } else { format!("R{id}") }
}

/// Every lint finding of a kernel's `code` (branch targets resolved), in pc order.
pub fn lint(code: &[Instruction]) -> Vec<Lint> {
    if code.is_empty() {
        return Vec::new();
    }
    let cfg = Cfg::build(code);
    let reachable = reachable(&cfg);
    let effects: Vec<Effects> = code.iter().map(Instruction::effects).collect();
    let varying = varying(code, &cfg, &effects);
    let ipdom = cfg.post_dominators();
    let divergent: Vec<u32> = (0..code.len() as u32)
        .filter(|&pc| {
            let inst = &code[pc as usize];
            let guard = usize::from(inst.guard.pred);
            reachable[pc as usize] && inst.info().flags.contains(Flags::BRANCH) && guard != usize::from(PT) && varying[pc as usize].contains(PRED_BASE + guard)
        })
        .collect();
    let mut lints = Vec::new();
    loop_divergence(code, &cfg, &ipdom, &divergent, &mut lints);
    divergent_barriers(code, &cfg, &ipdom, &divergent, &mut lints);
    unreachable_code(code, &reachable, &mut lints);
    uninit_reads(&cfg, &effects, &reachable, &mut lints);
    lints.sort_by_key(|l| (l.pc, l.kind));
    lints
}

/// Which pcs a path from the entry reaches.
fn reachable(cfg: &Cfg) -> Vec<bool> {
    let mut seen = vec![false; cfg.exit() as usize + 1];
    let mut stack = vec![0u32];
    while let Some(v) = stack.pop() {
        if !std::mem::replace(&mut seen[v as usize], true) {
            stack.extend(cfg.successors(v).iter().filter(|&&s| !seen[s as usize]));
        }
    }
    seen
}

/// Whether an instruction's results may differ between threads whatever its inputs.
fn varies_by_itself(inst: &Instruction) -> bool {
    let flags = inst.info().flags;
    let thread_specific = inst.operands().iter().any(|op| {
        matches!(op, Operand::Special(SpecialReg::TidX | SpecialReg::TidY | SpecialReg::TidZ | SpecialReg::LaneId | SpecialReg::WarpId | SpecialReg::Clock))
    });
    thread_specific
        || flags.intersects(Flags::ATOMIC.union(Flags::COLLECTIVE))
        || inst.form.mma().is_some()
        || inst.form.access().is_some_and(|a| a.space == Space::Local)
}

/// A forward "may" dataflow over registers and predicates: what may hold on entry to
/// each pc, given what holds at the entry and each instruction's `transfer`. Sets only
/// grow, so an instruction is revisited at most once per register or predicate.
fn solve(cfg: &Cfg, entry: Ids, transfer: impl Fn(usize, Ids) -> Ids) -> Vec<Ids> {
    let exit = cfg.exit() as usize;
    let mut state = vec![Ids::default(); exit + 1];
    state[0] = entry;
    let mut queued = vec![false; exit + 1];
    let mut work = std::collections::VecDeque::from([0u32]);
    queued[0] = true;
    while let Some(v) = work.pop_front() {
        queued[v as usize] = false;
        if v as usize == exit {
            continue;
        }
        let out = transfer(v as usize, state[v as usize]);
        for &s in cfg.successors(v) {
            if state[s as usize].absorb(out) && !std::mem::replace(&mut queued[s as usize], true) {
                work.push_back(s);
            }
        }
    }
    state
}

/// The registers and predicates whose value may differ between the threads of a block
/// on entry to each pc.
fn varying(code: &[Instruction], cfg: &Cfg, effects: &[Effects]) -> Vec<Ids> {
    solve(cfg, Ids::default(), |pc, v| {
        let e = &effects[pc];
        let writes = Ids::of(e.writes, e.pred_writes);
        let varies = varies_by_itself(&code[pc]) || v.and(Ids::of(e.reads, e.pred_reads)) != Ids::default();
        let mut out = v.minus(writes);
        if varies {
            out.absorb(writes);
        }
        out
    })
}

/// Strongly connected component of every node (Tarjan's algorithm, iteratively), and
/// whether each component is a cycle (more than one node, or a node branching to itself).
fn loops(cfg: &Cfg) -> (Vec<u32>, Vec<bool>) {
    const NONE: u32 = u32::MAX;
    let n = cfg.exit() as usize + 1;
    let (mut index, mut low, mut comp) = (vec![NONE; n], vec![0u32; n], vec![NONE; n]);
    let mut on_stack = vec![false; n];
    let (mut stack, mut cyclic) = (Vec::new(), Vec::new());
    let mut next = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        // (node, next successor to look at)
        let mut call = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            let vu = v as usize;
            if *i == 0 && index[vu] == NONE {
                index[vu] = next;
                low[vu] = next;
                next += 1;
                stack.push(v);
                on_stack[vu] = true;
            }
            if let Some(&s) = cfg.successors(v).get(*i) {
                *i += 1;
                if index[s as usize] == NONE {
                    call.push((s, 0));
                } else if on_stack[s as usize] {
                    low[vu] = low[vu].min(index[s as usize]);
                }
                continue;
            }
            call.pop();
            if let Some(&(parent, _)) = call.last() {
                low[parent as usize] = low[parent as usize].min(low[vu]);
            }
            if low[vu] == index[vu] {
                let id = cyclic.len() as u32;
                let mut size = 0;
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w as usize] = false;
                    comp[w as usize] = id;
                    size += 1;
                    if w == v {
                        break;
                    }
                }
                cyclic.push(size > 1 || cfg.successors(v).contains(&v));
            }
        }
    }
    (comp, cyclic)
}

fn loop_divergence(code: &[Instruction], cfg: &Cfg, ipdom: &[u32], divergent: &[u32], lints: &mut Vec<Lint>) {
    if divergent.is_empty() {
        return;
    }
    let (comp, cyclic) = loops(cfg);
    for &b in divergent {
        let c = comp[b as usize];
        let inside = |pc: u32| comp[pc as usize] == c;
        let r = ipdom[b as usize];
        // A loop's own exit branch (one side leaves) reconverging after the loop is how loops end.
        if !cyclic[c as usize] || inside(r) || !cfg.successors(b).iter().all(|&s| inside(s)) {
            continue;
        }
        let after = if r as usize == code.len() { "at the kernel's end".to_string() } else { "after the loop".to_string() };
        let mut related = Vec::new();
        if (r as usize) < code.len() {
            related.push((r, "the two sides rejoin only here".to_string()));
        }
        lints.push(Lint {
            kind: LintKind::LoopDivergence,
            pc: b,
            message: format!("this branch splits the warp inside a loop and its sides rejoin only {after}: each side runs the rest of the loop on its own"),
            related,
            help: "let both sides meet again inside the loop (branch to a common label before the back edge)".into(),
        });
    }
}

fn divergent_barriers(code: &[Instruction], cfg: &Cfg, ipdom: &[u32], divergent: &[u32], lints: &mut Vec<Lint>) {
    // A counted barrier (`BAR.SYNC a, b`, `BAR.ARRIVE`) is for warps in different roles, which
    // block uniformity cannot tell from split warps: only barriers every thread waits at count.
    let waits_for_all =
        |inst: &Instruction| inst.info().flags.contains(Flags::BARRIER) && inst.opcode() != Opcode::BarArrive && inst.operands()[1] == Operand::None;
    let barriers: Vec<u32> = (0..code.len() as u32).filter(|&pc| waits_for_all(&code[pc as usize])).collect();
    if barriers.is_empty() || divergent.is_empty() {
        return;
    }
    // Walk each divergent branch's region (reachable before its reconvergence point),
    // within a budget in proportion to the kernel.
    let mut budget = 16 * (code.len() + 1);
    let mut cause: Vec<Option<u32>> = vec![None; code.len() + 1];
    let mut mark = vec![u32::MAX; code.len() + 1];
    let mut stack = Vec::new();
    'branches: for (i, &b) in divergent.iter().enumerate() {
        let r = ipdom[b as usize];
        stack.clear();
        stack.extend(cfg.successors(b).iter().copied().filter(|&s| s != r));
        while let Some(v) = stack.pop() {
            if mark[v as usize] == i as u32 {
                continue;
            }
            if budget == 0 {
                break 'branches;
            }
            budget -= 1;
            mark[v as usize] = i as u32;
            if (v as usize) < code.len() && waits_for_all(&code[v as usize]) && cause[v as usize].is_none() {
                cause[v as usize] = Some(b);
            }
            stack.extend(cfg.successors(v).iter().copied().filter(|&s| s != r && mark[s as usize] != i as u32));
        }
    }
    for p in barriers {
        let Some(b) = cause[p as usize] else { continue };
        let r = code[b as usize].operands().iter().find_map(|op| match op {
            Operand::Label { reconv, .. } if *reconv != NO_RECONV => Some(*reconv),
            _ => None,
        });
        let mut related = vec![(b, "the warp may split here".to_string())];
        if let Some(r) = r.filter(|&r| (r as usize) < code.len()) {
            related.push((r, "and rejoins here".to_string()));
        }
        lints.push(Lint {
            kind: LintKind::DivergentBarrier,
            pc: p,
            message: "BAR.SYNC can be reached while the warp is diverged: the threads on the other side never arrive (a deadlock, or undefined on hardware)"
                .into(),
            related,
            help: "move the barrier to where every thread of the block passes (after the reconvergence point)".into(),
        });
    }
}

fn unreachable_code(code: &[Instruction], reachable: &[bool], lints: &mut Vec<Lint>) {
    let mut pc = 0;
    while pc < code.len() {
        if reachable[pc] {
            pc += 1;
            continue;
        }
        let end = (pc..code.len()).find(|&i| reachable[i]).unwrap_or(code.len());
        let n = end - pc;
        lints.push(Lint {
            kind: LintKind::UnreachableCode,
            pc: pc as u32,
            message: if n == 1 {
                "this instruction never runs: no path from the kernel's entry reaches it".into()
            } else {
                format!("these {n} instructions never run: no path from the kernel's entry reaches them")
            },
            related: Vec::new(),
            help: "remove it, or add the branch that was meant to reach it".into(),
        });
        pc = end;
    }
}

fn uninit_reads(cfg: &Cfg, effects: &[Effects], reachable: &[bool], lints: &mut Vec<Lint>) {
    let unwritten = solve(cfg, Ids::all(), |pc, u| u.minus(Ids::of(effects[pc].writes, effects[pc].pred_writes)));
    // Each register is reported once, where it is first read unwritten, so an unset
    // fragment read by a hundred MMAs is one finding.
    let mut reported = Ids::default();
    for pc in (0..effects.len()).filter(|&pc| reachable[pc]) {
        let e = &effects[pc];
        let missing = unwritten[pc].and(Ids::of(e.reads, e.pred_reads)).minus(reported);
        if missing == Ids::default() {
            continue;
        }
        reported.absorb(missing);
        let names: Vec<String> = missing.iter().map(id_name).collect();
        let (verb, them) = if names.len() == 1 { ("is", "it") } else { ("are", "them") };
        let listed = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => names.join(""),
        };
        lints.push(Lint {
            kind: LintKind::UninitRead,
            pc: pc as u32,
            message: format!("{listed} {verb} read here before anything writes {them} on some path (registers start at 0, predicates false)"),
            related: Vec::new(),
            help: "write it first on every path, or use RZ (or PT) if a constant was meant".into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_name_registers_and_predicates() {
        let mut regs = RegSet::EMPTY;
        regs.insert_range(3, 2);
        let ids = Ids::of(regs, 0b10);
        assert_eq!(ids.iter().map(id_name).collect::<Vec<_>>(), ["R3", "R4", "P1"]);
        assert_eq!(Ids::all().minus(ids).and(ids), Ids::default());
    }

    #[test]
    fn lint_names_round_trip() {
        for kind in LintKind::ALL {
            assert_eq!(LintKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(LintKind::from_name("warnings"), None);
    }
}
