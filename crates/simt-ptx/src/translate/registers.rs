//! Register allocation: liveness over the PTX control-flow graph, greedy colouring of
//! the interference graph, and what happens to values that find no colour: predicates
//! live in registers and pass through P5/P6, registers live in LOCAL memory and are
//! reloaded around each instruction that names them.

use super::*;

/// The most bytes the allocator's bit tables (live-in and live-out per basic block, the
/// interference matrix) may take. They grow with registers times blocks, so they are sized
/// and refused before they are allocated.
pub(crate) const MAX_ALLOCATION_BYTES: usize = 512 << 20;
/// The most interferences (pairs found live together, counted with repeats) the allocator
/// may record: about half a second. Counted before the graph is built, since 40,000 values
/// live at once would make 800 million of them.
pub(crate) const MAX_INTERFERENCES: u64 = 1 << 26;
/// The most 64-bit words the liveness sweeps and the per-definition scans of the live set may
/// visit: about a second.
const MAX_ALLOCATION_WORK: u64 = 1 << 30;

impl<'t, 'a> Entry<'t, 'a> {
    /// Gives every PTX register a simt register, pair or predicate: liveness over the
    /// control-flow graph, then greedy colouring of the interference graph in program
    /// order. A destination also interferes with its instruction's sources, since a
    /// translation into several simt instructions may read a source after writing part
    /// of its result.
    pub(super) fn allocate(&mut self, items: &[Item<'t, 'a>]) -> Result<()> {
        // Sized for a register per instruction or two, so that it seldom grows.
        let mut index: HashMap<&'a str, usize> = HashMap::with_capacity_and_hasher(items.len() / 2, Default::default());
        // Each register's name and class, by id.
        let (mut names_of, mut classes_of): (Vec<&'a str>, Vec<Class>) = (Vec::new(), Vec::new());
        let mut ids: Vec<usize> = Vec::new();
        let mut insts: Vec<Mentions> = Vec::new();
        let (mut scratch, mut uses) = (Vec::new(), Vec::new());
        for (at, item) in items.iter().enumerate() {
            let Item::Inst(inst) = item else { continue };
            let start = ids.len();
            uses.clear();
            for (k, operand) in inst.operands.iter().enumerate() {
                scratch.clear();
                operand.names(&mut scratch);
                let writes = k == 0 && inst.op.writes_first_operand() && !matches!(operand.kind, OperandKind::Address(_));
                for &name in &scratch {
                    let id = match index.get(name) {
                        Some(&id) => id,
                        None => {
                            let Some(class) = self.classes.get(name) else { continue };
                            names_of.push(name);
                            classes_of.push(class);
                            index.insert(name, names_of.len() - 1);
                            names_of.len() - 1
                        }
                    };
                    if writes {
                        ids.push(id);
                    }
                    if !writes || inst.op.reads_first_operand() {
                        uses.push(id);
                    }
                }
            }
            if let Some(g) = inst.guard {
                let id = match index.get(g.predicate) {
                    Some(&id) => Some(id),
                    None => self.classes.get(g.predicate).map(|class| {
                        names_of.push(g.predicate);
                        classes_of.push(class);
                        index.insert(g.predicate, names_of.len() - 1);
                        names_of.len() - 1
                    }),
                };
                uses.extend(id);
            }
            let defs_end = ids.len();
            ids.extend_from_slice(&uses);
            // A move (`mov`, `cvta`) of one register into another of its kind may share its
            // register (below): the move then disappears. A plain copy (`mov`, a global
            // `cvta`) may share it even while its source lives on; a shared or local `cvta`
            // only where its source dies, since it sets or clears the window in the high word
            // (clang goes on using `%SPL` after `cvta.local.u64 %SP, %SPL`).
            // (Words of any width: `halves.rs` makes copies between a word and a `.b16`
            // register that holds a whole one.)
            let kind = |id: usize| match classes_of[id] {
                Class::Word { .. } => Class::Word { bits: 32 },
                class => class,
            };
            // Packing and unpacking (`mov.b32 {_, %hi}, %w`) move part of a register: no copy.
            let whole = inst.operands.iter().all(|o| !matches!(o.kind, OperandKind::Vector(_)));
            let moves = matches!(inst.op, Op::Mov(_) | Op::Cvta(_))
                && whole
                && defs_end - start == 1
                && ids.len() - defs_end == 1
                && inst.guard.is_none()
                && kind(ids[start]) == kind(ids[defs_end]);
            let copy = moves && !matches!(inst.op, Op::Cvta(px::Cvta { space: StateSpace::Shared | StateSpace::Local, .. }));
            let reads_first = self.hints.reads_first.contains(&at) && inst.guard.is_none();
            insts.push(Mentions { item: at, defs: start..defs_end, uses: defs_end..ids.len(), guarded: inst.guard.is_some(), copy, moves, reads_first });
        }
        let n = names_of.len();
        // Basic blocks over `insts`: a label starts one, a branch or an exit ends one.
        let mut label_block: HashMap<&'a str, usize> = HashMap::default();
        let mut starts = vec![0usize];
        let mut next_inst = 0;
        for item in items {
            match item {
                Item::Label(name, _) => {
                    if *starts.last().unwrap_or(&0) != next_inst {
                        starts.push(next_inst);
                    }
                    label_block.insert(name, starts.len() - 1);
                }
                Item::Inst(inst) => {
                    next_inst += 1;
                    if inst.op.ends_block() {
                        starts.push(next_inst);
                    }
                }
            }
        }
        starts.push(insts.len());
        starts.dedup();
        let blocks: Vec<(usize, usize)> = starts.windows(2).map(|w| (w[0], w[1])).collect();
        let block_of_label = |name: &str| label_block.get(name).map(|&b| b.min(blocks.len().saturating_sub(1)));
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
        for (b, &(first, end)) in blocks.iter().enumerate() {
            let Some(last) = end.checked_sub(1).filter(|&l| l >= first) else {
                if b + 1 < blocks.len() {
                    succs[b].push(b + 1);
                }
                continue;
            };
            let Item::Inst(inst) = items[insts[last].item] else { continue };
            let unconditional = inst.guard.is_none();
            match inst.op {
                Op::Brx(_) => {
                    if let Some(OperandKind::Name(list)) = inst.operands.get(1).map(|o| &o.kind) {
                        for target in self.jump_tables.get(list).into_iter().flatten() {
                            succs[b].extend(block_of_label(target));
                        }
                    }
                }
                Op::Bra(_) => {
                    if let Some(OperandKind::Name(label)) = inst.operands.first().map(|o| &o.kind) {
                        succs[b].extend(block_of_label(label));
                    }
                    if !unconditional && b + 1 < blocks.len() {
                        succs[b].push(b + 1);
                    }
                }
                Op::Ret(_) | Op::Exit | Op::Trap if unconditional => {}
                _ if b + 1 < blocks.len() => succs[b].push(b + 1),
                _ => {}
            }
        }
        // Backward liveness to a fixpoint.
        let words = n.div_ceil(64).max(1);
        let table_bytes = (2 * blocks.len() + n).saturating_mul(words).saturating_mul(8);
        if table_bytes > MAX_ALLOCATION_BYTES {
            return Err(Diagnostic::new(
                self.span,
                format!(
                    "register allocation of this kernel ({n} registers over {} basic blocks) needs {} MiB of tables; the limit is {} MiB: split the kernel",
                    blocks.len(),
                    table_bytes >> 20,
                    MAX_ALLOCATION_BYTES >> 20
                ),
            ));
        }
        let mut live_in = vec![vec![0u64; words]; blocks.len()];
        let mut live_out = vec![vec![0u64; words]; blocks.len()];
        let transfer = |live: &mut Vec<u64>, m: &Mentions| {
            if !m.guarded {
                ids[m.defs.clone()].iter().for_each(|&d| live[d / 64] &= !(1 << (d % 64)));
            }
            ids[m.uses.clone()].iter().for_each(|&u| live[u / 64] |= 1 << (u % 64));
        };
        let mut changed = true;
        let mut live = vec![0u64; words];
        // A sweep visits every block's sets; branches backwards through many blocks may need
        // as many sweeps as blocks, so the sweeps are bounded by the work they do.
        let sweep_work = blocks.len() as u64 * words as u64 + ids.len() as u64;
        let mut work = 0u64;
        while changed {
            work = work.saturating_add(sweep_work);
            if work > MAX_ALLOCATION_WORK {
                return Err(Diagnostic::new(
                    self.span,
                    format!(
                        "liveness of this kernel's {n} registers over {} basic blocks does not settle within {MAX_ALLOCATION_WORK} steps: split the kernel",
                        blocks.len()
                    ),
                ));
            }
            changed = false;
            for b in (0..blocks.len()).rev() {
                let mut out = std::mem::take(&mut live_out[b]);
                out.fill(0);
                for &s in &succs[b] {
                    out.iter_mut().zip(&live_in[s]).for_each(|(o, i)| *o |= i);
                }
                live.clone_from(&out);
                for inst in insts[blocks[b].0..blocks[b].1].iter().rev() {
                    transfer(&mut live, inst);
                }
                if live != live_in[b] {
                    live_in[b].clone_from(&live);
                    changed = true;
                }
                live_out[b] = out;
            }
        }
        self.check_interference(&blocks, &live_out, &insts, &ids, words, items)?;
        // Interference.
        let mut interferes = vec![0u64; n * words];
        let connect = |a: usize, b: usize, graph: &mut Vec<u64>| {
            if a != b {
                graph[a * words + b / 64] |= 1 << (b % 64);
                graph[b * words + a / 64] |= 1 << (a % 64);
            }
        };
        for (b, &(first, end)) in blocks.iter().enumerate() {
            let mut live = live_out[b].clone();
            for inst in insts[first..end].iter().rev() {
                let (defs, uses) = (&ids[inst.defs.clone()], &ids[inst.uses.clone()]);
                // A copy's register holds its source's value: the two may share a register
                // though the source lives on, until either is written again while the other
                // lives, which that write's own interference records (Chaitin's rule).
                let source = inst.copy.then(|| uses[0]);
                for &d in defs {
                    for_each_member(&live, |x| {
                        if Some(x) != source {
                            connect(d, x, &mut interferes);
                        }
                    });
                    if !inst.copy {
                        // A move reads its source before it writes.
                        let sources = if inst.reads_first || inst.moves { &[][..] } else { uses };
                        for &x in sources.iter().chain(defs) {
                            connect(d, x, &mut interferes);
                        }
                    }
                }
                transfer(&mut live, inst);
            }
        }
        // Spill costs: each mention (a reload or a store) weighs 8 per loop around it, the
        // loops found as the branches back to an earlier block.
        let mut depth_change = vec![0i64; blocks.len() + 1];
        for (b, succs) in succs.iter().enumerate() {
            for &s in succs.iter().filter(|&&s| s <= b) {
                depth_change[s] += 1;
                depth_change[b + 1] -= 1;
            }
        }
        let mut weights = vec![0f64; n];
        let mut depth = 0;
        for (b, &(first, end)) in blocks.iter().enumerate() {
            depth += depth_change[b];
            let weight = 8f64.powi(depth.clamp(0, 3) as i32);
            for m in &insts[first..end] {
                ids[m.defs.start..m.uses.end].iter().for_each(|&id| weights[id] += weight);
            }
        }
        let spill_costs: Vec<f64> = (0..n)
            .map(|id| {
                let degree: u32 = interferes[id * words..(id + 1) * words].iter().map(|w| w.count_ones()).sum();
                weights[id] / f64::from(degree + 1)
            })
            .collect();
        // Greedy colouring in order of first mention. Predicates that find no colour
        // are spilled to registers, and the colouring is redone with P5 and P6 kept back
        // to carry them; a register that finds none takes one from the neighbour cheapest to
        // spill (`eviction`) where that is cheaper than spilling it, and what is left without
        // (registers, and predicates spilled once that find no register either) is spilled to
        // LOCAL memory (`Spill`).
        let mut spilled = vec![Spill::None; n];
        let mut partners = vec![Vec::new(); n];
        for m in insts.iter().filter(|m| m.moves) {
            let (d, u) = (ids[m.defs.start], ids[m.uses.start]);
            partners[d].push(u);
            partners[u].push(d);
        }
        // The vector operands of MMAs (fragments), of vector loads and stores and of
        // `ldmatrix` and `stmatrix`, so that colouring can lay them out as the instruction
        // moves them, in consecutive registers, and it needs no moves.
        let mut fragments: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        for item in items {
            let Item::Inst(inst) = item else { continue };
            // Tensor memory's registers are consecutive words from anywhere, as fragments are.
            let mma =
                matches!(inst.op, Op::Mma(_) | Op::Wgmma(_) | Op::Wmma(px::Wmma { action: px::WmmaAction::Mma, .. }) | Op::Tcgen05(px::Tcgen05::Move { .. }));
            if !mma && !matches!(inst.op, Op::Ld(_) | Op::St(_) | Op::Ldmatrix(_) | Op::Stmatrix(_)) {
                continue;
            }
            for operand in inst.operands.iter().filter(|o| matches!(o.kind, OperandKind::Vector(_))) {
                scratch.clear();
                operand.names(&mut scratch);
                let width = |id: usize| if classes_of[id] == Class::Pair { 2 } else { 1 };
                let members: Option<Vec<usize>> = scratch.iter().map(|name| index.get(name).copied()).collect();
                let Some(members) = members.filter(|m| m.len() > 1 && m.iter().all(|&id| width(id) == width(m[0]))) else { continue };
                // A register twice in one fragment ({%f0, %f0, ...}) cannot lie in it as the MMA reads it.
                if members.iter().enumerate().any(|(k, id)| members[..k].contains(id)) {
                    continue;
                }
                // MMA fragments may start anywhere (f64 ones at a pair); a vector of 2 or 4
                // registers (an `ldmatrix`'s too) starts at a multiple of 2 or 4.
                let align = if mma { width(members[0]) } else { members.len() * width(members[0]) };
                fragments.push((align, members.iter().enumerate().map(|(k, &id)| (k * width(id), id)).collect()));
            }
        }
        let mut fragment_of = vec![Vec::new(); n];
        for (g, (_, members)) in fragments.iter().enumerate() {
            for &(offset, id) in members {
                fragment_of[id].push((g, offset));
            }
        }
        // A copy's other register takes its member's place too, where it has none of its own
        // and the two may share a register (tinygrad moves each accumulator into an MMA's
        // fragment and back): laid out alike, the copies vanish. (Triton copies one zero into
        // every member of a `wgmma` accumulator and keeps it live around the loop that writes
        // them: given the first member's place, it would push that member out of its fragment.)
        let members = fragment_of.iter().map(|groups| !groups.is_empty()).collect::<Vec<bool>>();
        let interfere = |a: usize, b: usize| interferes[a * words + b / 64] >> (b % 64) & 1 != 0;
        for m in insts.iter().filter(|m| m.copy) {
            let (d, u) = (ids[m.defs.start], ids[m.uses.start]);
            for (member, other) in [(d, u), (u, d)] {
                if !members[member] || !fragment_of[other].is_empty() || classes_of[other] != classes_of[member] || interfere(member, other) {
                    continue;
                }
                let (g, offset) = fragment_of[member][0];
                fragments[g].1.push((offset, other));
                fragment_of[other].push((g, offset));
            }
        }
        // A fragment's members at different places need registers of their own, though copies
        // between them (Triton zeroes a `wgmma` accumulator as `mov %r102, %r101`, ...) would
        // otherwise let them share one.
        for (_, members) in &fragments {
            for (k, &(offset, a)) in members.iter().enumerate() {
                for &(other_offset, b) in &members[..k] {
                    if offset != other_offset {
                        connect(a, b, &mut interferes);
                    }
                }
            }
        }
        // Colouring goes in order of first mention until a fragment's member finds no colour:
        // then fragments are coloured first, since spilling a member costs a reload of the
        // whole operand at each MMA (a `wgmma` accumulator's 32 registers are more than the
        // reload registers hold), where spilling anything else costs one register's.
        let mut fragments_first = false;
        let (loc, highest, reload_regs) = loop {
            let reload_regs = reload_need(&insts, &ids, &spilled, &classes_of);
            let graph = Graph {
                names_of: &names_of,
                classes_of: &classes_of,
                interferes: &interferes,
                words,
                partners: &partners,
                fragments: &fragments,
                fragment_of: &fragment_of,
                reload_regs,
                spill_costs: &spill_costs,
            };
            match self.colour(&graph, &spilled, fragments_first) {
                Ok((loc, highest)) => break (loc, highest, reload_regs),
                Err(uncoloured) => {
                    let members_failed = uncoloured.iter().any(|&id| !fragment_of[id].is_empty());
                    let reorder = members_failed && !fragments_first;
                    fragments_first |= members_failed;
                    uncoloured.into_iter().filter(|&id| !reorder || fragment_of[id].is_empty()).for_each(|id| spilled[id] = spilled[id].further());
                }
            }
        };
        self.locs.reserve(names_of.len());
        for (id, name) in names_of.iter().enumerate() {
            let l = match loc[id] {
                Some(Loc::Spilled { pair, pred, .. }) => {
                    let offset = self.local_size.next_multiple_of(8);
                    self.local_size = offset + if pair { 8 } else { 4 };
                    if self.local_size > isa::MAX_LOCAL_BYTES {
                        return Err(Diagnostic::new(
                            self.span,
                            format!("spilled registers would take local memory to {} bytes; a thread may have {}", self.local_size, isa::MAX_LOCAL_BYTES),
                        ));
                    }
                    Some(Loc::Spilled { offset, pair, pred })
                }
                l => l,
            };
            if let Some(l) = l {
                self.locs.insert(name, l);
            }
        }
        let mut first_free = highest + 1;
        if self.locs.values().any(|l| matches!(l, Loc::Spilled { .. })) {
            self.b.local(self.local_size);
            let reload = first_free.next_multiple_of(2);
            self.reload = Some((reload as u8, reload_regs));
            first_free = reload + reload_regs;
        }
        self.scratch = first_free.next_multiple_of(SCRATCH) as u8;
        let bases = u32::from(self.scratch) + self.scratch_regs;
        let carry = u32::from(self.uses_carry);
        if bases + self.module_vars.len() as u32 + carry > isa::NUM_REGS {
            return Err(too_many(self.span, "the translation's scratch registers"));
        }
        if carry == 1 {
            self.carry = Some((bases + self.module_vars.len() as u32) as u8);
        }
        for (i, (name, ..)) in self.module_vars.iter().enumerate() {
            if let Some(symbol) = self.symbols.get_mut(name) {
                symbol.base = Some((bases + i as u32) as u8);
            }
        }
        Ok(())
    }

    /// Counts what building the interference graph would cost: each definition scans the live
    /// set and meets every value in it. Refuses, naming where the most values are live at
    /// once, when that is more than [`MAX_INTERFERENCES`] or [`MAX_ALLOCATION_WORK`].
    fn check_interference(
        &self,
        blocks: &[(usize, usize)],
        live_out: &[Vec<u64>],
        insts: &[Mentions],
        ids: &[usize],
        words: usize,
        items: &[Item<'t, 'a>],
    ) -> Result<()> {
        let (mut meetings, mut scans) = (0u64, 0u64);
        let (mut most, mut most_at) = (0u64, None);
        for (b, &(first, end)) in blocks.iter().enumerate() {
            let mut live = live_out[b].clone();
            let mut count: u64 = live.iter().map(|w| u64::from(w.count_ones())).sum();
            for (at, m) in insts[first..end].iter().enumerate().rev() {
                let defs = m.defs.len() as u64;
                meetings += defs * (count + (m.uses.len() as u64 + defs));
                scans += defs * words as u64;
                if count > most {
                    (most, most_at) = (count, Some(first + at));
                }
                // The same transfer as liveness, keeping the count.
                if !m.guarded {
                    for &d in &ids[m.defs.clone()] {
                        let bit = 1u64 << (d % 64);
                        count -= u64::from(live[d / 64] & bit != 0);
                        live[d / 64] &= !bit;
                    }
                }
                for &u in &ids[m.uses.clone()] {
                    let bit = 1u64 << (u % 64);
                    count += u64::from(live[u / 64] & bit == 0);
                    live[u / 64] |= bit;
                }
            }
        }
        if meetings <= MAX_INTERFERENCES && scans <= MAX_ALLOCATION_WORK {
            return Ok(());
        }
        let span = match most_at.map(|i| &items[insts[i].item]) {
            Some(Item::Inst(inst)) => inst.span,
            _ => self.span,
        };
        Err(Diagnostic::new(
            span,
            format!(
                "register allocation of this kernel would weigh {meetings} interferences and scan {scans} words of live sets (up to {most} values live at once, here); the limits are {MAX_INTERFERENCES} and {MAX_ALLOCATION_WORK}: keep fewer values live or split the kernel"
            ),
        ))
    }

    /// One colouring attempt: every register's location and the highest register used, or
    /// the registers and predicates that found no colour (spilled on the next attempt).
    #[allow(clippy::type_complexity)]
    pub(super) fn colour(&self, g: &Graph<'_, 'a>, spilled: &[Spill], fragments_first: bool) -> std::result::Result<(Vec<Option<Loc>>, u32), Vec<usize>> {
        let Graph { names_of, classes_of, interferes, words, partners, fragments, fragment_of, reload_regs, spill_costs } = *g;
        let n = names_of.len();
        let pred_colours = if spilled.iter().any(|&s| s != Spill::None) {
            usize::from(SCRATCH_PREDS[0])
        } else if self.needs_scratch_pred {
            usize::from(SCRATCH_PRED)
        } else {
            7
        };
        // What follows the allocated registers: the reload registers where the kernel spills
        // (from an even register), the scratch block (from a multiple of SCRATCH), and one
        // register per module-scope variable's address.
        let after =
            if reload_regs > 0 { reload_regs + 1 } else { 0 } + SCRATCH - 1 + self.scratch_regs + self.module_vars.len() as u32 + u32::from(self.uses_carry);
        let usable = isa::NUM_REGS.saturating_sub(after) as usize;
        let mut uncoloured = Vec::new();
        let mut loc: Vec<Option<Loc>> = vec![None; n];
        let mut highest = 0u32;
        // The registers and predicates taken by what `id` interferes with, so far.
        let taken = |id: usize, loc: &[Option<Loc>]| {
            let (mut regs, mut preds) = ([false; isa::NUM_REGS as usize], [false; 7]);
            for_each_member(&interferes[id * words..(id + 1) * words], |x| match loc[x] {
                Some(Loc::Pred(p)) => preds[usize::from(p)] = true,
                Some(Loc::Reg(r) | Loc::SpilledPred(r)) => regs[usize::from(r)] = true,
                Some(Loc::Pair(r)) => (regs[usize::from(r)], regs[usize::from(r) + 1]) = (true, true),
                Some(Loc::Spilled { .. }) | None => {}
            });
            (regs, preds)
        };
        let members = (0..n).filter(|&id| fragments_first && !fragment_of[id].is_empty());
        let others = (0..n).filter(|&id| !fragments_first || fragment_of[id].is_empty());
        for id in members.chain(others) {
            if loc[id].is_some() {
                // Placed with the first member of its fragment.
                continue;
            }
            let (regs, preds) = taken(id, &loc);
            // In an MMA fragment or a vector operand, the register that keeps it consecutive:
            // beside its members already placed, or for the first, where each member's
            // register is free of what that member interferes with.
            let width = if classes_of[id] == Class::Pair { 2 } else { 1 };
            let free = |r: usize| r + width <= usable && (r..r + width).all(|x| !regs[x]);
            // The fragment and base where `id` is the first of its members placed.
            let mut first_of = None;
            let in_fragment = fragment_of[id].iter().find_map(|&(g, offset)| {
                let (align, members) = &fragments[g];
                let span = members.iter().map(|&(o, _)| o + width).max().unwrap_or(0);
                let placed = members.iter().find_map(|&(o, m)| match loc[m] {
                    Some(Loc::Reg(r) | Loc::Pair(r)) => Some(usize::from(r).checked_sub(o).filter(|b| b.is_multiple_of(*align))),
                    _ => None,
                });
                let base = match placed {
                    Some(base) => base?,
                    None => {
                        let members_taken: Vec<(usize, [bool; isa::NUM_REGS as usize])> = members.iter().map(|&(o, m)| (o, taken(m, &loc).0)).collect();
                        let base = (0..usable)
                            .step_by(*align)
                            .find(|&b| b + span <= usable && members_taken.iter().all(|(o, t)| (b + o..b + o + width).all(|x| !t[x])))?;
                        first_of = free(base + offset).then_some((g, base));
                        base
                    }
                };
                free(base + offset).then_some(base + offset)
            });
            // The register of a copy partner, where it is free: the copy then vanishes.
            let partner = partners[id].iter().find_map(|&other| match loc[other] {
                Some(Loc::Reg(r)) if !regs[usize::from(r)] => Some(Loc::Reg(r)),
                Some(Loc::Pair(r)) if !regs[usize::from(r)] && !regs[usize::from(r) + 1] => Some(Loc::Pair(r)),
                _ => None,
            });
            loc[id] = Some(match classes_of[id] {
                Class::Pred if spilled[id] == Spill::Local => Loc::Spilled { offset: 0, pair: false, pred: true },
                Class::Pred if spilled[id] == Spill::Register => match (0..usable).find(|&r| !regs[r]) {
                    Some(r) => {
                        highest = highest.max(r as u32);
                        Loc::SpilledPred(r as u8)
                    }
                    None => {
                        uncoloured.push(id);
                        continue;
                    }
                },
                Class::Pred => {
                    let free = preds[..pred_colours].iter().position(|used| !used);
                    let Some(p) = free.or_else(|| {
                        let (victim, p) = predicate_eviction(id, &loc, &interferes[id * words..(id + 1) * words], fragment_of, spill_costs, pred_colours)?;
                        loc[victim] = None;
                        uncoloured.push(victim);
                        Some(p)
                    }) else {
                        uncoloured.push(id);
                        continue;
                    };
                    Loc::Pred(p as u8)
                }
                Class::Word { .. } | Class::Pair if spilled[id] != Spill::None => Loc::Spilled { offset: 0, pair: classes_of[id] == Class::Pair, pred: false },
                Class::Word { .. } | Class::Pair if let Some(r) = in_fragment => {
                    highest = highest.max((r + width - 1) as u32);
                    if width == 2 { Loc::Pair(r as u8) } else { Loc::Reg(r as u8) }
                }
                Class::Word { .. } if matches!(partner, Some(Loc::Reg(_))) => partner.expect("matched"),
                Class::Pair if matches!(partner, Some(Loc::Pair(_))) => partner.expect("matched"),
                Class::Word { .. } | Class::Pair => {
                    let free =
                        if width == 2 { (0..usable.saturating_sub(1)).step_by(2).find(|&r| !regs[r] && !regs[r + 1]) } else { (0..usable).find(|&r| !regs[r]) };
                    // Where none is free, the neighbour cheaper to spill than `id` gives up its own
                    // (a fragment's member that finds none has fragments coloured first, above).
                    let Some(r) = free.or_else(|| {
                        if !fragment_of[id].is_empty() {
                            return None;
                        }
                        let (victim, r) = eviction(id, width, &loc, &interferes[id * words..(id + 1) * words], fragment_of, spill_costs, usable)?;
                        loc[victim] = None;
                        uncoloured.push(victim);
                        Some(r)
                    }) else {
                        uncoloured.push(id);
                        continue;
                    };
                    highest = highest.max((r + width - 1) as u32);
                    if width == 2 { Loc::Pair(r as u8) } else { Loc::Reg(r as u8) }
                }
            });
            // The first member placed places the others at once, each where its own
            // interferences leave its slot free: placed one at a time, the values coloured
            // between them would take the slots (tinygrad's 64 accumulators, made before the
            // MMAs whose fragments they are copied into).
            if let (Some((g, base)), Some(Loc::Reg(_) | Loc::Pair(_))) = (first_of, loc[id]) {
                for &(o, m) in &fragments[g].1 {
                    if loc[m].is_some() || spilled[m] != Spill::None || classes_of[m] != classes_of[id] {
                        continue;
                    }
                    let (r, theirs) = (base + o, taken(m, &loc).0);
                    if (r..r + width).all(|x| !theirs[x]) {
                        highest = highest.max((r + width - 1) as u32);
                        loc[m] = Some(if width == 2 { Loc::Pair(r as u8) } else { Loc::Reg(r as u8) });
                    }
                }
            }
        }
        if uncoloured.is_empty() { Ok((loc, highest)) } else { Err(uncoloured) }
    }

    /// The spilled predicate `name`'s register, if it is one.
    pub(super) fn spilled(&self, name: &str) -> Option<u8> {
        match self.locs.get(name) {
            Some(Loc::SpilledPred(r)) => Some(*r),
            _ => None,
        }
    }

    /// An `and`, `or`, `xor`, `not` or `mov` of predicates into a spilled one,
    /// computed on the 0-or-1 registers that hold spilled predicates, or selected by the
    /// predicates that found a colour; and a `mov` of a spilled predicate into a coloured one,
    /// one comparison: one instruction each, where moving each spilled one through a scratch
    /// predicate and the result back takes up to four (tinygrad's masks, `and.pred` of two
    /// spilled predicates in unrolled loops, are most of its spill code). False, with nothing
    /// emitted, for any other instruction or mix of operands.
    pub(super) fn spilled_logic(&mut self, inst: &'t ast::Instruction<'a>) -> Result<bool> {
        let (Op::And(t) | Op::Or(t) | Op::Xor(t) | Op::Not(t) | Op::Mov(t)) = inst.op else { return Ok(false) };
        let Some(d) = inst.operands.first().filter(|_| t.ty == Type::Pred) else { return Ok(false) };
        let OperandKind::Name(name) = d.kind else { return Ok(false) };
        // Under a guard that found a colour (tinygrad's `@%p mov.pred %q, %r;`), as the one
        // instruction is; a spilled guard would need a scratch predicate too.
        if inst.guard.is_some_and(|g| self.spilled(g.predicate).is_some()) {
            return Ok(false);
        }
        let guard = self.guard_of(inst)?;
        /// A source: a spilled predicate's register, or a predicate that found a colour.
        enum Bit {
            Reg(isa::Operand),
            Pred(isa::Operand),
        }
        self.aliases.clear();
        let mut bits = Vec::with_capacity(2);
        for o in &inst.operands[1..] {
            bits.push(match o.kind {
                OperandKind::Name(n) => match self.spilled(n) {
                    Some(r) => Bit::Reg(src(Src::reg(r))),
                    None => Bit::Pred(self.pred_src(o)?),
                },
                OperandKind::Not(n) if self.spilled(n).is_none() => Bit::Pred(self.pred_src(o)?),
                _ => return Ok(false),
            });
        }
        let (zero, one) = (src(Src::imm(0)), src(Src::imm(1)));
        let op = |opcode: Opcode, operands: &[isa::Operand]| (Form::new(opcode), operands.to_vec());
        let (form, operands) = match (inst.op, self.spilled(name).map(dst), bits.as_slice()) {
            (Op::And(_), Some(rd), [Bit::Reg(a), Bit::Reg(b)]) => op(Opcode::And, &[rd, *a, *b]),
            (Op::Or(_), Some(rd), [Bit::Reg(a), Bit::Reg(b)]) => op(Opcode::Or, &[rd, *a, *b]),
            (Op::Xor(_), Some(rd), [Bit::Reg(a), Bit::Reg(b)]) => op(Opcode::Xor, &[rd, *a, *b]),
            (Op::And(_), Some(rd), [Bit::Reg(a), Bit::Pred(p)] | [Bit::Pred(p), Bit::Reg(a)]) => op(Opcode::Sel, &[rd, *a, zero, *p]),
            (Op::Or(_), Some(rd), [Bit::Reg(a), Bit::Pred(p)] | [Bit::Pred(p), Bit::Reg(a)]) => op(Opcode::Sel, &[rd, one, *a, *p]),
            (Op::Not(_), Some(rd), [Bit::Reg(a)]) => op(Opcode::Xor, &[rd, *a, one]),
            (Op::Not(_), Some(rd), [Bit::Pred(p)]) => op(Opcode::Sel, &[rd, zero, one, *p]),
            (Op::Mov(_), Some(rd), [Bit::Reg(a)]) => op(Opcode::Mov, &[rd, *a]),
            (Op::Mov(_), Some(rd), [Bit::Pred(p)]) => bit(rd, *p),
            // Into a predicate that found a colour, only a copy of a spilled one gains.
            (Op::Mov(_), None, [Bit::Reg(a)]) => nonzero(self.pred(d)?, *a),
            _ => return Ok(false),
        };
        self.guard = guard;
        self.emit(form, &operands)?;
        self.on_spilled_predicates.insert(self.item);
        Ok(true)
    }

    /// Moves the spilled predicates `inst` reads into scratch predicates and points its
    /// spilled destinations at them; returns each destination's register and scratch
    /// predicate, to write back.
    pub(super) fn unspill(&mut self, inst: &'t ast::Instruction<'a>) -> Result<[Option<(u8, u8)>; 2]> {
        self.aliases.clear();
        let mut free = SCRATCH_PREDS.iter().copied();
        let read = |entry: &mut Self, name: &'a str, free: &mut dyn Iterator<Item = u8>| -> Result<()> {
            let Some(r) = entry.spilled(name) else { return Ok(()) };
            if entry.aliases.iter().any(|(n, _)| *n == name) {
                return Ok(());
            }
            let p = free.next().ok_or_else(|| Diagnostic::new(inst.span, "this instruction reads more spilled predicates than simt can carry (two)"))?;
            let saved = std::mem::replace(&mut entry.guard, isa::Guard::ALWAYS);
            let (form, operands) = nonzero(p, src(Src::reg(r)));
            entry.emit(form, &operands)?;
            entry.guard = saved;
            entry.aliases.push((name, p));
            Ok(())
        };
        if let Some(g) = inst.guard {
            read(self, g.predicate, &mut free)?;
        }
        let writes_first = inst.op.writes_first_operand();
        let mut mentioned = Vec::new();
        for (k, operand) in inst.operands.iter().enumerate() {
            if k == 0 && writes_first && !inst.op.reads_first_operand() {
                continue;
            }
            mentioned.clear();
            operand.names(&mut mentioned);
            for &name in &mentioned {
                read(self, name, &mut free)?;
            }
        }
        let spilled = |name: &'a str| self.spilled(name).map(|r| (name, r));
        let written = match inst.operands.first().map(|o| &o.kind) {
            Some(&OperandKind::Name(name)) if writes_first => [spilled(name), None],
            // The predicate of `d|p` (`elect.sync`, `shfl.sync`, `match.all.sync`; `d` is a
            // register), or both of `setp`'s `p|q` (pairs of halves).
            Some(&OperandKind::Pair(first, second)) if writes_first => [spilled(first), spilled(second)],
            _ => [None, None],
        };
        // The results go to the scratch predicates from the last: one read there is read first.
        let mut results = SCRATCH_PREDS.iter().rev();
        Ok(written.map(|written| {
            let (name, r) = written?;
            let p = *results.next()?;
            self.aliases.retain(|(n, _)| *n != name);
            self.aliases.push((name, p));
            Some((r, p))
        }))
    }

