//! `cvt` in all its forms, and the narrowing, widening and flushing helpers the
//! arithmetic shares: integer widths, floats to and from integers of every width,
//! halves through f32.

use super::*;

impl<'t, 'a> Entry<'t, 'a> {
    pub(super) fn cvt(&mut self, inst: &'t ast::Instruction<'a>, c: px::Cvt) -> Result<()> {
        let unsupported = || {
            with_note(
                Diagnostic::new(inst.op_span, format!("`{}` is not supported by the PTX front end yet", inst.op)),
                "docs/ptx.md lists the supported conversions",
            )
        };
        // `cvt.rn.f16x2.f32 d, a, b`: both rounded to nearest even, `a` in the upper half; with
        // `.rz` (Triton's fp8 conversions on sm_80) each rounded toward zero on its own, then
        // packed.
        if let (Type::F16x2 | Type::Bf16x2, Type::F32, [d, a, b], Some(rounding @ (px::Rounding::Rn | px::Rounding::Rz)), false, false, false) =
            (c.dst, c.src, inst.operands.as_slice(), c.rounding, c.relu, c.sat, c.ftz)
        {
            let (to, ty) = half_formats(c.dst);
            let d = self.word(d)?;
            let (a, b) = (self.src32(a)?, self.src32(b)?);
            if rounding == px::Rounding::Rn {
                return self.emit(Form::Pack(mods::Pack { ty }), &[dst(d), src(b), src(a)]);
            }
            let half = Form::Cvt(mods::Cvt { to, from: isa::CvtType::F32, rnd: isa::Round::Rz });
            let t = self.scratch;
            self.emit(half, &[dst(t), src(b)])?;
            self.emit(half, &[dst(t + 1), src(a)])?;
            return self.op(Opcode::Bfi, &[dst(d), src(Src::reg(t + 1)), src(Src::reg(t)), src(Src::imm(16)), src(Src::imm(16))]);
        }
        if self.cvt_narrow_floats(inst, c)? {
            return Ok(());
        }
        let [d, x] = self.operands(inst)?;
        let (to, from) = (c.dst, c.src);
        if c.relu || c.satfinite {
            return Err(unsupported());
        }
        if to.is_integer() && from.is_integer() {
            return if c.rounding.is_some() || c.ftz { Err(unsupported()) } else { self.cvt_int(d, x, to, from, c.sat) };
        }
        // 8- and 16-bit integers convert as their 32-bit types: a narrow source is widened first
        // (exactly), a narrow result clamped to its range after (PTX's float-to-integer
        // conversions saturate; CVT to 32 bits already has, NaN giving 0).
        let wide = |t: Type| match t {
            Type::U8 | Type::U16 => Type::U32,
            Type::S8 | Type::S16 => Type::S32,
            t => t,
        };
        let cvt_type = |t: Type| match wide(t) {
            Type::U32 => Some(isa::CvtType::U32),
            Type::S32 => Some(isa::CvtType::S32),
            Type::U64 => Some(isa::CvtType::U64),
            Type::S64 => Some(isa::CvtType::S64),
            Type::F32 => Some(isa::CvtType::F32),
            Type::F64 => Some(isa::CvtType::F64),
            Type::F16 => Some(isa::CvtType::F16),
            Type::Bf16 => Some(isa::CvtType::BF16),
            _ => None,
        };
        let (Some(to_ty), Some(from_ty)) = (cvt_type(to), cvt_type(from)) else { return Err(unsupported()) };
        // `.rni`/`.rzi`/`.rmi`/`.rpi` round to an integral value (rintf, truncf, floorf, ceilf):
        // `FRND`/`DRND`, then converted exactly when the result is an integer. CVT to an integer
        // truncates (saturating, NaN giving 0), so `.rzi` needs no rounding step.
        let integral = match c.rounding {
            Some(px::Rounding::Rni) => Some(isa::Round::Rn),
            Some(px::Rounding::Rzi) => Some(isa::Round::Rz),
            Some(px::Rounding::Rmi) => Some(isa::Round::Rm),
            Some(px::Rounding::Rpi) => Some(isa::Round::Rp),
            _ => None,
        };
        let rounding_ok = match (to.is_float(), from.is_float()) {
            (true, true) if to == from => {
                if integral.is_some() {
                    matches!(to, Type::F32 | Type::F64 | Type::F16 | Type::Bf16)
                } else {
                    c.rounding.is_none() && to == Type::F32
                }
            }
            // Integer to float, and narrowing floats, round: in any direction.
            (true, false) => c.rounding.is_some_and(|r| !r.is_integer()),
            (true, true) if to.bits() < from.bits() => c.rounding.is_some_and(|r| !r.is_integer()),
            (true, true) => c.rounding.is_none(),
            (false, true) => integral.is_some(),
            (false, false) => false,
        };
        // `.sat` clamps a float result to [0, 1] (FADD.SAT below); float to integer saturates anyway.
        // `.ftz` flushes an f32 source or result.
        let sat_result = c.sat && to.is_float();
        if !rounding_ok || (sat_result && to != Type::F32) || (c.ftz && from != Type::F32 && to != Type::F32) {
            return Err(unsupported());
        }
        let mut x = if from_ty.is_pair() { Src::reg(self.pair(x)?) } else { self.src32(x)? };
        if wide(from) != from {
            self.widen(self.scratch + 1, x, from)?;
            x = Src::reg(self.scratch + 1);
        }
        if to == from && integral.is_none() {
            // `x + -0.0` is `x` for every x, -0 included: what it adds is the flush and the clamp.
            let d = self.word(d)?;
            return self.emit(Form::Fadd(mods::Fadd { ftz: ftz(c.ftz), sat: sat(c.sat) }), &[dst(d), src(x), src(Src::imm(0x8000_0000))]);
        }
        let t = self.scratch;
        if matches!(from, Type::F16 | Type::Bf16) && c.sat && integral.is_some_and(|r| r != isa::Round::Rz || to.is_float()) {
            return Err(unsupported());
        }
        if let (Some(rnd), Type::F16 | Type::Bf16, false) = (integral.filter(|&r| r != isa::Round::Rz || to.is_float()), from, c.sat) {
            // Halves round through f32, where they and their integral values are exact.
            self.emit(Form::Cvt(mods::Cvt { to: isa::CvtType::F32, from: from_ty, rnd: isa::Round::Rn }), &[dst(t), src(x)])?;
            self.emit(Form::Frnd(mods::Frnd { rnd, ftz: ftz(false) }), &[dst(t), src(Src::reg(t))])?;
            let r = if to_ty.is_pair() { self.pair(d)? } else { self.word(d)? };
            match to_ty {
                isa::CvtType::F32 => self.mov(r, Src::reg(t))?,
                to_ty => self.emit(Form::Cvt(mods::Cvt { to: to_ty, from: isa::CvtType::F32, rnd: isa::Round::Rn }), &[dst(r), src(Src::reg(t))])?,
            }
            return self.integer_result(d, r, to);
        }
        if let Some(rnd) = integral.filter(|&r| r != isa::Round::Rz || to.is_float()) {
            let rounded = if to.is_float() && to == from { if to_ty.is_pair() { self.pair(d)? } else { self.word(d)? } } else { t };
            match from {
                Type::F32 => self.emit(Form::Frnd(mods::Frnd { rnd, ftz: ftz(c.ftz) }), &[dst(rounded), src(x)])?,
                _ => self.emit(Form::Drnd(mods::Drnd { rnd }), &[dst(rounded), src(x)])?,
            }
            if to == from {
                return if sat_result {
                    self.emit(Form::Fadd(mods::Fadd { ftz: ftz(c.ftz), sat: sat(true) }), &[dst(rounded), src(Src::reg(rounded)), src(Src::imm(0x8000_0000))])
                } else {
                    Ok(())
                };
            }
            x = Src::reg(t);
        } else if c.ftz && from == Type::F32 && !to.is_integer() {
            self.emit(Form::Fadd(mods::Fadd { ftz: ftz(true), sat: sat(false) }), &[dst(t), src(x), src(Src::imm(0x8000_0000))])?;
            x = Src::reg(t);
        }
        let r = if to_ty.is_pair() { self.pair(d)? } else { self.word(d)? };
        let rnd = directed(c.rounding).unwrap_or(isa::Round::Rn);
        self.emit(Form::Cvt(mods::Cvt { to: to_ty, from: from_ty, rnd }), &[dst(r), src(x)])?;
        if to == Type::F32 && (sat_result || c.ftz) {
            self.emit(Form::Fadd(mods::Fadd { ftz: ftz(c.ftz), sat: sat(c.sat) }), &[dst(r), src(Src::reg(r)), src(Src::imm(0x8000_0000))])?;
        }
        self.integer_result(d, r, to)
    }

