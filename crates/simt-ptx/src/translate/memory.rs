//! Loads, stores, atomics and the copies of tensor-core pipelines (`cp.async`,
//! `ldmatrix`, `stmatrix`): addresses (32-bit offsets, 64-bit pairs, generic ones and their
//! windows: `cvta`, `isspacep`), state spaces, vector and narrow accesses.

use super::*;

/// Why `cvta` and `isspacep` of other spaces are refused.
const GENERIC_SPACES: &str = "simt's generic addresses reach .global (and .const, kept in global buffers), .shared and .local";

/// Where an access goes: the space its form names and how wide its address is.
#[derive(Clone, Copy)]
pub(super) struct Place {
    pub space: isa::MemSpace,
    pub width: isa::AddrWidth,
}

impl Place {
    pub(super) const SHARED: Place = Place { space: isa::MemSpace::Shared, width: isa::AddrWidth::W32 };
    pub(super) const LOCAL: Place = Place { space: isa::MemSpace::Local, width: isa::AddrWidth::W32 };
    pub(super) const PARAM: Place = Place { space: isa::MemSpace::Param, width: isa::AddrWidth::W32 };

    pub(super) fn ld(self, vec: isa::VecWidth, ty: isa::MemType) -> Form {
        Form::Ld(mods::Ld { space: self.space, addr: self.width, vec, ty })
    }

    pub(super) fn st(self, vec: isa::VecWidth, ty: isa::MemType) -> Form {
        Form::St(mods::St { space: self.space, addr: self.width, vec, ty })
    }
}

