//! Warp-wide and control instructions: barriers, fences, `shfl`, `vote`, `redux`,
//! `match`, branches, and `mma.sync`.

use super::*;

impl<'t, 'a> Entry<'t, 'a> {
    /// Barriers, fences, warp votes, reductions and matches, and branches.
    pub(super) fn warp_and_control(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let unsupported = |what: String| unsupported(inst, what);
        let op = inst.op;
        match op {
            Op::Bar(bar) => {
                let barrier_zero = |o: &[ast::Operand]| matches!(o, [ast::Operand { kind: OperandKind::Immediate(Immediate::Int(0)), .. }]);
                match (bar.action, inst.operands.as_slice()) {
                    (px::BarAction::Sync, o) if barrier_zero(o) => self.op(Opcode::BarSync, &[]),
                    (px::BarAction::Sync, [a]) => {
                        let a = self.src32(a)?;
                        self.op(Opcode::BarSync, &[src(a)])
                    }
                    (px::BarAction::Sync | px::BarAction::Arrive, [a, b]) => {
                        let opcode = if bar.action == px::BarAction::Sync { Opcode::BarSync } else { Opcode::BarArrive };
                        let (a, b) = (self.src32(a)?, self.src32(b)?);
                        self.op(opcode, &[src(a), src(b)])
                    }
                    (px::BarAction::Red(reduction), [d, id, q]) if barrier_zero(std::slice::from_ref(id)) => {
                        let q = self.pred_src(q)?;
                        let op = match reduction {
                            px::BarReduction::Popc => isa::BarRedOp::Popc,
                            px::BarReduction::And => isa::BarRedOp::And,
                            px::BarReduction::Or => isa::BarRedOp::Or,
                        };
                        let form = Form::BarRed(mods::BarRed { op });
                        if op == isa::BarRedOp::Popc {
                            let d = self.word(d)?;
                            return self.emit(form, &[dst(d), q]);
                        }
                        // `.and` and `.or` give a predicate: the 0 or 1, compared.
                        let t = self.scratch;
                        self.emit(form, &[dst(t), q])?;
                        let (ne, operands) = registers::nonzero(self.pred(d)?, src(Src::reg(t)));
                        self.emit(ne, &operands)
                    }
                    _ => Err(with_note(
                        unsupported("this barrier".into()),
                        "supported: `bar.sync a{, b}`, `barrier.sync a{, b}` and `bar.arrive a, b` (`__syncthreads()` is `bar.sync 0`), `bar.red.{popc,and,or} d, 0, p` (`__syncthreads_count`, `_and`, `_or`)",
                    )),
                }
            }
            // Every lane of the warp syncs: a partial mask's lanes among them.
            Op::BarWarpSync => {
                let [mask] = self.operands(inst)?;
                self.member_mask(mask)?;
                self.op(Opcode::Warpsync, &[])
            }
            Op::Membar(m) => {
                let scope = if m.level == px::MembarLevel::Cta { isa::MembarScope::Cta } else { isa::MembarScope::Gl };
                self.emit(Form::Membar(mods::Membar { scope }), &[])
            }
            Op::Fence(f) => {
                let scope = if f.scope == px::Scope::Cta { isa::MembarScope::Cta } else { isa::MembarScope::Gl };
                self.emit(Form::Membar(mods::Membar { scope }), &[])
            }
            Op::Shfl(s) => self.shfl(inst, s),
            Op::Vote(v) => {
                if !v.sync {
                    return Err(with_note(
                        unsupported("`vote` without `.sync`".into()),
                        "write `vote.sync` with a member mask of `0xffffffff` (PTX has no `vote` without `.sync` from sm_70)",
                    ));
                }
                let [d, p, mask] = self.operands(inst)?;
                let mask = self.member_mask(mask)?;
                let q = self.pred_src(p)?;
                let pt = isa::Operand::PredSrc { pred: isa::PT, negated: false };
                match (v.mode, mask) {
                    (px::VoteMode::Ballot, None) => {
                        let d = self.word(d)?;
                        self.op(Opcode::VoteBallot, &[dst(d), q])
                    }
                    (px::VoteMode::Ballot, Some(mask)) => {
                        let (d, t) = (self.word(d)?, self.scratch);
                        self.op(Opcode::VoteBallot, &[dst(t), q])?;
                        self.op(Opcode::And, &[dst(d), src(Src::reg(t)), src(mask)])
                    }
                    (px::VoteMode::All | px::VoteMode::Any, None) => {
                        let d = self.pred(d)?;
                        let mode = if v.mode == px::VoteMode::All { isa::VoteMode::All } else { isa::VoteMode::Any };
                        self.emit(Form::Vote(mods::Vote { mode }), &[isa::Operand::Pred(d), q])
                    }
                    // The ballots of `p` (t) and of the lanes voting (t + 1), within the mask:
                    // all holds where they are equal, any where the first is not 0, uniform
                    // where either.
                    (mode, mask) => {
                        let (d, t) = (self.pred(d)?, self.scratch);
                        self.op(Opcode::VoteBallot, &[dst(t), q])?;
                        self.op(Opcode::VoteBallot, &[dst(t + 1), pt])?;
                        if let Some(mask) = mask {
                            for r in [t, t + 1] {
                                self.op(Opcode::And, &[dst(r), src(Src::reg(r)), src(mask)])?;
                            }
                        }
                        // d = (t cmp b) bop c
                        let set = |this: &mut Self, cmp, bop, b: Src, c: u8| {
                            let form = Form::Isetp(mods::Isetp { cmp, ty: isa::IntType::U32, bop });
                            this.emit(form, &[isa::Operand::Pred(d), src(Src::reg(t)), src(b), isa::Operand::PredSrc { pred: c, negated: false }])
                        };
                        match mode {
                            px::VoteMode::All => set(self, isa::Cmp::Eq, isa::BoolOp::And, Src::reg(t + 1), isa::PT),
                            px::VoteMode::Any => set(self, isa::Cmp::Ne, isa::BoolOp::And, Src::imm(0), isa::PT),
                            _ => {
                                set(self, isa::Cmp::Eq, isa::BoolOp::And, Src::imm(0), isa::PT)?;
                                set(self, isa::Cmp::Eq, isa::BoolOp::Or, Src::reg(t + 1), d)
                            }
                        }
                    }
                }
            }
            Op::Redux(r) if r.ty == Type::F32 => {
                let [d, a, mask] = self.operands(inst)?;
                let members = self.members(mask)?;
                let op = match r.op {
                    px::ReduxOp::Min => isa::MinMax::Min,
                    px::ReduxOp::Max => isa::MinMax::Max,
                    _ => return Err(Diagnostic::new(inst.op_span, format!("`redux.sync{}` takes integers: `.f32` is for `.min` and `.max`", r.op))),
                };
                let abs = if r.abs { isa::Magnitude::Yes } else { isa::Magnitude::No };
                let nan = if r.nan { isa::NanProp::Yes } else { isa::NanProp::No };
                let (d, a) = (self.word(d)?, self.word(a)?);
                self.emit(Form::ReduxF32(mods::ReduxF32 { op, abs, nan }), &[dst(d), src(Src::reg(a)), members])
            }
            Op::Redux(r) if r.abs || r.nan || !matches!(r.ty, Type::U32 | Type::S32 | Type::B32) => Err(Diagnostic::new(
                inst.op_span,
                format!("`{}` is not a reduction PTX has: `.abs` and `.NaN` are for `.f32`, and the integers are `.u32`, `.s32` and `.b32`", inst.op),
            )),
            Op::Redux(r) => {
                let [d, a, mask] = self.operands(inst)?;
                let members = self.members(mask)?;
                let op = match r.op {
                    px::ReduxOp::Add => isa::ReduxOp::Add,
                    px::ReduxOp::Min => isa::ReduxOp::Min,
                    px::ReduxOp::Max => isa::ReduxOp::Max,
                    px::ReduxOp::And => isa::ReduxOp::And,
                    px::ReduxOp::Or => isa::ReduxOp::Or,
                    px::ReduxOp::Xor => isa::ReduxOp::Xor,
                };
                let ty = if r.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                let (d, a) = (self.word(d)?, self.word(a)?);
                self.emit(Form::Redux(mods::Redux { op, ty }), &[dst(d), src(Src::reg(a)), members])
            }
            Op::Match(m) if matches!(m.ty.bits(), 32 | 64) => {
                let [d, a, mask] = self.operands(inst)?;
                let members = self.members(mask)?;
                // `match.all`'s `d|p`: p holds where the lanes agree, which is where d is not 0
                // (the lanes then include this one).
                let (d, agree) = match d.kind {
                    OperandKind::Pair(value, p) if m.mode == px::MatchMode::All => {
                        (ast::Operand { kind: OperandKind::Name(value), span: d.span }, Some(ast::Operand { kind: OperandKind::Name(p), span: d.span }))
                    }
                    OperandKind::Pair(..) => return Err(unsupported("`match.any` with a predicate output (`d|p`)".into())),
                    _ => (d.clone(), None),
                };
                let form = Form::Match(mods::Match { mode: if m.mode == px::MatchMode::All { isa::MatchMode::All } else { isa::MatchMode::Any } });
                let (d, t) = (self.word(&d)?, self.scratch);
                if m.ty.bits() == 32 {
                    let a = self.word(a)?;
                    self.emit(form, &[dst(d), src(Src::reg(a)), members])?;
                } else {
                    // Lanes agree on a 64-bit value where they agree on both words; all lanes
                    // agree on it where they agree on both (else one of the two masks is 0).
                    let a = self.pair(a)?;
                    self.emit(form, &[dst(t), src(Src::reg(a)), members])?;
                    self.emit(form, &[dst(t + 1), src(Src::reg(a + 1)), members])?;
                    self.op(Opcode::And, &[dst(d), src(Src::reg(t)), src(Src::reg(t + 1))])?;
                }
                let Some(agree) = agree else { return Ok(()) };
                let (ne, operands) = registers::nonzero(self.pred(&agree)?, src(Src::reg(d)));
                self.emit(ne, &operands)
            }
            Op::Activemask => {
                let [d] = self.operands(inst)?;
                let d = self.word(d)?;
                self.op(Opcode::VoteBallot, &[dst(d), isa::Operand::PredSrc { pred: isa::PT, negated: false }])
            }
            Op::Bra(_) => {
                let [target] = self.operands(inst)?;
                let OperandKind::Name(label) = target.kind else { return Err(Diagnostic::new(target.span, "expected a label")) };
                let label = self.b.label(self.labels.name(label));
                self.branch(label)
            }
            // An indexed branch is a branch to each label but the last where the index is its
            // position, then to the last (PTX leaves an index past the list undefined).
            Op::Brx(_) => {
                let [index, list] = self.operands(inst)?;
                if inst.guard.is_some() {
                    return Err(unsupported("a guarded `brx.idx`".to_string()));
                }
                let targets = match list.kind {
                    OperandKind::Name(name) => self.jump_tables.get(name).cloned(),
                    _ => None,
                };
                let Some((last, rest)) = targets.as_deref().and_then(|t| t.split_last()) else {
                    return Err(Diagnostic::new(list.span, "expected the name of a `.branchtargets` list of this function"));
                };
                let x = self.src32(index)?;
                for (k, target) in rest.iter().enumerate() {
                    let eq = Form::Isetp(mods::Isetp { cmp: isa::Cmp::Eq, ty: isa::IntType::U32, bop: isa::BoolOp::And });
                    self.emit(
                        eq,
                        &[isa::Operand::Pred(SCRATCH_PRED), src(x), src(Src::imm(k as u32)), isa::Operand::PredSrc { pred: isa::PT, negated: false }],
                    )?;
                    let label = self.b.label(self.labels.name(target));
                    self.guard = isa::Guard { pred: SCRATCH_PRED, negated: false };
                    let branched = self.branch(label);
                    self.guard = isa::Guard::ALWAYS;
                    branched?;
                }
                let label = self.b.label(self.labels.name(last));
                self.branch(label)
            }
            _ => Err(unsupported(format!("`{op}`"))),
        }
    }

