//! Hopper's asynchronous data movement: `mbarrier` (`MBAR`), `elect.sync`, and the tensor
//! copies `cp.async.bulk.tensor` (`TMA`) with their groups. A copy completes as it issues,
//! so its groups' commits and waits translate to nothing (`docs/ptx.md`, "Tensor copies").

use super::*;

impl<'t, 'a> Entry<'t, 'a> {
    /// An address operand's value as a 32-bit source: its register, its literal, or their sum
    /// in scratch register `t`. `MBAR`'s own addresses stay `[base+offset]`; `TMA` and
    /// `LDGSTS` take their SHARED addresses as values.
    pub(super) fn address_value(&mut self, o: &'t ast::Operand<'a>, t: u8) -> Result<Src> {
        let (isa::Operand::Addr { base, offset }, _) = self.address(o)? else { return Err(Diagnostic::new(o.span, "expected an address")) };
        Ok(match (base, offset) {
            (RZ, offset) => Src::imm(offset as u32),
            (base, 0) => Src::reg(base),
            (base, offset) => {
                self.op(Opcode::Iadd, &[dst(t), src(Src::reg(base)), src(Src::imm(offset as u32))])?;
                Src::reg(t)
            }
        })
    }

    /// `mbarrier.<action>.shared.b64`: one `MBAR`, or nothing for `inval` (simt's mbarrier
    /// holds no resource to give back).
    pub(super) fn mbarrier(&mut self, inst: &'t ast::Instruction<'a>, action: px::MbarrierAction) -> Result<()> {
        use px::MbarrierAction::*;
        let ops = &inst.operands;
        match action {
            Inval => Ok(()),
            Init => {
                let [addr, count] = self.operands(inst)?;
                let (addr, _) = self.address(addr)?;
                let count = self.src32(count)?;
                self.emit(Form::MbarInit(mods::MbarInit {}), &[addr, src(count)])
            }
            Tx { complete } => {
                let [addr, tx] = self.operands(inst)?;
                let (addr, _) = self.address(addr)?;
                let tx = self.src32(tx)?;
                let op = if complete { isa::MbarTxOp::Complete } else { isa::MbarTxOp::Expect };
                self.emit(Form::MbarTx(mods::MbarTx { op }), &[addr, src(tx)])
            }
            Arrive { drop, expect_tx } => {
                let (state, addr) = (&ops[0], &ops[1]);
                let (addr, _) = self.address(addr)?;
                let third = match ops.get(2) {
                    Some(o) => self.src32(o)?,
                    None => Src::imm(1),
                };
                let (count, tx) = if expect_tx { (Src::imm(1), third) } else { (third, Src::imm(0)) };
                // `state` is a `.b64`: the phase's parity in its low word, 0 in its high one.
                let d = match state.kind {
                    OperandKind::Sink => RZ,
                    _ => self.pair(state)?,
                };
                let form = Form::MbarArrive(mods::MbarArrive { drop: if drop { isa::MbarDrop::Yes } else { isa::MbarDrop::No } });
                self.emit(form, &[dst(d), addr, src(count), src(tx)])?;
                if d != RZ { self.mov(d + 1, Src::reg(RZ)) } else { Ok(()) }
            }
            Wait { parity, .. } => {
                // `try_wait`'s time hint bounds how long it may suspend: simt's never does.
                let (done, addr, phase) = (&ops[0], &ops[1], &ops[2]);
                let p = self.pred(done)?;
                let (addr, _) = self.address(addr)?;
                let phase = if parity { self.src32(phase)? } else { Src::reg(self.pair(phase)?) };
                self.emit(Form::MbarTest(mods::MbarTest {}), &[isa::Operand::Pred(p), addr, src(phase)])
            }
        }
    }