impl<'t, 'a> Entry<'t, 'a> {
    pub(super) fn memory(&mut self, inst: &'t ast::Instruction<'a>, m: px::Memory, load: bool) -> Result<()> {
        let name = if load { "ld" } else { "st" };
        let unsupported = |what: String| unsupported(inst, what);
        // A cache policy after them (`.L2::cache_hint`) is a hint the caches here do not take.
        let (first, second) = match inst.operands.as_slice() {
            [first, second] | [first, second, _] => (first, second),
            _ => return Err(Diagnostic::new(inst.span, format!("`{name}` takes a value and an address"))),
        };
        let (data, addr) = if load { (first, second) } else { (second, first) };
        let (address, symbol_space) = self.address(addr)?;
        let symbols = &self.symbols;
        let mut named = crate::spaces::param_space(m.space, Some(addr), &|n| symbols.get(n).map(|s| s.space)).or(symbol_space);
        // A `.param` access through a register reaches bytes passed by value (whose address a
        // `mov` of the parameter gave) or a call's argument: where the register points.
        if named == Some(StateSpace::Param)
            && let OperandKind::Address(Address { base: Some(b), .. }) = addr.kind
            && self.locs.contains_key(b.value)
        {
            named = match crate::spaces::access_space(self.spaces(), Some(addr), &|n| symbols.get(n).map(|s| s.space)) {
                Some(lives @ (StateSpace::Global | StateSpace::Local)) => Some(lives),
                _ => {
                    return Err(Diagnostic::new(
                        addr.span,
                        format!(
                            "`{name}.param` through `{}`, which the translation cannot follow to a parameter passed by value or a call's argument",
                            b.value
                        ),
                    ));
                }
            };
        }
        let (space, width) = self.placed(addr, named)?;
        let space = match space {
            // `.const` data is only ever module variables, which live in global buffers.
            Some(StateSpace::Global | StateSpace::Const) => isa::MemSpace::Global,
            Some(StateSpace::Shared) => isa::MemSpace::Shared,
            Some(StateSpace::Local) => isa::MemSpace::Local,
            Some(StateSpace::Param) if load => isa::MemSpace::Param,
            None => isa::MemSpace::Generic,
            Some(other) => return Err(unsupported(format!("`{name}{other}`"))),
        };
        let at = Place { space, width };
        let mem_ty = match m.ty {
            Type::U8 | Type::B8 => isa::MemType::U8,
            Type::S8 => isa::MemType::S8,
            Type::U16 | Type::B16 | Type::F16 | Type::Bf16 => isa::MemType::U16,
            Type::S16 => isa::MemType::S16,
            Type::U32 => isa::MemType::U32,
            Type::S32 => isa::MemType::S32,
            Type::B32 | Type::F16x2 | Type::Bf16x2 => isa::MemType::B32,
            Type::F32 => isa::MemType::F32,
            Type::U64 | Type::S64 | Type::B64 => isa::MemType::B64,
            Type::F64 => isa::MemType::F64,
            ty => return Err(unsupported(format!("`{name}{ty}`"))),
        };
        // A pointer parameter is a 32-bit simt address: its high word is zero.
        if space == isa::MemSpace::Param
            && mem_ty == isa::MemType::B64
            && let (Some(base), isa::Operand::Addr { offset, .. }) = (self.param_at(addr), address)
            && self.pointers.contains_key(base)
            && self.symbols[base].address as i32 == offset
        {
            let d = self.pair(data)?;
            self.emit(at.ld(isa::VecWidth::Scalar, isa::MemType::U32), &[dst(d), address])?;
            return self.mov(d + 1, Src::imm(0));
        }
        let wide = mem_ty == isa::MemType::B64 || mem_ty == isa::MemType::F64;
        let vec = match m.vector {
            None => isa::VecWidth::Scalar,
            Some(px::Vector::V2) => isa::VecWidth::V2,
            Some(px::Vector::V4) if !wide => isa::VecWidth::V4,
            Some(v) => return Err(unsupported(format!("`{name}{v}{}`", m.ty))),
        };
        // Vector accesses move untyped words (simt's rule); the PTX element type only
        // decides which registers receive them: two 64-bit elements are four words.
        let (vec, mem_ty) = match (vec, m.ty.bits()) {
            (isa::VecWidth::Scalar, _) => (vec, mem_ty),
            (_, 32) => (vec, isa::MemType::B32),
            (_, 64) => (isa::VecWidth::V4, isa::MemType::B32),
            (_, 8 | 16) => return self.narrow_vector(load, at, address, data, m.ty),
            (_, _) => return Err(unsupported(format!("`{name}{}{}`", m.vector.map_or(String::new(), |v| v.to_string()), m.ty))),
        };
        let narrow_signed = matches!(mem_ty, isa::MemType::S8 | isa::MemType::S16);
        match (vec, &data.kind) {
            (isa::VecWidth::Scalar, _) => {
                let form = if load { at.ld(vec, mem_ty) } else { at.st(vec, mem_ty) };
                let reg = match (wide, load) {
                    (true, true) => self.pair(data)?,
                    // A literal (a `double` argument passed by value) goes to the scratch pair.
                    (true, false) => match self.pair_src(data)? {
                        Src::Reg { reg, .. } => reg,
                        Src::Imm { .. } => {
                            return Err(Diagnostic::new(data.span, "internal error: a 64-bit literal was not moved to a register; please report it"));
                        }
                    },
                    (false, true) => self.word(data)?,
                    (false, false) => match self.src32(data)? {
                        Src::Reg { reg, .. } => reg,
                        literal => {
                            self.mov(self.scratch, literal)?;
                            self.scratch
                        }
                    },
                };
                if load && !wide && self.class_of_operand(data) == Some(Class::Pair) {
                    // A 32-bit or narrower value into a 64-bit register: extend it.
                    let d = self.pair(data)?;
                    self.emit(form, &[dst(d), address])?;
                    return self.fill_upper_word(d, m.ty.is_signed());
                }
                if load {
                    self.emit(form, &[dst(reg), address])?;
                    if narrow_signed && matches!(self.class_of_operand(data), Some(Class::Word { bits: 16 | 8 })) {
                        self.narrow(reg, 16)?;
                    }
                    Ok(())
                } else {
                    self.emit(form, &[address, src(Src::reg(reg))])
                }
            }
            (_, OperandKind::Vector(parts)) => {
                let per = if wide { 2 } else { 1 };
                if parts.len() as u32 * per > SCRATCH {
                    return Err(unsupported(format!("`{name}` of {} elements", parts.len())));
                }
                // Elements the register allocator laid out as the access moves them are read or
                // written in place; others go through scratch registers.
                // (A vector of 2 or 4 registers starts at a multiple of 2 or 4.)
                if let Some(base) = self.in_place(parts, wide, parts.len() * per as usize) {
                    return if load {
                        self.emit(at.ld(vec, mem_ty), &[dst(base), address])
                    } else {
                        self.emit(at.st(vec, mem_ty), &[address, src(Src::reg(base))])
                    };
                }
                let t = self.scratch;
                if load {
                    self.emit(at.ld(vec, mem_ty), &[dst(t), address])?;
                }
                for (i, part) in parts.iter().enumerate() {
                    let at = t + (i as u32 * per) as u8;
                    if part.kind == OperandKind::Sink {
                        continue;
                    }
                    match (wide, load) {
                        (true, true) => {
                            let r = self.pair(part)?;
                            self.mov(r, Src::reg(at))?;
                            self.mov(r + 1, Src::reg(at + 1))?;
                        }
                        (true, false) => {
                            let (lo, hi) = self.halves(part)?;
                            self.mov(at, lo)?;
                            self.mov(at + 1, hi)?;
                        }
                        (false, true) => {
                            let r = self.word(part)?;
                            self.mov(r, Src::reg(at))?;
                        }
                        (false, false) => {
                            let x = self.src32(part)?;
                            self.mov(at, x)?;
                        }
                    }
                }
                if !load {
                    self.emit(at.st(vec, mem_ty), &[address, src(Src::reg(t))])?;
                }
                Ok(())
            }
            _ => {
                Err(Diagnostic::new(data.span, format!("`{name}{}` needs a vector of registers `{{...}}`", m.vector.map_or(String::new(), |v| v.to_string()))))
            }
        }
    }