    pub(super) fn shfl(&mut self, inst: &'t ast::Instruction<'a>, s: px::Shfl) -> Result<()> {
        let [d, a, b, c, mask] = self.operands(inst)?;
        if !s.sync || s.ty.bits() != 32 {
            return Err(Diagnostic::new(inst.op_span, "only `shfl.sync` of 32-bit values is supported"));
        }
        // A lane reads the lane PTX names whatever the mask: PTX defines no other value.
        self.member_mask(mask)?;
        let mode = match s.mode {
            px::ShflMode::Up => isa::ShflMode::Up,
            px::ShflMode::Down => isa::ShflMode::Down,
            px::ShflMode::Bfly => isa::ShflMode::Bfly,
            px::ShflMode::Idx => isa::ShflMode::Idx,
        };
        // PTX packs the segment width and the clamp into `c`: ((32 - width) << 8) | clamp,
        // the clamp being 0 for `.up` and width - 1 otherwise. nvcc keeps it in a register.
        let Some(c_value) = self.constant(c) else {
            return Err(Diagnostic::new(c.span, "the clamp operand must be a literal, or a register always set to one"));
        };
        let width = 32 - (c_value >> 8);
        // PTX reads the clamp as c[4:0] outside the segment mask c[12:8]: cooperative groups'
        // tiles write 31 for every width (0x181f is 0x1807).
        let clamp = c_value & 0x1F & !(c_value >> 8);
        let expected = if mode == isa::ShflMode::Up { 0 } else { width - 1 };
        if !(1..=32).contains(&width) || (width as u32).count_ones() != 1 || clamp != expected || c_value >> 13 != 0 {
            return Err(with_note(
                Diagnostic::new(c.span, format!("clamp value {c_value:#x} is not one that CUDA's __shfl_*_sync produces")),
                "expected ((32 - width) << 8) | (width - 1), or (32 - width) << 8 for .up, with width a power of two",
            ));
        }
        // nvcc writes `d|p` on every shuffle; a `p` the kernel never reads is not worked out.
        let (d, valid) = match d.kind {
            OperandKind::Pair(value, valid) => (
                ast::Operand { kind: OperandKind::Name(value), span: d.span },
                self.may_read(valid).then_some(ast::Operand { kind: OperandKind::Name(valid), span: d.span }),
            ),
            _ => (d.clone(), None),
        };
        let b = self.src32(b)?;
        // `d|p`: p says whether the source lane lay inside the segment (else a lane reads its
        // own `a`). The source lane is worked out in scratch registers before `SHFL`, which
        // may overwrite `b`, and compared after it.
        let t = self.scratch;
        let within = match valid {
            Some(_) => Some(self.source_lane(mode, b, width as u32)?),
            None => None,
        };
        let (d, a) = (self.word(&d)?, self.word(a)?);
        self.emit(Form::Shfl(mods::Shfl { mode }), &[dst(d), src(Src::reg(a)), src(b), isa::Operand::Imm(width as u32)])?;
        let (Some(valid), Some((cmp, last))) = (valid, within) else { return Ok(()) };
        let p = self.pred(&valid)?;
        let pt = isa::Operand::PredSrc { pred: isa::PT, negated: false };
        self.emit(Form::Isetp(mods::Isetp { cmp, ty: isa::IntType::S32, bop: isa::BoolOp::And }), &[isa::Operand::Pred(p), src(Src::reg(t)), src(last), pt])
    }

