//! Tensor-core operations: the warp's fragments go to `simt_tensor::mma`
//! straight from the register file, with the result gathered on the stack so
//! `d` may equal `c`.

use simt_isa::*;

use super::Executor;
use super::{describe_lanes, write};
use crate::decode::{Decoder, Reg};
use crate::fault::{Fault, FaultKind};

/// An MMA with the first register of each operand.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MmaOp {
    opcode: Opcode,
    form: MmaForm,
    d: Reg,
    a: Reg,
    b: Reg,
    c: Reg,
    /// The sparse metadata register (the zero row for dense forms).
    e: Reg,
}

/// The tensor operation of `inst`, if it is one.
pub(crate) fn decode(t: &Decoder, inst: &Instruction) -> Option<MmaOp> {
    let form = inst.form.mma()?;
    let o = &inst.operands;
    Some(MmaOp { opcode: inst.opcode(), form, d: t.first(&o[0]), a: t.first(&o[1]), b: t.first(&o[2]), c: t.first(&o[3]), e: t.first(&o[4]) })
}

/// The most registers one fragment holds.
const MAX_FRAGMENT: usize = 8;

impl Executor<'_> {
    /// The fault for a warp-wide instruction that `needs` some lanes of which `missing` do
    /// not execute it (guard-false under `mask`, exited, diverged or absent), saying why.
    pub(crate) fn incomplete_warp(&self, w: usize, pc: u32, mask: u32, missing: u32, needs: &str) -> Fault {
        let warp = &self.warps[w];
        let one = missing.count_ones() == 1;
        let why = if !warp.valid & missing != 0 {
            if one { "does not exist (the block's last warp is partial)" } else { "do not exist (the block's last warp is partial)" }
        } else if warp.exited & missing != 0 {
            if one { "has exited" } else { "have exited" }
        } else if mask & missing != 0 {
            if one { "is guarded off" } else { "are guarded off" }
        } else if one {
            "is not active (the warp is diverged)"
        } else {
            "are not active (the warp is diverged)"
        };
        self.fault(
            FaultKind::Tensor,
            w,
            Some(missing.trailing_zeros() as usize),
            Some(pc),
            format!("{} needs {needs}, but {} {why}", self.mnemonic(pc), describe_lanes(missing)),
        )
    }

    /// Runs an MMA; every lane of the warp must take part.
    pub(crate) fn mma(&mut self, w: usize, pc: u32, op: MmaOp, mask: u32, exec: u32) -> Result<(), Fault> {
        let missing = !exec;
        if missing != 0 {
            return Err(self.incomplete_warp(w, pc, mask, missing, "all 32 lanes of the warp"));
        }
        let warp = &self.warps[w];
        let frag = |first: Reg, role: FragRole| {
            let first = usize::from(first);
            &warp.regs[first..first + usize::from(op.form.regs(role))]
        };
        let (a, b, c) = (frag(op.a, FragRole::A), frag(op.b, FragRole::B), frag(op.c, FragRole::C));
        let e = (op.form.shape == MmaShape::SpM16N16K32).then(|| warp.row(op.e));
        let mut d = [[0u32; 32]; MAX_FRAGMENT];
        let d = &mut d[..usize::from(op.form.regs(FragRole::C))];
        if let Err(err) = simt_tensor::mma(op.opcode, op.form.acc, op.form.input, op.form.sat, a, b, c, e, d) {
            return Err(self.fault(FaultKind::Tensor, w, Some(err.lane as usize), Some(pc), err.message));
        }
        let warp = &mut self.warps[w];
        for (k, row) in d.iter().enumerate() {
            write(warp, op.d + k as Reg, row, exec);
        }
        Ok(())
    }
}