    /// After `CVT` to an integer of 32 or 64 bits in `r` (a float's `to` is complete): an 8- or
    /// 16-bit `to` clamped to its range, and a result of at most 32 bits extended to `d`'s register.
    fn integer_result(&mut self, d: &'t ast::Operand<'a>, r: u8, to: Type) -> Result<()> {
        if !to.is_integer() || to.bits() == 64 {
            return Ok(());
        }
        if to.bits() < 32 {
            self.saturate_narrow(r, to)?;
        }
        self.extend_to_register(d, r, to)
    }

    /// Clamps the 32-bit integer in `d` to the range of the 8- or 16-bit `to`, leaving it a
    /// 32-bit integer of `to`'s signedness.
    pub(super) fn saturate_narrow(&mut self, d: u8, to: Type) -> Result<()> {
        let bits = to.bits();
        let (low, high, int) =
            if to.is_signed() { (-(1i32 << (bits - 1)), (1i32 << (bits - 1)) - 1, isa::IntType::S32) } else { (0, (1i32 << bits) - 1, isa::IntType::U32) };
        if to.is_signed() {
            self.emit(Form::Imax(mods::Imax { ty: int }), &[dst(d), src(Src::reg(d)), src(Src::imm(low as u32))])?;
        }
        self.emit(Form::Imin(mods::Imin { ty: int }), &[dst(d), src(Src::reg(d)), src(Src::imm(high as u32))])
    }

