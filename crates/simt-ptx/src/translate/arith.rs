//! Integer and float arithmetic that takes more than one simt instruction: division,
//! multiplication in every width and mode, comparisons (`setp`, `set`).

use super::*;

impl<'t, 'a> Entry<'t, 'a> {
    /// `d = x + y` (`x - y` with `sub`), plus the carry flag with `carry_in` (minus it, as a
    /// borrow, with `sub`), a 32-bit word at a time, low word first: `words` holds each word's
    /// `(d, x, y)`. With `carry_out` the flag becomes the carry (borrow) out of the last word.
    /// Each word is taken in 64 bits of zero-extended words, whose high word is the carry (a
    /// sum's 0 or 1) or the borrow (a difference's 0 or all ones) the next word takes in. A
    /// word's sources are read before its `d` is written; a pair's low word is even, so it is
    /// never a later word's source.
    fn carry_chain(&mut self, words: &[(u8, Src, Src)], sub: bool, carry_in: bool, carry_out: bool) -> Result<()> {
        let cc = self.carry.ok_or_else(|| Diagnostic::new(self.span, "internal error: no register was kept for the carry flag"))?;
        let t = self.scratch;
        let op = if sub { Opcode::Isub64 } else { Opcode::Iadd64 };
        // A borrow's all ones becomes 1.
        let take_carry =
            |this: &mut Self, d: u8| if sub { this.op(Opcode::And, &[dst(d), src(Src::reg(t + 1)), src(Src::imm(1))]) } else { this.mov(d, Src::reg(t + 1)) };
        self.mov(t + 3, Src::imm(0))?;
        for (i, &(d, x, y)) in words.iter().enumerate() {
            if i == 0 {
                self.mov(t, x)?;
                self.mov(t + 1, Src::imm(0))?;
            } else {
                // The previous word's carry, as the pair (0 or 1, 0), taken from x.
                take_carry(self, t)?;
                self.mov(t + 1, Src::imm(0))?;
                self.mov(t + 2, x)?;
                self.op(op, &[dst(t), src(Src::reg(t + 2)), src(Src::reg(t))])?;
            }
            self.mov(t + 2, y)?;
            self.op(op, &[dst(t), src(Src::reg(t)), src(Src::reg(t + 2))])?;
            if i == 0 && carry_in {
                self.mov(t + 2, Src::reg(cc))?;
                self.op(op, &[dst(t), src(Src::reg(t)), src(Src::reg(t + 2))])?;
            }
            self.mov(d, Src::reg(t))?;
        }
        if carry_out {
            take_carry(self, cc)?;
        }
        Ok(())
    }

    /// `min.xorsign.abs.f32 d, a, b` (`max` alike): the lesser magnitude, its sign the XOR of
    /// `a`'s and `b`'s, a NaN result canonical (Triton's `tl.clamp(x, -c, c)` on sm_86 and
    /// later). `FMIN` of the magnitudes, the sign bit ORed in, then `FMIN` of the result with
    /// itself, which keeps a number and makes a NaN canonical again.
    fn min_max_xorsign(&mut self, inst: &'t ast::Instruction<'a>, max: bool, flush: bool) -> Result<()> {
        let [d, x, y] = self.operands(inst)?;
        let d = self.word(d)?;
        let (x, y) = (self.src32(x)?, self.src32(y)?);
        let magnitude = |s: Src| match s {
            Src::Reg { reg, .. } => Src::Reg { reg, neg: false, abs: true },
            Src::Imm { bits, wide } => Src::Imm { bits: bits & 0x7FFF_FFFF, wide },
        };
        let (t, sign) = (self.scratch, self.scratch + 1);
        let pick = |ftz| if max { Form::Fmax(mods::Fmax { ftz }) } else { Form::Fmin(mods::Fmin { ftz }) };
        self.emit(pick(ftz(flush)), &[dst(t), src(magnitude(x)), src(magnitude(y))])?;
        self.op(Opcode::Xor, &[dst(sign), src(x), src(y)])?;
        self.op(Opcode::And, &[dst(sign), src(Src::reg(sign)), src(Src::imm(0x8000_0000))])?;
        self.op(Opcode::Or, &[dst(sign), src(Src::reg(t)), src(Src::reg(sign))])?;
        self.emit(pick(ftz(false)), &[dst(d), src(Src::reg(sign)), src(Src::reg(sign))])
    }

    /// An f32 operand; with `narrow` (mixed precision), an `.f16` or `.bf16` one widened to f32
    /// (exact) in scratch register `slot`.
    fn f32_operand(&mut self, o: &ast::Operand<'a>, narrow: Option<Type>, slot: u8) -> Result<Src> {
        let x = self.src32(o)?;
        let Some(narrow) = narrow else { return Ok(x) };
        let t = self.scratch + slot;
        self.emit(Form::Cvt(mods::Cvt { to: isa::CvtType::F32, from: half_formats(narrow).0, rnd: isa::Round::Rn }), &[dst(t), src(x)])?;
        Ok(Src::reg(t))
    }

    /// `add.f32 d, x, y` or `sub.f32` (`inst`'s opcode says which) with `a`'s rounding,
    /// flushing and saturation.
    fn f32_add(&mut self, inst: &'t ast::Instruction<'a>, a: px::Arith, d: u8, x: Src, y: Src) -> Result<()> {
        let rounded = directed(a.rounding);
        if rounded.is_none() {
            rn_only(a.rounding, inst.op, inst)?;
        }
        let y = if matches!(inst.op, Op::Sub(_)) { negate_f32(y) } else { y };
        match rounded {
            // x * 1 + y rounds the sum once, and keeps every sign of zero an add gives.
            Some(rnd) => {
                self.emit(Form::Ffma(mods::Ffma { ftz: ftz(a.ftz), sat: sat(a.sat), rnd }), &[dst(d), src(x), src(Src::imm(1.0f32.to_bits())), src(y)])
            }
            None => self.emit(Form::Fadd(mods::Fadd { ftz: ftz(a.ftz), sat: sat(a.sat) }), &[dst(d), src(x), src(y)]),
        }
    }

