//! Datacenter Blackwell's tensor memory (`tcgen05`, sm_100a): `TMEM.ALLOC`, `TMEM.DEALLOC`,
//! `TMEM.RELINQUISH`, `TMEM.LD` and `TMEM.ST`, `TCMMA` and `TCMMA.COMMIT`. Each completes as it
//! executes, so `tcgen05.wait` and `tcgen05.fence` translate to nothing (`docs/ptx.md`,
//! "Tensor memory").

use super::*;

/// The `.s` shape of a PTX one.
fn shape(shape: px::TmemShape) -> isa::TmemShape {
    match shape {
        px::TmemShape::Shape32x32b => isa::TmemShape::L32x32b,
        px::TmemShape::Shape16x64b => isa::TmemShape::L16x64b,
        px::TmemShape::Shape16x128b => isa::TmemShape::L16x128b,
        px::TmemShape::Shape16x256b => isa::TmemShape::L16x256b,
        px::TmemShape::Shape16x32bx2 => isa::TmemShape::L16x32bx2,
    }
}

/// Each `tcgen05.st` of one register repeated (`{%r, %r, ...}`) that holds zero there, as the
/// last write to it in its block before the store says (Triton clears an accumulator so, a
/// `mov.b32 %r, 0` just above), with `0` in every place: one `TMEM.ST` of `RZ`.
pub(super) fn stores_of_zero<'a>(items: &[Item<'_, 'a>]) -> HashMap<usize, Option<ast::Instruction<'a>>> {
    let mut out = HashMap::default();
    for (at, item) in items.iter().enumerate() {
        let Item::Inst(inst) = item else { continue };
        if !matches!(inst.op, Op::Tcgen05(px::Tcgen05::Move { load: false, .. })) {
            continue;
        }
        let Some(k) = inst.operands.iter().position(|o| matches!(o.kind, OperandKind::Vector(_))) else { continue };
        let OperandKind::Vector(members) = &inst.operands[k].kind else { continue };
        let Some(&ast::Operand { kind: OperandKind::Name(name), .. }) = members.first() else { continue };
        if !members.iter().all(|m| m.kind == OperandKind::Name(name)) || !holds_zero(&items[..at], name) {
            continue;
        }
        let mut zeros = (*inst).clone();
        if let OperandKind::Vector(members) = &mut zeros.operands[k].kind {
            members.iter_mut().for_each(|m| m.kind = OperandKind::Immediate(Immediate::Int(0)));
        }
        out.insert(at, Some(zeros));
    }
    out
}

/// Whether `name` holds zero after `before`: the last instruction of its block there that
/// may write it (`names_written`) is an unguarded `mov` of zero to it.
fn holds_zero(before: &[Item<'_, '_>], name: &str) -> bool {
    let mut names = Vec::new();
    for item in before.iter().rev() {
        // Above a label, other paths join.
        let Item::Inst(inst) = item else { return false };
        names.clear();
        names_written(inst, &mut names);
        if names.contains(&name) {
            return literals::literal_move(inst).is_some_and(|literal| literal.bits == 0);
        }
    }
    false
}

impl<'t, 'a> Entry<'t, 'a> {
    pub(super) fn tcgen05(&mut self, inst: &'t ast::Instruction<'a>, t: px::Tcgen05) -> Result<()> {
        use px::Tcgen05::*;
        let ops = &inst.operands;
        match t {
            Alloc => {
                let [addr, n] = self.operands(inst)?;
                let (addr, _) = self.address(addr)?;
                let n = self.src32(n)?;
                self.emit(Form::TmemAlloc(mods::TmemAlloc {}), &[addr, src(n)])
            }
            Dealloc => {
                let [a, n] = self.operands(inst)?;
                let (a, n) = (self.src32(a)?, self.src32(n)?);
                self.emit(Form::TmemDealloc(mods::TmemDealloc {}), &[src(a), src(n)])
            }
            Relinquish => self.emit(Form::TmemRelinquish(mods::TmemRelinquish {}), &[]),
            Move { load, shape: s, num, pack } => self.tmem_move(inst, load, shape(s), num, pack),
            Mma(kind) => {
                if ops.len() != 5 {
                    let message = "`tcgen05.mma` with `disable-output-lane` or `scale-input-d` is not supported: write `[d], a, b, idesc, enable-input-d`";
                    return Err(Diagnostic::new(inst.span, message));
                }
                let kind = match kind {
                    px::TcgenKind::KindF16 => isa::TcKind::F16,
                    px::TcgenKind::KindTf32 => isa::TcKind::Tf32,
                    px::TcgenKind::KindF8f6f4 => isa::TcKind::F8f6f4,
                    px::TcgenKind::KindI8 => isa::TcKind::I8,
                };
                // TMEM addresses are values: an offset is added in scratch registers.
                let d = self.address_value(&ops[0], self.scratch)?;
                let b = self.pair(&ops[2])?;
                let i = self.src32(&ops[3])?;
                let q = self.enable_predicate(&ops[4])?;
                if matches!(ops[1].kind, OperandKind::Address(_)) {
                    let a = self.address_value(&ops[1], self.scratch + 1)?;
                    self.emit(Form::TcmmaTs(mods::TcmmaTs { kind }), &[src(d), src(a), src(Src::reg(b)), src(i), q])
                } else {
                    let a = self.pair(&ops[1])?;
                    self.emit(Form::Tcmma(mods::Tcmma { kind }), &[src(d), src(Src::reg(a)), src(Src::reg(b)), src(i), q])
                }
            }
            // The descriptors go to scratch registers `t .. t + 4`, the scales' addresses to
            // `t + 4` and `t + 5`, D's (if it has an offset) to `t + 6`.
            MmaScaled(kind) => {
                if matches!(ops[1].kind, OperandKind::Address(_)) {
                    let message = "a block-scaled `tcgen05.mma` with A in tensor memory (`[a-tmem]`, what Triton makes of mixed mxfp8 x mxfp4 `tl.dot_scaled`) is not supported yet: A in shared memory is";
                    return Err(Diagnostic::new(ops[1].span, message));
                }
                let t = self.scratch;
                let (a, b) = (self.pair(&ops[1])?, self.pair(&ops[2])?);
                for (k, source) in [a, a + 1, b, b + 1].into_iter().enumerate() {
                    self.mov(t + k as u8, Src::reg(source))?;
                }
                for (k, scales) in [&ops[4], &ops[5]].into_iter().enumerate() {
                    let place = t + 4 + k as u8;
                    let address = self.address_value(scales, place)?;
                    self.mov(place, address)?;
                }
                let d = self.address_value(&ops[0], t + 6)?;
                let i = self.src32(&ops[3])?;
                let q = self.enable_predicate(&ops[6])?;
                self.emit(Form::TcmmaMx(mods::TcmmaMx { kind }), &[src(d), src(Src::reg(t)), src(i), src(Src::reg(t + 4)), q])
            }
            Commit => {
                if ops.len() != 1 {
                    return Err(Diagnostic::new(inst.span, "`tcgen05.commit` with a block mask is not supported: simt launches no clusters"));
                }
                let (addr, _) = self.address(&ops[0])?;
                self.emit(Form::TcmmaCommit(mods::TcmmaCommit {}), &[addr])
            }
            Wait { .. } | Fence { .. } => Ok(()),
        }
    }