    /// An f16 or bf16 operation, or one on each half of a pair (`.f16x2`, `.bf16x2`; the low
    /// halves first): one `HADD2`, `HMUL2`, `HFMA2`, `HMIN2` or `HMAX2` (`.NAN` for PTX's `.NaN`), each rounding once as
    /// PTX does. A single half is kept in its register's low bits with the high half zero, as
    /// every 16-bit value is, and +0 in both sources' high halves gives +0, zero bits, in the
    /// result's. A difference is `b * -1 + a`: exact in its one rounding, and `+0 * -1 + +0`
    /// is +0 in the high half.
    pub(super) fn half_arith(&mut self, inst: &'t ast::Instruction<'a>, ty: Type, kind: HalfOp) -> Result<()> {
        let (d, sources) = inst.operands.split_first().ok_or_else(|| Diagnostic::new(inst.op_span, "expected operands"))?;
        let pair = matches!(ty, Type::F16x2 | Type::Bf16x2);
        let bf16 = matches!(ty, Type::Bf16 | Type::Bf16x2);
        let ty = half_formats(ty).1;
        // A single half's literal is its 16 bits, the high half zero as a register's.
        let half = |s: Src| match s {
            Src::Imm { bits, wide: false } if !pair => Src::imm(bits as u32 & 0xFFFF),
            s => s,
        };
        let sources: Vec<Src> = sources.iter().map(|x| self.src32(x).map(half)).collect::<Result<_>>()?;
        let minus_one = if bf16 { 0xBF80 } else { 0xBC00 } * if pair { 0x1_0001 } else { 1 };
        let (form, sources) = match (kind, &sources[..]) {
            (HalfOp::Add, &[a, b]) => (Form::Hadd2(mods::Hadd2 { ty }), vec![a, b]),
            (HalfOp::Sub, &[a, b]) => (Form::Hfma2(mods::Hfma2 { ty }), vec![b, Src::imm(minus_one), a]),
            (HalfOp::Mul, &[a, b]) => (Form::Hmul2(mods::Hmul2 { ty }), vec![a, b]),
            (HalfOp::Min, &[a, b]) => (Form::Hmin2(mods::Hmin2 { ty }), vec![a, b]),
            (HalfOp::Max, &[a, b]) => (Form::Hmax2(mods::Hmax2 { ty }), vec![a, b]),
            (HalfOp::MinNan, &[a, b]) => (Form::Hmin2Nan(mods::Hmin2Nan { ty }), vec![a, b]),
            (HalfOp::MaxNan, &[a, b]) => (Form::Hmax2Nan(mods::Hmax2Nan { ty }), vec![a, b]),
            (HalfOp::Fma, &[a, b, c]) => (Form::Hfma2(mods::Hfma2 { ty }), vec![a, b, c]),
            _ => return Err(Diagnostic::new(inst.op_span, format!("`{}` takes {} sources", inst.op.name(), if kind == HalfOp::Fma { 3 } else { 2 }))),
        };
        let operands: Vec<isa::Operand> = std::iter::once(dst(self.word(d)?)).chain(sources.into_iter().map(src)).collect();
        self.emit(form, &operands)
    }