    /// Computes, into scratch register `scratch`, the lane `shfl` reads from (PTX's `j`), and
    /// returns how `j` must compare with the returned bound for the read to be in range:
    /// at least the segment's first lane for `.up`, at most its last otherwise.
    pub(super) fn source_lane(&mut self, mode: isa::ShflMode, b: Src, width: u32) -> Result<(isa::Cmp, Src)> {
        let (t, seg) = (self.scratch, 32 - width);
        self.op(Opcode::S2r, &[dst(t), isa::Operand::Special(isa::SpecialReg::LaneId)])?;
        let lane_bits = match b {
            Src::Imm { bits, .. } => Src::imm(bits as u32 & 31),
            _ => {
                self.op(Opcode::And, &[dst(t + 1), src(b), src(Src::imm(31))])?;
                Src::reg(t + 1)
            }
        };
        // The segment's first lane: this lane with the bits inside the segment cleared.
        let first = if seg == 0 {
            Src::imm(0)
        } else {
            self.op(Opcode::And, &[dst(t + 2), src(Src::reg(t)), src(Src::imm(seg))])?;
            Src::reg(t + 2)
        };
        let last = |this: &mut Self| -> Result<Src> {
            if seg == 0 {
                return Ok(Src::imm(width - 1));
            }
            this.op(Opcode::Or, &[dst(t + 3), src(first), src(Src::imm(width - 1))])?;
            Ok(Src::reg(t + 3))
        };
        match mode {
            isa::ShflMode::Up => {
                self.op(Opcode::Isub, &[dst(t), src(Src::reg(t)), src(lane_bits)])?;
                Ok((isa::Cmp::Ge, first))
            }
            isa::ShflMode::Down => {
                self.op(Opcode::Iadd, &[dst(t), src(Src::reg(t)), src(lane_bits)])?;
                Ok((isa::Cmp::Le, last(self)?))
            }
            isa::ShflMode::Bfly => {
                self.op(Opcode::Xor, &[dst(t), src(Src::reg(t)), src(lane_bits)])?;
                Ok((isa::Cmp::Le, last(self)?))
            }
            isa::ShflMode::Idx => {
                // j = first | (b & ~segmask): the index, kept inside the segment.
                self.op(Opcode::And, &[dst(t), src(lane_bits), src(Src::imm(width - 1))])?;
                self.op(Opcode::Or, &[dst(t), src(Src::reg(t)), src(first)])?;
                Ok((isa::Cmp::Le, last(self)?))
            }
        }
    }

