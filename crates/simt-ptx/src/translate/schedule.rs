//! Instructions reordered within their basic blocks for fewer registers live at once, for
//! kernels that would otherwise spill. Triton's matmuls load a whole k-slice from shared
//! memory (and pack pairs of the loads into 64-bit registers) before their FMAs or MMAs,
//! several hundred values live at once; ptxas interleaves the loads with their uses and
//! needs 96 to 222 registers, where the allocator, keeping PTX's order, spilled most of them.
//! tinygrad computes every comparison of a kernel before the first that is used, twenty
//! predicates live at once where simt has seven, and the rest pass through registers.
//!
//! A list scheduler works up each block from its end (as LLVM's bottom-up register-reduction
//! scheduler does): an instruction is free to go once everything that needs it is placed.
//! Of those, it places the last in PTX's order, so that a block keeps the order its compiler
//! chose; but first any that leaves fewer registers live (a load whose value is needed only
//! below, so loads go down to their first uses), and, once more than [`CROWDED`] words are
//! live, the one that leaves the fewest. A predicate counts as [`PREDICATE_COST`] words,
//! since there are few of them. Then each instruction that ends more registers than it starts
//! (packing bytes into a word) moves up to just after what it must follow: working up from
//! the uses, the scheduler leaves it by its use, and its sources live from their loads down to
//! there. A block takes whichever of PTX's order, its schedule and the schedule with packing
//! moved up has the fewest registers live at its worst point.
//!
//! An instruction never passes one that writes a register it mentions, or one that reads a
//! register it writes. A plain load, an `ldmatrix` or an `mma.sync` never passes a fence:
//! a store, atomic, barrier (`bar.warp.sync` too), fence or copy, anything that writes or
//! orders memory or converges the warp. And every instruction that is neither arithmetic on
//! registers nor one of those (a warp collective, an MMA of a warpgroup or in tensor memory,
//! a carry, a clock read) keeps its place among the others.

use rustc_hash::FxHashMap as HashMap;

use super::{Class, Classes, Item, writes_or_reads_carry};
use crate::ast::{Instruction, OperandKind};
use crate::ops::{Op, SpecialReg, Tcgen05};

/// What one live predicate costs against words: simt colours five predicates, against some
/// two hundred registers.
const PREDICATE_COST: i64 = 16;

/// Words live past which a schedule chooses by what is live rather than by PTX's order:
/// half the register file.
const CROWDED: i64 = 128;

/// The most candidates the scheduler may weigh over a whole kernel (each step weighs every
/// instruction ready at that point), and instructions moving up may pass: about a tenth of a
/// second. A kernel past it keeps PTX's order.
const MAX_SCHEDULING_WORK: u64 = 1 << 24;

/// What `name` costs while it lives, in words; 0 for what is not a register (a variable, a
/// parameter, a label), which never is.
fn cost(classes: &Classes<'_>, name: &str) -> i64 {
    match classes.get(name) {
        Some(Class::Pred) => PREDICATE_COST,
        Some(Class::Pair) => 2,
        Some(Class::Word { .. }) => 1,
        None => 0,
    }
}

/// How an instruction may move.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Motion {
    /// Computes registers from registers: held only by its registers.
    Free,
    /// A plain load, or an `mma.sync`: also held by what writes or orders memory or
    /// converges the warp (a fence).
    Fenced,
    /// Keeps its place among the other `Ordered` ones; a fence holds `Fenced` ones too.
    Ordered { fence: bool },
}