    /// Integer, bit and float arithmetic, comparisons and selects.
    pub(super) fn arithmetic(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let unsupported = |what: String| unsupported(inst, what);
        let op = inst.op;
        match op {
            // `.NaN` is on f32 and halves (sm_80; simt's halves have no `.ftz`), and simt has no
            // NaN-making `.xorsign.abs`.
            Op::Min(a) | Op::Max(a) if a.nan && (a.xorsign_abs || !(a.ty == Type::F32 || (is_half(a.ty) && !a.ftz))) => {
                Err(unsupported(format!("`{}`", inst.op)))
            }
            Op::Min(a) | Op::Max(a) if a.relu && !matches!(a.ty, Type::S32 | Type::S16x2) => {
                Err(unsupported(format!("`{}`: `.relu` is for `.s32` and `.s16x2`", inst.op)))
            }
            Op::Min(a) | Op::Max(a) if a.xorsign_abs => {
                if a.ty != Type::F32 {
                    return Err(unsupported(format!("`{}` on `{}`", inst.op, a.ty)));
                }
                self.min_max_xorsign(inst, matches!(op, Op::Max(_)), a.ftz)
            }
            // A pair of singles (sm_100): the single's translation on each word.
            Op::Add(a) | Op::Sub(a) if a.ty == Type::F32x2 => {
                let [d, x, y] = self.operands(inst)?;
                let (d, x, y) = (self.pair(d)?, self.pair(x)?, self.pair(y)?);
                let single = px::Arith { ty: Type::F32, ..a };
                for k in 0..2 {
                    self.f32_add(inst, single, d + k, Src::reg(x + k), Src::reg(y + k))?;
                }
                Ok(())
            }
            // Halves and pairs of halves: one instruction on the pair (`half_arith`).
            Op::Add(a) | Op::Sub(a) | Op::Min(a) | Op::Max(a) | Op::Fma(a)
                if is_half(a.ty) && !a.ftz && !a.sat && matches!(a.rounding, None | Some(px::Rounding::Rn)) =>
            {
                let kind = match op {
                    Op::Add(_) => HalfOp::Add,
                    Op::Sub(_) => HalfOp::Sub,
                    Op::Min(a) if a.nan => HalfOp::MinNan,
                    Op::Max(a) if a.nan => HalfOp::MaxNan,
                    Op::Min(_) => HalfOp::Min,
                    Op::Max(_) => HalfOp::Max,
                    _ => HalfOp::Fma,
                };
                self.half_arith(inst, a.ty, kind)
            }
            Op::Mul(m) if is_half(m.ty) && !m.ftz && !m.sat && matches!(m.rounding, None | Some(px::Rounding::Rn)) => self.half_arith(inst, m.ty, HalfOp::Mul),
            Op::Ex2(f) if is_half(f.ty) && f.mode == px::FloatMode::Approx && !f.ftz => self.half_ex2(inst, f.ty),
            // The carry flag lives in a register of its own.
            Op::Add(a) | Op::Sub(a) | Op::AddC(a) | Op::SubC(a) if a.cc || matches!(op, Op::AddC(_) | Op::SubC(_)) => {
                let [d, x, y] = self.operands(inst)?;
                let sub = matches!(op, Op::Sub(_) | Op::SubC(_));
                let carry_in = matches!(op, Op::AddC(_) | Op::SubC(_));
                match a.ty {
                    Type::U32 | Type::S32 if !a.sat => {
                        let word = (self.word(d)?, self.src32(x)?, self.src32(y)?);
                        self.carry_chain(&[word], sub, carry_in, a.cc)
                    }
                    Type::U64 | Type::S64 if !a.sat => {
                        let (d, (x_lo, x_hi), (y_lo, y_hi)) = (self.pair(d)?, self.halves(x)?, self.halves(y)?);
                        self.carry_chain(&[(d, x_lo, y_lo), (d + 1, x_hi, y_hi)], sub, carry_in, a.cc)
                    }
                    _ => Err(unsupported(format!("`{}{}` with a carry", op.name(), a.ty))),
                }
            }
            Op::Mad(m) | Op::MadC(m)
                if (m.cc || matches!(op, Op::MadC(_)))
                    && matches!(m.ty, Type::U32 | Type::S32)
                    && matches!(m.mode, Some(px::MulMode::Lo | px::MulMode::Hi)) =>
            {
                let [d, x, y, z] = self.operands(inst)?;
                let (d, x, y, z) = (self.word(d)?, self.src32(x)?, self.src32(y)?, self.src32(z)?);
                let product = self.scratch;
                match m.mode {
                    Some(px::MulMode::Hi) => {
                        let ty = if m.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                        self.emit(Form::ImulHi(mods::ImulHi { ty }), &[dst(product), src(x), src(y)])?;
                    }
                    _ => self.op(Opcode::Imul, &[dst(product), src(x), src(y)])?,
                }
                self.carry_chain(&[(d, Src::reg(product), z)], false, matches!(op, Op::MadC(_)), m.cc)
            }
            // Pairs of 16-bit integers (sm_90), each half wrapping: the low half of `x op y`
            // (its carry lands in the high half, which is dropped) and the high half of
            // `x op (y & 0xFFFF0000)` (nothing carries into it), joined by a `PRMT`.
            Op::Add(a) | Op::Sub(a) if matches!(a.ty, Type::U16x2 | Type::S16x2) && !a.sat => {
                let [d, x, y] = self.operands(inst)?;
                let opcode = if matches!(op, Op::Sub(_)) { Opcode::Isub } else { Opcode::Iadd };
                let (x, y, t) = (self.src32(x)?, self.src32(y)?, self.scratch);
                self.op(Opcode::And, &[dst(t), src(y), src(Src::imm(0xFFFF_0000))])?;
                self.op(opcode, &[dst(t), src(x), src(Src::reg(t))])?;
                self.op(opcode, &[dst(t + 1), src(x), src(y)])?;
                let d = self.word(d)?;
                self.emit(Form::Prmt(mods::Prmt { mode: isa::PrmtMode::Idx }), &[dst(d), src(Src::reg(t + 1)), src(Src::reg(t)), src(Src::imm(0x7610))])
            }
            Op::Add(a) | Op::Sub(a) => {
                let [d, x, y] = self.operands(inst)?;
                let sub = matches!(op, Op::Sub(_));
                match class_of(a.ty) {
                    Some(Class::Word { bits }) if a.ty.is_integer() && !a.sat => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src32(x)?, self.src32(y)?);
                        self.op(if sub { Opcode::Isub } else { Opcode::Iadd }, &[dst(d), src(x), src(y)])?;
                        self.narrow(d, bits)
                    }
                    Some(Class::Pair) if a.ty.is_integer() => {
                        let d = self.pair(d)?;
                        let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                        self.op(if sub { Opcode::Isub64 } else { Opcode::Iadd64 }, &[dst(d), src(x), src(y)])
                    }
                    _ if a.ty == Type::F32 => {
                        let d = self.word(d)?;
                        let (x, y) = (self.f32_operand(x, a.narrow, 0)?, self.src32(y)?);
                        self.f32_add(inst, a, d, x, y)
                    }
                    _ if a.ty == Type::F64 => {
                        let rnd = directed(a.rounding);
                        if rnd.is_none() {
                            rn_only(a.rounding, op, inst)?;
                        }
                        let d = self.pair(d)?;
                        let (x, mut y) = (self.src_f64(x)?, self.src_f64(y)?);
                        if sub {
                            y = match y {
                                Src::Reg { reg, .. } => Src::Reg { reg, neg: true, abs: false },
                                Src::Imm { bits, wide } => Src::Imm { bits: bits ^ (1 << 63), wide },
                            };
                        }
                        match rnd {
                            // x * 1 + y rounds the sum once.
                            Some(rnd) => self.emit(Form::Dfma(mods::Dfma { rnd }), &[dst(d), src(x), src(f64_imm(1.0)), src(y)]),
                            None => self.op(Opcode::Dadd, &[dst(d), src(x), src(y)]),
                        }
                    }
                    _ => Err(unsupported(format!("`{}{}{}`", op.name(), if a.sat { ".sat" } else { "" }, a.ty))),
                }
            }
            // 64-bit products with a carry would need more scratch registers than there are.
            Op::Mad(m) | Op::MadC(m) if m.cc || matches!(op, Op::MadC(_)) => Err(unsupported(format!("`{}` with a carry (`.cc`)", op.name()))),
            Op::Mul(m) | Op::Mad(m) => self.multiply(inst, m, matches!(op, Op::Mad(_))),
            // The 24-bit products: each source's low 24 bits, extended as the type says, then
            // the low word of their product (`.lo`) or its bits 16..47 (`.hi`).
            Op::Mul24(m) | Op::Mad24(m) if matches!(m.ty, Type::U32 | Type::S32) && !m.sat && matches!(m.mode, Some(px::MulMode::Lo | px::MulMode::Hi)) => {
                let (d, x, y, z) = match inst.operands.as_slice() {
                    [d, x, y] if matches!(op, Op::Mul24(_)) => (d, x, y, None),
                    [d, x, y, z] if matches!(op, Op::Mad24(_)) => (d, x, y, Some(z)),
                    _ => return Err(Diagnostic::new(inst.span, format!("`{}` takes {} operands", op.name(), if matches!(op, Op::Mul24(_)) { 3 } else { 4 }))),
                };
                let ty = if m.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                let (d, x, y, z) = (self.word(d)?, self.src32(x)?, self.src32(y)?, z.map(|z| self.src32(z)).transpose()?);
                let t = self.scratch;
                for (r, v) in [(t, x), (t + 1, y)] {
                    self.emit(Form::Bfe(mods::Bfe { ty }), &[dst(r), src(v), src(Src::imm(0)), src(Src::imm(24))])?;
                }
                let product = if z.is_some() { t } else { d };
                if m.mode == Some(px::MulMode::Hi) {
                    self.emit(Form::ImulWide(mods::ImulWide { ty }), &[dst(t + 2), src(Src::reg(t)), src(Src::reg(t + 1))])?;
                    let right = Form::Shf(mods::Shf { dir: isa::ShfDir::R, amount: isa::ShfAmount::Wrap });
                    self.emit(right, &[dst(product), src(Src::reg(t + 2)), src(Src::reg(t + 3)), src(Src::imm(16))])?;
                } else {
                    self.op(Opcode::Imul, &[dst(product), src(Src::reg(t)), src(Src::reg(t + 1))])?;
                }
                match z {
                    Some(z) => self.op(Opcode::Iadd, &[dst(d), src(Src::reg(t)), src(z)]),
                    None => Ok(()),
                }
            }
            // `d = c + |a - b|`: the larger less the smaller, in the type's signedness.
            Op::Sad(t) if matches!(t.ty, Type::U32 | Type::S32 | Type::U64 | Type::S64) => {
                let [d, x, y, z] = self.operands(inst)?;
                let s = self.scratch;
                if t.ty.bits() == 32 {
                    let ty = if t.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                    let (d, x, y, z) = (self.word(d)?, self.src32(x)?, self.src32(y)?, self.src32(z)?);
                    self.emit(Form::Imax(mods::Imax { ty }), &[dst(s), src(x), src(y)])?;
                    self.emit(Form::Imin(mods::Imin { ty }), &[dst(s + 1), src(x), src(y)])?;
                    self.op(Opcode::Isub, &[dst(s), src(Src::reg(s)), src(Src::reg(s + 1))])?;
                    return self.op(Opcode::Iadd, &[dst(d), src(Src::reg(s)), src(z)]);
                }
                let ty = if t.ty == Type::S64 { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let d = self.pair(d)?;
                let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                self.emit(Form::Imax64(mods::Imax64 { ty }), &[dst(s), src(x), src(y)])?;
                self.emit(Form::Imin64(mods::Imin64 { ty }), &[dst(s + 2), src(x), src(y)])?;
                self.op(Opcode::Isub64, &[dst(s), src(Src::reg(s)), src(Src::reg(s + 2))])?;
                let z = self.src64(z)?;
                self.op(Opcode::Iadd64, &[dst(d), src(Src::reg(s)), src(z)])
            }
            Op::Dp4a(dot) | Op::Dp2a(dot) if [dot.a, dot.b].iter().all(|t| matches!(t, Type::U32 | Type::S32)) => {
                let [d, x, y, z] = self.operands(inst)?;
                let (d, x, y, z) = (self.word(d)?, self.src32(x)?, self.src32(y)?, self.src32(z)?);
                let b = if dot.b == Type::S32 { isa::Sign8::S8 } else { isa::Sign8::U8 };
                let form = match op {
                    Op::Dp4a(_) => Form::Idp4a(mods::Idp4a { a: if dot.a == Type::S32 { isa::Sign8::S8 } else { isa::Sign8::U8 }, b }),
                    _ => Form::Idp2a(mods::Idp2a {
                        half: if dot.hi { isa::DpHalf::Hi } else { isa::DpHalf::Lo },
                        a: if dot.a == Type::S32 { isa::Sign16::S16 } else { isa::Sign16::U16 },
                        b,
                    }),
                };
                self.emit(form, &[dst(d), src(x), src(y), src(z)])
            }
            Op::Fma(a) => {
                let [d, x, y, z] = self.operands(inst)?;
                let rnd = float_rounding(a.rounding, op, inst)?;
                match a.ty {
                    Type::F32 => {
                        let d = self.word(d)?;
                        let (x, y, z) = (self.f32_operand(x, a.narrow, 0)?, self.f32_operand(y, a.narrow, 1)?, self.src32(z)?);
                        self.emit(Form::Ffma(mods::Ffma { ftz: ftz(a.ftz), sat: sat(a.sat), rnd }), &[dst(d), src(x), src(y), src(z)])
                    }
                    Type::F64 => {
                        let d = self.pair(d)?;
                        let (x, y, z) = (self.src_f64(x)?, self.src_f64(y)?, self.src_f64(z)?);
                        self.emit(Form::Dfma(mods::Dfma { rnd }), &[dst(d), src(x), src(y), src(z)])
                    }
                    // A pair of singles (sm_100): the single's FMA on each word.
                    Type::F32x2 => {
                        let (d, x, y, z) = (self.pair(d)?, self.pair(x)?, self.pair(y)?, self.pair(z)?);
                        let form = Form::Ffma(mods::Ffma { ftz: ftz(a.ftz), sat: sat(a.sat), rnd });
                        (0..2).try_for_each(|k| self.emit(form, &[dst(d + k), src(Src::reg(x + k)), src(Src::reg(y + k)), src(Src::reg(z + k))]))
                    }
                    ty => Err(unsupported(format!("`fma{ty}`"))),
                }
            }
            // 16-bit operands, as registers keep them: zero-extended; signed ones are sign-extended
            // first, and the result is cut back to 16 bits.
            Op::Min(px::Arith { ty: ty @ (Type::S16 | Type::U16), .. })
            | Op::Max(px::Arith { ty: ty @ (Type::S16 | Type::U16), .. })
            | Op::Div(px::Div { ty: ty @ (Type::S16 | Type::U16), .. })
            | Op::Rem(px::Typed { ty: ty @ (Type::S16 | Type::U16) }) => {
                let [d, x, y] = self.operands(inst)?;
                let t = self.scratch;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                self.widen(t, x, ty)?;
                self.widen(t + 1, y, ty)?;
                let int = if ty == Type::S16 { isa::IntType::S32 } else { isa::IntType::U32 };
                let form = match op {
                    Op::Min(_) => Form::Imin(mods::Imin { ty: int }),
                    Op::Max(_) => Form::Imax(mods::Imax { ty: int }),
                    Op::Div(_) => Form::Idiv(mods::Idiv { ty: int }),
                    _ => Form::Irem(mods::Irem { ty: int }),
                };
                let d = self.word(d)?;
                self.emit(form, &[dst(d), src(Src::reg(t)), src(Src::reg(t + 1))])?;
                self.narrow(d, 16)
            }
            Op::Div(dv) => {
                let [d, x, y] = self.operands(inst)?;
                match (dv.ty, dv.mode, dv.ftz) {
                    // `.approx` and `.full` promise at most 2 ulp; simt rounds correctly (docs/ptx.md).
                    (
                        Type::F32,
                        Some(
                            mode @ (px::FloatMode::Rounded(px::Rounding::Rn | px::Rounding::Rz | px::Rounding::Rm | px::Rounding::Rp)
                            | px::FloatMode::Approx
                            | px::FloatMode::Full),
                        ),
                        ftz,
                    ) => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src32(x)?, self.src32(y)?);
                        let (x, y) = (self.flushed(x, ftz, 0)?, self.flushed(y, ftz, 1)?);
                        let rnd = match mode {
                            px::FloatMode::Rounded(r) => directed(Some(r)).unwrap_or(isa::Round::Rn),
                            _ => isa::Round::Rn,
                        };
                        self.emit(Form::Fdiv(mods::Fdiv { rnd }), &[dst(d), src(x), src(y)])?;
                        self.flush_in_place(d, ftz)
                    }
                    (Type::S32 | Type::U32 | Type::S64 | Type::U64, None, false) => self.divide(dv.ty, false, [d, x, y]),
                    (Type::F64, Some(px::FloatMode::Rounded(r @ (px::Rounding::Rn | px::Rounding::Rz | px::Rounding::Rm | px::Rounding::Rp))), false) => {
                        let rnd = directed(Some(r)).unwrap_or(isa::Round::Rn);
                        let d = self.pair(d)?;
                        let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                        self.emit(Form::Ddiv(mods::Ddiv { rnd }), &[dst(d), src(x), src(y)])
                    }
                    _ => Err(unsupported(format!("`div{}{}{}`", dv.mode.map_or(String::new(), |m| m.to_string()), if dv.ftz { ".ftz" } else { "" }, dv.ty)))
                        .map_err(|e| {
                            with_note(
                                e,
                                "supported: div.s32, div.u32, div.s64, div.u64, div.{rn,rz,rm,rp}.f32, div.approx.f32, div.full.f32, div.{rn,rz,rm,rp}.f64",
                            )
                        }),
                }
            }
            Op::Rem(t) if matches!(t.ty, Type::S32 | Type::U32 | Type::S64 | Type::U64) => {
                let [d, x, y] = self.operands(inst)?;
                self.divide(t.ty, true, [d, x, y])
            }
            Op::Bfe(t) if matches!(t.ty, Type::S64 | Type::U64) => {
                // With a literal position and length (bit fields of 64-bit values): the field
                // shifted to the top, then back down, arithmetically when signed.
                let [d, x, pos, len] = self.operands(inst)?;
                let (Some(pos), Some(len)) = (self.constant(pos), self.constant(len)) else {
                    return Err(unsupported(format!("`bfe{}` with a position or length in a register", t.ty)));
                };
                let (pos, len) = ((pos & 0xFF) as u32, (len & 0xFF) as u32);
                let ty = if t.ty == Type::S64 { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let shr = Form::Shr64(mods::Shr64 { ty });
                let (d, x) = (self.pair(d)?, self.pair_src(x)?);
                match (len, pos) {
                    (0, _) => {
                        self.mov(d, Src::imm(0))?;
                        self.mov(d + 1, Src::imm(0))
                    }
                    // Past the top every bit is the extension: the sign (signed) or 0.
                    (_, 64..) => self.emit(shr, &[dst(d), src(x), src(Src::imm(if ty == isa::Int64Type::S64 { 63 } else { 64 }))]),
                    (_, _) if pos + len >= 64 => self.emit(shr, &[dst(d), src(x), src(Src::imm(pos))]),
                    _ => {
                        self.op(Opcode::Shl64, &[dst(d), src(x), src(Src::imm(64 - pos - len))])?;
                        self.emit(shr, &[dst(d), src(Src::reg(d)), src(Src::imm(64 - len))])
                    }
                }
            }
            Op::Bfe(t) if matches!(t.ty, Type::S32 | Type::U32) => {
                let [d, x, pos, len] = self.operands(inst)?;
                let d = self.word(d)?;
                let (x, pos, len) = (self.src32(x)?, self.src32(pos)?, self.src32(len)?);
                let ty = if t.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                self.emit(Form::Bfe(mods::Bfe { ty }), &[dst(d), src(x), src(pos), src(len)])
            }
            Op::Neg(a) | Op::Abs(a) => {
                let [d, x] = self.operands(inst)?;
                let neg = matches!(op, Op::Neg(_));
                match a.ty {
                    Type::S32 | Type::S16 => {
                        let d = self.word(d)?;
                        let x = self.src32(x)?;
                        if neg {
                            self.op(Opcode::Isub, &[dst(d), src(Src::reg(RZ)), src(x)])?;
                        } else {
                            let x = self.sign_extended(x, a.ty.bits(), 0)?;
                            self.op(Opcode::Iabs, &[dst(d), src(x)])?;
                        }
                        self.narrow(d, a.ty.bits())
                    }
                    // -x is x * -1; |x| the larger of x and -x (both wrap at i64::MIN, as PTX's do).
                    Type::S64 => {
                        let (d, x, t) = (self.pair(d)?, Src::reg(self.pair(x)?), self.scratch);
                        let minus_one = Src::imm(u32::MAX);
                        if neg {
                            return self.op(Opcode::Imul64, &[dst(d), src(x), src(minus_one)]);
                        }
                        self.op(Opcode::Imul64, &[dst(t), src(x), src(minus_one)])?;
                        self.emit(Form::Imax64(mods::Imax64 { ty: isa::Int64Type::S64 }), &[dst(d), src(x), src(Src::reg(t))])
                    }
                    // Sign-bit operations, exact for every input as PTX defines them (`.ftz` flushes first).
                    Type::F32 => {
                        let d = self.word(d)?;
                        let x = self.src32(x)?;
                        let x = self.flushed(x, a.ftz, 0)?;
                        let (opcode, mask) = if neg { (Opcode::Xor, 0x8000_0000) } else { (Opcode::And, 0x7FFF_FFFF) };
                        self.op(opcode, &[dst(d), src(x), src(Src::imm(mask))])
                    }
                    Type::F64 => {
                        let (d, x) = (self.pair(d)?, self.pair(x)?);
                        self.mov(d, Src::reg(x))?;
                        let (opcode, mask) = if neg { (Opcode::Xor, 0x8000_0000) } else { (Opcode::And, 0x7FFF_FFFF) };
                        self.op(opcode, &[dst(d + 1), src(Src::reg(x + 1)), src(Src::imm(mask))])
                    }
                    // The sign bits of a half, bf16, or each of a pair.
                    Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2 if !a.ftz => {
                        let d = self.word(d)?;
                        let x = self.src32(x)?;
                        let pair = matches!(a.ty, Type::F16x2 | Type::Bf16x2);
                        let (opcode, mask) = match (neg, pair) {
                            (true, true) => (Opcode::Xor, 0x8000_8000),
                            (true, false) => (Opcode::Xor, 0x8000),
                            (false, true) => (Opcode::And, 0x7FFF_7FFF),
                            (false, false) => (Opcode::And, 0x7FFF),
                        };
                        self.op(opcode, &[dst(d), src(x), src(Src::imm(mask))])
                    }
                    ty => Err(unsupported(format!("`{}{}{ty}`", op.name(), if a.ftz { ".ftz" } else { "" }))),
                }
            }
            Op::Min(a) | Op::Max(a) if matches!(a.ty, Type::S64 | Type::U64) => {
                let [d, x, y] = self.operands(inst)?;
                let ty = if a.ty == Type::S64 { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let form = if matches!(op, Op::Max(_)) { Form::Imax64(mods::Imax64 { ty }) } else { Form::Imin64(mods::Imin64 { ty }) };
                let d = self.pair(d)?;
                let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                self.emit(form, &[dst(d), src(x), src(y)])
            }
            Op::Min(a) | Op::Max(a) if a.ty == Type::F64 => {
                let [d, x, y] = self.operands(inst)?;
                let d = self.pair(d)?;
                let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                self.op(if matches!(op, Op::Max(_)) { Opcode::Dmax } else { Opcode::Dmin }, &[dst(d), src(x), src(y)])
            }
            // Pairs of 16-bit integers (sm_90): each half extended by its signedness, compared
            // on its own, and the two packed again.
            Op::Min(a) | Op::Max(a) if matches!(a.ty, Type::U16x2 | Type::S16x2) => {
                let [d, x, y] = self.operands(inst)?;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let ty = if a.ty == Type::S16x2 { isa::IntType::S32 } else { isa::IntType::U32 };
                let form = if matches!(op, Op::Max(_)) { Form::Imax(mods::Imax { ty }) } else { Form::Imin(mods::Imin { ty }) };
                let t = self.scratch;
                for half in 0..2u8 {
                    for (k, v) in [x, y].into_iter().enumerate() {
                        self.emit(Form::Bfe(mods::Bfe { ty }), &[dst(t + k as u8), src(v), src(Src::imm(16 * u32::from(half))), src(Src::imm(16))])?;
                    }
                    self.emit(form, &[dst(t + 2 + half), src(Src::reg(t)), src(Src::reg(t + 1))])?;
                    if a.relu {
                        self.emit(Form::Imax(mods::Imax { ty }), &[dst(t + 2 + half), src(Src::reg(t + 2 + half)), src(Src::imm(0))])?;
                    }
                }
                let d = self.word(d)?;
                self.op(Opcode::Bfi, &[dst(d), src(Src::reg(t + 3)), src(Src::reg(t + 2)), src(Src::imm(16)), src(Src::imm(16))])
            }
            // Three inputs (PTX 8.8, sm_100) are two instructions: the first two, then the third.
            Op::Min(a) | Op::Max(a) => {
                let max = matches!(op, Op::Max(_));
                let form = match a.ty {
                    Type::S32 | Type::U32 => {
                        let ty = if a.ty == Type::S32 { isa::IntType::S32 } else { isa::IntType::U32 };
                        if max { Form::Imax(mods::Imax { ty }) } else { Form::Imin(mods::Imin { ty }) }
                    }
                    Type::F32 => {
                        let f = ftz(a.ftz);
                        match (max, a.nan) {
                            (true, false) => Form::Fmax(mods::Fmax { ftz: f }),
                            (false, false) => Form::Fmin(mods::Fmin { ftz: f }),
                            (true, true) => Form::FmaxNan(mods::FmaxNan { ftz: f }),
                            (false, true) => Form::FminNan(mods::FminNan { ftz: f }),
                        }
                    }
                    ty => return Err(unsupported(format!("`{}{ty}`", op.name()))),
                };
                let (d, sources) = inst.operands.split_first().ok_or_else(|| Diagnostic::new(inst.span, "expected operands"))?;
                let d = self.word(d)?;
                let sources = sources.iter().map(|o| self.src32(o)).collect::<Result<Vec<Src>>>()?;
                match sources[..] {
                    [x, y] => self.emit(form, &[dst(d), src(x), src(y)])?,
                    [x, y, z] => {
                        let t = self.scratch;
                        self.emit(form, &[dst(t), src(x), src(y)])?;
                        self.emit(form, &[dst(d), src(Src::reg(t)), src(z)])?;
                    }
                    _ => return Err(Diagnostic::new(inst.span, format!("`{}` takes 3 or 4 operands", inst.op))),
                }
                // `.relu`: a negative result is 0.
                if a.relu {
                    self.emit(Form::Imax(mods::Imax { ty: isa::IntType::S32 }), &[dst(d), src(Src::reg(d)), src(Src::imm(0))])?;
                }
                Ok(())
            }
            Op::And(t) | Op::Or(t) | Op::Xor(t) => {
                let [d, x, y] = self.operands(inst)?;
                let (opcode, bop) = match op {
                    Op::And(_) => (Opcode::And, isa::BoolOp::And),
                    Op::Or(_) => (Opcode::Or, isa::BoolOp::Or),
                    _ => (Opcode::Xor, isa::BoolOp::Xor),
                };
                match class_of(t.ty) {
                    Some(Class::Pred) => {
                        let (d, x, y) = (self.pred(d)?, self.pred_src(x)?, self.pred_src(y)?);
                        self.emit(Form::Plop(mods::Plop { bop }), &[isa::Operand::Pred(d), x, y])
                    }
                    // Zero-extended narrow values stay so; a literal is cut to their width
                    // (`or.b16 %rs, %rs, -32768` sets one bit).
                    Some(Class::Word { bits }) => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src_of_width(x, bits)?, self.src_of_width(y, bits)?);
                        self.op(opcode, &[dst(d), src(x), src(y)])
                    }
                    Some(Class::Pair) => {
                        let d = self.pair(d)?;
                        let (xl, xh) = self.halves(x)?;
                        let (yl, yh) = self.halves(y)?;
                        self.op(opcode, &[dst(d), src(xl), src(yl)])?;
                        self.op(opcode, &[dst(d + 1), src(xh), src(yh)])
                    }
                    None => Err(unsupported(format!("`{}{}`", op.name(), t.ty))),
                }
            }
            Op::Not(t) => {
                let [d, x] = self.operands(inst)?;
                match class_of(t.ty) {
                    Some(Class::Pred) => {
                        let (d, x) = (self.pred(d)?, self.pred_src(x)?);
                        let isa::Operand::PredSrc { pred, negated } = x else { unreachable!("pred_src makes PredSrc") };
                        let not_x = isa::Operand::PredSrc { pred, negated: !negated };
                        let pt = isa::Operand::PredSrc { pred: isa::PT, negated: false };
                        self.emit(Form::Plop(mods::Plop { bop: isa::BoolOp::And }), &[isa::Operand::Pred(d), not_x, pt])
                    }
                    Some(Class::Word { bits }) => {
                        let d = self.word(d)?;
                        let x = self.src32(x)?;
                        self.op(Opcode::Not, &[dst(d), src(x)])?;
                        self.narrow(d, bits)
                    }
                    Some(Class::Pair) => {
                        let d = self.pair(d)?;
                        let (xl, xh) = self.halves(x)?;
                        self.op(Opcode::Not, &[dst(d), src(xl)])?;
                        self.op(Opcode::Not, &[dst(d + 1), src(xh)])
                    }
                    None => Err(unsupported(format!("`not{}`", t.ty))),
                }
            }
            Op::Shl(t) | Op::Shr(t) => {
                let [d, x, y] = self.operands(inst)?;
                let shl = matches!(op, Op::Shl(_));
                match class_of(t.ty) {
                    Some(Class::Word { bits }) => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src_of_width(x, bits)?, self.src32(y)?);
                        // Narrow values are kept zero-extended: an arithmetic shift needs the sign
                        // first, and then its result cut back; a logical one stays within the bits.
                        let arithmetic = !shl && t.ty.is_signed();
                        let x = if arithmetic { self.sign_extended(x, bits, 0)? } else { x };
                        let form = if shl {
                            Form::new(Opcode::Shl)
                        } else {
                            Form::Shr(mods::Shr { ty: if arithmetic { isa::IntType::S32 } else { isa::IntType::U32 } })
                        };
                        self.emit(form, &[dst(d), src(x), src(y)])?;
                        if shl || arithmetic { self.narrow(d, bits) } else { Ok(()) }
                    }
                    Some(Class::Pair) => {
                        let d = self.pair(d)?;
                        let x = self.pair_src(x)?;
                        let y = self.src32(y)?;
                        let form = if shl {
                            Form::new(Opcode::Shl64)
                        } else {
                            Form::Shr64(mods::Shr64 { ty: if t.ty.is_signed() { isa::Int64Type::S64 } else { isa::Int64Type::U64 } })
                        };
                        self.emit(form, &[dst(d), src(x), src(y)])
                    }
                    _ => Err(unsupported(format!("`{}{}`", op.name(), t.ty))),
                }
            }
            Op::Popc(t) | Op::Clz(t) | Op::Brev(t) if t.ty.bits() == 32 => {
                let [d, x] = self.operands(inst)?;
                let opcode = match op {
                    Op::Popc(_) => Opcode::Popc,
                    Op::Clz(_) => Opcode::Clz,
                    _ => Opcode::Brev,
                };
                let d = self.word(d)?;
                let x = self.src32(x)?;
                self.op(opcode, &[dst(d), src(x)])
            }
            Op::Popc(t) | Op::Clz(t) | Op::Brev(t) if t.ty.bits() == 64 => {
                let [d, x] = self.operands(inst)?;
                let ((lo, hi), c, l) = (self.halves(x)?, self.scratch, self.scratch + 1);
                match op {
                    Op::Popc(_) => {
                        let d = self.word(d)?;
                        self.op(Opcode::Popc, &[dst(c), src(lo)])?;
                        self.op(Opcode::Popc, &[dst(d), src(hi)])?;
                        self.op(Opcode::Iadd, &[dst(d), src(Src::reg(d)), src(Src::reg(c))])
                    }
                    // clz(hi), plus clz(lo) when hi is 0 (clz(hi) = 32): lo's count masked by 0 - (clz(hi) >> 5).
                    Op::Clz(_) => {
                        let d = self.word(d)?;
                        self.op(Opcode::Clz, &[dst(c), src(hi)])?;
                        self.op(Opcode::Clz, &[dst(l), src(lo)])?;
                        self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(d), src(Src::reg(c)), src(Src::imm(5))])?;
                        self.op(Opcode::Isub, &[dst(d), src(Src::reg(isa::RZ)), src(Src::reg(d))])?;
                        self.op(Opcode::And, &[dst(d), src(Src::reg(d)), src(Src::reg(l))])?;
                        self.op(Opcode::Iadd, &[dst(d), src(Src::reg(d)), src(Src::reg(c))])
                    }
                    _ => {
                        let d = self.pair(d)?;
                        self.op(Opcode::Brev, &[dst(c), src(hi)])?;
                        self.op(Opcode::Brev, &[dst(d + 1), src(lo)])?;
                        self.mov(d, Src::reg(c))
                    }
                }
            }
            Op::Bfind(b) if matches!(b.ty, Type::U32 | Type::S32) => {
                let [d, x] = self.operands(inst)?;
                let (d, x) = (self.word(d)?, self.src32(x)?);
                let (c, all) = (self.scratch, self.scratch + 1);
                let x = if b.ty == Type::S32 {
                    // The most significant bit that differs from the sign: that of x, or of !x when negative.
                    self.emit(Form::Shr(mods::Shr { ty: isa::IntType::S32 }), &[dst(c), src(x), src(Src::imm(31))])?;
                    self.op(Opcode::Xor, &[dst(c), src(x), src(Src::reg(c))])?;
                    Src::reg(c)
                } else {
                    x
                };
                // CLZ is 32 only for 0, which gives all ones: OR with 0 - (clz >> 5).
                self.op(Opcode::Clz, &[dst(c), src(x)])?;
                self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(all), src(Src::reg(c)), src(Src::imm(5))])?;
                self.op(Opcode::Isub, &[dst(all), src(Src::reg(isa::RZ)), src(Src::reg(all))])?;
                if !b.shiftamt {
                    // The bit's position, 31 - clz, is clz ^ 31 for clz below 32.
                    self.op(Opcode::Xor, &[dst(c), src(Src::reg(c)), src(Src::imm(31))])?;
                }
                self.op(Opcode::Or, &[dst(d), src(Src::reg(c)), src(Src::reg(all))])
            }
            Op::Copysign(t) if matches!(t.ty, Type::F32 | Type::F64) => {
                // `d` is `b` with the sign of `a`: bit 31 of the (high) word.
                let [d, a, b] = self.operands(inst)?;
                let (sign, magnitude) = (self.scratch, self.scratch + 1);
                let (d, a_hi, b_hi) = if t.ty == Type::F32 {
                    (self.word(d)?, self.src32(a)?, self.src32(b)?)
                } else {
                    let (d, (_, a_hi), (b_lo, b_hi)) = (self.pair(d)?, self.halves(a)?, self.halves(b)?);
                    self.mov(magnitude, b_hi)?;
                    self.mov(d, b_lo)?;
                    (d + 1, a_hi, Src::reg(magnitude))
                };
                self.op(Opcode::And, &[dst(sign), src(a_hi), src(Src::imm(0x8000_0000))])?;
                self.op(Opcode::And, &[dst(magnitude), src(b_hi), src(Src::imm(0x7FFF_FFFF))])?;
                self.op(Opcode::Or, &[dst(d), src(Src::reg(sign)), src(Src::reg(magnitude))])
            }
            Op::Setp(s) => self.setp(inst, s),
            Op::Set(s) => self.set(inst, s),
            Op::Selp(t) => {
                let [d, x, y, p] = self.operands(inst)?;
                let p = self.pred_src(p)?;
                match class_of(t.ty) {
                    Some(Class::Word { bits }) => {
                        let d = self.word(d)?;
                        let (x, y) = (self.src_of_width(x, bits)?, self.src_of_width(y, bits)?);
                        self.op(Opcode::Sel, &[dst(d), src(x), src(y), p])
                    }
                    Some(Class::Pair) => {
                        let d = self.pair(d)?;
                        let (xl, xh) = self.halves(x)?;
                        let (yl, yh) = self.halves(y)?;
                        self.op(Opcode::Sel, &[dst(d), src(xl), src(yl), p])?;
                        self.op(Opcode::Sel, &[dst(d + 1), src(xh), src(yh), p])
                    }
                    _ => Err(unsupported(format!("`selp{}`", t.ty))),
                }
            }
            // Reciprocal and square root rounded as asked: f32 `.rn` too, which MUFU would
            // compute as exactly, but ptxas makes it a sequence of several instructions, as
            // `FDIV` and `FSQRT` are timed (`sequence.fdiv`, `sequence.fsqrt`).
            Op::Rcp(f) | Op::Sqrt(f)
                if matches!(
                    (f.ty, f.mode),
                    (Type::F32, px::FloatMode::Rounded(_)) | (Type::F64, px::FloatMode::Rounded(px::Rounding::Rz | px::Rounding::Rm | px::Rounding::Rp))
                ) && (!f.ftz || f.ty == Type::F32) =>
            {
                let px::FloatMode::Rounded(r) = f.mode else { unreachable!("matched above") };
                let rnd = directed(Some(r)).unwrap_or(isa::Round::Rn);
                let [d, x] = self.operands(inst)?;
                match (f.ty, op) {
                    (Type::F32, _) => {
                        let (d, x) = (self.word(d)?, self.src32(x)?);
                        let x = self.flushed(x, f.ftz, 0)?;
                        match op {
                            Op::Rcp(_) => self.emit(Form::Fdiv(mods::Fdiv { rnd }), &[dst(d), src(Src::imm(1.0f32.to_bits())), src(x)])?,
                            _ => self.emit(Form::Fsqrt(mods::Fsqrt { rnd }), &[dst(d), src(x)])?,
                        }
                        self.flush_in_place(d, f.ftz)
                    }
                    (_, Op::Rcp(_)) => {
                        let (d, x) = (self.pair(d)?, self.src_f64(x)?);
                        self.emit(Form::Ddiv(mods::Ddiv { rnd }), &[dst(d), src(f64_imm(1.0)), src(x)])
                    }
                    _ => {
                        let (d, x) = (self.pair(d)?, self.src_f64(x)?);
                        self.emit(Form::Dsqrt(mods::Dsqrt { rnd }), &[dst(d), src(x)])
                    }
                }
            }
            // The approximations are computed as exactly as the rounded forms (`rsqrt` as a
            // square root and a reciprocal, two roundings): within every bound PTX gives them.
            Op::Rcp(f) | Op::Sqrt(f) | Op::Rsqrt(f)
                if f.ty == Type::F64 && matches!(f.mode, px::FloatMode::Approx | px::FloatMode::Rounded(px::Rounding::Rn)) =>
            {
                let [d, x] = self.operands(inst)?;
                let (d, x) = (self.pair(d)?, self.src_f64(x)?);
                // `.ftz` (the approximations') flushes a subnormal input and result.
                let x = if f.ftz { self.flushed_f64(x)? } else { x };
                match op {
                    Op::Rcp(_) => self.op(Opcode::Ddiv, &[dst(d), src(f64_imm(1.0)), src(x)])?,
                    Op::Sqrt(_) => self.op(Opcode::Dsqrt, &[dst(d), src(x)])?,
                    _ => {
                        self.op(Opcode::Dsqrt, &[dst(d), src(x)])?;
                        self.op(Opcode::Ddiv, &[dst(d), src(f64_imm(1.0)), src(Src::reg(d))])?;
                    }
                }
                if f.ftz { self.flush_f64(d, Src::reg(d), Src::reg(d + 1)) } else { Ok(()) }
            }
            Op::Bfi(t) if t.ty == Type::B64 => {
                // With a literal position and length (how nvcc joins two words into one), the
                // field is a mask per word: a << pos merged into b under it.
                let [d, a, b, pos, len] = self.operands(inst)?;
                let (Some(pos), Some(len)) = (self.constant(pos), self.constant(len)) else {
                    return Err(unsupported("`bfi.b64` with a position or length in a register".into()));
                };
                let (pos, len) = ((pos & 0xFF) as u32, (len & 0xFF) as u32);
                let field = if pos >= 64 || len == 0 { 0 } else { (if len >= 64 { u64::MAX } else { (1u64 << len) - 1 }) << pos };
                let (d, (b_lo, b_hi), t) = (self.pair(d)?, self.halves(b)?, self.scratch);
                let a = self.pair_src(a)?;
                self.op(Opcode::Shl64, &[dst(t), src(a), src(Src::imm(pos.min(64)))])?;
                for (half, b_half) in [(0u32, b_lo), (1, b_hi)] {
                    let (mask, shifted, out) = ((field >> (32 * half)) as u32, Src::reg(t + half as u8), d + half as u8);
                    match mask {
                        0 => self.mov(out, b_half)?,
                        u32::MAX => self.mov(out, shifted)?,
                        // b ^ ((b ^ shifted) & mask)
                        mask => {
                            self.op(Opcode::Xor, &[dst(t + 2), src(b_half), src(shifted)])?;
                            self.op(Opcode::And, &[dst(t + 2), src(Src::reg(t + 2)), src(Src::imm(mask))])?;
                            self.op(Opcode::Xor, &[dst(out), src(b_half), src(Src::reg(t + 2))])?;
                        }
                    }
                }
                Ok(())
            }
            Op::Bfi(t) if matches!(t.ty, Type::B32 | Type::U32 | Type::S32) => {
                let [d, a, b, pos, len] = self.operands(inst)?;
                let d = self.word(d)?;
                let (a, b, pos, len) = (self.src32(a)?, self.src32(b)?, self.src32(pos)?, self.src32(len)?);
                self.op(Opcode::Bfi, &[dst(d), src(a), src(b), src(pos), src(len)])
            }
            Op::Lop3(t) if t.ty == Type::B32 => {
                let [d, a, b, c, lut] = self.operands(inst)?;
                let d = self.word(d)?;
                let (a, b, c, lut) = (self.src32(a)?, self.src32(b)?, self.src32(c)?, self.src32(lut)?);
                self.op(Opcode::Lop3, &[dst(d), src(a), src(b), src(c), src(lut)])
            }
            Op::Rcp(f) | Op::Sqrt(f) | Op::Rsqrt(f) | Op::Ex2(f) | Op::Lg2(f) | Op::Sin(f) | Op::Cos(f) | Op::Tanh(f) if f.ty == Type::F32 => {
                let function = match op {
                    Op::Tanh(_) => isa::MufuOp::Tanh,
                    Op::Rcp(_) => isa::MufuOp::Rcp,
                    Op::Sqrt(_) => isa::MufuOp::Sqrt,
                    Op::Rsqrt(_) => isa::MufuOp::Rsq,
                    Op::Ex2(_) => isa::MufuOp::Ex2,
                    Op::Lg2(_) => isa::MufuOp::Lg2,
                    Op::Sin(_) => isa::MufuOp::Sin,
                    _ => isa::MufuOp::Cos,
                };
                let exact_or_approx = matches!(f.mode, px::FloatMode::Approx | px::FloatMode::Rounded(px::Rounding::Rn));
                if !exact_or_approx {
                    return Err(unsupported(format!("`{}` with this rounding", op.name())));
                }
                let [d, x] = self.operands(inst)?;
                let d = self.word(d)?;
                let x = self.src32(x)?;
                // MUFU computes in f64 and rounds once; `.FTZ` flushes the input and the result.
                let ftz = if f.ftz { isa::Ftz::Yes } else { isa::Ftz::No };
                self.emit(Form::Mufu(mods::Mufu { op: function, ftz }), &[dst(d), src(x)])
            }
            Op::Shf(f) => {
                let [d, a, b, c] = self.operands(inst)?;
                let d = self.word(d)?;
                let (a, b, c) = (self.src32(a)?, self.src32(b)?, self.src32(c)?);
                let dir = if f.direction == px::ShfDirection::L { isa::ShfDir::L } else { isa::ShfDir::R };
                let amount = if f.mode == px::ShfMode::Wrap { isa::ShfAmount::Wrap } else { isa::ShfAmount::Clamp };
                self.emit(Form::Shf(mods::Shf { dir, amount }), &[dst(d), src(a), src(b), src(c)])
            }
            Op::Prmt(p) => {
                let [d, a, b, c] = self.operands(inst)?;
                let d = self.word(d)?;
                let (a, b, c) = (self.src32(a)?, self.src32(b)?, self.src32(c)?);
                let mode = match p.mode {
                    None => isa::PrmtMode::Idx,
                    Some(px::PrmtMode::F4e) => isa::PrmtMode::F4e,
                    Some(px::PrmtMode::B4e) => isa::PrmtMode::B4e,
                    Some(px::PrmtMode::Rc8) => isa::PrmtMode::Rc8,
                    Some(px::PrmtMode::Ecl) => isa::PrmtMode::Ecl,
                    Some(px::PrmtMode::Ecr) => isa::PrmtMode::Ecr,
                    Some(px::PrmtMode::Rc16) => isa::PrmtMode::Rc16,
                };
                self.emit(Form::Prmt(mods::Prmt { mode }), &[dst(d), src(a), src(b), src(c)])
            }
            _ => Err(unsupported(format!("`{op}`"))),
        }
    }

    /// `div` (or `rem`, with `rem`) of 32- or 64-bit integers: `IDIV`/`IREM` on words,
    /// `IDIV64`/`IREM64` on pairs.
    pub(super) fn divide(&mut self, ty: Type, rem: bool, [d, x, y]: [&'t ast::Operand<'a>; 3]) -> Result<()> {
        let signed = matches!(ty, Type::S32 | Type::S64);
        if matches!(ty, Type::S64 | Type::U64) {
            let d = self.pair(d)?;
            let (x, y) = (self.pair_src(x)?, self.src64(y)?);
            let ty = if signed { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
            let form = if rem { Form::Irem64(mods::Irem64 { ty }) } else { Form::Idiv64(mods::Idiv64 { ty }) };
            return self.emit(form, &[dst(d), src(x), src(y)]);
        }
        let d = self.word(d)?;
        let (x, y) = (self.src32(x)?, self.src32(y)?);
        let ty = if signed { isa::IntType::S32 } else { isa::IntType::U32 };
        let form = if rem { Form::Irem(mods::Irem { ty }) } else { Form::Idiv(mods::Idiv { ty }) };
        self.emit(form, &[dst(d), src(x), src(y)])
    }

    /// `mul.f32 d, x, y` with `m`'s rounding, flushing and saturation: `FMUL`, or where it
    /// rounds other than to nearest `FFMA` of `x * y + 0`, which rounds the product once.
    fn f32_product(&mut self, inst: &'t ast::Instruction<'a>, m: px::Mul, d: u8, x: Src, y: Src) -> Result<()> {
        match directed(m.rounding) {
            Some(rnd) => {
                let zero = (neutral_zero(rnd) >> 32) as u32;
                self.emit(Form::Ffma(mods::Ffma { ftz: ftz(m.ftz), sat: sat(m.sat), rnd }), &[dst(d), src(x), src(y), src(Src::imm(zero))])
            }
            None => {
                rn_only(m.rounding, inst.op, inst)?;
                self.emit(Form::Fmul(mods::Fmul { ftz: ftz(m.ftz), sat: sat(m.sat) }), &[dst(d), src(x), src(y)])
            }
        }
    }

    pub(super) fn multiply(&mut self, inst: &'t ast::Instruction<'a>, m: px::Mul, mad: bool) -> Result<()> {
        let unsupported = |what: String| unsupported(inst, what);
        let name = if mad { "mad" } else { "mul" };
        let ops = inst.operands.as_slice();
        let (d, x, y, z) = match (mad, ops) {
            (false, [d, x, y]) => (d, x, y, None),
            (true, [d, x, y, z]) => (d, x, y, Some(z)),
            _ => return Err(Diagnostic::new(inst.span, format!("`{name}` takes {} operands", if mad { 4 } else { 3 }))),
        };
        if m.ty.is_float() {
            match (m.ty, z) {
                (Type::F32, None) => {
                    let d = self.word(d)?;
                    let (x, y) = (self.src32(x)?, self.src32(y)?);
                    return self.f32_product(inst, m, d, x, y);
                }
                // A pair of singles (sm_100): the single's product on each word.
                (Type::F32x2, None) => {
                    let (d, x, y) = (self.pair(d)?, self.pair(x)?, self.pair(y)?);
                    for k in 0..2 {
                        self.f32_product(inst, m, d + k, Src::reg(x + k), Src::reg(y + k))?;
                    }
                    return Ok(());
                }
                _ => {}
            }
            if let (Some(rnd), Type::F32, Some(z)) = (directed(m.rounding), m.ty, z) {
                let d = self.word(d)?;
                let (x, y, z) = (self.src32(x)?, self.src32(y)?, self.src32(z)?);
                return self.emit(Form::Ffma(mods::Ffma { ftz: ftz(m.ftz), sat: sat(m.sat), rnd }), &[dst(d), src(x), src(y), src(z)]);
            }
            if let (Some(rnd), Type::F64) = (directed(m.rounding), m.ty) {
                let d = self.pair(d)?;
                let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                let z = match z {
                    Some(z) => self.src_f64(z)?,
                    None => Src::Imm { bits: neutral_zero(rnd), wide: true },
                };
                return self.emit(Form::Dfma(mods::Dfma { rnd }), &[dst(d), src(x), src(y), src(z)]);
            }
            rn_only(m.rounding, inst.op, inst)?;
            return match (m.ty, z) {
                // `mad.rn.f32` is a fused multiply-add (PTX ISA, since sm_20).
                (Type::F32, Some(z)) => {
                    let d = self.word(d)?;
                    let (x, y, z) = (self.src32(x)?, self.src32(y)?, self.src32(z)?);
                    self.emit(Form::Ffma(mods::Ffma { ftz: ftz(m.ftz), sat: sat(m.sat), rnd: isa::Round::Rn }), &[dst(d), src(x), src(y), src(z)])
                }
                (Type::F64, None) => {
                    let d = self.pair(d)?;
                    let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                    self.op(Opcode::Dmul, &[dst(d), src(x), src(y)])
                }
                (Type::F64, Some(z)) => {
                    let d = self.pair(d)?;
                    let (x, y, z) = (self.src_f64(x)?, self.src_f64(y)?, self.src_f64(z)?);
                    self.op(Opcode::Dfma, &[dst(d), src(x), src(y), src(z)])
                }
                (ty, _) => Err(unsupported(format!("`{name}{ty}`"))),
            };
        }
        let signed = if m.ty.is_signed() { isa::IntType::S32 } else { isa::IntType::U32 };
        let t = self.scratch;
        match (m.mode, m.ty.bits()) {
            (Some(px::MulMode::Lo), bits @ (16 | 32)) => {
                // The low bits of a product do not depend on the sources' signedness.
                let d = self.word(d)?;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                match z {
                    None => self.op(Opcode::Imul, &[dst(d), src(x), src(y)])?,
                    Some(z) => {
                        let z = self.src32(z)?;
                        self.op(Opcode::Imad, &[dst(d), src(x), src(y), src(z)])?;
                    }
                }
                self.narrow(d, bits)
            }
            (Some(px::MulMode::Hi), 32) => {
                let d = self.word(d)?;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let high = Form::ImulHi(mods::ImulHi { ty: signed });
                match z {
                    None => self.emit(high, &[dst(d), src(x), src(y)]),
                    Some(z) => {
                        let z = self.src32(z)?;
                        self.emit(high, &[dst(t), src(x), src(y)])?;
                        self.op(Opcode::Iadd, &[dst(d), src(Src::reg(t)), src(z)])
                    }
                }
            }
            (Some(mode @ (px::MulMode::Hi | px::MulMode::Wide)), 16) => {
                // 16-bit registers hold their value zero-extended (a literal its 16 bits): a
                // signed source is sign-extended first, and the 32-bit product is then exact.
                let (mut x, mut y) = (self.src_of_width(x, 16)?, self.src_of_width(y, 16)?);
                if signed == isa::IntType::S32 {
                    (x, y) = (self.sign_extended(x, 16, 0)?, self.sign_extended(y, 16, 1)?);
                }
                let z = z.map(|z| self.src32(z)).transpose()?;
                let d = self.word(d)?;
                if mode == px::MulMode::Wide {
                    return match z {
                        None => self.op(Opcode::Imul, &[dst(d), src(x), src(y)]),
                        Some(z) => self.op(Opcode::Imad, &[dst(d), src(x), src(y), src(z)]),
                    };
                }
                self.op(Opcode::Imul, &[dst(t), src(x), src(y)])?;
                self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(t), src(Src::reg(t)), src(Src::imm(16))])?;
                match z {
                    None => self.mov(d, Src::reg(t))?,
                    Some(z) => self.op(Opcode::Iadd, &[dst(d), src(Src::reg(t)), src(z)])?,
                }
                self.narrow(d, 16)
            }
            (Some(px::MulMode::Wide), 32) => {
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let z = z.map(|z| self.src64(z)).transpose()?;
                let d = self.pair(d)?;
                match z {
                    None => self.emit(Form::ImulWide(mods::ImulWide { ty: signed }), &[dst(d), src(x), src(y)]),
                    Some(z) => self.emit(Form::ImadWide(mods::ImadWide { ty: signed }), &[dst(d), src(x), src(y), src(z)]),
                }
            }
            (Some(mode @ (px::MulMode::Lo | px::MulMode::Hi)), 64) => {
                let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                let z = z.map(|z| self.src64(z)).transpose()?;
                let d = self.pair(d)?;
                let form = match mode {
                    px::MulMode::Lo => Form::Imul64(mods::Imul64 {}),
                    _ => Form::ImulHi64(mods::ImulHi64 { ty: if m.ty.is_signed() { isa::Int64Type::S64 } else { isa::Int64Type::U64 } }),
                };
                match z {
                    None => self.emit(form, &[dst(d), src(x), src(y)]),
                    Some(z) => {
                        self.emit(form, &[dst(t), src(x), src(y)])?;
                        self.op(Opcode::Iadd64, &[dst(d), src(Src::reg(t)), src(z)])
                    }
                }
            }
            _ => Err(unsupported(format!("`{name}{}{}`", m.mode.map_or(String::new(), |mode| mode.to_string()), m.ty))),
        }
    }

    pub(super) fn setp(&mut self, inst: &'t ast::Instruction<'a>, s: px::Setp) -> Result<()> {
        let unsupported = |what: String| unsupported(inst, what);
        let (d, x, y, q) = match inst.operands.as_slice() {
            [d, x, y] => (d, x, y, None),
            [d, x, y, q] => (d, x, y, Some(q)),
            _ => return Err(Diagnostic::new(inst.span, "`setp` takes 3 or 4 operands")),
        };
        let OperandKind::Pair(low, high) = d.kind else {
            let p = self.pred(d)?;
            return self.compare(inst, s, p, x, y, q);
        };
        // A pair of halves sets `p` from the low halves and `q` from the high ones: one `HSETP2`.
        if !matches!(s.ty, Type::F16x2 | Type::Bf16x2) || s.ftz {
            return Err(unsupported(format!(
                "`setp` with two destinations (`p|q`) on `{}{}`: they are for `.f16x2` and `.bf16x2`",
                if s.ftz { ".ftz" } else { "" },
                s.ty
            )));
        }
        let [p, q_dst] = [low, high].map(|name| self.pred(&ast::Operand { kind: OperandKind::Name(name), span: d.span }));
        self.half_compare(inst, s, (p?, q_dst?), x, y, q)
    }

    /// `p = (x cmp y) bop c` on the low halves and `q` on the high ones (`PT` for a single half).
    fn half_compare(
        &mut self,
        inst: &'t ast::Instruction<'a>,
        s: px::Setp,
        (p, q): (u8, u8),
        x: &'t ast::Operand<'a>,
        y: &'t ast::Operand<'a>,
        c: Option<&'t ast::Operand<'a>>,
    ) -> Result<()> {
        let cmp = float_cmp(inst, s)?;
        let (bop, c) = self.combining(s, c)?;
        let ty = half_formats(s.ty).1;
        let (x, y) = (self.src32(x)?, self.src32(y)?);
        self.emit(Form::Hsetp2(mods::Hsetp2 { cmp, bop, ty }), &[isa::Operand::Pred(p), isa::Operand::Pred(q), src(x), src(y), c])
    }

    /// `set.cmp[.bool].dtype.stype d, a, b[, c]`: the comparison into the predicate kept back
    /// for it (P6), then `SEL` of all ones (integer results) or 1.0 (f32), or 0.
    pub(super) fn set(&mut self, inst: &'t ast::Instruction<'a>, s: px::Set) -> Result<()> {
        let (d, x, y, q) = match inst.operands.as_slice() {
            [d, x, y] => (d, x, y, None),
            [d, x, y, q] => (d, x, y, Some(q)),
            _ => return Err(Diagnostic::new(inst.span, "`set` takes 3 or 4 operands")),
        };
        // Halves compare as halves: 1.0 in the result's type, or all ones, for each true one.
        let half_one = |ty: Type| match ty {
            Type::F16 | Type::F16x2 => 0x3C00,
            Type::Bf16 | Type::Bf16x2 => 0x3F80,
            _ => 0xFFFF,
        };
        let halves = matches!(s.src, Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2);
        let truth = match s.dst {
            Type::U32 | Type::S32 | Type::B32 if !halves => u32::MAX,
            Type::F32 if !halves => 1.0f32.to_bits(),
            Type::F16 | Type::Bf16 if matches!(s.src, Type::F16 | Type::Bf16) => half_one(s.dst),
            Type::F16x2 | Type::Bf16x2 | Type::U32 | Type::S32 | Type::B32 if matches!(s.src, Type::F16x2 | Type::Bf16x2) => half_one(s.dst),
            ty => return Err(unsupported(inst, format!("`set` with a `{ty}` result from `{}`", s.src))),
        };
        // A spilled guard and a spilled `c` would take both scratch predicates, P6 included.
        let spilled = |o: Option<&str>| o.and_then(|n| self.spilled(n)).is_some();
        let q_name = q.and_then(|q| match q.kind {
            OperandKind::Name(n) | OperandKind::Not(n) => Some(n),
            _ => None,
        });
        if spilled(inst.guard.map(|g| g.predicate)) && spilled(q_name) {
            return Err(unsupported(inst, "`set` with a guard and a predicate operand that both live in registers (more than five predicates live)".into()));
        }
        let p = SCRATCH_PRED;
        let setp = px::Setp { cmp: s.cmp, combine: s.combine, ftz: s.ftz, ty: s.src };
        let (sel, pt) = (|pred| isa::Operand::PredSrc { pred, negated: false }, isa::PT);
        if !matches!(s.src, Type::F16x2 | Type::Bf16x2) {
            // A scalar half compares as the low half of a pair.
            if halves {
                self.half_compare(inst, setp, (p, pt), x, y, q)?
            } else {
                self.compare(inst, setp, p, x, y, q)?
            }
            let d = self.word(d)?;
            return self.op(Opcode::Sel, &[dst(d), src(Src::imm(truth)), src(Src::imm(0)), sel(p)]);
        }
        // One `HSETP2` a half (the other result to `PT`), each half's value selected into
        // scratch before `d`, which may be a source, is written.
        let t = self.scratch;
        for (half, outputs) in [(0, (p, pt)), (1, (pt, p))] {
            self.half_compare(inst, setp, outputs, x, y, q)?;
            self.op(Opcode::Sel, &[dst(t + half as u8), src(Src::imm(truth << (16 * half))), src(Src::imm(0)), sel(p)])?;
        }
        let d = self.word(d)?;
        self.op(Opcode::Or, &[dst(d), src(Src::reg(t)), src(Src::reg(t + 1))])
    }

    /// `p = (x cmp y) bop q` for `setp` and `set`.
    pub(super) fn compare(
        &mut self,
        inst: &'t ast::Instruction<'a>,
        s: px::Setp,
        p: u8,
        x: &'t ast::Operand<'a>,
        y: &'t ast::Operand<'a>,
        q: Option<&'t ast::Operand<'a>>,
    ) -> Result<()> {
        use px::CmpOp as C;
        if s.ty.is_integer() {
            let (cmp, unsigned) = match s.cmp {
                C::Eq => (isa::Cmp::Eq, false),
                C::Ne => (isa::Cmp::Ne, false),
                C::Lt => (isa::Cmp::Lt, false),
                C::Le => (isa::Cmp::Le, false),
                C::Gt => (isa::Cmp::Gt, false),
                C::Ge => (isa::Cmp::Ge, false),
                C::Lo => (isa::Cmp::Lt, true),
                C::Ls => (isa::Cmp::Le, true),
                C::Hi => (isa::Cmp::Gt, true),
                C::Hs => (isa::Cmp::Ge, true),
                other => return Err(Diagnostic::new(inst.op_span, format!("`{other}` compares floating-point values, not `{}`", s.ty))),
            };
            let (bop, q) = self.combining(s, q)?;
            let signed = !unsigned && s.ty.is_signed();
            if s.ty.bits() == 64 {
                let ty = if signed { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let (x, y) = (self.pair_src(x)?, self.src64(y)?);
                return self.emit(Form::Isetp64(mods::Isetp64 { cmp, ty, bop }), &[isa::Operand::Pred(p), src(x), src(y), q]);
            }
            let ty = if signed { isa::IntType::S32 } else { isa::IntType::U32 };
            // Registers hold 8- and 16-bit values zero-extended, and a literal is its bits of
            // that width (`setp.lt.u16 %p, %rs, -127` is `%rs < 0xFF81`).
            let (mut x, mut y) = (self.src_of_width(x, s.ty.bits())?, self.src_of_width(y, s.ty.bits())?);
            if s.ty.bits() < 32 && signed && !matches!(cmp, isa::Cmp::Eq | isa::Cmp::Ne) {
                // Order them sign-extended (equal ones are equal either way).
                (x, y) = (self.sign_extended(x, s.ty.bits(), 0)?, self.sign_extended(y, s.ty.bits(), 1)?);
            }
            return self.emit(Form::Isetp(mods::Isetp { cmp, ty, bop }), &[isa::Operand::Pred(p), src(x), src(y), q]);
        }
        match (s.ty, s.ftz) {
            (Type::F32, ftz) => {
                let cmp = float_cmp(inst, s)?;
                let (bop, q) = self.combining(s, q)?;
                let (x, y) = (self.src32(x)?, self.src32(y)?);
                let (x, y) = (self.flushed(x, ftz, 0)?, self.flushed(y, ftz, 1)?);
                self.emit(Form::Fsetp(mods::Fsetp { cmp, bop }), &[isa::Operand::Pred(p), src(x), src(y), q])
            }
            (Type::F64, _) => {
                let cmp = float_cmp(inst, s)?;
                let (bop, q) = self.combining(s, q)?;
                let (x, y) = (self.src_f64(x)?, self.src_f64(y)?);
                self.emit(Form::Dsetp(mods::Dsetp { cmp, bop }), &[isa::Operand::Pred(p), src(x), src(y), q])
            }
            (Type::F16 | Type::Bf16, false) => self.half_compare(inst, s, (p, isa::PT), x, y, q),
            (ty, ftz) => Err(unsupported(inst, format!("`setp{}{ty}`", if ftz { ".ftz" } else { "" }))),
        }
    }

    /// How a comparison combines with its predicate operand (`PT` without one), and that operand.
    fn combining(&self, s: px::Setp, q: Option<&'t ast::Operand<'a>>) -> Result<(isa::BoolOp, isa::Operand)> {
        let q = match q {
            Some(q) => self.pred_src(q)?,
            None => isa::Operand::PredSrc { pred: isa::PT, negated: false },
        };
        let bop = match s.combine {
            None | Some(px::BoolOp::And) => isa::BoolOp::And,
            Some(px::BoolOp::Or) => isa::BoolOp::Or,
            Some(px::BoolOp::Xor) => isa::BoolOp::Xor,
        };
        Ok((bop, q))
    }
}

/// The float comparison `s` names.
fn float_cmp(inst: &ast::Instruction<'_>, s: px::Setp) -> Result<isa::FCmp> {
    use px::CmpOp as C;
    Ok(match s.cmp {
        C::Eq => isa::FCmp::Eq,
        C::Ne => isa::FCmp::Ne,
        C::Lt => isa::FCmp::Lt,
        C::Le => isa::FCmp::Le,
        C::Gt => isa::FCmp::Gt,
        C::Ge => isa::FCmp::Ge,
        C::Equ => isa::FCmp::Equ,
        C::Neu => isa::FCmp::Neu,
        C::Ltu => isa::FCmp::Ltu,
        C::Leu => isa::FCmp::Leu,
        C::Gtu => isa::FCmp::Gtu,
        C::Geu => isa::FCmp::Geu,
        C::Num => isa::FCmp::Num,
        C::Nan => isa::FCmp::Nan,
        other => return Err(Diagnostic::new(inst.op_span, format!("`{other}` compares unsigned integers, not `{}`", s.ty))),
    })
}
