//! Shared-memory loads and comparisons moved down to their first use, for kernels that would
//! otherwise spill. Triton's f32 matmul loads a whole k-slice of A and B from shared memory
//! before its FMAs, several hundred values live at once; ptxas interleaves the loads with the
//! FMAs and needs 222 registers, where the allocator, keeping PTX's order, spilled most of
//! them and added a LOCAL load and store to most FMAs. tinygrad computes every comparison of
//! a kernel before the first that is used, twenty predicates live at once where simt has
//! seven, and the rest pass through registers.
//!
//! A load or an unguarded `setp` moves within its basic block only, and only past
//! instructions that do not mention a register it mentions (its destinations, sources,
//! address and guard); a load also not past one that writes or orders memory: a store,
//! atomic, barrier, fence or copy between the two places could change what it reads.

use rustc_hash::FxHashMap as HashMap;

use super::Item;
use crate::ops::{Op, StateSpace, Tcgen05};

/// The order of `items` (positions in it) with each shared-memory load and unguarded `setp`
/// just before the first instruction after it that it may not move past; `None` when none
/// moves.
pub(super) fn sink_to_first_use(items: &[Item<'_, '_>]) -> Option<Vec<usize>> {
    // The instructions that move to just before each position (the end is `items.len()`), latest first.
    let mut sunk: Vec<Vec<usize>> = vec![Vec::new(); items.len() + 1];
    let mut moved = vec![false; items.len()];
    // Where each register is next mentioned, and where the next instruction is that no load,
    // and that no comparison, passes (the end of the block).
    let mut next_mention: HashMap<&str, usize> = HashMap::default();
    let (mut memory_wall, mut block_end) = (items.len(), items.len());
    let mut names = Vec::new();
    for (at, item) in items.iter().enumerate().rev() {
        let Item::Inst(inst) = item else {
            (memory_wall, block_end) = (at, at);
            continue;
        };
        names.clear();
        inst.names(&mut names);
        let wall = match inst.op {
            Op::Ld(m) if m.space == Some(StateSpace::Shared) && m.semantics.is_none() => Some(memory_wall),
            Op::Setp(_) if inst.guard.is_none() => Some(block_end),
            _ => None,
        };
        let mut place = at;
        if let Some(wall) = wall {
            let stop = names.iter().filter_map(|n| next_mention.get(n)).copied().fold(wall, usize::min);
            if stop > at + 1 {
                sunk[stop].push(at);
                moved[at] = true;
                place = stop;
            }
        }
        for &name in &names {
            next_mention.insert(name, place);
        }
        if !loads_may_pass(inst.op) {
            memory_wall = at;
        }
        if inst.op.ends_block() {
            block_end = at;
        }
    }
    if !moved.contains(&true) {
        return None;
    }
    let mut order = Vec::with_capacity(items.len());
    for (at, loads) in sunk.iter().enumerate() {
        order.extend(loads.iter().rev());
        if at < items.len() && !moved[at] {
            order.push(at);
        }
    }
    Some(order)
}

/// Whether a shared-memory load may move down past `op`: an instruction that computes only
/// registers, or a plain load (not `.volatile`, `.acquire`, ...). The match names every
/// opcode, so a new one must be placed.
fn loads_may_pass(op: Op) -> bool {
    match op {
        Op::Ld(m) => m.semantics.is_none(),
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
        | Op::Shfl(_)
        | Op::Vote(_)
        | Op::Activemask
        | Op::Redux(_)
        | Op::Match(_)
        | Op::Mma(_)
        | Op::Wgmma(_)
        | Op::Elect
        | Op::Createpolicy
        | Op::Tcgen05(Tcgen05::Move { .. } | Tcgen05::Mma(_) | Tcgen05::MmaScaled(_) | Tcgen05::Wait { .. })
        | Op::Ldmatrix(_) => true,
        Op::St(_)
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
        | Op::Wmma(_) => false,
    }
}