    /// Loads every spilled register `inst` mentions into a reload register, which stands
    /// for it until [`store_spilled`](Self::store_spilled); returns what it replaced. The
    /// loads are unguarded and include the destinations of a guarded instruction, so lanes its
    /// guard leaves alone store back the value they had; an unguarded one writes every lane
    /// of a destination it does not read (a translation never keeps part of one, as liveness
    /// takes its old value to be dead), so that register is not loaded.
    pub(super) fn reload_spilled(&mut self, inst: &'t ast::Instruction<'a>) -> Result<Vec<(&'a str, Loc)>> {
        let mut names: Vec<&'a str> = inst.guard.map(|g| g.predicate).into_iter().collect();
        for operand in &inst.operands {
            operand.names(&mut names);
        }
        // The names only written: the first operand's, where it is written and not read, and
        // named nowhere else.
        let mut written = Vec::new();
        if inst.guard.is_none()
            && inst.op.writes_first_operand()
            && !inst.op.reads_first_operand()
            && let Some(first) = inst.operands.first().filter(|o| !matches!(o.kind, OperandKind::Address(_)))
        {
            first.names(&mut written);
            let mut read = Vec::new();
            inst.operands[1..].iter().for_each(|o| o.names(&mut read));
            written.retain(|name| !read.contains(name));
        }
        let (first, count) = self.reload.unwrap_or((0, 0));
        let (mut next, end) = (u32::from(first), u32::from(first) + count);
        let mut reloaded = Vec::new();
        for name in names {
            // A name met again is a reload register already, no longer `Spilled`.
            let Some(&spill @ Loc::Spilled { offset, pair, pred }) = self.locs.get(name) else { continue };
            next = if pair { next.next_multiple_of(2) } else { next };
            let width = if pair { 2 } else { 1 };
            if next + width > end {
                return Err(Diagnostic::new(
                    inst.span,
                    format!("this instruction names more spilled registers than simt can reload at once ({RELOAD_REGS} registers)"),
                ));
            }
            let (r, ty) = (next as u8, if pair { isa::MemType::B64 } else { isa::MemType::U32 });
            next += width;
            if !written.contains(&name) {
                self.emit(memory::Place::LOCAL.ld(isa::VecWidth::Scalar, ty), &[dst(r), isa::Operand::Addr { base: RZ, offset: offset as i32 }])?;
            }
            // A predicate's 0 or 1 is a spilled predicate's register for the instruction.
            self.locs.insert(
                name,
                if pair {
                    Loc::Pair(r)
                } else if pred {
                    Loc::SpilledPred(r)
                } else {
                    Loc::Reg(r)
                },
            );
            reloaded.push((name, spill));
        }
        Ok(reloaded)
    }

