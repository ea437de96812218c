//! Loads, stores and atomics in every space: address checks (memcheck is
//! always on), the sanitizers' view of each access, and the lane-order rules
//! of the contract (a later lane's store wins; atomics apply in lane order).

use simt_isa::*;

use super::{fetch, for_lanes, lanes, mask_of, per_lane, write};
use crate::arith::{self, FFlags, FOp, IntOp};
use crate::block::{AccessKind, BlockSim, Loc};
use crate::translate::{Address, Reg, Translator, Val};

/// A memory operation with its registers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum MemOp {
    /// `size`: bytes per lane; `regs`: registers per lane.
    Ld { space: Space, ty: MemType, size: u32, regs: u8, d: Reg, addr: Address },
    St { space: Space, size: u32, regs: u8, a: Reg, addr: Address },
    Atom { space: Space, op: AtomOp, ty: AtomType, d: Reg, addr: Address, b: Val },
    AtomCas { space: Space, d: Reg, addr: Address, b: Val, c: Val },
}

impl MemOp {
    /// The address operand.
    pub(crate) fn address(&self) -> Address {
        match *self {
            MemOp::Ld { addr, .. } | MemOp::St { addr, .. } | MemOp::Atom { addr, .. } | MemOp::AtomCas { addr, .. } => addr,
        }
    }
}

/// The memory operation of `inst`, if it is one.
pub(crate) fn translate(t: &Translator, inst: &Instruction) -> Option<MemOp> {
    let o = &inst.operands;
    let access = inst.form.access()?;
    Some(match inst.form {
        Form::Ld(mods::Ld { space, ty, .. }) => {
            MemOp::Ld { space, ty, size: access.size, regs: access.regs, d: t.dst(&o[0]), addr: t.addr(&o[1]) }
        }
        Form::St(mods::St { space, .. }) => MemOp::St { space, size: access.size, regs: access.regs, a: t.first(&o[1]), addr: t.addr(&o[0]) },
        Form::Atom(mods::Atom { space, op, ty }) => {
            MemOp::Atom { space: space.into(), op, ty, d: t.dst(&o[0]), addr: t.addr(&o[1]), b: t.val(&o[2], false) }
        }
        Form::AtomCas(mods::AtomCas { space, .. }) => {
            MemOp::AtomCas { space: space.into(), d: t.dst(&o[0]), addr: t.addr(&o[1]), b: t.val(&o[2], false), c: t.val(&o[3], false) }
        }
        _ => return None,
    })
}

/// Flushes a subnormal f32 to a zero of the same sign (`ATOM.ADD.F32` does so for inputs and results).
fn flush_subnormal(bits: u32) -> u32 {
    if f32::from_bits(bits).is_subnormal() { bits & 0x8000_0000 } else { bits }
}