    /// `mma.sync.aligned.SHAPE.row.col[.satfinite].D.A.B.C` for every shape and type the tensor
    /// engine has in PTX's fragment layout (`docs/ptx.md` lists them): simt's `MMA.M16N8K16`,
    /// `MMA.M16N8K8`, `MMA.M16N8K32` and `MMA.M8N8K4` lay fragments out as PTX does, so the
    /// fragments only move into and out of consecutive scratch registers (f64 elements as pairs).
    pub(super) fn mma(&mut self, inst: &'t ast::Instruction<'a>, m: px::Mma) -> Result<()> {
        if let Some(kind) = m.scale {
            return self.scaled_mma(inst, m, kind);
        }
        if m.f8f6f4 {
            return self.scaled_mma(inst, m, isa::MmaScaledKind::Mxf8f6f4);
        }
        let (input, acc) = (mma_input(m.a), mma_acc(m.d));
        let sat = if m.satfinite { isa::Sat::Yes } else { isa::Sat::No };
        let form = match (m.shape, acc, input) {
            (px::MmaShape::M16n8k16, Some(acc), Some(input)) => Some(Form::MmaM16n8k16(mods::MmaM16n8k16 { acc, input })),
            (px::MmaShape::M16n8k8, Some(acc), Some(input)) => Some(Form::MmaM16n8k8(mods::MmaM16n8k8 { acc, input })),
            (px::MmaShape::M16n8k32, Some(acc), Some(input)) => Some(Form::MmaM16n8k32(mods::MmaM16n8k32 { acc, input, sat })),
            (px::MmaShape::M8n8k4, Some(acc), Some(input)) => Some(Form::MmaM8n8k4(mods::MmaM8n8k4 { acc, input })),
            _ => None,
        };
        // `.satfinite` means something only where it is kept (the integer forms).
        let satfinite_kept = !m.satfinite || form.and_then(|f| f.mma()).is_some_and(|f| f.sat);
        let layouts = m.a_layout == px::Layout::Row && m.b_layout == px::Layout::Col;
        let (Some(form), Some(_), true, true, true) =
            (form, form.and_then(|f| f.mma()).filter(|f| f.is_defined()), layouts, m.a == m.b && m.c == m.d, satfinite_kept)
        else {
            return Err(with_note(
                Diagnostic::new(inst.op_span, format!("`{}` is not supported by the PTX front end yet", inst.op)),
                "supported, each `.row.col` with A and B of one type and C of D's: m16n8k16 .f32.f16, .f32.bf16 and .f16.f16, m16n8k8 .f32.tf32, \
                 m16n8k32 .s32.s8 and .s32.u8 (also .satfinite), .f32.e4m3 and .f32.e5m2, m8n8k4 .f64.f64",
            ));
        };
        let [d, a, b, c] = self.operands(inst)?;
        self.mma_fragments(form, [d, a, b, c], &[])
    }