    /// `tcgen05.ld` (`load`) or `tcgen05.st`: one `TMEM.LD` or `TMEM.ST` where register
    /// allocation laid the vector out consecutively or the store is of zeros only (`RZ`),
    /// else one a repetition, each through scratch registers where its own are not
    /// consecutive (`{%r1, %r1, ...}` stores one value everywhere).
    fn tmem_move(&mut self, inst: &'t ast::Instruction<'a>, load: bool, shape: isa::TmemShape, num: px::TmemNum, pack: bool) -> Result<()> {
        let ops = &inst.operands;
        let two_halves = shape == isa::TmemShape::L16x32bx2;
        if ops.len() != 2 + usize::from(two_halves) {
            let message =
                if two_halves { "`.16x32bx2` takes the second half's offset: `[taddr], imm`" } else { "only `.16x32bx2` takes an offset after the address" };
            return Err(Diagnostic::new(inst.span, message));
        }
        let (registers, address, split) = if load { (&ops[0], &ops[1], ops.get(2)) } else { (&ops[ops.len() - 1], &ops[0], ops.get(1).filter(|_| two_halves)) };
        let split = match split {
            None => 0,
            Some(o) => match self.constant(o) {
                Some(v) => v as u32,
                None => return Err(Diagnostic::new(o.span, "expected a literal (the second half's offset is an immediate)")),
            },
        };
        let num = <isa::TmemNum as isa::Modifier>::ALL[px::TmemNum::ALL.iter().position(|&n| n == num).unwrap_or(0)];
        let count = shape.registers(num);
        if count > isa::TmemShape::MAX_REGISTERS {
            return Err(Diagnostic::new(inst.op_span, format!("`{}` moves {count} registers a thread; PTX allows at most 128", inst.op)));
        }
        let parts = match &registers.kind {
            OperandKind::Vector(parts) if parts.len() == count as usize => parts.as_slice(),
            OperandKind::Name(_) if count == 1 => std::slice::from_ref(registers),
            _ => return Err(Diagnostic::new(registers.span, format!("expected a vector of {count} registers"))),
        };
        let (isa::Operand::Addr { base, offset }, _) = self.address(address)? else { return Err(Diagnostic::new(address.span, "expected a TMEM address")) };
        let form = |num: isa::TmemNum| {
            let pack = if pack { isa::TmemPack::Yes } else { isa::TmemPack::No };
            if load { Form::TmemLd(mods::TmemLd { shape, num, pack }) } else { Form::TmemSt(mods::TmemSt { shape, num, pack }) }
        };
        let emit = |this: &mut Self, num: isa::TmemNum, first: u8, offset: i32| {
            let addr = isa::Operand::Addr { base, offset };
            let operands = if load { [dst(first), addr, isa::Operand::Imm(split)] } else { [addr, src(Src::reg(first)), isa::Operand::Imm(split)] };
            this.emit(form(num), &operands)
        };
        if let Some(first) = self.in_place(parts, false, 1) {
            return emit(self, num, first, offset);
        }
        // A store of one zero everywhere (Triton clears its accumulators so) is one of `RZ`.
        if !load && parts.iter().all(|part| matches!(self.src32(part), Ok(Src::Imm { bits: 0, .. }))) {
            return emit(self, num, RZ, offset);
        }
        let per = shape.registers_per_repetition() as usize;
        let step = (shape.columns_per_repetition() << u32::from(pack)) as i32;
        for (k, repetition) in parts.chunks(per).enumerate() {
            let at = offset + step * k as i32;
            if let Some(first) = self.in_place(repetition, false, 1) {
                emit(self, isa::TmemNum::X1, first, at)?;
                continue;
            }
            let t = self.scratch;
            if !load {
                for (i, part) in repetition.iter().enumerate() {
                    let x = self.src32(part)?;
                    self.mov(t + i as u8, x)?;
                }
            }
            emit(self, isa::TmemNum::X1, t, at)?;
            if load {
                for (i, part) in repetition.iter().enumerate() {
                    let d = self.word(part)?;
                    self.mov(d, Src::reg(t + i as u8))?;
                }
            }
        }
        Ok(())
    }
}
