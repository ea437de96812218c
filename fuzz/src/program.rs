//! Random *valid* kernels built from the instruction table, for fuzzing the interpreter.
//!
//! This file is the one generator: the libFuzzer target `interp` drives it with
//! `arbitrary` bytes (`fuzz/src/lib.rs`), the stable harness `tests/robustness.rs`
//! includes it with `#[path]` and drives it with proptest-chosen numbers. It depends
//! on `simt_isa`, `simt_asm` (for the round trip) and `simt_interp` only.
//!
//! Every kernel it returns passes [`Kernel::validate`], so it is something the
//! bytecode loader would accept: random opcodes, modifiers, guards, registers,
//! literals, addresses (mostly near the one buffer, the shared array and the
//! local space, sometimes anywhere), branch targets and reconvergence points
//! (sometimes wrong ones: bytecode may carry any in-range value).

#![allow(dead_code)]

use simt_interp::{GlobalMemory, LaunchConfig, RunOptions, SimtModel};
use simt_isa::{
    AddrWidth, ElemType, Form, Guard, Instruction, Kernel, LitKind, MemSpace, MemType, NO_RECONV, NUM_REGS, Opcode, Operand, OperandKind, PT, Param, ParamType,
    RZ, SharedVar, SpecialReg, Src, TABLE, VecWidth, mods,
};

/// A source of choices. `below(n)` returns a number in `0 .. n` (`n >= 1`); when the
/// source runs dry it keeps answering 0, which always makes a small, valid kernel.
pub trait Choices {
    /// A number in `0 .. n`.
    fn below(&mut self, n: u32) -> u32;

    /// True with probability about `1 / n`.
    fn one_in(&mut self, n: u32) -> bool {
        self.below(n) == 0
    }
}

/// Choices taken from a slice of numbers, then zeros.
pub struct FromSlice<'a>(pub &'a [u32]);

impl Choices for FromSlice<'_> {
    fn below(&mut self, n: u32) -> u32 {
        match self.0.split_first() {
            Some((&v, rest)) => {
                self.0 = rest;
                v % n.max(1)
            }
            None => 0,
        }
    }
}

/// A generated kernel and the launch to run it with.
#[derive(Clone, Debug)]
pub struct Case {
    /// The kernel: parameter `buf` (`.ptr.u32`, offset 0) and `n` (`.u32`, offset 4).
    pub kernel: Kernel,
    /// Grid extents (small).
    pub grid: [u32; 3],
    /// Block extents (small, at most 96 threads).
    pub block: [u32; 3],
    /// Bytes of the one GLOBAL buffer.
    pub buffer_len: u32,
    /// Step limit to run under.
    pub max_steps: u64,
    /// `--its-yield`.
    pub its_yield: u32,
    /// Whether to use the `stack` model.
    pub stack: bool,
}

/// Registers the preamble sets up: R0 = buffer base, R1 = tid.x, R2 = this thread's word.
const PREAMBLE_REGS: u8 = 3;

/// The formats every generated kernel has for its `PRINTF`s: none, words, pairs (a `%s`
/// of whatever a register pair holds), and widths from arguments.
const FORMATS: [&str; 4] = ["tick\n", "%d %u %x %c\n", "%f %ld %s %p\n", "%*.*d|%-*e|%hhd\n"];