    /// `mma.sync.aligned.m16n8k32|m16n8k64.row.col.kind::K.block_scale[.scale_vec::NX].f32.A.B.f32.S
    /// d, a, b, c, scale-a, {byte-id-a, thread-id-a}, scale-b, {byte-id-b, thread-id-b}` (consumer
    /// Blackwell) as one `MMA.SCALED`: the fragments as `mma`'s, the scale registers as they
    /// are, the selectors (constants) as `sel`'s hex digits. The unscaled
    /// `m16n8k32.row.col.kind::f8f6f4.f32.A.B.f32 d, a, b, c` is `MXF8F6F4` with every scale 1
    /// (E8M0 127), which multiplies by exactly 1.
    fn scaled_mma(&mut self, inst: &'t ast::Instruction<'a>, m: px::Mma, kind: isa::MmaScaledKind) -> Result<()> {
        let form = mma_input(m.a).zip(mma_input(m.b)).map(|(a, b)| Form::MmaScaled(mods::MmaScaled { kind, a, b }));
        let shape = if kind == isa::MmaScaledKind::Mxf8f6f4 { px::MmaShape::M16n8k32 } else { px::MmaShape::M16n8k64 };
        let layouts = m.a_layout == px::Layout::Row && m.b_layout == px::Layout::Col;
        let (Some(form), true, true, false) = (form.filter(Form::is_defined), m.shape == shape && layouts, m.c == Type::F32 && m.d == Type::F32, m.satfinite)
        else {
            return Err(with_note(
                Diagnostic::new(inst.op_span, format!("`{}` is not supported by the PTX front end yet", inst.op)),
                "supported, each `.row.col` with f32 D and C: m16n8k32 `.kind::mxf8f6f4` of .e4m3, .e5m2, .e3m2, .e2m3 or .e2m1 (each) with .ue8m0 \
                 scales, or `.kind::f8f6f4` of those without, and m16n8k64 `.kind::mxf4` (or `::mxf4nvf4.scale_vec::2X`) with .ue8m0 scales and \
                 `.kind::mxf4nvf4.scale_vec::4X` with .ue8m0 or .ue4m3 scales, of .e2m1",
            ));
        };
        let (fragments, scales, sel) = if m.scale.is_none() {
            let [d, a, b, c] = self.operands(inst)?;
            ([d, a, b, c], [Src::imm(0x7F7F_7F7F); 2], 0)
        } else {
            let [d, a, b, c, scale_a, select_a, scale_b, select_b] = self.operands(inst)?;
            let mut sel = 0;
            for o in [select_a, select_b] {
                let digits = match &o.kind {
                    OperandKind::Vector(parts) if parts.len() == 2 => {
                        parts.iter().map(|p| self.constant(p).filter(|v| (0..16).contains(v))).collect::<Option<Vec<_>>>()
                    }
                    _ => None,
                };
                let Some([byte, thread]) = digits.as_deref().map(|d| [d[0] as u32, d[1] as u32]) else {
                    return Err(Diagnostic::new(o.span, "expected `{byte-id, thread-id}`, two constants (simt takes no registers here)"));
                };
                sel = sel << 8 | byte << 4 | thread;
            }
            isa::ScaleSelectors::check(sel, kind).map_err(|why| Diagnostic::new(Span { start: select_a.span.start, end: select_b.span.end }, why))?;
            ([d, a, b, c], [self.src32(scale_a)?, self.src32(scale_b)?], sel)
        };
        // B's fragment leaves two of its four scratch registers free for literal scales; both
        // scales one literal (the unscaled kind's) take one.
        let mut scale_regs = [0u8; 2];
        for (i, scale) in scales.into_iter().enumerate() {
            scale_regs[i] = match scale {
                Src::Reg { reg, .. } => reg,
                literal if i == 1 && literal == scales[0] => scale_regs[0],
                literal => {
                    let t = self.scratch + 6 + i as u8;
                    self.mov(t, literal)?;
                    t
                }
            };
        }
        self.mma_fragments(form, fragments, &[src(Src::reg(scale_regs[0])), src(Src::reg(scale_regs[1])), isa::Operand::Imm(sel)])
    }