    /// `ex2.approx` of a half or of each half of a pair (the low half first): widened exactly,
    /// `MUFU.EX2` in f32, rounded back to nearest even.
    pub(super) fn half_ex2(&mut self, inst: &'t ast::Instruction<'a>, ty: Type) -> Result<()> {
        let [d, x] = self.operands(inst)?;
        let half = half_formats(ty).0;
        let pair = matches!(ty, Type::F16x2 | Type::Bf16x2);
        let x = self.src32(x)?;
        let t = self.scratch;
        // The widened half at t; each half's result at t + 1 + h.
        for h in 0..if pair { 2 } else { 1 } {
            let x = match (pair, h) {
                (false, _) => x,
                (true, 0) => {
                    self.op(Opcode::And, &[dst(t), src(x), src(Src::imm(0xFFFF))])?;
                    Src::reg(t)
                }
                _ => {
                    self.emit(Form::Shr(mods::Shr { ty: isa::IntType::U32 }), &[dst(t), src(x), src(Src::imm(16))])?;
                    Src::reg(t)
                }
            };
            self.emit(Form::Cvt(mods::Cvt { to: isa::CvtType::F32, from: half, rnd: isa::Round::Rn }), &[dst(t), src(x)])?;
            self.emit(Form::Mufu(mods::Mufu { op: isa::MufuOp::Ex2, ftz: isa::Ftz::No }), &[dst(t), src(Src::reg(t))])?;
            // A single half's result goes straight to its register: its source is read by now.
            let to = if pair { t + 1 + h } else { self.word(d)? };
            self.emit(Form::Cvt(mods::Cvt { to: half, from: isa::CvtType::F32, rnd: isa::Round::Rn }), &[dst(to), src(Src::reg(t))])?;
        }
        if pair {
            let d = self.word(d)?;
            self.op(Opcode::Shl, &[dst(t), src(Src::reg(t + 2)), src(Src::imm(16))])?;
            self.op(Opcode::Or, &[dst(d), src(Src::reg(t + 1)), src(Src::reg(t))])?;
        }
        Ok(())
    }