/// Builds a random valid kernel of at most `max_len` instructions (plus a 4-instruction preamble).
pub fn case(c: &mut impl Choices, max_len: u32) -> Case {
    let regs_used = 8 + c.below(48) as u8; // registers the body may name: R0 .. regs_used-1
    let shared_size = [0, 64, 256, 1024][c.below(4) as usize];
    let local_size = [0, 16, 64][c.below(3) as usize];
    let body_len = 1 + c.below(max_len.max(1));
    let len = 4 + body_len;
    let mut code = preamble();
    for pc in 4..len {
        code.push(instruction(c, regs_used, len, pc, shared_size, local_size));
    }
    // Usually end with EXIT; sometimes fall off the end (the interpreter must cope with that as well).
    if !c.one_in(8) {
        *code.last_mut().expect("at least one") = Instruction::new(Opcode::Exit);
    }
    // The kernel keeps the formats its PRINTFs use, in the order they first do, as the
    // assembler does, so that a disassembled and reassembled kernel has the same code.
    let mut formats: Vec<String> = Vec::new();
    for inst in &mut code {
        if let Operand::Format { index, .. } = &mut inst.operands[0] {
            let text = FORMATS[usize::from(*index)];
            *index = match formats.iter().position(|f| f == text) {
                Some(i) => i as u16,
                None => {
                    formats.push(text.to_string());
                    (formats.len() - 1) as u16
                }
            };
        }
    }
    let regs = code.iter().filter_map(Instruction::max_reg).max().map_or(1, |m| m + 1).max(u32::from(PREAMBLE_REGS));
    let regs = (regs + c.below(4)).min(NUM_REGS);
    let shared = if shared_size > 0 { vec![SharedVar { name: "sh".into(), elem: ElemType::U32, len: shared_size / 4, align: 4, offset: 0 }] } else { vec![] };
    let kernel = Kernel {
        name: "fuzz".into(),
        params: vec![Param { name: "buf".into(), ty: ParamType::Ptr(ElemType::U32), offset: 0 }, Param { name: "n".into(), ty: ParamType::U32, offset: 4 }],
        shared,
        shared_size,
        local_size,
        regs,
        launch: None,
        args: vec![],
        lines: (1..=code.len() as u32).collect(),
        code,
        labels: vec![],
        target: simt_isa::Target::DEFAULT,
        frames: simt_isa::Frames::default(),
        formats,
    };
    let shapes: [[u32; 3]; 8] = [[1, 1, 1], [32, 1, 1], [33, 1, 1], [64, 1, 1], [8, 4, 1], [2, 2, 2], [96, 1, 1], [5, 3, 2]];
    let block = shapes[c.below(shapes.len() as u32) as usize];
    let grid = [1 + c.below(2), 1 + c.below(2), 1];
    Case {
        kernel,
        grid,
        block,
        buffer_len: [4, 256, 1024, 4096][c.below(4) as usize],
        max_steps: 1 + u64::from(c.below(2000)),
        its_yield: 1 + c.below(20),
        stack: c.one_in(2),
    }
}

/// `LD.PARAM.U32 R0, [0]; S2R R1, SR_TID.X; LEA R2, R1, R0, 2; NOP`.
fn preamble() -> Vec<Instruction> {
    let mut ld = Instruction::new(Opcode::Ld);
    ld.form = Form::Ld(mods::Ld { space: MemSpace::Param, addr: AddrWidth::W32, vec: VecWidth::Scalar, ty: MemType::U32 });
    ld.operands[0] = Operand::Reg(0);
    ld.operands[1] = Operand::Addr { base: RZ, offset: 0 };
    let mut s2r = Instruction::new(Opcode::S2r);
    s2r.operands[0] = Operand::Reg(1);
    s2r.operands[1] = Operand::Special(SpecialReg::TidX);
    let mut lea = Instruction::new(Opcode::Lea);
    lea.operands[0] = Operand::Reg(2);
    lea.operands[1] = Operand::Src(Src::reg(1));
    lea.operands[2] = Operand::Src(Src::reg(0));
    lea.operands[3] = Operand::Src(Src::imm(2));
    vec![ld, s2r, lea, Instruction::new(Opcode::Nop)]
}

/// One random instruction that passes [`Instruction::validate`] (a `NOP` after a few failed tries).
pub fn instruction(c: &mut impl Choices, regs_used: u8, len: u32, pc: u32, shared_size: u32, local_size: u32) -> Instruction {
    for _ in 0..8 {
        let inst = attempt(c, regs_used, len, pc, shared_size, local_size);
        if inst.validate().is_ok() {
            return inst;
        }
    }
    Instruction::new(Opcode::Nop)
}