/// The order of `items` (positions in it) with each basic block scheduled for fewer live
/// registers, `classes` being the kernel's registers; `None` when nothing moves, or when the
/// kernel is too big to schedule within [`MAX_SCHEDULING_WORK`].
pub(super) fn for_pressure(items: &[Item<'_, '_>], classes: &Classes<'_>) -> Option<Vec<usize>> {
    let mut names = Names::default();
    // Each item's registers by id (none for a label), and the blocks as ranges of items.
    let mut insts: Vec<Mentions> = Vec::with_capacity(items.len());
    let mut blocks: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    let mut scratch = Vec::new();
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(inst) = item else {
            blocks.push(start..at);
            start = at + 1;
            insts.push(Mentions::default());
            continue;
        };
        insts.push(Mentions::of(inst, &mut names, classes, &mut scratch, blocks.len()));
        if inst.op.ends_block() {
            blocks.push(start..at + 1);
            start = at + 1;
        }
    }
    blocks.push(start..items.len());
    let mut order = Vec::with_capacity(items.len());
    let mut scheduler = Scheduler::new(names.cost.len());
    let mut work = 0u64;
    let mut moved = false;
    for block in blocks {
        if let Some(&Item::Label(..)) = block.start.checked_sub(1).map(|at| &items[at]) {
            order.push(block.start - 1);
        }
        let placed = scheduler.block(items, &insts, &names, block.clone(), &mut work)?;
        moved |= placed.iter().zip(block).any(|(&a, b)| a != b);
        order.extend(placed);
    }
    moved.then_some(order)
}

/// Registers by id: what each costs, and which block first mentioned it and whether another
/// block does too (a register mentioned in one block only is live there only).
#[derive(Default)]
struct Names<'a> {
    ids: HashMap<&'a str, u32>,
    cost: Vec<i64>,
    home: Vec<usize>,
    elsewhere: Vec<bool>,
}

impl<'a> Names<'a> {
    fn id(&mut self, name: &'a str, classes: &Classes<'_>, block: usize) -> Option<u32> {
        let id = match self.ids.get(name) {
            Some(&id) => id,
            None => {
                let weight = cost(classes, name);
                if weight == 0 {
                    return None;
                }
                self.cost.push(weight);
                self.home.push(block);
                self.elsewhere.push(false);
                self.ids.insert(name, self.cost.len() as u32 - 1);
                self.cost.len() as u32 - 1
            }
        };
        self.elsewhere[id as usize] |= self.home[id as usize] != block;
        Some(id)
    }
}

/// The registers an instruction writes and reads, each once. A write that keeps the earlier
/// value where it does not happen (under a guard) or accumulates into it (`wgmma`) reads it too.
#[derive(Default)]
struct Mentions {
    writes: Vec<u32>,
    reads: Vec<u32>,
    /// `None` for a label.
    motion: Option<Motion>,
}

impl Mentions {
    fn of<'a>(inst: &Instruction<'a>, names: &mut Names<'a>, classes: &Classes<'_>, scratch: &mut Vec<&'a str>, block: usize) -> Mentions {
        let mut m = Mentions { motion: Some(motion(inst)), ..Mentions::default() };
        for (k, operand) in inst.operands.iter().enumerate() {
            scratch.clear();
            operand.names(scratch);
            let writes = k == 0 && inst.op.writes_first_operand() && !matches!(operand.kind, OperandKind::Address(_));
            for &name in scratch.iter() {
                if let Some(id) = names.id(name, classes, block) {
                    if writes { m.writes.push(id) } else { m.reads.push(id) }
                }
            }
        }
        m.reads.extend(inst.guard.and_then(|g| names.id(g.predicate, classes, block)));
        if inst.guard.is_some() || inst.op.reads_first_operand() {
            m.reads.extend_from_slice(&m.writes);
        }
        for list in [&mut m.writes, &mut m.reads] {
            list.sort_unstable();
            list.dedup();
        }
        m
    }
}