    /// `cvt` between integer types: wrapping, or with `.sat` clamped to the destination's range.
    pub(super) fn cvt_int(&mut self, d: &'t ast::Operand<'a>, x: &'t ast::Operand<'a>, to: Type, from: Type, saturate: bool) -> Result<()> {
        let range = |ty: Type| {
            let bits = ty.bits();
            if ty.is_signed() { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) }
        };
        let ((low, high), (from_low, from_high)) = (range(to), range(from));
        let (clamp_low, clamp_high) = (saturate && low > from_low, saturate && high < from_high);
        let t = self.scratch;
        if from.bits() == 64 {
            let (mut lo, mut hi) = self.halves(x)?;
            if clamp_low || clamp_high {
                let ty = if from.is_signed() { isa::Int64Type::S64 } else { isa::Int64Type::U64 };
                let mut value = self.pair_src(x)?;
                for (apply, bound, max) in [(clamp_low, low, true), (clamp_high, high, false)] {
                    if !apply {
                        continue;
                    }
                    let bound = match i32::try_from(bound) {
                        Ok(b) => Src::imm(b as u32),
                        Err(_) => self.wide_literal(bound as u64)?,
                    };
                    let form = if max { Form::Imax64(mods::Imax64 { ty }) } else { Form::Imin64(mods::Imin64 { ty }) };
                    self.emit(form, &[dst(t), src(value), src(bound)])?;
                    value = Src::reg(t);
                }
                (lo, hi) = (Src::reg(t), Src::reg(t + 1));
            }
            return if to.bits() == 64 {
                let d = self.pair(d)?;
                self.mov(d, lo)?;
                self.mov(d + 1, hi)
            } else {
                self.put_low_bits(d, lo, to)
            };
        }
        // An unsigned source in a register no wider than its type holds its value already
        // (8- and 16-bit registers keep theirs zero-extended): it needs no masking.
        let from = match self.class_of_operand(x) {
            Some(Class::Word { bits }) if !from.is_signed() && bits <= from.bits() => Type::U32,
            _ => from,
        };
        let x = self.src32(x)?;
        if clamp_low || clamp_high {
            // Compare the source's value in 32 bits.
            let ty = if from.is_signed() { isa::IntType::S32 } else { isa::IntType::U32 };
            self.widen(t, x, from)?;
            if clamp_low {
                self.emit(Form::Imax(mods::Imax { ty }), &[dst(t), src(Src::reg(t)), src(Src::imm(low as u32))])?;
            }
            if clamp_high {
                self.emit(Form::Imin(mods::Imin { ty }), &[dst(t), src(Src::reg(t)), src(Src::imm(high as u32))])?;
            }
            return self.cvt_int_word(d, Src::reg(t), to, from);
        }
        self.cvt_int_word(d, x, to, from)
    }

    /// `cvt` to an integer type from one of at most 32 bits, wrapping.
    pub(super) fn cvt_int_word(&mut self, d: &'t ast::Operand<'a>, x: Src, to: Type, from: Type) -> Result<()> {
        if to.bits() == 64 {
            let d = self.pair(d)?;
            self.widen(d, x, from)?;
            return self.fill_upper_word(d, from.is_signed());
        }
        if from.bits() >= to.bits() {
            return self.put_low_bits(d, x, to);
        }
        let r = self.word(d)?;
        self.widen(r, x, from)?;
        // Zero-extended, the value fits the wider type; sign-extended, it may fill 32 bits,
        // which an unsigned type's value does not.
        if from.is_signed() && !to.is_signed() {
            self.narrow(r, to.bits())?;
        }
        self.extend_to_register(d, r, to)
    }

    /// `d = ` the low bits of `x` as the integer type `to` (at most 32 bits), extended to `d`'s
    /// register as [`Self::extend_to_register`] says.
    fn put_low_bits(&mut self, d: &'t ast::Operand<'a>, x: Src, to: Type) -> Result<()> {
        let r = self.word(d)?;
        match self.class_of_operand(d) {
            // A register of the type's width holds its bits zero-extended, whatever their sign.
            Some(Class::Word { bits }) if bits <= to.bits() => self.low_bits(r, x, to.bits()),
            _ => {
                self.widen(r, x, to)?;
                self.extend_to_register(d, r, to)
            }
        }
    }

    /// Register `r`, `d`'s, holds a value of the integer type `to` (at most 32 bits) as a
    /// 32-bit integer of `to`'s signedness. PTX extends a conversion's result to the width of
    /// its destination register by the result type's signedness (`cvt.s8.s32 %rs1, %r1`
    /// leaves the 16-bit `%rs1` sign-extended, as LLVM's `max.s16` of it assumes): a signed
    /// value is cut to an 8- or 16-bit register's width (which holds its value zero-extended),
    /// and a 64-bit register's upper word is filled.
    pub(super) fn extend_to_register(&mut self, d: &'t ast::Operand<'a>, r: u8, to: Type) -> Result<()> {
        match self.class_of_operand(d) {
            Some(Class::Word { bits }) if bits < 32 && to.is_signed() => self.narrow(r, bits),
            Some(Class::Pair) => self.fill_upper_word(r, to.is_signed()),
            _ => Ok(()),
        }
    }

    /// The upper word of pair `d` from its lower one, a 32-bit integer: its sign, or zero.
    pub(super) fn fill_upper_word(&mut self, d: u8, signed: bool) -> Result<()> {
        if signed {
            self.emit(Form::Shr(mods::Shr { ty: isa::IntType::S32 }), &[dst(d + 1), src(Src::reg(d)), src(Src::imm(31))])
        } else {
            self.mov(d + 1, Src::imm(0))
        }
    }

    /// The conversions to and from TF32 and pairs of FP8 or FP4 (Triton's `tf32x3` dots, its fp8
    /// casts on sm_90 and its fp4 operands on sm_100), if `c` is one: `cvt.rna.tf32.f32` is
    /// `CVT.TF32.F32` (to nearest, ties away); `cvt.rn.satfinite.{e4m3x2,e5m2x2,e2m1x2}.f32 d, a,
    /// b` is `CVT.<E4M3X2|E5M2X2|E2M1X2>.F32 d, b, a` (`a` in the upper element), from `.f16x2`
    /// and `.bf16x2` through f32 (exact) the same; and `cvt.rn.{f16x2,bf16x2}.{e4m3x2,e5m2x2,e2m1x2} d, a`
    /// is one `CVT.<F16X2|BF16X2>.<E4M3X2|E5M2X2|E2M1X2>` (exact: every value of the narrow
    /// formats is a half's). False, with nothing emitted, for any other conversion.
    fn cvt_narrow_floats(&mut self, inst: &'t ast::Instruction<'a>, c: px::Cvt) -> Result<bool> {
        let pair = |t: Type| match t {
            Type::E4m3x2 => Some(isa::CvtPair::E4M3x2),
            Type::E5m2x2 => Some(isa::CvtPair::E5M2x2),
            Type::E2m1x2 => Some(isa::CvtPair::E2M1x2),
            _ => None,
        };
        let plain = !c.ftz && !c.sat && !c.relu;
        let rn = plain && c.rounding == Some(px::Rounding::Rn);
        let t = self.scratch;
        match (c.dst, c.src, inst.operands.as_slice()) {
            (Type::Tf32, Type::F32, [d, a]) if plain && !c.satfinite && c.rounding == Some(px::Rounding::Rna) => {
                let (d, a) = (self.word(d)?, self.src32(a)?);
                self.emit(Form::CvtTf32(mods::CvtTf32 {}), &[dst(d), src(a)])?;
            }
            (to, Type::F32, [d, a, b])
                if rn
                    && c.satfinite
                    && let Some(to) = pair(to) =>
            {
                let (d, a, b) = (self.word(d)?, self.src32(a)?, self.src32(b)?);
                self.emit(Form::CvtX2(mods::CvtX2 { to }), &[dst(d), src(b), src(a)])?;
            }
            (to, from @ (Type::F16x2 | Type::Bf16x2), [d, a])
                if rn
                    && c.satfinite
                    && let Some(to) = pair(to) =>
            {
                let (d, a) = (self.word(d)?, self.src32(a)?);
                let half = Form::Cvt(mods::Cvt { to: isa::CvtType::F32, from: half_formats(from).0, rnd: isa::Round::Rn });
                self.emit(half, &[dst(t), src(a)])?;
                self.emit(Form::new(Opcode::Shr), &[dst(t + 1), src(a), src(Src::imm(16))])?;
                self.emit(half, &[dst(t + 1), src(Src::reg(t + 1))])?;
                self.emit(Form::CvtX2(mods::CvtX2 { to }), &[dst(d), src(Src::reg(t)), src(Src::reg(t + 1))])?;
            }
            (to @ (Type::F16x2 | Type::Bf16x2), from, [d, a])
                if rn
                    && !c.satfinite
                    && let Some(from) = pair(from) =>
            {
                let (d, a) = (self.word(d)?, self.src32(a)?);
                let form =
                    if to == Type::Bf16x2 { Form::CvtBf16x2Widen(mods::CvtBf16x2Widen { from }) } else { Form::CvtF16x2Widen(mods::CvtF16x2Widen { from }) };
                self.emit(form, &[dst(d), src(a)])?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `d = x` read as type `from` (at most 32 bits) and extended to 32 bits by its signedness.
    pub(super) fn widen(&mut self, d: u8, x: Src, from: Type) -> Result<()> {
        if from.is_signed() { self.extend_sign(d, x, from.bits()) } else { self.low_bits(d, x, from.bits()) }
    }

    /// `x`, or with `ftz` a copy in scratch register `slot` with a subnormal flushed to a zero
    /// of its sign (`FMUL.FTZ x, 1.0`, which changes nothing else).
    pub(super) fn flushed(&mut self, x: Src, ftz: bool, slot: u8) -> Result<Src> {
        if !ftz {
            return Ok(x);
        }
        let t = self.scratch + slot;
        self.emit(Form::Fmul(mods::Fmul { ftz: isa::Ftz::Yes, sat: isa::Sat::No }), &[dst(t), src(x), src(Src::imm(1.0f32.to_bits()))])?;
        Ok(Src::reg(t))
    }

    /// With `ftz`, flushes a subnormal result in `d` to a zero of its sign.
    pub(super) fn flush_in_place(&mut self, d: u8, ftz: bool) -> Result<()> {
        if ftz {
            self.emit(Form::Fmul(mods::Fmul { ftz: isa::Ftz::Yes, sat: isa::Sat::No }), &[dst(d), src(Src::reg(d)), src(Src::imm(1.0f32.to_bits()))])?;
        }
        Ok(())
    }

    /// `x` (an f64) with a subnormal value flushed to a zero of its sign, in the scratch pair;
    /// a literal at once.
    pub(super) fn flushed_f64(&mut self, x: Src) -> Result<Src> {
        let (lo, hi) = match x {
            Src::Imm { bits, .. } => {
                let subnormal = bits & 0x7FF0_0000_0000_0000 == 0;
                return Ok(if subnormal { f64_imm(f64::from_bits(bits & 1 << 63)) } else { x });
            }
            Src::Reg { reg, .. } => (Src::reg(reg), Src::reg(reg + 1)),
        };
        let t = self.scratch;
        self.flush_f64(t, lo, hi)?;
        Ok(Src::reg(t))
    }

    /// `d = (lo, hi)`, an f64, with a subnormal value flushed to a zero of its sign: a zero
    /// exponent field (in [`SCRATCH_PRED`]) selects the sign alone. Uses scratch register 2.
    pub(super) fn flush_f64(&mut self, d: u8, lo: Src, hi: Src) -> Result<()> {
        let (t, p) = (self.scratch + 2, isa::Operand::PredSrc { pred: SCRATCH_PRED, negated: false });
        self.op(Opcode::And, &[dst(t), src(hi), src(Src::imm(0x7FF0_0000))])?;
        let eq = Form::Isetp(mods::Isetp { cmp: isa::Cmp::Eq, ty: isa::IntType::U32, bop: isa::BoolOp::And });
        self.emit(eq, &[isa::Operand::Pred(SCRATCH_PRED), src(Src::reg(t)), src(Src::imm(0)), isa::Operand::PredSrc { pred: isa::PT, negated: false }])?;
        self.op(Opcode::And, &[dst(t), src(hi), src(Src::imm(0x8000_0000))])?;
        self.op(Opcode::Sel, &[dst(d), src(Src::imm(0)), src(lo), p])?;
        self.op(Opcode::Sel, &[dst(d + 1), src(Src::reg(t)), src(hi), p])
    }

    /// `x` sign-extended from its low `bits` bits: itself at 32, a literal at once, a register
    /// into scratch register `slot`.
    pub(super) fn sign_extended(&mut self, x: Src, bits: u32, slot: u8) -> Result<Src> {
        if bits >= 32 {
            return Ok(x);
        }
        if let Src::Imm { bits: v, wide: false } = x {
            return Ok(Src::imm((((v as u32) << (32 - bits)) as i32 >> (32 - bits)) as u32));
        }
        let t = self.scratch + slot;
        self.extend_sign(t, x, bits)?;
        Ok(Src::reg(t))
    }

    /// `d = x` sign-extended from its low `bits` bits.
    pub(super) fn extend_sign(&mut self, d: u8, x: Src, bits: u32) -> Result<()> {
        if bits >= 32 {
            return self.mov(d, x);
        }
        self.op(Opcode::Shl, &[dst(d), src(x), src(Src::imm(32 - bits))])?;
        self.emit(Form::Shr(mods::Shr { ty: isa::IntType::S32 }), &[dst(d), src(Src::reg(d)), src(Src::imm(32 - bits))])
    }
}