fn attempt(c: &mut impl Choices, regs_used: u8, len: u32, pc: u32, shared_size: u32, local_size: u32) -> Instruction {
    let row = &TABLE[c.below(TABLE.len() as u32) as usize];
    let mut indices = [0u8; 4];
    for (m, g) in indices.iter_mut().zip(row.groups) {
        *m = c.below(g.names.len() as u32) as u8;
    }
    let form = Form::from_indices(row.opcode, indices).unwrap_or(Form::new(row.opcode));
    let mut inst = Instruction { form, ..Instruction::new(row.opcode) };
    if c.one_in(3) {
        inst.guard = Guard { pred: c.below(u32::from(PT) + 1) as u8, negated: c.one_in(2) };
    }
    // Registers: mostly above the preamble's, aligned to 4 so pairs and vectors fit.
    let reg = |c: &mut dyn FnMut(u32) -> u32, dst: bool| -> u8 {
        if c(16) == 0 {
            return RZ;
        }
        let low = if dst && c(8) != 0 { PREAMBLE_REGS + 1 } else { 0 };
        let r = low + c(u32::from(regs_used - low)) as u8;
        if c(2) == 0 { r & !3 } else { r }
    };
    let mut pick = |n: u32| c.below(n);
    // Memory space of this instruction, to aim addresses at something mapped.
    let space = inst.form.access().map(|a| a.space);
    for (i, spec) in row.operands.iter().enumerate() {
        inst.operands[i] = match spec.kind {
            OperandKind::Dst(_) => Operand::Reg(reg(&mut pick, true)),
            OperandKind::Reg(_) => Operand::Src(Src::reg(reg(&mut pick, false))),
            OperandKind::Src { .. } => {
                if pick(4) == 0 {
                    let low = u64::from(pick_bits(&mut pick));
                    let high = if pick(2) == 0 { 0 } else { u64::from(pick_bits(&mut pick)) << 32 };
                    Operand::Src(Src::Imm { bits: high | low, wide: pick(2) == 0 })
                } else {
                    Operand::Src(Src::Reg { reg: reg(&mut pick, false), neg: pick(4) == 0, abs: pick(4) == 0 })
                }
            }
            OperandKind::PredDst => Operand::Pred(pick(u32::from(PT) + 1) as u8),
            OperandKind::PredSrc => Operand::PredSrc { pred: pick(u32::from(PT) + 1) as u8, negated: pick(2) == 0 },
            OperandKind::Special => Operand::Special(SpecialReg::from_index(pick(SpecialReg::NAMES.len() as u32) as u8).unwrap_or(SpecialReg::TidX)),
            OperandKind::Addr => address(&mut pick, space, shared_size, local_size),
            OperandKind::Label => {
                let target = if pick(3) == 0 { pick(len) } else { (pc + 1 + pick(4)).min(len - 1) };
                let target = if pick(3) == 0 { pc.saturating_sub(pick(6)) } else { target };
                let reconv = match pick(4) {
                    0 => NO_RECONV,
                    1 => pick(len + 1),
                    _ => (target.max(pc) + 1).min(len),
                };
                Operand::Label { target, reconv }
            }
            OperandKind::Imm => Operand::Imm(1 << pick(6)),
            OperandKind::Format => {
                let index = pick(FORMATS.len() as u32) as u16;
                let format = simt_isa::printf::Format::parse(FORMATS[usize::from(index)]).expect("the fuzzer's formats are valid");
                format.operand(index)
            }
        };
    }
    // Literals must match the slot's kind: fix up the width the checker wants.
    for i in 0..row.operands.len() {
        if let Operand::Src(Src::Imm { bits, wide }) = inst.operands[i] {
            let wide = match inst.lit_kind(i) {
                LitKind::F64 => true,
                LitKind::Any => wide,
                _ => false,
            };
            let bits = if wide { bits } else { bits & 0xFFFF_FFFF };
            inst.operands[i] = Operand::Src(Src::Imm { bits, wide });
        }
    }
    inst
}

fn pick_bits(pick: &mut impl FnMut(u32) -> u32) -> u32 {
    const SPECIAL: [u32; 10] = [0, 1, 2, 31, 32, 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, 0x3F80_0000, 0x7FC0_0000];
    match pick(3) {
        0 => SPECIAL[pick(SPECIAL.len() as u32) as usize],
        1 => pick(64),
        _ => (pick(1 << 16) << 16) | pick(1 << 16),
    }
}

