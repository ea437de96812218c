//! Hopper's asynchronous data movement: `mbarrier` (`MBAR`), `elect.sync`, and the tensor
//! copies `cp.async.bulk.tensor` (`TMA`) with their groups. A copy completes as it issues,
//! so its groups' commits and waits translate to nothing (`docs/ptx.md`, "Tensor copies").

use simt_isa::tensormap;

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

    /// `elect.sync d|p, membermask` as one `ELECT`: the lowest lane of the member mask among
    /// those executing is the leader; `d` its lane, `p` whether this lane is it (`_` for
    /// either: `RZ`, `PT`).
    pub(super) fn elect(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let [d, members] = self.operands(inst)?;
        let (leader, is_leader) = match d.kind {
            OperandKind::Pair(value, p) => (value, p),
            _ => return Err(Diagnostic::new(d.span, "`elect.sync` writes `d|p`: a register (or `_`) and a predicate")),
        };
        let members = self.members(members)?;
        let lane = if leader == "_" { RZ } else { self.word(&ast::Operand { kind: OperandKind::Name(leader), span: d.span })? };
        let p = if is_leader == "_" { isa::PT } else { self.pred(&ast::Operand { kind: OperandKind::Name(is_leader), span: d.span })? };
        self.emit(Form::Elect(mods::Elect {}), &[dst(lane), isa::Operand::Pred(p), members])
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

impl<'t, 'a> Entry<'t, 'a> {
    /// `tensormap.replace.tile.field.space.b1024.type [a], {ord,} new_val`: the field's bytes of
    /// simt's tensor map layout (`docs/tensor.md`, "Tensor maps") stored at `a`, and the layout's
    /// tag with them, so that a map built from zeros, as Triton builds one, is a map. The rank,
    /// element type and swizzle are literals, as PTX has them; PTX numbers element types its own
    /// way, which becomes CUDA's (`.f64` 9 is 8, `.bf16` 10 is 9).
    pub(super) fn tensormap_replace(&mut self, inst: &'t ast::Instruction<'a>, field: px::TensormapField, global: bool) -> Result<()> {
        use px::TensormapField as F;
        let ops = &inst.operands;
        let (addr, ord, value) = if field.per_dimension() { (&ops[0], Some(&ops[1]), &ops[2]) } else { (&ops[0], None, &ops[1]) };
        let space = if global { StateSpace::Global } else { StateSpace::Shared };
        let (_, width) = self.placed(addr, Some(space))?;
        let place = memory::Place { space: if global { isa::MemSpace::Global } else { isa::MemSpace::Shared }, width };
        let (isa::Operand::Addr { base, offset }, _) = self.address(addr)? else { return Err(Diagnostic::new(addr.span, "expected an address")) };
        let literal = |this: &Self, o: &ast::Operand<'a>, what: &str| {
            this.constant(o).ok_or_else(|| Diagnostic::new(o.span, format!("`tensormap.replace` takes the {what} as a literal")))
        };
        let ord = match ord {
            Some(o) => match literal(self, o, "ordinal")? {
                d @ 0..=4 => d as i32,
                d => return Err(Diagnostic::new(o.span, format!("ordinal {d} names no dimension: a tensor map has 0 ..= 4"))),
            },
            None => 0,
        };
        let refuse = |why: String| Err(Diagnostic::new(value.span, why));
        let t = self.scratch;
        // A field of `ty` at byte `at` of the map, from a register (a pair for 64 bits) or a literal.
        let store = |this: &mut Self, at: usize, ty: isa::MemType, from: Src| -> Result<()> {
            let r = match from {
                Src::Reg { reg, .. } => reg,
                other => {
                    this.mov(t, other)?;
                    t
                }
            };
            this.emit(place.st(isa::VecWidth::Scalar, ty), &[isa::Operand::Addr { base, offset: offset + at as i32 }, src(Src::reg(r))])
        };
        let byte = |this: &mut Self, at: usize, v: u8| store(this, at, isa::MemType::U8, Src::imm(u32::from(v)));
        store(self, 0, isa::MemType::B32, Src::imm(u32::from_le_bytes(*tensormap::TAG)))?;
        byte(self, tensormap::at::VERSION, tensormap::LAYOUT_VERSION)?;
        let ord = ord as usize;
        match field {
            F::GlobalAddress | F::GlobalStride => {
                let at = if field == F::GlobalAddress { tensormap::at::ADDRESS } else { tensormap::at::STRIDES + 8 * ord };
                let v = self.pair(value)?;
                store(self, at, isa::MemType::B64, Src::reg(v))
            }
            F::BoxDim | F::GlobalDim | F::ElementStride => {
                let at = match field {
                    F::BoxDim => tensormap::at::BOXES,
                    F::GlobalDim => tensormap::at::DIMS,
                    _ => tensormap::at::ELEMENT_STRIDES,
                };
                let v = self.src32(value)?;
                store(self, at + 4 * ord, isa::MemType::B32, v)
            }
            // PTX's rank is the dimensions less one.
            F::Rank => match literal(self, value, "rank")? {
                r @ 0..=4 => byte(self, tensormap::at::RANK, r as u8 + 1),
                r => refuse(format!("rank {r} (dimensions less one) is not 0 ..= 4")),
            },
            // PTX numbers element types its own way: `.f32.ftz` comes before `.f64` and `.bf16`.
            F::Elemtype => match literal(self, value, "element type")? {
                e @ 0..=7 => byte(self, tensormap::at::ELEM, e as u8),
                9 => byte(self, tensormap::at::ELEM, tensormap::TensorElem::F64.code()),
                10 => byte(self, tensormap::at::ELEM, tensormap::TensorElem::BF16.code()),
                e => refuse(format!("element type {e} ({}) is not one simt copies", ptx_elemtype_name(e))),
            },
            F::SwizzleMode => match literal(self, value, "swizzle mode")? {
                s @ 0..=3 => byte(self, tensormap::at::SWIZZLE, s as u8),
                s => refuse(format!("swizzle mode {s} is not one of 0 (none) ..= 3 (128 bytes)")),
            },
            // The layout has no interleave and fills with zeros: those are all it can say.
            F::InterleaveLayout => match literal(self, value, "interleave layout")? {
                0 => Ok(()),
                v => refuse(format!("interleave layout {v} is not supported: simt's tensor maps are not interleaved")),
            },
            F::FillMode => match literal(self, value, "fill mode")? {
                0 => Ok(()),
                v => refuse(format!("fill mode {v} (NaN outside the tensor) is not supported: simt's copies read zeros there")),
            },
            F::SwizzleAtomicity => refuse("`.swizzle_atomicity` (sm_100) is not supported".to_string()),
        }
    }

    /// `tensormap.cp_fenceproxy.global.shared::cta... [dst], [src], 128`: lane `l` of the warp
    /// copies word `l` of the tensor map (the proxy fence orders nothing more: a copy reads the
    /// map as it issues).
    pub(super) fn tensormap_copy(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let [to, from, size] = self.operands(inst)?;
        if self.constant(size) != Some(128) {
            return Err(Diagnostic::new(size.span, "`tensormap.cp_fenceproxy` copies a tensor map's 128 bytes: the size must be the literal 128"));
        }
        let (isa::Operand::Addr { base: from_base, offset: from_offset }, _) = self.address(from)? else {
            return Err(Diagnostic::new(from.span, "expected an address"));
        };
        let (_, to_width) = self.placed(to, Some(StateSpace::Global))?;
        let (isa::Operand::Addr { base: to_base, offset: to_offset }, _) = self.address(to)? else {
            return Err(Diagnostic::new(to.span, "expected an address"));
        };
        // t: 4 * lane (a pair with t + 1 = 0); t + 2, t + 3: the destination; t + 4: the word.
        let t = self.scratch;
        self.op(Opcode::S2r, &[dst(t), isa::Operand::Special(isa::SpecialReg::LaneId)])?;
        self.op(Opcode::Shl, &[dst(t), src(Src::reg(t)), src(Src::imm(2))])?;
        self.mov(t + 1, Src::imm(0))?;
        // A shared address is its low word (cvta'd or a 64-bit copy of a 32-bit offset).
        self.op(Opcode::Iadd, &[dst(t + 4), src(Src::reg(from_base)), src(Src::reg(t))])?;
        self.emit(memory::Place::SHARED.ld(isa::VecWidth::Scalar, isa::MemType::B32), &[dst(t + 4), isa::Operand::Addr { base: t + 4, offset: from_offset }])?;
        let to_place = memory::Place { space: isa::MemSpace::Global, width: to_width };
        let to_base = if to_width == isa::AddrWidth::E {
            self.op(Opcode::Iadd64, &[dst(t + 2), src(Src::reg(to_base)), src(Src::reg(t))])?;
            t + 2
        } else {
            self.op(Opcode::Iadd, &[dst(t + 2), src(Src::reg(to_base)), src(Src::reg(t))])?;
            t + 2
        };
        self.emit(to_place.st(isa::VecWidth::Scalar, isa::MemType::B32), &[isa::Operand::Addr { base: to_base, offset: to_offset }, src(Src::reg(t + 4))])
    }
}

/// PTX's name of element type `e` of `tensormap.replace`, for messages.
fn ptx_elemtype_name(e: i64) -> &'static str {
    match e {
        8 => ".f32.ftz",
        11 => ".tf32",
        12 => ".tf32.ftz",
        13 => ".b4x16",
        14 => ".b4x16_p64",
        15 => ".b6x16_p32",
        _ => "unknown",
    }
}
