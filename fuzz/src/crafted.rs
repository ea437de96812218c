//! Crafted bytecode: valid modules mutated field by field, loaded, and run.
//!
//! The `bytecode` target feeds the loader arbitrary bytes, and `interp` runs programs
//! the generator made valid. Neither runs bytecode that *loads* (passes
//! [`Kernel::validate`]) but that no assembler would write: a parameter at a strange
//! offset, a register count one short, a branch whose reconvergence pc is its own, a
//! `.launch` of 1025 threads, a line table that points past the source. This module
//! makes such modules and runs them the ways a user can: [`simt_interp::run`] under
//! both SIMT models and the stepping API a timing model drives, with faults and
//! statistics rendered as the command line would.
//!
//! It starts from valid modules (the kernels of `asm/`, assembled, and random programs
//! from [`crate::program`]), applies a few structural mutations chosen by the input
//! (parameters, shared and local sizes, `regs`, instruction counts, register indices,
//! branch targets and reconvergence pcs, modifiers, literals, raw instruction words,
//! launch shapes, `.arg` defaults, labels, the embedded source and line table), writes
//! the module with [`write_module`] and sometimes corrupts a few bytes of the result.
//! Whatever loads must run to a result or a fault: never a panic, a hang or unbounded
//! memory. Launches are bounded by a small step limit; `.arg` buffers the harness will
//! not allocate (files, or more than [`MAX_FUZZ_BUFFER_BYTES`] in all that the host
//! would accept) are replaced by small ones.
//!
//! The libFuzzer target `run_bytecode` drives it with the fuzzer's bytes
//! (`fuzz/src/lib.rs`); `tests/robustness.rs` includes it with `#[path]` and drives it
//! with proptest-chosen numbers.

#![allow(dead_code)]

use std::path::Path;

use simt_host::{Arg, LaunchRequest, PreparedLaunch};
use simt_interp::{Checks, Launch, Peek, RunOptions, SimtModel, StepResult};
use simt_isa::{
    ArgDefault, ArgInit, ElemType, Form, Instruction, Kernel, LaunchDims, Literal, MAX_LOCAL_BYTES, MAX_SHARED_BYTES, MAX_TOTAL_BUFFER_BYTES, Module,
    NO_RECONV, NUM_REGS, Opcode, Operand, Param, ParamType, PoolBuilder, RZ, SharedVar, SpecialReg, Src, TABLE, decode, encode, read_module, write_module,
};

use crate::program::{self, Choices};

/// The most bytes of GLOBAL buffers the harness lets one launch allocate (the host
/// allows 4 GiB less 16 MiB; a request over that is still passed on, since it is refused before
/// anything is allocated).
pub const MAX_FUZZ_BUFFER_BYTES: u64 = 1 << 20;
/// The most instructions a mutated kernel grows to.
const MAX_FUZZ_CODE: usize = 2048;
/// The largest step limit a launch runs under.
const MAX_FUZZ_STEPS: u32 = 3000;

/// The valid modules mutations start from: every `.s` file under `root/asm` that
/// assembles (`root` is the repository root).
pub fn seeds(root: &Path) -> Vec<Module> {
    let mut files = Vec::new();
    for dir in ["asm", "asm/divergence", "asm/bugs"] {
        for entry in std::fs::read_dir(root.join(dir)).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "s") {
                files.push(path);
            }
        }
    }
    files.sort();
    let modules: Vec<Module> = files
        .iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            let name = path.file_name()?.to_string_lossy().into_owned();
            simt_asm::assemble(&name, &text).ok()
        })
        .collect();
    assert!(modules.len() >= 8, "the kernels of {}/asm are missing", root.display());
    modules
}

/// One input: build, mutate, write, corrupt, load, run.
pub fn check(c: &mut impl Choices, seeds: &[Module]) {
    let bytes = crafted_bytes(c, seeds);
    let Ok(module) = read_module(&bytes) else { return };
    // What loads is canonical after one write: writing it again changes nothing.
    let canonical = write_module(&module);
    let again = read_module(&canonical).expect("a loaded module loads again after writing");
    assert!(write_module(&again) == canonical, "writing a loaded module is not idempotent");
    let _ = simt_isa::disassemble(&module);
    let _ = simt_isa::listing(&module);
    for kernel in module.kernels.iter().take(3) {
        run_kernel(c, &module, kernel);
    }
}

/// A valid module, mutated and written, with a few bytes corrupted now and then.
pub fn crafted_bytes(c: &mut impl Choices, seeds: &[Module]) -> Vec<u8> {
    let mut module = base(c, seeds);
    for _ in 0..1 + c.below(6) {
        mutate(c, &mut module, seeds);
    }
    let mut bytes = write_module(&module);
    if c.one_in(4) {
        for _ in 0..1 + c.below(3) {
            corrupt(c, &mut bytes);
        }
    }
    bytes
}