/// How `inst` may move.
fn motion(inst: &Instruction<'_>) -> Motion {
    let clock = inst.operands.iter().any(|o| matches!(o.kind, OperandKind::Special(SpecialReg::Clock | SpecialReg::Clock64 | SpecialReg::Globaltimer)));
    if clock || writes_or_reads_carry(inst.op) {
        return Motion::Ordered { fence: false };
    }
    match inst.op {
        Op::Ld(m) if m.semantics.is_none() => Motion::Fenced,
        // Converged warps' operations that touch only registers and plain memory reads.
        Op::Ldmatrix(_) | Op::Mma(_) => Motion::Fenced,
        Op::Add(_)
        | Op::Sub(_)
        | Op::AddC(_)
        | Op::SubC(_)
        | Op::Mul(_)
        | Op::Mad(_)
        | Op::MadC(_)
        | Op::Mul24(_)
        | Op::Mad24(_)
        | Op::Sad(_)
        | Op::Dp4a(_)
        | Op::Dp2a(_)
        | Op::Fma(_)
        | Op::Div(_)
        | Op::Rem(_)
        | Op::Neg(_)
        | Op::Abs(_)
        | Op::Min(_)
        | Op::Max(_)
        | Op::And(_)
        | Op::Or(_)
        | Op::Xor(_)
        | Op::Not(_)
        | Op::Cnot(_)
        | Op::Shl(_)
        | Op::Shr(_)
        | Op::Shf(_)
        | Op::Popc(_)
        | Op::Clz(_)
        | Op::Brev(_)
        | Op::Bfind(_)
        | Op::Copysign(_)
        | Op::Bfe(_)
        | Op::Bfi(_)
        | Op::Lop3(_)
        | Op::Prmt(_)
        | Op::Setp(_)
        | Op::Set(_)
        | Op::Selp(_)
        | Op::Rcp(_)
        | Op::Sqrt(_)
        | Op::Rsqrt(_)
        | Op::Ex2(_)
        | Op::Lg2(_)
        | Op::Sin(_)
        | Op::Cos(_)
        | Op::Tanh(_)
        | Op::Cvt(_)
        | Op::Cvta(_)
        | Op::Isspacep(_)
        | Op::Mov(_)
        | Op::Createpolicy => Motion::Free,
        Op::Shfl(_)
        | Op::Vote(_)
        | Op::Activemask
        | Op::Redux(_)
        | Op::Match(_)
        | Op::Wgmma(_)
        | Op::Elect
        | Op::Tcgen05(Tcgen05::Move { .. } | Tcgen05::Mma(_) | Tcgen05::MmaScaled(_) | Tcgen05::Wait { .. }) => Motion::Ordered { fence: false },
        Op::Ld(_)
        | Op::St(_)
        | Op::WgmmaOrder(_)
        | Op::FenceProxy { .. }
        | Op::TensormapReplace { .. }
        | Op::TensormapCopy
        | Op::Atom(_)
        | Op::Red(_)
        | Op::Bar(_)
        | Op::BarWarpSync
        | Op::Setmaxnreg { .. }
        | Op::Griddepcontrol { .. }
        | Op::Membar(_)
        | Op::Fence(_)
        | Op::Bra(_)
        | Op::Brx(_)
        | Op::Call(_)
        | Op::Ret(_)
        | Op::Exit
        | Op::Trap
        | Op::Nanosleep(_)
        | Op::CpAsync(_)
        | Op::CpAsyncCommit
        | Op::CpAsyncWait { .. }
        | Op::Stmatrix(_)
        | Op::Mbarrier(_)
        | Op::CpAsyncBulkTensor { .. }
        | Op::CpAsyncBulkOrder { .. }
        | Op::Tcgen05(_)
        | Op::Wmma(_) => Motion::Ordered { fence: true },
    }
}

/// The scheduler's tables by register id, kept between blocks and cleared of what each
/// block touched.
struct Scheduler {
    last_write: Vec<Option<u32>>,
    readers: Vec<Vec<u32>>,
    live: Vec<bool>,
    /// How many instructions not yet placed read each register.
    unread: Vec<u32>,
    touched: Vec<u32>,
}

impl Scheduler {
    fn new(registers: usize) -> Scheduler {
        Scheduler {
            last_write: vec![None; registers],
            readers: vec![Vec::new(); registers],
            live: vec![false; registers],
            unread: vec![0; registers],
            touched: Vec::new(),
        }
    }

    /// The positions of `block` in their new order: of PTX's order, its schedule, and its
    /// schedule with packing hoisted, the one with the fewest registers live at its worst point.
    fn block(&mut self, items: &[Item<'_, '_>], insts: &[Mentions], names: &Names<'_>, block: std::ops::Range<usize>, work: &mut u64) -> Option<Vec<usize>> {
        let n = block.len();
        if n < 3 {
            return Some(block.collect());
        }
        let first = block.start;
        let insts = &insts[block.clone()];
        let preds = self.predecessors(insts);
        // A block's branch stays last.
        let pinned = matches!(items[block.end - 1], Item::Inst(i) if i.op.ends_block()).then_some(n - 1);
        let Some(scheduled) = self.schedule(insts, names, &preds, pinned, work) else {
            self.clear();
            return None;
        };
        let Some(hoisted) = self.hoist(insts, names, &preds, &scheduled, work) else {
            self.clear();
            return None;
        };
        let ptx: Vec<u32> = (0..n as u32).collect();
        // The first of the fewest wins: PTX's order where nothing is gained.
        let order = [ptx, scheduled, hoisted].into_iter().min_by_key(|order| self.peak(insts, names, order));
        self.clear();
        Some(order?.into_iter().map(|k| first + k as usize).collect())
    }