    /// `wgmma.mma_async.sync.aligned.m64nNkK.D.A.B d, a, b, scale-d, ...` as one `WGMMA`, this
    /// warp's 16 rows: the accumulator `d` in the registers it was given (register allocation
    /// lays it out consecutively), A's and B's descriptors as they are, or A's fragment, and
    /// `scale-d` as `q`. The ordering instructions around it emit nothing: a `WGMMA` completes
    /// as it executes, reading shared memory then (`docs/ptx.md`).
    pub(super) fn wgmma(&mut self, inst: &'t ast::Instruction<'a>, w: px::Wgmma) -> Result<()> {
        let refuse = || Err(with_note(Diagnostic::new(inst.op_span, format!("`{}` is not supported by the PTX front end yet", inst.op)), WGMMA_FORMS));
        let (Some(input), Some(acc)) = (mma_input(w.a), mma_acc(w.d)) else { return refuse() };
        if w.a != w.b || u32::from(w.k) * input.bits() != 256 {
            return refuse();
        }
        let ops = &inst.operands;
        let a_in_registers = matches!(ops.get(1).map(|o| &o.kind), Some(OperandKind::Vector(_)));
        // The literals after scale-d: A's and B's scales (not for integers), then the
        // transposes (16-bit types only; A's only from shared memory).
        let scales = usize::from(acc != isa::MmaAcc::S32);
        let transposes = if input.bits() == 16 { 2 - usize::from(a_in_registers) } else { 0 };
        if ops.len() != 4 + 2 * scales + transposes {
            return Err(Diagnostic::new(inst.span, format!("`{}` takes {} operands here, found {}", inst.op, 4 + 2 * scales + transposes, ops.len())));
        }
        let mut literals = Vec::new();
        for o in &ops[4..] {
            match self.constant(o) {
                Some(v) => literals.push(v),
                None => return Err(Diagnostic::new(o.span, "expected a literal (imm-scale and imm-trans are immediates)")),
            }
        }
        let (scale, transpose) = literals.split_at(2 * scales);
        if let Some((o, _)) = ops[4..4 + 2 * scales].iter().zip(scale).find(|&(_, &v)| v != 1) {
            return Err(with_note(Diagnostic::new(o.span, "negating A or B (an imm-scale of -1) is not supported"), WGMMA_FORMS));
        }
        let transposed = |i: usize| transpose.get(i).is_some_and(|&v| v != 0);
        let (trans_a, trans_b) = if a_in_registers { (false, transposed(0)) } else { (transposed(0), transposed(1)) };
        let trans = match (trans_a, trans_b) {
            (false, false) => isa::WgmmaTrans::Nn,
            (true, false) => isa::WgmmaTrans::Tn,
            (false, true) => isa::WgmmaTrans::Nt,
            (true, true) => isa::WgmmaTrans::Tt,
        };
        let src_kind = if a_in_registers { isa::WgmmaSrc::Rs } else { isa::WgmmaSrc::Ss };
        let form = Form::Wgmma(mods::Wgmma { src: src_kind, acc, input, trans });
        if !form.is_defined() {
            return refuse();
        }
        let [d, a, b, scale_d] = [&ops[0], &ops[1], &ops[2], &ops[3]];
        let registers = usize::from(w.n) * acc.bits() as usize / 64;
        let d_base = match &d.kind {
            OperandKind::Vector(parts) if parts.len() == registers => self.in_place(parts, false, 1).ok_or_else(|| {
                Diagnostic::new(d.span, format!("the accumulator's {registers} registers could not be placed consecutively, as `WGMMA` reads them"))
            })?,
            _ => return Err(Diagnostic::new(d.span, format!("expected a vector of {registers} registers (n = {})", w.n))),
        };
        let a = match &a.kind {
            OperandKind::Vector(parts) if parts.len() == 4 => match self.in_place(parts, false, 1) {
                Some(base) => base,
                None => {
                    for (i, part) in parts.iter().enumerate() {
                        let x = self.src32(part)?;
                        self.mov(self.scratch + i as u8, x)?;
                    }
                    self.scratch
                }
            },
            OperandKind::Vector(_) => return Err(Diagnostic::new(a.span, "expected a vector of 4 registers (A's fragment)")),
            _ => self.pair(a)?,
        };
        let b = self.pair(b)?;
        let q = self.enable_predicate(scale_d)?;
        self.emit(form, &[dst(d_base), src(Src::reg(a)), src(Src::reg(b)), isa::Operand::Imm(u32::from(w.n)), q])
    }