    /// Stores the reload registers `inst` wrote back to their spilled registers' LOCAL
    /// slots, and puts the spilled locations back.
    pub(super) fn store_spilled(&mut self, inst: &'t ast::Instruction<'a>, reloaded: Vec<(&'a str, Loc)>) -> Result<()> {
        let mut written = Vec::new();
        let writes_first = inst.op.writes_first_operand();
        if writes_first && let Some(first) = inst.operands.first() {
            first.names(&mut written);
        }
        // Instructions that write a second destination (`ld`'s vector braces are the first
        // operand; `shfl`, `mma` and friends write only their first too).
        for (name, spill) in reloaded {
            let Loc::Spilled { offset, pair, .. } = spill else { continue };
            if written.contains(&name) {
                let r = match self.locs.get(name) {
                    Some(Loc::Reg(r) | Loc::Pair(r) | Loc::SpilledPred(r)) => *r,
                    _ => continue,
                };
                let ty = if pair { isa::MemType::B64 } else { isa::MemType::U32 };
                self.emit(memory::Place::LOCAL.st(isa::VecWidth::Scalar, ty), &[isa::Operand::Addr { base: RZ, offset: offset as i32 }, src(Src::reg(r))])?;
            }
            self.locs.insert(name, spill);
        }
        Ok(())
    }
}

/// `SEL r, 1, 0, p`: a spilled predicate's register `r` set to what predicate `p` holds.
pub(super) fn bit(r: isa::Operand, p: isa::Operand) -> (Form, Vec<isa::Operand>) {
    (Form::new(Opcode::Sel), vec![r, src(Src::imm(1)), src(Src::imm(0)), p])
}

/// `ISETP.NE.U32 p, r, RZ`: predicate `p` set to the one a spilled predicate's register `r` holds.
pub(super) fn nonzero(p: u8, r: isa::Operand) -> (Form, Vec<isa::Operand>) {
    let ne = Form::Isetp(mods::Isetp { cmp: isa::Cmp::Ne, ty: isa::IntType::U32, bop: isa::BoolOp::And });
    (ne, vec![isa::Operand::Pred(p), r, src(Src::reg(RZ)), isa::Operand::PredSrc { pred: isa::PT, negated: false }])
}

/// The reload registers that `spilled` needs: as many as the instruction naming the most
/// spilled registers takes, a pair from an even register (so each may cost one more), at most
/// [`RELOAD_REGS`]. A spilled register is a word or pair spilled at all, or a predicate spilled
/// to LOCAL memory; a predicate spilled to a register keeps that register.
fn reload_need(insts: &[Mentions], ids: &[usize], spilled: &[Spill], classes_of: &[Class]) -> u32 {
    let mut named = Vec::new();
    let need = insts.iter().map(|m| {
        named.clear();
        named.extend(ids[m.defs.start..m.uses.end].iter().copied().filter(|&id| match classes_of[id] {
            Class::Pred => spilled[id] == Spill::Local,
            _ => spilled[id] != Spill::None,
        }));
        named.sort_unstable();
        named.dedup();
        named.iter().map(|&id| if classes_of[id] == Class::Pair { 3 } else { 1 }).sum::<u32>()
    });
    need.max().unwrap_or(0).min(RELOAD_REGS)
}

/// Where no register is free for `id` (`width` 1 or 2), the neighbour (by `row`, its
/// interferences) to spill in its place, and the register (or even pair) that frees for it:
/// one that alone holds it, not in a fragment, the cheapest by `spill_costs` and cheaper
/// than `id`.
fn eviction(
    id: usize,
    width: usize,
    loc: &[Option<Loc>],
    row: &[u64],
    fragment_of: &[Vec<(usize, usize)>],
    spill_costs: &[f64],
    usable: usize,
) -> Option<(usize, usize)> {
    let mut holders = [0u16; isa::NUM_REGS as usize + 1];
    for_each_member(row, |x| match loc[x] {
        Some(Loc::Reg(r) | Loc::SpilledPred(r)) => holders[usize::from(r)] += 1,
        Some(Loc::Pair(r)) => (0..2).for_each(|k| holders[usize::from(r) + k] += 1),
        _ => {}
    });
    let alone = |r: usize| holders[r] == 1;
    let frees = |x: usize| match (loc[x], width) {
        (Some(Loc::Reg(r)), 1) => alone(usize::from(r)).then_some(usize::from(r)),
        (Some(Loc::Pair(r)), 1) => [r, r + 1].into_iter().map(usize::from).find(|&r| alone(r)),
        (Some(Loc::Pair(r)), _) => (alone(usize::from(r)) && alone(usize::from(r) + 1)).then_some(usize::from(r)),
        (Some(Loc::Reg(r)), _) => {
            let (r, base) = (usize::from(r), usize::from(r) & !1);
            (alone(r) && holders[r ^ 1] == 0 && base + 1 < usable).then_some(base)
        }
        _ => None,
    };
    cheapest_to_spill(id, row, fragment_of, spill_costs, frees)
}

/// Where no predicate of the first `colours` is free for predicate `id`, the neighbour (by
/// `row`) to spill in its place and the predicate that frees: one that alone holds it, the
/// cheapest by `spill_costs` and cheaper than `id`. A comparison read at once then keeps a
/// predicate, and a long-lived one read now and then (a sort's lane bits) goes to a register.
fn predicate_eviction(
    id: usize,
    loc: &[Option<Loc>],
    row: &[u64],
    fragment_of: &[Vec<(usize, usize)>],
    spill_costs: &[f64],
    colours: usize,
) -> Option<(usize, usize)> {
    let mut holders = [0u16; 7];
    for_each_member(row, |x| {
        if let Some(Loc::Pred(p)) = loc[x] {
            holders[usize::from(p)] += 1;
        }
    });
    let frees = |x: usize| match loc[x] {
        Some(Loc::Pred(p)) if usize::from(p) < colours && holders[usize::from(p)] == 1 => Some(usize::from(p)),
        _ => None,
    };
    cheapest_to_spill(id, row, fragment_of, spill_costs, frees)
}

/// Of `id`'s neighbours (by `row`) that are in no fragment, the cheapest to spill by
/// `spill_costs`, if cheaper than `id`, whose spilling `frees` a place: it and the place.
fn cheapest_to_spill(
    id: usize,
    row: &[u64],
    fragment_of: &[Vec<(usize, usize)>],
    spill_costs: &[f64],
    frees: impl Fn(usize) -> Option<usize>,
) -> Option<(usize, usize)> {
    let mut cheapest: Option<(usize, usize)> = None;
    for_each_member(row, |x| {
        if !fragment_of[x].is_empty() || spill_costs[x] >= cheapest.map_or(spill_costs[id], |(c, _)| spill_costs[c]) {
            return;
        }
        if let Some(r) = frees(x) {
            cheapest = Some((x, r));
        }
    });
    cheapest
}

/// Calls `f` with each member of a bit set (`set[w]` holds members `64 w` to `64 w + 63`),
/// lowest first: the loop that colouring spends its time in.
fn for_each_member(set: &[u64], mut f: impl FnMut(usize)) {
    for (w, &bits) in set.iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            f(w * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
}

/// How far a value that found no colour is spilled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Spill {
    None,
    /// A predicate into a register (0 or 1); a register into LOCAL memory.
    Register,
    /// A predicate that found no register either: its 0 or 1 into LOCAL memory.
    Local,
}

impl Spill {
    fn further(self) -> Spill {
        match self {
            Spill::None => Spill::Register,
            Spill::Register | Spill::Local => Spill::Local,
        }
    }
}