    /// `elect.sync d|p, membermask`: the lowest lane of the member mask among those executing
    /// is the leader; `d` its lane, `p` whether this lane is it. A ballot of the executing
    /// lanes, masked, its lowest bit isolated (`x & -x`), its lane by `CLZ`.
    pub(super) fn elect(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let [d, members] = self.operands(inst)?;
        let (leader, is_leader) = match d.kind {
            OperandKind::Pair(value, p) => (value, p),
            _ => return Err(Diagnostic::new(d.span, "`elect.sync` writes `d|p`: a register (or `_`) and a predicate")),
        };
        let members = self.src32(members)?;
        let t = self.scratch;
        let pt = isa::Operand::PredSrc { pred: isa::PT, negated: false };
        self.op(Opcode::VoteBallot, &[dst(t), pt])?;
        self.op(Opcode::And, &[dst(t), src(Src::reg(t)), src(members)])?;
        self.op(Opcode::Isub, &[dst(t + 1), src(Src::reg(RZ)), src(Src::reg(t))])?;
        self.op(Opcode::And, &[dst(t), src(Src::reg(t)), src(Src::reg(t + 1))])?;
        self.op(Opcode::Clz, &[dst(t), src(Src::reg(t))])?;
        let lane = if leader == "_" { t + 1 } else { self.word(&ast::Operand { kind: OperandKind::Name(leader), span: d.span })? };
        self.op(Opcode::Isub, &[dst(lane), src(Src::imm(31)), src(Src::reg(t))])?;
        if is_leader == "_" {
            return Ok(());
        }
        let p = self.pred(&ast::Operand { kind: OperandKind::Name(is_leader), span: d.span })?;
        self.op(Opcode::S2r, &[dst(t), isa::Operand::Special(isa::SpecialReg::LaneId)])?;
        let form = Form::Isetp(mods::Isetp { cmp: isa::Cmp::Eq, ty: isa::IntType::U32, bop: isa::BoolOp::And });
        self.emit(form, &[isa::Operand::Pred(p), src(Src::reg(lane)), src(Src::reg(t)), pt])
    }

    /// `cp.async.bulk.tensor.Nd` as one `TMA.LOAD` or `TMA.STORE`: the shared address and the
    /// mbarrier's as values, the tensor map's pair as it is, the coordinates moved into
    /// consecutive scratch registers.
    pub(super) fn bulk_tensor(&mut self, inst: &'t ast::Instruction<'a>, rank: u8, load: bool) -> Result<()> {
        let ops = &inst.operands;
        let tensor = if load { &ops[1] } else { &ops[0] };
        let OperandKind::TensorAddress(map, coords) = &tensor.kind else {
            return Err(Diagnostic::new(tensor.span, "expected a tensor map and coordinates, `[map, {c0, c1}]`"));
        };
        if coords.len() != usize::from(rank) {
            return Err(Diagnostic::new(tensor.span, format!("a `.{rank}d` copy takes {rank} coordinates, found {}", coords.len())));
        }
        let map = self.pair(&ast::Operand { kind: OperandKind::Name(map.value), span: map.span })?;
        let t = self.scratch;
        let first = t + 2;
        for (i, c) in coords.iter().enumerate() {
            let c = self.src32(c)?;
            self.mov(first + i as u8, c)?;
        }
        let rank_mod = <isa::TensorRank as isa::Modifier>::from_index(rank.wrapping_sub(1))
            .ok_or_else(|| Diagnostic::new(inst.op_span, format!("a tensor copy has rank 1 ..= 5, not {rank}")))?;
        if load {
            let shared = self.address_value(&ops[0], t)?;
            let barrier = self.address_value(&ops[2], t + 1)?;
            let form = Form::TmaLoad(mods::TmaLoad { rank: rank_mod });
            self.emit(form, &[src(shared), src(Src::reg(map)), src(Src::reg(first)), src(barrier)])
        } else {
            let shared = self.address_value(&ops[1], t)?;
            let form = Form::TmaStore(mods::TmaStore { rank: rank_mod });
            self.emit(form, &[src(Src::reg(map)), src(Src::reg(first)), src(shared)])
        }
    }
}