impl BlockSim<'_> {
    /// Runs a memory operation on the `exec` lanes of warp `w`.
    #[inline(always)]
    pub(crate) fn memory(&mut self, w: usize, pc: u32, op: MemOp, exec: u32) -> Result<(), crate::Fault> {
        let warp = &self.warps[w];
        let addr = op.address();
        let base = warp.row(addr.base);
        let addrs = per_lane(|l| base[l].wrapping_add(addr.offset));
        match op {
            MemOp::Ld { space, ty, size, regs, d, .. } => {
                let mut rows = [[0u32; 32]; 4];
                let words = usize::from(regs);
                if space == Space::Global {
                    let memory = self.ctx.memory;
                    for l in lanes(exec) {
                        let (i, off) = self.locate_global(w, l, pc, addrs[l], size, false)?;
                        if size < 4 {
                            rows[0][l] = memory.read(i, off, size);
                        } else {
                            for (k, row) in rows.iter_mut().take(words).enumerate() {
                                row[l] = memory.read(i, off + 4 * k as u32, 4);
                            }
                        }
                    }
                } else {
                    self.check_region(w, pc, space, exec, &addrs, size, false)?;
                    if self.sanitizer.is_some() {
                        self.check_accesses(w, pc, space, exec, &addrs, size, AccessKind::Read)?;
                    }
                    let mem = self.words(space);
                    let stride = self.region_stride(space);
                    let at = |l: usize| (w * 32 + l) * stride + addrs[l] as usize;
                    match size {
                        16 => for_lanes(exec, |l| {
                            let v: &[u32; 4] = mem[at(l) / 4..at(l) / 4 + 4].try_into().expect("4 words");
                            (rows[0][l], rows[1][l], rows[2][l], rows[3][l]) = (v[0], v[1], v[2], v[3]);
                        }),
                        8 => for_lanes(exec, |l| (rows[0][l], rows[1][l]) = (mem[at(l) / 4], mem[at(l) / 4 + 1])),
                        4 => for_lanes(exec, |l| rows[0][l] = mem[at(l) / 4]),
                        _ => for_lanes(exec, |l| {
                            let a = at(l);
                            rows[0][l] = (mem[a / 4] >> (8 * (a % 4))) & (u32::MAX >> (32 - 8 * size));
                        }),
                    }
                }
                match ty {
                    MemType::S8 => rows[0] = rows[0].map(|x| x as u8 as i8 as i32 as u32),
                    MemType::S16 => rows[0] = rows[0].map(|x| x as u16 as i16 as i32 as u32),
                    _ => {}
                }
                let warp = &mut self.warps[w];
                for (k, row) in rows.iter().take(words).enumerate() {
                    write(warp, d + k as Reg, row, exec);
                }
            }
            MemOp::St { space, size, regs, a, .. } => {
                let words = usize::from(regs);
                let mut rows = [[0u32; 32]; 4];
                for (k, row) in rows.iter_mut().take(words).enumerate() {
                    *row = *warp.row(a + k as Reg);
                }
                if space == Space::Global {
                    let memory = self.ctx.memory;
                    for l in lanes(exec) {
                        let (i, off) = self.locate_global(w, l, pc, addrs[l], size, true)?;
                        if size < 4 {
                            memory.write(i, off, size, rows[0][l]);
                        } else {
                            for (k, row) in rows.iter().take(words).enumerate() {
                                memory.write(i, off + 4 * k as u32, 4, row[l]);
                            }
                        }
                    }
                } else {
                    self.check_region(w, pc, space, exec, &addrs, size, true)?;
                    if self.sanitizer.is_some() {
                        self.check_accesses(w, pc, space, exec, &addrs, size, AccessKind::Write)?;
                    }
                    let stride = self.region_stride(space);
                    let mem = match space {
                        Space::Shared => &mut self.shared,
                        _ => &mut self.local,
                    };
                    // Lane order: a later lane's store to the same address wins.
                    for l in lanes(exec) {
                        let a = (w * 32 + l) * stride + addrs[l] as usize;
                        if size >= 4 {
                            for (k, row) in rows.iter().take(words).enumerate() {
                                mem[a / 4 + k] = row[l];
                            }
                        } else {
                            let shift = 8 * (a % 4);
                            let mask = (u32::MAX >> (32 - 8 * size)) << shift;
                            mem[a / 4] = (mem[a / 4] & !mask) | ((rows[0][l] << shift) & mask);
                        }
                    }
                }
            }
            MemOp::Atom { space, op, ty, d, b, .. } => {
                let b = fetch(warp, b);
                let mut old = [0u32; 32];
                if self.sanitizer.is_some() {
                    self.check_accesses(w, pc, space, exec, &addrs, 4, AccessKind::Atomic)?;
                }
                for l in lanes(exec) {
                    let loc = self.resolve(w, l, pc, space, addrs[l], 4, true)?;
                    let x = b[l];
                    old[l] = match (op, ty) {
                        (AtomOp::Add, AtomType::F32) => {
                            let x = flush_subnormal(x);
                            self.atomic(loc, |m| flush_subnormal(arith::f32_op(FOp::Add, flush_subnormal(m), x, FFlags::default())))
                        }
                        (AtomOp::Add, _) => self.atomic(loc, |m| m.wrapping_add(x)),
                        (AtomOp::Min, AtomType::S32) => self.atomic(loc, |m| arith::int_op(IntOp::MinS, m, x)),
                        (AtomOp::Min, _) => self.atomic(loc, |m| m.min(x)),
                        (AtomOp::Max, AtomType::S32) => self.atomic(loc, |m| arith::int_op(IntOp::MaxS, m, x)),
                        (AtomOp::Max, _) => self.atomic(loc, |m| m.max(x)),
                        (AtomOp::Exch, _) => self.atomic(loc, |_| x),
                        (AtomOp::And, _) => self.atomic(loc, |m| m & x),
                        (AtomOp::Or, _) => self.atomic(loc, |m| m | x),
                        (AtomOp::Xor, _) => self.atomic(loc, |m| m ^ x),
                    };
                }
                write(&mut self.warps[w], d, &old, exec);
            }
            MemOp::AtomCas { space, d, b, c, .. } => {
                let (b, c) = (fetch(warp, b), fetch(warp, c));
                let mut old = [0u32; 32];
                if self.sanitizer.is_some() {
                    self.check_accesses(w, pc, space, exec, &addrs, 4, AccessKind::Atomic)?;
                }
                for l in lanes(exec) {
                    let loc = self.resolve(w, l, pc, space, addrs[l], 4, true)?;
                    let (expected, new) = (b[l], c[l]);
                    old[l] = self.atomic(loc, |m| if m == expected { new } else { m });
                }
                write(&mut self.warps[w], d, &old, exec);
            }
        }
        Ok(())
    }

    /// Checks every executing lane's SHARED, LOCAL or PARAM access at once.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn check_region(&mut self, w: usize, pc: u32, space: Space, exec: u32, addrs: &[u32; 32], size: u32, write: bool) -> Result<(), crate::Fault> {
        let len = self.region_len(space) as u64;
        let align = size.min(16);
        let bad = exec & mask_of(|l| addrs[l] & (align - 1) != 0 || u64::from(addrs[l]) + u64::from(size) > len);
        if bad == 0 {
            return Ok(());
        }
        let l = bad.trailing_zeros() as usize;
        Err(self.access_fault(w, l, pc, space, addrs[l], size, write))
    }

    /// Atomics exist for GLOBAL and SHARED only; a block's shared memory belongs to one OS thread.
    pub(crate) fn atomic(&mut self, loc: Loc, f: impl Fn(u32) -> u32) -> u32 {
        match loc {
            Loc::Global(i, off) => self.ctx.memory.update(i, off, f),
            Loc::Bytes(at) => {
                let old = self.shared[at / 4];
                self.shared[at / 4] = f(old);
                old
            }
        }
    }
}