    /// `ld`/`st` `.v2`/`.v4` of 8- or 16-bit elements (`uchar4`, `short2`, ...): one access of
    /// the whole vector (2, 4 or 8 bytes, so its alignment rule is PTX's too) into scratch,
    /// the elements taken out with `BFE` or put in with `BFI`.
    pub(super) fn narrow_vector(&mut self, load: bool, at: Place, address: isa::Operand, data: &'t ast::Operand<'a>, ty: Type) -> Result<()> {
        let OperandKind::Vector(parts) = &data.kind else {
            return Err(Diagnostic::new(data.span, "a vector access needs a vector of registers `{...}`"));
        };
        let bits = ty.bits();
        let whole = match parts.len() as u32 * bits {
            16 => isa::MemType::U16,
            32 => isa::MemType::B32,
            _ => isa::MemType::B64,
        };
        let (vec, t) = (isa::VecWidth::Scalar, self.scratch);
        let place = |i: usize| (t + (i as u32 * bits / 32) as u8, Src::imm(i as u32 * bits % 32), Src::imm(bits));
        if load {
            self.emit(at.ld(vec, whole), &[dst(t), address])?;
            for (i, part) in parts.iter().enumerate().filter(|(_, p)| p.kind != OperandKind::Sink) {
                let (word, pos, len) = place(i);
                let d = self.word(part)?;
                let ty = if ty.is_signed() { isa::IntType::S32 } else { isa::IntType::U32 };
                self.emit(Form::Bfe(mods::Bfe { ty }), &[dst(d), src(Src::reg(word)), src(pos), src(len)])?;
                // Unsigned, the field comes zero-extended; signed, its sign fills the upper bits.
                if let Some(Class::Word { bits: reg_bits @ (8 | 16) }) = self.class_of_operand(part)
                    && ty == isa::IntType::S32
                {
                    self.narrow(d, reg_bits.max(16))?;
                }
            }
            return Ok(());
        }
        // Each word from its elements: the first as it is, the others inserted above it, whose
        // fields cover every bit of the first one's register that the access stores.
        for (w, elements) in parts.chunks((32 / bits) as usize).enumerate() {
            let word = t + w as u8;
            let mut value = Src::imm(0);
            for (i, part) in elements.iter().enumerate() {
                let x = if part.kind == OperandKind::Sink { Src::imm(0) } else { self.src32(part)? };
                if i == 0 {
                    value = x;
                    continue;
                }
                self.op(Opcode::Bfi, &[dst(word), src(x), src(value), src(Src::imm(i as u32 * bits)), src(Src::imm(bits))])?;
                value = Src::reg(word);
            }
        }
        self.emit(at.st(vec, whole), &[address, src(Src::reg(t))])
    }