    /// What must come before each of `insts`: the instruction that last wrote each register
    /// it reads or writes, and those that read what it writes since; for a `Fenced` one, the
    /// last fence; for a fence, the `Fenced` ones since the one before; and for an `Ordered`
    /// one, the last `Ordered` one.
    fn predecessors(&mut self, insts: &[Mentions]) -> Vec<Vec<u32>> {
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); insts.len()];
        let (mut last_ordered, mut last_fence, mut fenced) = (None, None, Vec::new());
        for (k, inst) in insts.iter().enumerate() {
            let before = &mut preds[k];
            for &r in &inst.reads {
                before.extend(self.last_write[r as usize]);
            }
            for &w in &inst.writes {
                before.extend(self.last_write[w as usize]);
                before.extend_from_slice(&self.readers[w as usize]);
            }
            for &r in &inst.reads {
                self.readers[r as usize].push(k as u32);
                self.touched.push(r);
            }
            for &w in &inst.writes {
                self.readers[w as usize].clear();
                self.last_write[w as usize] = Some(k as u32);
                self.touched.push(w);
            }
            match inst.motion {
                Some(Motion::Fenced) => {
                    before.extend(last_fence);
                    fenced.push(k as u32);
                }
                Some(Motion::Ordered { fence }) => {
                    before.extend(last_ordered);
                    last_ordered = Some(k as u32);
                    if fence {
                        before.append(&mut fenced);
                        last_fence = Some(k as u32);
                    }
                }
                Some(Motion::Free) | None => {}
            }
        }
        preds
    }

    /// Marks live what is live at the block's end, taken to be what another block mentions
    /// too, and returns its words; counts each register's readers.
    fn enter(&mut self, insts: &[Mentions], names: &Names<'_>) -> i64 {
        for &r in &self.touched {
            (self.live[r as usize], self.unread[r as usize]) = (false, 0);
        }
        insts.iter().flat_map(|i| &i.reads).for_each(|&r| self.unread[r as usize] += 1);
        let mut pressure = 0;
        for &r in &self.touched {
            if !self.live[r as usize] && names.elsewhere[r as usize] {
                self.live[r as usize] = true;
                pressure += names.cost[r as usize];
            }
        }
        pressure
    }

    /// The block's schedule, built from its end: each step places, of the instructions all of
    /// whose successors are placed, the last in PTX's order, or, once more than [`CROWDED`]
    /// words are live or when one would leave fewer live, the one that leaves the fewest.
    fn schedule(&mut self, insts: &[Mentions], names: &Names<'_>, preds: &[Vec<u32>], pinned: Option<usize>, work: &mut u64) -> Option<Vec<u32>> {
        let n = insts.len();
        let mut waiting = vec![0u32; n];
        preds.iter().flatten().for_each(|&p| waiting[p as usize] += 1);
        let mut pressure = self.enter(insts, names);
        let mut order = Vec::with_capacity(n);
        let mut ready: Vec<u32> = (0..n as u32).filter(|&k| waiting[k as usize] == 0 && Some(k as usize) != pinned).collect();
        ready.extend(pinned.map(|k| k as u32));
        while !ready.is_empty() {
            // The pinned branch is alone and first; after it, the best of what is ready.
            let best = if order.is_empty() && pinned.is_some() {
                ready.len() - 1
            } else {
                *work += ready.len() as u64;
                if *work > MAX_SCHEDULING_WORK {
                    return None;
                }
                (0..ready.len())
                    .min_by_key(|&i| {
                        let inst = &insts[ready[i] as usize];
                        let growth = if pressure > CROWDED { self.growth(inst, names, Amortised::No) } else { self.growth(inst, names, Amortised::Yes).min(0) };
                        (growth, std::cmp::Reverse(ready[i]))
                    })
                    .unwrap_or(0)
            };
            let k = ready.swap_remove(best);
            pressure += self.growth(&insts[k as usize], names, Amortised::No);
            self.apply(&insts[k as usize]);
            order.push(k);
            for &p in &preds[k as usize] {
                waiting[p as usize] -= 1;
                if waiting[p as usize] == 0 {
                    ready.push(p);
                }
            }
        }
        order.reverse();
        Some(order)
    }

    /// How much placing `inst` above what is placed grows what is live: less what it writes,
    /// more what it reads that was not live (or that it writes). `Amortised`, a register that
    /// other instructions not yet placed read too does not count: it will be live above anyway
    /// (the base address of a block's loads; counted, the first load to go down would never
    /// gain).
    fn growth(&self, inst: &Mentions, names: &Names<'_>, amortised: Amortised) -> i64 {
        let cost = |r: &u32| names.cost[*r as usize];
        let ended: i64 = inst.writes.iter().filter(|r| self.live[**r as usize]).map(cost).sum();
        let born = |r: &&u32| inst.writes.contains(r) || (!self.live[**r as usize] && (amortised == Amortised::No || self.unread[**r as usize] <= 1));
        inst.reads.iter().filter(born).map(cost).sum::<i64>() - ended
    }

    /// Places `inst` above what is placed: what it writes is not live above it, what it reads is.
    fn apply(&mut self, inst: &Mentions) {
        inst.writes.iter().for_each(|&w| self.live[w as usize] = false);
        for &r in &inst.reads {
            self.live[r as usize] = true;
            self.unread[r as usize] -= 1;
        }
    }

    /// `order` with each instruction that ends more registers than it starts (packing bytes
    /// or halves into a word) moved up to just after the last instruction it must follow. The
    /// schedule, built up from the uses, leaves such an instruction by its use, and its sources
    /// live from wherever they were loaded (above a barrier, maybe) down to there.
    fn hoist(&mut self, insts: &[Mentions], names: &Names<'_>, preds: &[Vec<u32>], order: &[u32], work: &mut u64) -> Option<Vec<u32>> {
        self.enter(insts, names);
        let cost = |r: &u32| names.cost[*r as usize];
        let mut hoisted: Vec<u32> = Vec::with_capacity(order.len());
        let mut position = vec![0usize; insts.len()];
        for &k in order {
            let inst = &insts[k as usize];
            let last_read = |r: &&u32| self.unread[**r as usize] == 1 && !names.elsewhere[**r as usize] && !inst.writes.contains(r);
            let ended: i64 = inst.reads.iter().filter(last_read).map(cost).sum();
            let started: i64 = inst.writes.iter().filter(|w| !inst.reads.contains(w)).map(cost).sum();
            inst.reads.iter().for_each(|&r| self.unread[r as usize] -= 1);
            let at = match inst.motion {
                Some(Motion::Free) if ended > started => preds[k as usize].iter().map(|&p| position[p as usize] + 1).max().unwrap_or(0),
                _ => hoisted.len(),
            };
            hoisted.insert(at, k);
            *work += (hoisted.len() - at) as u64;
            if *work > MAX_SCHEDULING_WORK {
                return None;
            }
            for (place, &moved) in hoisted.iter().enumerate().skip(at) {
                position[moved as usize] = place;
            }
        }
        Some(hoisted)
    }

    /// The most words live at once in `order`.
    fn peak(&mut self, insts: &[Mentions], names: &Names<'_>, order: &[u32]) -> i64 {
        let mut pressure = self.enter(insts, names);
        let mut peak = pressure;
        for &k in order.iter().rev() {
            pressure += self.growth(&insts[k as usize], names, Amortised::No);
            self.apply(&insts[k as usize]);
            peak = peak.max(pressure);
        }
        peak
    }

    fn clear(&mut self) {
        for r in self.touched.drain(..) {
            self.last_write[r as usize] = None;
            self.readers[r as usize].clear();
            self.live[r as usize] = false;
            self.unread[r as usize] = 0;
        }
    }
}

/// Whether [`Scheduler::growth`] leaves out what other instructions read too.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Amortised {
    Yes,
    No,
}