/// An address: mostly R2 (this thread's word of the buffer) or R0 (the buffer) plus a small
/// offset for GLOBAL, small absolute offsets for SHARED/LOCAL/PARAM, and sometimes anything.
fn address(pick: &mut impl FnMut(u32) -> u32, space: Option<simt_isa::Space>, shared: u32, local: u32) -> Operand {
    let aligned = |pick: &mut dyn FnMut(u32) -> u32, limit: u32| -> i32 {
        let off = pick(limit.max(1) + 8) as i32;
        if pick(4) == 0 { off } else { off & !3 }
    };
    match (pick(6), space) {
        (0, _) => Operand::Addr { base: pick(8) as u8, offset: pick_bits(pick) as i32 },
        (_, Some(simt_isa::Space::Global)) => {
            let base = if pick(2) == 0 { 2 } else { 0 };
            Operand::Addr { base, offset: aligned(pick, 64) - 4 * (pick(3) == 0) as i32 }
        }
        (_, Some(simt_isa::Space::Shared)) => Operand::Addr { base: RZ, offset: aligned(pick, shared) },
        (_, Some(simt_isa::Space::Local)) => Operand::Addr { base: RZ, offset: aligned(pick, local) },
        (_, Some(simt_isa::Space::Param)) => Operand::Addr { base: RZ, offset: aligned(pick, 8) },
        _ => Operand::Addr { base: RZ, offset: aligned(pick, 16) },
    }
}

/// Runs a generated case: bytecode round trip, then one launch. Faults are fine; a
/// panic (or a hang past the step limit) is the bug libFuzzer looks for.
pub fn run_case(case: &Case) {
    let kernel = &case.kernel;
    kernel.validate().expect("the generator makes valid kernels");
    // The bytecode of a valid kernel loads back to the same kernel.
    let module = simt_isa::Module { source_name: "fuzz.s".into(), source: None, kernels: vec![kernel.clone()] };
    let back = simt_isa::read_module(&simt_isa::write_module(&module)).expect("written bytecode loads");
    assert_eq!(back.kernels[0].code, kernel.code, "bytecode round trip changed the code");

    let mut memory = GlobalMemory::new();
    let init: Vec<u8> = (0..case.buffer_len).map(|i| i as u8).collect();
    let base = memory.alloc("buf", simt_interp::WordBytes::from_bytes(&init)).expect("a small buffer fits");
    let mut params = base.to_le_bytes().to_vec();
    params.extend_from_slice(&(case.buffer_len / 4).to_le_bytes());
    let config = LaunchConfig { grid: case.grid, block: case.block, params };
    let options = RunOptions {
        simt: if case.stack { SimtModel::Stack } else { SimtModel::Its },
        max_steps: case.max_steps,
        sms: 1 + case.grid[0] % 2,
        its_yield: case.its_yield,
        threads: None,
        ..RunOptions::default()
    };
    let _ = simt_interp::run(kernel, &config, &memory, &options, None);
}

/// The disassembly of a valid kernel assembles back to the same code (contract section 7).
/// Reconvergence points are left out of the comparison: the generator picks them at
/// random, the assembler computes the real ones.
pub fn check_round_trip(kernel: &Kernel) {
    let module = simt_isa::Module { source_name: "gen.s".into(), source: None, kernels: vec![kernel.clone()] };
    let text = simt_isa::disassemble(&module);
    let back = match simt_asm::assemble("gen.s", &text) {
        Ok(m) => m,
        Err(d) => panic!("the disassembly does not assemble:\n{}\n{text}", d.render(false)),
    };
    let strip = |k: &Kernel| -> Vec<Instruction> {
        k.code
            .iter()
            .map(|&i| {
                let mut i = i;
                for o in &mut i.operands {
                    if let Operand::Label { reconv, .. } = o {
                        *reconv = 0;
                    }
                }
                i
            })
            .collect()
    };
    assert_eq!(strip(kernel), strip(&back.kernels[0]), "disassembly round trip changed the code:\n{text}");
}