    pub(super) fn spaces(&self) -> &HashMap<&'a str, crate::spaces::Spaces> {
        let symbols = &self.symbols;
        self.spaces.get_or_init(|| crate::spaces::infer(&self.insts, |n| symbols.get(n).map(|s| (s.space, s.address))))
    }

    /// Where an access goes, given the space its instruction or variable names (`None`:
    /// generic): the space (`None`: decided as it runs, by the address's window) and whether
    /// the address is the 64-bit pair of its base register (`E`) or a 32-bit offset.
    ///
    /// A 64-bit register is used whole, so a high word no region has is a fault, never
    /// dropped; a generic one that `spaces.rs` proves shared or local is the fast path, the
    /// offset in its low word (the window is all its high word holds); proven global, it is
    /// a global access of the pair. A 32-bit generic address (`.address_size 32` style) must
    /// be proven to one space, as it cannot hold a window.
    pub(super) fn placed(&self, addr: &ast::Operand<'a>, named: Option<StateSpace>) -> Result<(Option<StateSpace>, isa::AddrWidth)> {
        let pair = match addr.kind {
            OperandKind::Address(Address { base: Some(b), .. }) => self.classes.get(b.value) == Some(Class::Pair),
            _ => false,
        };
        let width = if pair { isa::AddrWidth::E } else { isa::AddrWidth::W32 };
        Ok(match (named, pair) {
            (Some(space), _) => (Some(space), width),
            (None, false) => (Some(self.generic_space(addr)?), width),
            (None, true) => {
                let symbols = &self.symbols;
                match crate::spaces::access_space(self.spaces(), Some(addr), &|n| symbols.get(n).map(|s| s.space)) {
                    Some(space @ (StateSpace::Shared | StateSpace::Local)) => (Some(space), isa::AddrWidth::W32),
                    Some(space @ (StateSpace::Global | StateSpace::Const)) => (Some(space), width),
                    _ => (None, width),
                }
            }
        })
    }

    /// The space a 32-bit generic address points into, when the inference found exactly one.
    pub(super) fn generic_space(&self, addr: &ast::Operand<'a>) -> Result<StateSpace> {
        let symbols = &self.symbols;
        if let Some(space) = crate::spaces::access_space(self.spaces(), Some(addr), &|n| symbols.get(n).map(|s| s.space)) {
            return Ok(space);
        }
        let found = match addr.kind {
            OperandKind::Address(Address { base: Some(b), .. }) => self.spaces().get(b.value).copied().unwrap_or_default().describe(),
            _ => "no known space (an absolute address)".into(),
        };
        Err(with_note(
            Diagnostic::new(addr.span, format!("cannot tell which state space this generic address points into: {found}")),
            "a 32-bit register cannot hold a generic address's window: only a 64-bit generic address is resolved as the kernel runs",
        ))
    }

    /// The parameter an `ld.param` address names.
    pub(super) fn param_at(&self, addr: &ast::Operand<'a>) -> Option<&'a str> {
        match addr.kind {
            OperandKind::Address(Address { base: Some(b), .. }) if self.symbols.get(b.value).is_some_and(|s| s.space == StateSpace::Param) => Some(b.value),
            _ => None,
        }
    }

    pub(super) fn class_of_operand(&self, o: &ast::Operand<'a>) -> Option<Class> {
        match o.kind {
            OperandKind::Name(n) => self.classes.get(n),
            _ => None,
        }
    }

    pub(super) fn atomic(&mut self, inst: &'t ast::Instruction<'a>, a: px::Atom, red: bool) -> Result<()> {
        let name = if red { "red" } else { "atom" };
        let unsupported = |what: String| unsupported(inst, what);
        let address_operand = inst.operands.get(usize::from(!red)).ok_or_else(|| Diagnostic::new(inst.span, format!("`{name}` needs an address")))?;
        let (space, width) = self.placed(address_operand, a.space)?;
        let space = match space {
            Some(StateSpace::Global) => isa::AtomSpace::Global,
            Some(StateSpace::Shared) => isa::AtomSpace::Shared,
            None => isa::AtomSpace::Generic,
            Some(other) => return Err(unsupported(format!("`{name}` on {other} memory"))),
        };
        let ops = inst.operands.as_slice();
        let (d, rest) = if red { (None, ops) } else { (ops.first(), ops.get(1..).unwrap_or(&[])) };
        // Halves add only (`atom.add.noftz.f16`, `.bf16`, `.f16x2`, `.bf16x2`), in the low 16
        // bits of a register for one.
        let halves = matches!(a.ty, Type::F16 | Type::Bf16 | Type::F16x2 | Type::Bf16x2);
        if a.vector.is_some() || !(matches!(a.ty.bits(), 32 | 64) || halves) || (halves && (a.op != px::AtomOp::Add || !a.noftz)) {
            return Err(unsupported(format!("`{name}{}`", a.ty)));
        }
        // 64-bit atomics work on register pairs; `red` drops the old value into scratch.
        let wide = a.ty.bits() == 64;
        let d = match (d, wide) {
            (Some(d), true) => self.pair(d)?,
            (Some(d), false) => self.word(d)?,
            (None, true) => self.scratch,
            (None, false) => RZ,
        };
        let value = |this: &mut Self, o: &'t ast::Operand<'a>| if wide { this.src64(o) } else { this.src32(o) };
        match (a.op, rest) {
            (px::AtomOp::Cas, [addr, b, c]) => {
                let (address, _) = self.address(addr)?;
                let (b, c) = (value(self, b)?, value(self, c)?);
                let ty = if wide { isa::CasType::B64 } else { isa::CasType::B32 };
                self.emit(Form::AtomCas(mods::AtomCas { space, addr: width, ty }), &[dst(d), address, src(b), src(c)])
            }
            (op, [addr, b]) => {
                let op = match op {
                    px::AtomOp::Add => isa::AtomOp::Add,
                    px::AtomOp::Min => isa::AtomOp::Min,
                    px::AtomOp::Max => isa::AtomOp::Max,
                    px::AtomOp::Exch => isa::AtomOp::Exch,
                    px::AtomOp::And => isa::AtomOp::And,
                    px::AtomOp::Or => isa::AtomOp::Or,
                    px::AtomOp::Xor => isa::AtomOp::Xor,
                    px::AtomOp::Inc => isa::AtomOp::Inc,
                    px::AtomOp::Dec => isa::AtomOp::Dec,
                    other => return Err(unsupported(format!("`{name}{other}`"))),
                };
                let ty = match (a.ty, op) {
                    (Type::U32, _) => isa::AtomType::U32,
                    (Type::S32, _) => isa::AtomType::S32,
                    (Type::F32, _) => isa::AtomType::F32,
                    (Type::F64, _) => isa::AtomType::F64,
                    (Type::F16, _) => isa::AtomType::F16,
                    (Type::Bf16, _) => isa::AtomType::BF16,
                    (Type::F16x2, _) => isa::AtomType::F16x2,
                    (Type::Bf16x2, _) => isa::AtomType::BF16x2,
                    // A 64-bit sum wraps the same signed or unsigned.
                    (Type::U64, _) | (Type::S64, isa::AtomOp::Add) => isa::AtomType::U64,
                    (Type::S64, _) => isa::AtomType::S64,
                    _ if wide => isa::AtomType::B64,
                    _ => isa::AtomType::B32,
                };
                let (address, _) = self.address(addr)?;
                let b = value(self, b)?;
                let form = Form::Atom(mods::Atom { space, addr: width, op, ty });
                let mut probe = Instruction { form, ..Instruction::new(form.opcode()) };
                probe.operands[..3].copy_from_slice(&[dst(d), address, src(b)]);
                if let Err(e) = probe.validate() {
                    return Err(unsupported(format!("`{name}{}{}` ({e})", a.op, a.ty)));
                }
                self.emit(form, &[dst(d), address, src(b)])
            }
            _ => Err(Diagnostic::new(inst.span, format!("`{name}` has the wrong number of operands"))),
        }
    }

    /// `cvta.X` puts an address of space X into X's generic window (`isa::SHARED_WINDOW`,
    /// `isa::LOCAL_WINDOW`: the offset in the low word, the window in the high one) and
    /// `cvta.to.X` takes it out again; a global address is its generic address.
    pub(super) fn cvta(&mut self, inst: &'t ast::Instruction<'a>, c: px::Cvta) -> Result<()> {
        let [d, x] = self.operands(inst)?;
        let window = match c.space {
            // The only parameters whose address a kernel may take are those passed by value as
            // bytes, which live in GLOBAL buffers (`src32` refuses a scalar's).
            StateSpace::Global | StateSpace::Const | StateSpace::Param => None,
            StateSpace::Shared => Some(isa::SHARED_WINDOW),
            StateSpace::Local => Some(isa::LOCAL_WINDOW),
            _ => return Err(with_note(unsupported(inst, format!("`{}`", inst.op)), GENERIC_SPACES)),
        };
        if c.ty.bits() != 64 {
            return Err(with_note(
                unsupported(inst, format!("`{}`", inst.op)),
                "simt's generic addresses are 64 bits (`.address_size 64`): the high word holds the window",
            ));
        }
        let d = self.pair(d)?;
        let (xl, xh) = self.halves(x)?;
        self.mov(d, xl)?;
        match (window, c.to) {
            (None, _) => self.mov(d + 1, xh),
            (Some(window), false) => self.mov(d + 1, Src::imm((window >> 32) as u32)),
            (Some(_), true) => self.mov(d + 1, Src::imm(0)),
        }
    }

    /// `isspacep.X p, a`: whether `a`'s high word is X's window; a global address is one in
    /// neither window (`.const` data lives in global buffers, so `.const` tests the same).
    pub(super) fn isspacep(&mut self, inst: &'t ast::Instruction<'a>, space: StateSpace) -> Result<()> {
        let [d, x] = self.operands(inst)?;
        let p = self.pred(d)?;
        let (_, high) = self.halves(x)?;
        let window = |w: u64| Src::imm((w >> 32) as u32);
        let isetp = |cmp, bop| Form::Isetp(mods::Isetp { cmp, ty: isa::IntType::U32, bop });
        let pred = |p| isa::Operand::PredSrc { pred: p, negated: false };
        match space {
            StateSpace::Shared | StateSpace::Local => {
                let w = if space == StateSpace::Shared { isa::SHARED_WINDOW } else { isa::LOCAL_WINDOW };
                self.emit(isetp(isa::Cmp::Eq, isa::BoolOp::And), &[isa::Operand::Pred(p), src(high), src(window(w)), pred(isa::PT)])
            }
            StateSpace::Global | StateSpace::Const => {
                self.emit(isetp(isa::Cmp::Ne, isa::BoolOp::And), &[isa::Operand::Pred(p), src(high), src(window(isa::SHARED_WINDOW)), pred(isa::PT)])?;
                self.emit(isetp(isa::Cmp::Ne, isa::BoolOp::And), &[isa::Operand::Pred(p), src(high), src(window(isa::LOCAL_WINDOW)), pred(p)])
            }
            _ => Err(with_note(unsupported(inst, format!("`{}`", inst.op)), GENERIC_SPACES)),
        }
    }

    /// `cp.async [dst], [src], cp-size{, src-size}`: one `LDGSTS`, which copies as it issues
    /// (a run of the kernel where every copy completes at once, which `cp.async.wait_group`
    /// allows) and which the timing backend lets the warp go on from until a `DEPBAR` waits
    /// for its group. With a source size only that many bytes are read and the rest are zeros
    /// (Triton's masked-off lanes pass 0 and any address).
    pub(super) fn cp_async(&mut self, inst: &'t ast::Instruction<'a>) -> Result<()> {
        let (to, from, size, source_size) = match inst.operands.as_slice() {
            [to, from, size] => (to, from, size, None),
            [to, from, size, source_size] => (to, from, size, Some(source_size)),
            _ => return Err(Diagnostic::new(inst.span, "`cp.async` takes a destination, a source, a size and optionally a source size")),
        };
        let bytes = match self.constant(size) {
            Some(b @ (4 | 8 | 16)) => b as u32,
            _ => return Err(Diagnostic::new(size.span, "`cp.async` copies 4, 8 or 16 bytes: the size must be one of those literals")),
        };
        let (_, addr) = self.placed(from, Some(StateSpace::Global))?;
        let (from, _) = self.address(from)?;
        // LDGSTS takes the shared address in a register (or as a literal).
        let shared = self.address_value(to, self.scratch)?;
        let n = match source_size {
            Some(n) => self.src32(n)?,
            None => Src::imm(bytes),
        };
        let vec = match bytes {
            4 => isa::VecWidth::Scalar,
            8 => isa::VecWidth::V2,
            _ => isa::VecWidth::V4,
        };
        self.emit(Form::Ldgsts(mods::Ldgsts { addr, vec }), &[src(shared), from, src(n)])
    }

    /// `ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 d, [a]` (`load`) as one `LDSM`, and
    /// `stmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 [a], s` (sm_90) as one `STSM`: on the
    /// registers in place where the register allocator laid them out consecutively from a
    /// multiple of N (always for N = 1), else through scratch registers.
    pub(super) fn matrices(&mut self, inst: &'t ast::Instruction<'a>, l: px::Matrices, load: bool) -> Result<()> {
        let [first, second] = self.operands(inst)?;
        let (regs, a) = if load { (first, second) } else { (second, first) };
        let parts = self.matrix_registers(regs, l, if load { "destination" } else { "source" })?;
        let (address, _) = self.address(a)?;
        let count = match l.count {
            1 => isa::MatrixCount::X1,
            2 => isa::MatrixCount::X2,
            _ => isa::MatrixCount::X4,
        };
        let trans = if l.trans { isa::Trans::Yes } else { isa::Trans::No };
        let emit = |this: &mut Self, base: u8| {
            if load {
                this.emit(Form::Ldsm(mods::Ldsm { count, trans }), &[dst(base), address])
            } else {
                this.emit(Form::Stsm(mods::Stsm { count, trans }), &[address, src(Src::reg(base))])
            }
        };
        let place = match &regs.kind {
            OperandKind::Vector(v) => self.in_place(v, false, v.len()),
            _ => Some(self.word(regs)?),
        };
        if let Some(base) = place {
            return emit(self, base);
        }
        let t = self.scratch;
        if !load {
            for (j, part) in parts.iter().enumerate() {
                let x = self.src32(part)?;
                self.mov(t + j as u8, x)?;
            }
        }
        emit(self, t)?;
        if load {
            for (j, part) in parts.iter().enumerate() {
                let r = self.word(part)?;
                self.mov(r, Src::reg(t + j as u8))?;
            }
        }
        Ok(())
    }

    /// `ldmatrix`'s and `stmatrix`'s registers: a vector of N, or one name for N = 1.
    fn matrix_registers(&self, regs: &'t ast::Operand<'a>, l: px::Matrices, role: &str) -> Result<Vec<&'t ast::Operand<'a>>> {
        match &regs.kind {
            OperandKind::Vector(v) if v.len() == usize::from(l.count) => Ok(v.iter().collect()),
            OperandKind::Name(_) if l.count == 1 => Ok(vec![regs]),
            _ => Err(Diagnostic::new(regs.span, format!("expected {} {role} registers", l.count))),
        }
    }
}