    /// `form` on the fragments `d = a * b + c` (vectors of registers, or one register for a
    /// fragment of one), as many of each as the form takes: a vector longer than that gives
    /// its first ones (`wmma`'s f16 fragments hold every element twice); `rest`, the form's
    /// operands after them.
    pub(super) fn mma_fragments(&mut self, form: Form, [d, a, b, c]: [&'t ast::Operand<'a>; 4], rest: &[isa::Operand]) -> Result<()> {
        use isa::{MmaAcc, MmaIn};
        let Some(mma) = form.mma() else { return Err(Diagnostic::new(self.span, "internal error: not an MMA form")) };
        // A 64-bit element (f64) is a register pair in the fragment.
        let wide_in = mma.input == MmaIn::F64;
        let wide_acc = mma.acc == MmaAcc::F64;
        let parts = |o: &'t ast::Operand<'a>, regs: u8, wide: bool| -> Result<&'t [ast::Operand<'a>]> {
            let n = usize::from(if wide { regs / 2 } else { regs });
            match &o.kind {
                OperandKind::Vector(v) if v.len() >= n => Ok(&v[..n]),
                // The parser reads one-element braces (m8n8k4's `{%fd1}`) as the register.
                OperandKind::Name(_) if n == 1 => Ok(std::slice::from_ref(o)),
                _ => Err(Diagnostic::new(o.span, format!("expected a vector of {n} registers"))),
            }
        };
        let (d, a, b, c) = (
            parts(d, mma.regs(isa::FragRole::C), wide_acc)?,
            parts(a, mma.regs(isa::FragRole::A), wide_in)?,
            parts(b, mma.regs(isa::FragRole::B), wide_in)?,
            parts(c, mma.regs(isa::FragRole::C), wide_acc)?,
        );
        // A fragment whose registers lie as the MMA reads them (register allocation tries
        // to place them so) is read and written in place; any other goes through scratch
        // registers, moved in before the MMA and, for D, out after it.
        let same_registers = d.iter().zip(c).all(|(x, y)| x.kind == y.kind);
        let t = self.scratch;
        let (ta, tb, tc) = (t, t + 4, t + 8);
        let align = usize::from(mma.reg_align());
        let (d_base, c_base) = match self.in_place(d, wide_acc, align) {
            Some(base) if same_registers => (base, Some(base)),
            Some(base) => (base, self.in_place(c, wide_acc, align)),
            None => (tc, None),
        };
        let (a_base, b_base) = (self.in_place(a, wide_in, align), self.in_place(b, wide_in, align));
        for (base, fragment, wide, found) in [(ta, a, wide_in, a_base), (tb, b, wide_in, b_base), (tc, c, wide_acc, c_base)] {
            if found.is_some() {
                continue;
            }
            for (i, part) in fragment.iter().enumerate() {
                if wide {
                    let p = self.pair(part)?;
                    self.mov(base + 2 * i as u8, Src::reg(p))?;
                    self.mov(base + 2 * i as u8 + 1, Src::reg(p + 1))?;
                } else {
                    let x = self.src32(part)?;
                    self.mov(base + i as u8, x)?;
                }
            }
        }
        let reg = |found: Option<u8>, scratch: u8| Src::reg(found.unwrap_or(scratch));
        // Every shape takes at most 4 registers of A and 4 of B (C from t + 8: 8 with `wmma`).
        let mut operands = [isa::Operand::None; isa::MAX_OPERANDS];
        operands[..4].copy_from_slice(&[dst(d_base), src(reg(a_base, ta)), src(reg(b_base, tb)), src(reg(c_base, tc))]);
        operands[4..4 + rest.len()].copy_from_slice(rest);
        self.emit(form, &operands[..4 + rest.len()])?;
        if d_base != tc {
            return Ok(());
        }
        for (i, part) in d.iter().enumerate() {
            if wide_acc {
                let r = self.pair(part)?;
                self.mov(r, Src::reg(tc + 2 * i as u8))?;
                self.mov(r + 1, Src::reg(tc + 2 * i as u8 + 1))?;
            } else {
                let r = self.word(part)?;
                self.mov(r, Src::reg(tc + i as u8))?;
            }
        }
        Ok(())
    }
}

