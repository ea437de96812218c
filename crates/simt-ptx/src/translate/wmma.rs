//! `wmma`, the warp-wide matrix API of CUDA's `mma.h` (`nvcuda::wmma`), m16n16k16 on
//! `MMA.M16N16K16`. PTX leaves a fragment's layout to the implementation, so fragments take
//! the layout of simt's MMA (`docs/tensor.md`): lane `2r + h` holds row `r` of A (columns
//! `8h .. 8h + 7`), column `r` of B (rows `8h .. 8h + 7`) and row `r` of C and D (columns
//! `8h .. 8h + 7`). A load or store moves each lane's 8 elements: in one or two vector
//! accesses where they lie together in memory (A row-major, B column-major, C and D
//! row-major), else one access each, `stride` elements apart. PTX gives an f16 A or B
//! fragment 8 registers, every element twice: the MMA reads the first 4, a load writes the
//! other 4 as their copy.

use super::*;
use memory::Place;

/// Elements of one matrix a lane holds.
const PER_LANE: u32 = 8;

impl<'t, 'a> Entry<'t, 'a> {
    pub(super) fn wmma(&mut self, inst: &'t ast::Instruction<'a>, w: px::Wmma) -> Result<()> {
        use px::WmmaAction as Action;
        let unsupported_here = |what: &str| {
            with_note(
                Diagnostic::new(inst.op_span, format!("`{}` is not supported by the PTX front end yet", inst.op)),
                format!(
                    "{what}; supported: m16n16k16 with A and B of .f16, .bf16, .s8 or .u8, C and D of .f32 (.f16 with .f16 inputs, .s32 with integer ones)"
                ),
            )
        };
        if w.action == Action::Mma {
            let input = match w.ab {
                Type::F16 => isa::MmaIn::F16,
                Type::Bf16 => isa::MmaIn::BF16,
                Type::S8 => isa::MmaIn::S8,
                Type::U8 => isa::MmaIn::U8,
                _ => return Err(unsupported_here("this input type")),
            };
            let acc = match (w.ty, w.c) {
                (Type::F32, Type::F32) => isa::MmaAcc::F32,
                (Type::F16, Type::F16) => isa::MmaAcc::F16,
                (Type::S32, Type::S32) => isa::MmaAcc::S32,
                _ => return Err(unsupported_here("C and D of these types")),
            };
            let form = Form::Mma(mods::Mma { acc, input });
            if !form.mma().is_some_and(|m| m.is_defined()) {
                return Err(unsupported_here("these types together"));
            }
            // Loads laid each fragment out as the MMA reads it, whatever its layout in memory.
            let [d, a, b, c] = self.operands(inst)?;
            return self.mma_fragments(form, [d, a, b, c], &[]);
        }
        let (bytes, ty) = match w.ty {
            Type::F16 | Type::Bf16 => (2, isa::MemType::U16),
            Type::S8 | Type::U8 => (1, isa::MemType::U8),
            Type::F32 | Type::S32 => (4, isa::MemType::B32),
            _ => return Err(unsupported_here("this element type")),
        };
        let (frag, addr, stride) = match (w.action, inst.operands.as_slice()) {
            (Action::StoreD, [addr, frag, rest @ ..]) | (_, [frag, addr, rest @ ..]) if rest.len() <= 1 => (frag, addr, rest.first()),
            _ => return Err(Diagnostic::new(inst.span, "`wmma` loads and stores take a fragment, an address and optionally a stride")),
        };
        let OperandKind::Vector(regs) = &frag.kind else { return Err(Diagnostic::new(frag.span, "expected a fragment `{...}`")) };
        let words = (PER_LANE * bytes / 4) as usize;
        if regs.len() != words && !(bytes == 2 && matches!(w.action, Action::LoadA | Action::LoadB) && regs.len() == 2 * words) {
            return Err(Diagnostic::new(frag.span, format!("expected a fragment of {words} registers")));
        }
        let (address, symbol_space) = self.address(addr)?;
        let isa::Operand::Addr { base, offset } = address else { return Err(Diagnostic::new(addr.span, "expected an address")) };
        let (space, width) = self.placed(addr, w.space.or(symbol_space))?;
        let space = match space {
            Some(StateSpace::Global | StateSpace::Const) => isa::MemSpace::Global,
            Some(StateSpace::Shared) => isa::MemSpace::Shared,
            None => isa::MemSpace::Generic,
            Some(other) => return Err(unsupported_here(&format!("`wmma` in `{other}`"))),
        };
        let at = Place { space, width };
        let stride = match stride {
            Some(s) => self.src32(s)?,
            None => Src::imm(16),
        };
        // This lane's first element, `first` elements into the matrix, and the elements from
        // one of its elements to the next, `step`: where they lie together, 1.
        let together = w.layout == if w.action == Action::LoadB { px::Layout::Col } else { px::Layout::Row };
        let t = self.scratch;
        let (lane, row, first, step, pair, values) = (t, t + 1, t + 2, t + 3, t + 4, t + 8);
        let shr = Form::Shr(mods::Shr { ty: isa::IntType::U32 });
        self.op(Opcode::S2r, &[dst(lane), isa::Operand::Special(isa::SpecialReg::LaneId)])?;
        self.emit(shr, &[dst(row), src(Src::reg(lane)), src(Src::imm(1))])?;
        self.op(Opcode::And, &[dst(lane), src(Src::reg(lane)), src(Src::imm(1))])?;
        self.op(Opcode::Shl, &[dst(lane), src(Src::reg(lane)), src(Src::imm(3))])?;
        let (along, across) = if together { (row, lane) } else { (lane, row) };
        self.op(Opcode::Imad, &[dst(first), src(Src::reg(along)), src(stride), src(Src::reg(across))])?;
        let shift = bytes.trailing_zeros();
        self.op(Opcode::Shl, &[dst(first), src(Src::reg(first)), src(Src::imm(shift))])?;
        // The register holding the address of the element `first` bytes in (less `offset`).
        let element = |this: &mut Self| -> Result<u8> {
            Ok(match (width, base) {
                (isa::AddrWidth::E, _) => {
                    let wide = Form::ImadWide(mods::ImadWide { ty: isa::IntType::U32 });
                    this.emit(wide, &[dst(pair), src(Src::reg(first)), src(Src::imm(1)), src(Src::reg(base))])?;
                    pair
                }
                (_, RZ) => first,
                _ => {
                    this.op(Opcode::Iadd, &[dst(pair), src(Src::reg(base)), src(Src::reg(first))])?;
                    pair
                }
            })
        };
        let at_bytes = |base: u8, extra: i32| isa::Operand::Addr { base, offset: offset + extra };
        let load = w.action != Action::StoreD;
        let fragment: Vec<u8> = regs[..words].iter().map(|r| self.word(r)).collect::<Result<_>>()?;
        if together {
            // 8, 16 or 32 bytes: one V2, one V4 or two V4 accesses.
            let vec = if words == 2 { isa::VecWidth::V2 } else { isa::VecWidth::V4 };
            let lane_base = element(self)?;
            for chunk in 0..words.div_ceil(4) {
                let (range, address) = (4 * chunk..(4 * chunk + 4).min(words), at_bytes(lane_base, 16 * chunk as i32));
                let (part, in_place) = (&fragment[range.clone()], self.in_place(&regs[range.clone()], false, range.len()));
                let block = in_place.unwrap_or(values);
                if load {
                    self.emit(at.ld(vec, isa::MemType::B32), &[dst(block), address])?;
                }
                for (k, &r) in part.iter().enumerate().filter(|_| in_place.is_none()) {
                    if load { self.mov(r, Src::reg(values + k as u8))? } else { self.mov(values + k as u8, Src::reg(r))? }
                }
                if !load {
                    self.emit(at.st(vec, isa::MemType::B32), &[address, src(Src::reg(block))])?;
                }
            }
        } else {
            self.op(Opcode::Shl, &[dst(step), src(stride), src(Src::imm(shift))])?;
            let per_word = 4 / bytes;
            for e in 0..PER_LANE {
                let (word, slot) = (fragment[(e / per_word) as usize], e % per_word);
                let address = at_bytes(element(self)?, 0);
                match (load, per_word) {
                    (true, 1) => self.emit(at.ld(isa::VecWidth::Scalar, ty), &[dst(word), address])?,
                    (true, _) => {
                        // Each element into its place in the word, the word's first one alone.
                        let into = if slot == 0 { word } else { values };
                        self.emit(at.ld(isa::VecWidth::Scalar, ty), &[dst(into), address])?;
                        if slot != 0 {
                            let (pos, len) = (Src::imm(8 * bytes * slot), Src::imm(8 * bytes));
                            self.op(Opcode::Bfi, &[dst(word), src(Src::reg(values)), src(Src::reg(word)), src(pos), src(len)])?;
                        }
                    }
                    (false, _) => {
                        // A narrow store writes the low bits: an element higher up is shifted down.
                        let from = if slot == 0 {
                            word
                        } else {
                            self.emit(shr, &[dst(values), src(Src::reg(word)), src(Src::imm(8 * bytes * slot))])?;
                            values
                        };
                        self.emit(at.st(isa::VecWidth::Scalar, ty), &[address, src(Src::reg(from))])?;
                    }
                }
                if e + 1 < PER_LANE {
                    self.op(Opcode::Iadd, &[dst(first), src(Src::reg(first)), src(Src::reg(step))])?;
                }
            }
        }
        // f16 A and B: the second half of the fragment is a copy of the first.
        for (copy, original) in regs[words..].iter().zip(&fragment) {
            let r = self.word(copy)?;
            self.mov(r, Src::reg(*original))?;
        }
        Ok(())
    }
}