fn base(c: &mut impl Choices, seeds: &[Module]) -> Module {
    if !seeds.is_empty() && !c.one_in(3) {
        return seeds[c.below(seeds.len() as u32) as usize].clone();
    }
    let case = program::case(c, 24);
    let mut kernel = case.kernel;
    kernel.launch = Some(LaunchDims { grid: case.grid, block: case.block });
    if !c.one_in(4) {
        kernel.args = vec![
            ArgDefault { name: "buf".into(), init: ArgInit::Iota(u64::from(case.buffer_len / 4)) },
            ArgDefault { name: "n".into(), init: ArgInit::Scalar(Literal::Int(i64::from(case.buffer_len / 4))) },
        ];
    }
    let source = c.one_in(2).then(|| (1..=kernel.code.len()).map(|l| format!("    line {l}\n")).collect());
    Module { source_name: "generated.s".into(), source, kernels: vec![kernel] }
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

const EDGES: [u32; 32] = [
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    15,
    16,
    31,
    32,
    33,
    63,
    64,
    255,
    256,
    1023,
    1024,
    1025,
    4096,
    65535,
    65536,
    0x7FFF_FFFF,
    0x8000_0000,
    0xFFFF_FFF0,
    0xFFFF_FFFC,
    0xFFFF_FFFE,
    0xFFFF_FFFF,
    MAX_SHARED_BYTES,
    MAX_SHARED_BYTES + 4,
    MAX_LOCAL_BYTES,
    MAX_LOCAL_BYTES + 16,
];

fn pick<T: Copy>(c: &mut impl Choices, items: &[T]) -> T {
    items[c.below(items.len() as u32) as usize]
}

fn any_u32(c: &mut impl Choices) -> u32 {
    (c.below(1 << 16) << 16) | c.below(1 << 16)
}

/// An edge value, a small one, one near `near`, or anything.
fn value(c: &mut impl Choices, near: u32) -> u32 {
    match c.below(4) {
        0 => pick(c, &EDGES),
        1 => c.below(300),
        2 => near.wrapping_add(c.below(17)).wrapping_sub(8),
        _ => any_u32(c),
    }
}

fn any_u64(c: &mut impl Choices) -> u64 {
    match c.below(3) {
        0 => pick(
            c,
            &[
                0,
                1,
                u64::from(u32::MAX),
                1 << 32,
                1 << 31,
                i64::MAX as u64,
                i64::MIN as u64,
                u64::MAX,
                0x7FF8_0000_0000_0000,
                0x7FF0_0000_0000_0000,
                0x3FF0_0000_0000_0000,
                1,
            ],
        ),
        1 => u64::from(value(c, 0)),
        _ => (u64::from(any_u32(c)) << 32) | u64::from(any_u32(c)),
    }
}

/// An element count for `.arg`: small, at the host's limits, or absurd.
fn count(c: &mut impl Choices) -> u64 {
    match c.below(3) {
        0 => pick(c, &[0, 1, 31, 32, 33, 1 << 20, 1 << 28, 1 << 29, (1 << 29) + 1, 1 << 31, 1 << 40, 1 << 62, u64::MAX]),
        _ => u64::from(c.below(2000)),
    }
}

fn literal(c: &mut impl Choices) -> Literal {
    match c.below(4) {
        0 => Literal::Int(pick(c, &[0, 1, -1, 255, 256, 65535, 65536, i64::from(u32::MAX), 1 << 32, i64::MIN, i64::MAX, 1000])),
        1 => Literal::Float(pick(c, &[0.0, -0.0, 0.5, 1.0, 1e30, 1e300, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 65520.0, 3.4e38])),
        2 => Literal::F32Bits(any_u32(c)),
        _ => Literal::F64Bits(any_u64(c)),
    }
}

fn param_type(c: &mut impl Choices) -> ParamType {
    match c.below(5) {
        0 => ParamType::U32,
        1 => ParamType::S32,
        2 => ParamType::F32,
        3 => ParamType::F64,
        _ => ParamType::Ptr(pick(c, &ElemType::ALL)),
    }
}

fn name(c: &mut impl Choices, others: &[&str]) -> String {
    if !others.is_empty() && c.one_in(2) {
        return pick(c, others).to_string();
    }
    pick(c, &["", "x", "n", "buf", "é", "a b", "R0", "\u{0}", "very_long_name_very_long_name_very_long_name"]).to_string()
}

// ---------------------------------------------------------------------------
// Structural mutations
// ---------------------------------------------------------------------------

fn mutate(c: &mut impl Choices, m: &mut Module, seeds: &[Module]) {
    if m.kernels.is_empty() {
        return;
    }
    let ki = c.below(m.kernels.len() as u32) as usize;
    match c.below(22) {
        0..=1 => mutate_params(c, &mut m.kernels[ki]),
        2 => mutate_shared(c, &mut m.kernels[ki]),
        3 => {
            let k = &mut m.kernels[ki];
            k.local_size = if c.one_in(3) { 16 * c.below(64) } else { value(c, k.local_size) };
        }
        4 => mutate_regs(c, &mut m.kernels[ki]),
        5 => mutate_count(c, &mut m.kernels[ki], seeds),
        6..=7 => mutate_registers(c, &mut m.kernels[ki]),
        8..=9 => mutate_branch(c, &mut m.kernels[ki]),
        10 => mutate_modifiers(c, &mut m.kernels[ki]),
        11..=12 => mutate_word(c, &mut m.kernels[ki]),
        13..=14 => mutate_literal(c, &mut m.kernels[ki]),
        15 => mutate_predicates(c, &mut m.kernels[ki]),
        16 => mutate_launch(c, &mut m.kernels[ki]),
        17..=18 => mutate_args(c, &mut m.kernels[ki]),
        19 => mutate_labels(c, &mut m.kernels[ki]),
        20 => mutate_source(c, m, ki),
        _ => mutate_kernels(c, m, ki, seeds),
    }
}

/// Puts parameters where the contract's layout puts them, so a kernel whose parameter
/// list changed still loads.
fn relayout(k: &mut Kernel) {
    let mut end = 0u32;
    for p in &mut k.params {
        p.offset = end.next_multiple_of(p.ty.size());
        end = p.offset + p.ty.size();
    }
}

fn mutate_params(c: &mut impl Choices, k: &mut Kernel) {
    let n = k.params.len() as u32;
    let names: Vec<String> = k.params.iter().map(|p| p.name.clone()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match c.below(6) {
        0 if n > 0 => {
            let i = c.below(n) as usize;
            k.params[i].offset = value(c, k.params[i].offset);
            return;
        }
        1 if n > 0 => {
            let i = c.below(n) as usize;
            k.params[i].ty = param_type(c);
        }
        2 => {
            let at = c.below(n + 1) as usize;
            k.params.insert(at, Param { name: name(c, &names), ty: param_type(c), offset: 0 });
        }
        3 if n > 0 => {
            k.params.remove(c.below(n) as usize);
        }
        4 if n > 1 => k.params.swap(c.below(n) as usize, c.below(n) as usize),
        _ if n > 0 => {
            let i = c.below(n) as usize;
            k.params[i].name = name(c, &names);
        }
        _ => {}
    }
    if !c.one_in(4) {
        relayout(k);
    }
}

fn mutate_shared(c: &mut impl Choices, k: &mut Kernel) {
    let n = k.shared.len() as u32;
    match c.below(5) {
        0 => k.shared_size = value(c, k.shared_size),
        1 if n > 0 => {
            let v = &mut k.shared[c.below(n) as usize];
            match c.below(4) {
                0 => v.len = value(c, v.len),
                1 => v.align = value(c, v.align),
                2 => v.offset = value(c, v.offset),
                _ => v.elem = pick(c, &ElemType::ALL),
            }
        }
        2 => {
            let at = c.below(n + 1) as usize;
            let var = SharedVar { name: name(c, &[]), elem: pick(c, &ElemType::ALL), len: c.below(64), align: 1 << c.below(5), offset: 16 * c.below(64) };
            k.shared.insert(at, var);
        }
        3 if n > 0 => {
            k.shared.remove(c.below(n) as usize);
        }
        _ => {}
    }
    if c.one_in(2) {
        // Grow the space to hold what is declared, so the kernel loads.
        let end = k.shared.iter().map(|v| u64::from(v.offset) + u64::from(v.len) * u64::from(v.elem.size())).max().unwrap_or(0);
        k.shared_size = k.shared_size.max(u32::try_from(end).unwrap_or(u32::MAX));
    }
}

fn used_regs(k: &Kernel) -> u32 {
    k.code.iter().filter_map(Instruction::max_reg).max().map_or(0, |m| m + 1)
}

fn mutate_regs(c: &mut impl Choices, k: &mut Kernel) {
    let used = used_regs(k);
    k.regs = match c.below(5) {
        0 => used,
        1 => used.saturating_sub(1),
        2 => NUM_REGS,
        3 => NUM_REGS + c.below(2),
        _ => value(c, k.regs),
    };
}

fn mutate_count(c: &mut impl Choices, k: &mut Kernel, seeds: &[Module]) {
    let len = k.code.len() as u32;
    let pc = c.below(len.max(1)) as usize;
    match c.below(7) {
        // Other mutations may have left the line table shorter than the code.
        0 if len > 1 => {
            k.code.remove(pc);
            if pc < k.lines.len() {
                k.lines.remove(pc);
            }
        }
        1 => {
            let (inst, line) = (k.code[pc], k.lines.get(pc).copied().unwrap_or(0));
            k.code.insert(pc, inst);
            k.lines.insert(pc.min(k.lines.len()), line);
        }
        2 => {
            let regs = k.regs.clamp(8, NUM_REGS) as u8;
            let inst = program::instruction(c, regs, len + 1, pc as u32, k.shared_size.min(4096), k.local_size.min(4096));
            k.code.insert(pc, inst);
            let line = k.lines.get(pc).copied().unwrap_or(0);
            k.lines.insert(pc.min(k.lines.len()), line);
        }
        3 => {
            let keep = 1 + c.below(len) as usize;
            k.code.truncate(keep);
            k.lines.truncate(keep);
        }
        4 if !seeds.is_empty() => {
            // Code from another kernel, with its own registers, targets and addresses.
            let donor = &seeds[c.below(seeds.len() as u32) as usize];
            let Some(d) = donor.kernels.first() else { return };
            let from = c.below(d.code.len() as u32) as usize;
            let n = (1 + c.below(16) as usize).min(d.code.len() - from);
            for i in 0..n {
                k.code.insert(pc + i, d.code[from + i]);
                // Earlier mutations may have left the line table shorter than the code.
                k.lines.insert((pc + i).min(k.lines.len()), d.lines.get(from + i).copied().unwrap_or(0));
            }
        }
        5 => {
            // The last instruction is not EXIT: warps fall off the end.
            let last = k.code.len() - 1;
            k.code[last] = Instruction::new(Opcode::Nop);
        }
        _ => {
            if c.one_in(2) {
                k.lines.pop();
            } else {
                k.lines.push(value(c, 1));
            }
            return;
        }
    }
    k.code.truncate(MAX_FUZZ_CODE);
    k.lines.truncate(k.code.len());
    if c.one_in(2) {
        // Keep branch targets inside the changed code, so the kernel loads.
        let len = k.code.len() as u32;
        for inst in &mut k.code {
            for op in &mut inst.operands {
                if let Operand::Label { target, reconv } = op {
                    *target = (*target).min(len - 1);
                    if *reconv != NO_RECONV {
                        *reconv = (*reconv).min(len);
                    }
                }
            }
        }
        k.labels.retain(|(_, pc)| *pc <= len);
    }
    if c.one_in(2) {
        k.regs = k.regs.max(used_regs(k));
    }
}

/// A pc and the index of an operand there that `wanted` accepts.
fn find_operand(c: &mut impl Choices, k: &Kernel, wanted: impl Fn(&Operand) -> bool) -> Option<(usize, usize)> {
    let all: Vec<(usize, usize)> =
        k.code.iter().enumerate().flat_map(|(pc, inst)| inst.operands().iter().enumerate().filter(|(_, op)| wanted(op)).map(move |(i, _)| (pc, i))).collect();
    (!all.is_empty()).then(|| all[c.below(all.len() as u32) as usize])
}

fn register(c: &mut impl Choices, current: u8, regs: u32) -> u8 {
    let regs = regs.min(255) as u8;
    match c.below(6) {
        0 => pick(c, &[0, 1, 2, 3, 4, 252, 253, 254, RZ]),
        1 => regs.saturating_sub(1 + c.below(4) as u8),
        2 => regs,
        3 => current.wrapping_add(pick(c, &[1, 2, 3, 4, 255, 254, 252])),
        4 => current & !3,
        _ => c.below(256) as u8,
    }
}

fn mutate_registers(c: &mut impl Choices, k: &mut Kernel) {
    let regs = k.regs;
    let found = find_operand(c, k, |op| matches!(op, Operand::Reg(_) | Operand::Src(Src::Reg { .. }) | Operand::Addr { .. }));
    let Some((pc, i)) = found else { return };
    match &mut k.code[pc].operands[i] {
        Operand::Reg(r) | Operand::Src(Src::Reg { reg: r, .. }) | Operand::Addr { base: r, .. } => *r = register(c, *r, regs),
        _ => {}
    }
    if c.one_in(2) {
        k.regs = k.regs.max(used_regs(k)).min(NUM_REGS);
    }
}

fn mutate_branch(c: &mut impl Choices, k: &mut Kernel) {
    let len = k.code.len() as u32;
    let found = find_operand(c, k, |op| matches!(op, Operand::Label { .. }));
    let (pc, i) = match found {
        Some(found) if !c.one_in(4) => found,
        _ => {
            // Make a branch where there was none: BRA, guarded or not.
            let pc = c.below(len) as usize;
            let mut bra = Instruction::new(Opcode::Bra);
            bra.operands[0] = Operand::Label { target: 0, reconv: NO_RECONV };
            if c.one_in(2) {
                bra.guard = simt_isa::Guard { pred: c.below(8) as u8, negated: c.one_in(2) };
            }
            k.code[pc] = bra;
            (pc, 0)
        }
    };
    let near = [0, pc as u32, pc as u32 + 1, pc.saturating_sub(1) as u32, len - 1, len, len + 1, 0xFF_FFFE, NO_RECONV];
    let Operand::Label { target, reconv } = &mut k.code[pc].operands[i] else { return };
    if c.one_in(2) {
        *target = if c.one_in(2) { pick(c, &near) } else { c.below(len) };
    }
    if !c.one_in(3) {
        *reconv = match c.below(3) {
            0 => NO_RECONV,
            1 => pick(c, &near).min(0xFF_FFFF),
            _ => c.below(len + 1),
        };
    }
}

fn mutate_modifiers(c: &mut impl Choices, k: &mut Kernel) {
    let pc = c.below(k.code.len() as u32) as usize;
    let inst = &mut k.code[pc];
    let mut indices = inst.form.indices();
    let slot = c.below(4) as usize;
    indices[slot] = c.below(16) as u8;
    if let Some(form) = Form::from_indices(inst.opcode(), indices) {
        inst.form = form;
    }
}

/// Changes the encoded word of one instruction (its opcode, a bit, a field) and keeps
/// the result if it still decodes: operands reinterpreted under another opcode.
fn mutate_word(c: &mut impl Choices, k: &mut Kernel) {
    let pc = c.below(k.code.len() as u32) as usize;
    let mut pool = PoolBuilder::default();
    let mut word = encode(&k.code[pc], &mut pool);
    let mut pool = pool.into_values();
    match c.below(4) {
        0 => word = (word & !0xFF) | u128::from(c.below(TABLE.len() as u32 + 2) as u8),
        1 => word ^= 1 << c.below(128),
        2 => {
            let at = 8 + 4 * c.below(4);
            word = (word & !(0xF << at)) | (u128::from(c.below(16)) << at);
        }
        _ => {
            // Aim a literal at a different pool entry, or change the entry.
            if !pool.is_empty() && c.one_in(2) {
                let i = c.below(pool.len() as u32) as usize;
                pool[i] = any_u64(c);
            } else {
                pool.push(any_u64(c));
                word ^= 1 << (32 + c.below(96));
            }
        }
    }
    if let Ok(inst) = decode(word, &pool) {
        k.code[pc] = inst;
        if c.one_in(2) {
            k.regs = k.regs.max(used_regs(k)).min(NUM_REGS);
        }
    }
}

fn mutate_literal(c: &mut impl Choices, k: &mut Kernel) {
    let found = find_operand(c, k, |op| matches!(op, Operand::Src(_) | Operand::Addr { .. } | Operand::Imm(_)));
    let Some((pc, i)) = found else { return };
    let op = &mut k.code[pc].operands[i];
    match op {
        Operand::Src(Src::Imm { bits, wide }) => match c.below(3) {
            0 => *op = Operand::Src(Src::reg(c.below(8) as u8)),
            1 => *wide = !*wide,
            _ => *bits = if *wide { any_u64(c) } else { u64::from(value(c, *bits as u32)) },
        },
        Operand::Src(Src::Reg { neg, abs, .. }) => match c.below(3) {
            0 => *neg = !*neg,
            1 => *abs = !*abs,
            _ => *op = Operand::Src(Src::Imm { bits: u64::from(value(c, 0)), wide: c.one_in(4) }),
        },
        Operand::Addr { base, offset } => {
            if c.one_in(4) {
                *base = RZ;
            }
            *offset = match c.below(3) {
                0 => pick(c, &[0, 4, -4, -1, 1, 0x100, i32::MIN, i32::MAX, -16, 16 * 1024]),
                1 => offset.wrapping_add(c.below(33) as i32 - 16),
                _ => value(c, *offset as u32) as i32,
            };
        }
        Operand::Imm(v) => *v = value(c, *v),
        _ => {}
    }
}

fn mutate_predicates(c: &mut impl Choices, k: &mut Kernel) {
    let pc = c.below(k.code.len() as u32) as usize;
    let inst = &mut k.code[pc];
    let n = inst.operands().len() as u32;
    match c.below(3) {
        0 => inst.guard = simt_isa::Guard { pred: c.below(8) as u8, negated: c.one_in(2) },
        _ if n > 0 => match &mut inst.operands[c.below(n) as usize] {
            Operand::Pred(p) => *p = c.below(8) as u8,
            Operand::PredSrc { pred, negated } => {
                *pred = c.below(8) as u8;
                *negated = c.one_in(2);
            }
            Operand::Special(sr) => *sr = SpecialReg::from_index(c.below(SpecialReg::NAMES.len() as u32) as u8).unwrap_or(*sr),
            _ => {}
        },
        _ => {}
    }
}

fn extent(c: &mut impl Choices) -> u32 {
    match c.below(3) {
        0 => pick(c, &[0, 1, 2, 3, 31, 32, 33, 64, 65, 128, 1024, 1025, 65535, 65536, 0x7FFF_FFFF, 0x8000_0000, u32::MAX]),
        _ => 1 + c.below(8),
    }
}

fn mutate_launch(c: &mut impl Choices, k: &mut Kernel) {
    if c.one_in(4) {
        k.launch = None;
        return;
    }
    let mut l = k.launch.unwrap_or(LaunchDims { grid: [1, 1, 1], block: [32, 1, 1] });
    let axis = c.below(3) as usize;
    if c.one_in(2) {
        l.grid[axis] = extent(c);
    } else {
        l.block[axis] = extent(c);
    }
    k.launch = Some(l);
}

fn arg_init(c: &mut impl Choices) -> ArgInit {
    match c.below(7) {
        0 => ArgInit::Scalar(literal(c)),
        1 => ArgInit::Zeros(count(c)),
        2 => ArgInit::Fill(count(c), literal(c)),
        3 => ArgInit::Iota(count(c)),
        4 => ArgInit::Rand(count(c), any_u64(c)),
        5 => ArgInit::List((0..c.below(40)).map(|_| literal(c)).collect()),
        _ => ArgInit::File(pick(c, &["", "x.npy", "/dev/zero", "/nonexistent.bin", "."]).to_string()),
    }
}

fn mutate_args(c: &mut impl Choices, k: &mut Kernel) {
    let n = k.args.len() as u32;
    let names: Vec<String> = k.params.iter().map(|p| p.name.clone()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match c.below(4) {
        0 if n > 0 => {
            k.args.remove(c.below(n) as usize);
        }
        1 if n > 0 => {
            let i = c.below(n) as usize;
            k.args[i].init = arg_init(c);
        }
        2 if n > 0 => {
            let i = c.below(n) as usize;
            k.args[i].name = name(c, &names);
        }
        _ => {
            let at = c.below(n + 1) as usize;
            let arg = ArgDefault { name: name(c, &names), init: arg_init(c) };
            k.args.insert(at, arg);
        }
    }
}

fn mutate_labels(c: &mut impl Choices, k: &mut Kernel) {
    let n = k.labels.len() as u32;
    let len = k.code.len() as u32;
    let names: Vec<String> = k.labels.iter().map(|(l, _)| l.clone()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match c.below(4) {
        0 if n > 0 => {
            k.labels.remove(c.below(n) as usize);
        }
        1 if n > 0 => {
            let i = c.below(n) as usize;
            let anywhere = c.below(len + 1);
            k.labels[i].1 = pick(c, &[0, len - 1, len, len + 1, u32::MAX, anywhere]);
        }
        2 if n > 0 => {
            let i = c.below(n) as usize;
            k.labels[i].0 = name(c, &names);
        }
        _ => {
            let anywhere = c.below(len + 1);
            let label = (name(c, &names), pick(c, &[0, len - 1, len, anywhere]));
            k.labels.insert(c.below(n + 1) as usize, label);
        }
    }
}

fn mutate_source(c: &mut impl Choices, m: &mut Module, ki: usize) {
    match c.below(6) {
        0 => m.source = None,
        1 => m.source = Some(pick(c, &["", "\n", "// only a comment", "\u{feff}x\r\ny", "é\n\tü\n"]).to_string()),
        2 => {
            if let Some(text) = &mut m.source {
                let mut cut = (c.below(text.len() as u32 + 1) as usize).min(text.len());
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
            }
        }
        3 => m.source_name = name(c, &["k.s", "/", "dir/", "a.s:3"]),
        _ => {
            let k = &mut m.kernels[ki];
            if k.lines.is_empty() {
                return;
            }
            let pc = c.below(k.lines.len() as u32) as usize;
            let near = value(c, k.lines[pc]);
            k.lines[pc] = pick(c, &[0, 1, 2, u32::MAX, u32::MAX - 1, 100_000, near]);
        }
    }
}

fn mutate_kernels(c: &mut impl Choices, m: &mut Module, ki: usize, seeds: &[Module]) {
    let names: Vec<String> = m.kernels.iter().map(|k| k.name.clone()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match c.below(4) {
        0 if m.kernels.len() < 4 => {
            let k = m.kernels[ki].clone();
            m.kernels.push(k);
        }
        1 => {
            m.kernels.remove(ki);
        }
        2 => m.kernels[ki].name = name(c, &names),
        _ if !seeds.is_empty() && m.kernels.len() < 4 => {
            let donor = &seeds[c.below(seeds.len() as u32) as usize];
            m.kernels.extend(donor.kernels.first().cloned());
        }
        _ => {}
    }
}

/// Corrupts the written bytes: a flipped bit, an edge value over four bytes, a byte.
fn corrupt(c: &mut impl Choices, bytes: &mut [u8]) {
    if bytes.is_empty() {
        return;
    }
    let at = c.below(bytes.len() as u32) as usize;
    match c.below(3) {
        0 => bytes[at] ^= 1 << c.below(8),
        1 => {
            let v = pick(c, &EDGES).to_le_bytes();
            let end = (at + 4).min(bytes.len());
            bytes[at..end].copy_from_slice(&v[..end - at]);
        }
        _ => bytes[at] = c.below(256) as u8,
    }
}

// ---------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------

/// Bytes an `.arg` value asks for, as the host plans it (saturating).
fn planned(elem: ElemType, init: &ArgInit) -> u64 {
    // In bits: the 4-bit types pack two elements a byte (their `size` rounds to 0).
    let bits = u64::from(elem.bits());
    let count = match init {
        ArgInit::Zeros(n) | ArgInit::Fill(n, _) | ArgInit::Iota(n) | ArgInit::Rand(n, _) => *n,
        ArgInit::List(v) => v.len() as u64,
        ArgInit::TensorMap(map) => return planned(map.elem.unwrap_or(elem), &map.tensor).saturating_add(128),
        // Each buffer and an 8-byte address for it.
        ArgInit::Pointers(pointers) => {
            return pointers.buffers.iter().fold(0u64, |sum, b| sum.saturating_add(planned(pointers.elem.unwrap_or(ElemType::U32), b)).saturating_add(8));
        }
        ArgInit::Scalar(_) | ArgInit::File(_) => 0,
    };
    count.saturating_mul(bits).div_ceil(8)
}

/// Whether an argument reads a file (`/dev/zero` among them: the host reads it up to its limit).
fn reads_a_file(init: &ArgInit) -> bool {
    !init.files().is_empty()
}

/// The launch request: `.launch` and `.arg` as the module says, except that buffers are
/// small when the defaults are missing, files or too large for the harness, and the
/// shape is given when `.launch` is missing.
fn request(c: &mut impl Choices, k: &Kernel) -> LaunchRequest {
    let mut request = LaunchRequest::default();
    if k.launch.is_none() || c.one_in(8) {
        request.grid = Some([1 + c.below(3), 1 + c.below(2), 1]);
        request.block = Some(pick(c, &[[32, 1, 1], [1, 1, 1], [33, 1, 1], [64, 1, 1], [8, 4, 2], [96, 1, 1]]));
    }
    let default_of = |p: &Param| k.args.iter().rev().find(|a| a.name == p.name).map(|a| &a.init);
    let total: u64 = k
        .params
        .iter()
        .filter_map(|p| match (p.ty, default_of(p)) {
            (ParamType::Ptr(elem) | ParamType::Raw(elem), Some(init)) => Some(planned(elem, init)),
            _ => None,
        })
        .fold(0, u64::saturating_add);
    // Over the host's limit, the request is refused before anything is allocated.
    let refused = total > MAX_TOTAL_BUFFER_BYTES;
    for p in &k.params {
        let small = match (p.ty, default_of(p)) {
            (ParamType::Ptr(_) | ParamType::Raw(_), Some(init)) if reads_a_file(init) => true,
            (ParamType::Ptr(_), None) => true,
            // A raw (PTX) parameter's buffer, or the tensor of a tensor map (asm/tma.s).
            (ParamType::Ptr(elem) | ParamType::Raw(elem), Some(init)) => !refused && total > MAX_FUZZ_BUFFER_BYTES && planned(elem, init) > 4096,
            (_, None) => true,
            _ => c.one_in(8),
        };
        if !small {
            continue;
        }
        let init = match p.ty {
            ParamType::Ptr(_) | ParamType::Raw(_) => match c.below(3) {
                0 => ArgInit::Zeros(u64::from(c.below(1024))),
                1 => ArgInit::Iota(u64::from(c.below(1024))),
                _ => ArgInit::Rand(u64::from(c.below(1024)), 7),
            },
            ParamType::F32 | ParamType::F64 if c.one_in(2) => ArgInit::Scalar(Literal::Float(0.5)),
            _ => ArgInit::Scalar(Literal::Int(i64::from(pick(c, &[0, 1, 32, 100, 1000])))),
        };
        request.args.push(Arg::new(p.name.clone(), init));
    }
    request
}

fn options(c: &mut impl Choices, simt: SimtModel) -> RunOptions {
    RunOptions {
        simt,
        max_steps: u64::from(1 + c.below(MAX_FUZZ_STEPS)),
        sms: 1 + c.below(4),
        its_yield: 1 + c.below(20),
        // One OS thread: the fuzzer runs one input at a time; now and then two, for the pool path.
        threads: Some(if c.one_in(16) { 2 } else { 1 }),
        checks: Checks { racecheck: c.one_in(6), initcheck: c.one_in(6), synccheck: c.one_in(6) },
        runaway_steps: pick(c, &[0, 1, 7, 64, simt_interp::launch::DEFAULT_RUNAWAY_STEPS]),
        deadline: None,
        memory_report: c.one_in(4),
        printf_limit: pick(c, &[0, 64, simt_isa::DEFAULT_PRINTF_LIMIT]),
    }
}

fn run_kernel(c: &mut impl Choices, module: &Module, kernel: &Kernel) {
    let request = request(c, kernel);
    let prepared = match simt_host::prepare(kernel, &request) {
        Ok(prepared) => prepared,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let options = options(c, simt);
        match simt_interp::run(kernel, &prepared.config, &prepared.memory, &options, None) {
            Ok(stats) => {
                let _ = stats.render_text();
            }
            Err(fault) => {
                let _ = fault.render(module, c.one_in(2));
                let _ = fault.to_string();
            }
        }
    }
    let simt = if c.one_in(2) { SimtModel::Its } else { SimtModel::Stack };
    let options = options(c, simt);
    step_blocks(c, module, kernel, &prepared, &options);
}

/// Drives a block or two through the stepping API in an order the input chooses.
fn step_blocks(c: &mut impl Choices, module: &Module, kernel: &Kernel, prepared: &PreparedLaunch, options: &RunOptions) {
    let launch = match Launch::new(kernel, &prepared.config, &prepared.memory, options) {
        Ok(launch) => launch,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let blocks = launch.blocks();
    let mut counters = simt_interp::Counters::new(kernel.code.len());
    for linear in [0, blocks - 1, u64::from(any_u32(c)) % blocks].into_iter().take(1 + c.below(3) as usize) {
        let mut block = launch.block(linear, c.below(options.sms.max(1)));
        if c.one_in(4) {
            block.set_clock(u64::from(any_u32(c)) << c.below(33));
        }
        let result = drive(c, &mut block);
        counters.add(&block.into_counters());
        if let Err(fault) = result {
            let _ = fault.render(module, false);
            break;
        }
    }
    let _ = launch.stats(&counters).render_text();
}

/// Steps warps in the order the input picks until the block is done or faults. Checks
/// the stepping contract on the way: `step` does what `peek` said, and when no warp can
/// issue either the barrier opens or `force_progress` releases a group or reports a
/// deadlock.
#[allow(clippy::result_large_err)] // `Fault` is the interpreter's own error type
fn drive(c: &mut impl Choices, block: &mut simt_interp::BlockSim<'_>) -> Result<(), simt_interp::Fault> {
    let warps = block.warp_count();
    let mut releases = 0;
    loop {
        let peeks: Vec<Peek> = (0..warps).map(|w| block.peek(w)).collect();
        let ready: Vec<usize> = (0..warps).filter(|&w| matches!(peeks[w], Peek::Issue(_))).collect();
        if ready.is_empty() {
            if block.is_done() {
                assert!(peeks.iter().all(|p| *p == Peek::Done), "a done block has a warp that is not done: {peeks:?}");
                return Ok(());
            }
            // A model may ask to force progress first; it must refuse while the barrier can open.
            if c.one_in(4) && block.barrier_complete() {
                assert_eq!(block.force_progress(), Ok(false), "force_progress ran while the barrier could open");
            }
            if !block.release_barrier() {
                let released = block.force_progress()?;
                assert!(released, "nothing can issue and the barrier is closed, yet force_progress released nothing");
            }
            // Each release lets a thread group move; a released group may wait again at a
            // collective, but there are only so many groups.
            releases += 1;
            assert!(releases <= 64 * warps + 8, "{releases} releases in a row and no warp can issue");
            continue;
        }
        // A model may also try a warp that cannot issue, or force progress early.
        if c.one_in(8) {
            let w = c.below(warps as u32) as usize;
            if let Peek::Blocked(reason) = peeks[w] {
                assert_eq!(block.step(w)?, StepResult::Blocked(reason));
            }
            assert_eq!(block.force_progress(), Ok(false), "force_progress ran while warp {} could issue", ready[0]);
        }
        releases = 0;
        let w = ready[c.below(ready.len() as u32) as usize];
        let Peek::Issue(preview) = block.peek(w) else { panic!("warp {w} could issue a moment ago") };
        match block.step(w)? {
            StepResult::Issued(step) => {
                assert_eq!(
                    (step.issued.pc, step.issued.active, step.issued.executed),
                    (preview.pc, preview.active, preview.executed),
                    "step did not do what peek said"
                );
            }
            other => panic!("peek said warp {w} would issue, step said {other:?}"),
        }
    }
}