/// The tensor-core input type of a PTX element type, if the tensor engine has it.
fn mma_input(ty: Type) -> Option<isa::MmaIn> {
    use isa::MmaIn;
    Some(match ty {
        Type::F16 => MmaIn::F16,
        Type::Bf16 => MmaIn::BF16,
        Type::Tf32 => MmaIn::TF32,
        Type::S8 => MmaIn::S8,
        Type::U8 => MmaIn::U8,
        Type::E4m3 => MmaIn::E4M3,
        Type::E5m2 => MmaIn::E5M2,
        Type::E2m1 => MmaIn::E2M1,
        Type::E2m3 => MmaIn::E2M3,
        Type::E3m2 => MmaIn::E3M2,
        Type::F64 => MmaIn::F64,
        _ => return None,
    })
}

/// The tensor-core accumulator type of a PTX element type, if the tensor engine has it.
fn mma_acc(ty: Type) -> Option<isa::MmaAcc> {
    use isa::MmaAcc;
    Some(match ty {
        Type::F32 => MmaAcc::F32,
        Type::F16 => MmaAcc::F16,
        Type::S32 => MmaAcc::S32,
        Type::F64 => MmaAcc::F64,
        _ => return None,
    })
}

/// What `wgmma.mma_async` the PTX front end translates, for its refusals.
const WGMMA_FORMS: &str = "supported: wgmma.mma_async.sync.aligned.m64nNkK with D, A and B of .f32.f16.f16, .f32.bf16.bf16 and .f16.f16.f16 (k16), \
                           .f32.tf32.tf32 (k8), .f32.e4m3.e4m3, .f32.e5m2.e5m2, .s32.s8.s8 and .s32.u8.u8 (k32); A from shared memory or registers, \
                           imm-scale-a and imm-scale-b 1";
