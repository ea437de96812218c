//! Every `mma.sync` shape and type the tensor engine has semantics for, reached from PTX
//! and run on one warp under both SIMT models against a plain matrix product.
//!
//! Elements are small integers, which every input type holds exactly and whose sums no
//! accumulator rounds, so the reference is exact whatever the order of the chain; where
//! the order matters (rounding), `crates/simt-tensor/tests/forms.rs` checks it bit for bit.
//! The fragments go in and come out through `simt_tensor::layout`, whose lanes and
//! registers `crates/simt-tensor/tests/layout.rs` checks against the PTX ISA.

mod common;

use common::run_one_warp;
use half::{bf16, f16};
use simt_host::Arg;
use simt_interp::SimtModel;
use simt_isa::ArgInit;
use simt_tensor::formats::MiniFloat;
use simt_tensor::layout::{Operand, Shape, dims, pack, pack64};

/// One row of the table: the instruction's modifiers and how its elements are stored.
struct Case {
    /// What follows `mma.sync.aligned.`.
    modifiers: &'static str,
    shape: Shape,
    input: Input,
    acc: Acc,
    /// C's elements start here (integer forms: near `i32::MAX`, so that sums overflow).
    c_base: i64,
}

#[derive(Clone, Copy, PartialEq)]
enum Input {
    F16,
    Bf16,
    Tf32,
    S8,
    U8,
    E4m3,
    E5m2,
    F64,
}

#[derive(Clone, Copy, PartialEq)]
enum Acc {
    F32,
    /// f16 elements, two to a register.
    F16,
    S32 {
        sat: bool,
    },
    F64,
}

impl Input {
    /// The bits of the small integer `v`, and how many elements a 32-bit register packs
    /// (0 for f64, which takes a register pair).
    fn bits(self, v: i64) -> (u64, usize) {
        let x = v as f32;
        match self {
            Input::F16 => (u64::from(f16::from_f32(x).to_bits()), 2),
            Input::Bf16 => (u64::from(bf16::from_f32(x).to_bits()), 2),
            Input::Tf32 => (u64::from(x.to_bits()), 1),
            Input::S8 => (u64::from(v as i8 as u8), 4),
            Input::U8 => (u64::from(v as u8), 4),
            Input::E4m3 => (u64::from(MiniFloat::E4M3.encode(x)), 4),
            Input::E5m2 => (u64::from(MiniFloat::E5M2.encode(x)), 4),
            Input::F64 => ((v as f64).to_bits(), 0),
        }
    }

    /// The values the matrices hold: unsigned types take non-negative ones.
    fn value(self, i: usize, j: usize) -> i64 {
        let v = ((i * 5 + j * 3 + i * j) % 7) as i64;
        if self == Input::U8 { v } else { v - 3 }
    }
}

impl Acc {
    fn bits(self, v: i64) -> u64 {
        match self {
            Acc::F32 => u64::from((v as f32).to_bits()),
            Acc::F16 => u64::from(f16::from_f32(v as f32).to_bits()),
            Acc::S32 { sat: true } => u64::from(v.clamp(i32::MIN.into(), i32::MAX.into()) as i32 as u32),
            Acc::S32 { sat: false } => u64::from(v as i32 as u32),
            Acc::F64 => (v as f64).to_bits(),
        }
    }

    fn wide(self) -> bool {
        self == Acc::F64
    }
}

const CASES: [Case; 11] = [
    Case { modifiers: "m16n8k16.row.col.f32.f16.f16.f32", shape: Shape::M16N8K16, input: Input::F16, acc: Acc::F32, c_base: 0 },
    Case { modifiers: "m16n8k16.row.col.f16.f16.f16.f16", shape: Shape::M16N8K16, input: Input::F16, acc: Acc::F16, c_base: 0 },
    Case { modifiers: "m16n8k16.row.col.f32.bf16.bf16.f32", shape: Shape::M16N8K16, input: Input::Bf16, acc: Acc::F32, c_base: 0 },
    Case { modifiers: "m16n8k8.row.col.f32.tf32.tf32.f32", shape: Shape::M16N8K8, input: Input::Tf32, acc: Acc::F32, c_base: 0 },
    Case { modifiers: "m16n8k32.row.col.s32.s8.s8.s32", shape: Shape::M16N8K32, input: Input::S8, acc: Acc::S32 { sat: false }, c_base: i32::MAX as i64 - 40 },
    Case {
        modifiers: "m16n8k32.row.col.satfinite.s32.s8.s8.s32",
        shape: Shape::M16N8K32,
        input: Input::S8,
        acc: Acc::S32 { sat: true },
        c_base: i32::MAX as i64 - 40,
    },
    Case { modifiers: "m16n8k32.row.col.s32.u8.u8.s32", shape: Shape::M16N8K32, input: Input::U8, acc: Acc::S32 { sat: false }, c_base: i32::MAX as i64 - 400 },
    Case {
        modifiers: "m16n8k32.row.col.satfinite.s32.u8.u8.s32",
        shape: Shape::M16N8K32,
        input: Input::U8,
        acc: Acc::S32 { sat: true },
        c_base: i32::MAX as i64 - 400,
    },
    Case { modifiers: "m16n8k32.row.col.f32.e4m3.e4m3.f32", shape: Shape::M16N8K32, input: Input::E4m3, acc: Acc::F32, c_base: 0 },
    Case { modifiers: "m16n8k32.row.col.f32.e5m2.e5m2.f32", shape: Shape::M16N8K32, input: Input::E5m2, acc: Acc::F32, c_base: 0 },
    Case { modifiers: "m8n8k4.row.col.f64.f64.f64.f64", shape: Shape::M8N8K4, input: Input::F64, acc: Acc::F64, c_base: 0 },
];

/// A fragment as registers (`frag[reg][lane]`) of the row-major element bits of `matrix`.
fn fragment(shape: Shape, operand: Operand, per_reg: usize, matrix: &[u64]) -> Vec<[u32; 32]> {
    if per_reg == 0 { pack64(shape, operand, matrix) } else { pack(shape, operand, per_reg, &matrix.iter().map(|&x| x as u32).collect::<Vec<_>>()) }
}

/// The kernel: every lane loads its A, B and C fragments (PTX element `j` of lane `l` from
/// the `j * 32 + l`-th 4- or 8-byte slot of each section), runs the `mma` and stores D as C.
fn kernel(case: &Case, counts: [usize; 4], wide: [bool; 4]) -> String {
    let mut body = String::new();
    let mut offset = 0;
    let mut names = Vec::new();
    for (x, (&n, &w)) in ["a", "b", "c", "d"].iter().zip(counts.iter().zip(&wide)) {
        let (size, reg, ty) = if w { (8, format!("%f{x}"), "f64") } else { (4, format!("%{x}"), "b32") };
        let list: Vec<String> = (0..n).map(|j| format!("{reg}{j}")).collect();
        for (j, r) in list.iter().enumerate() {
            let (base, at) = if *x == "d" { (if w { "%o8" } else { "%o4" }, j * 32 * size) } else { (if w { "%i8" } else { "%i4" }, offset + j * 32 * size) };
            if *x == "d" {
                names.push(format!("\tst.global.{ty} [{base}+{at}], {r};\n"));
            } else {
                body.push_str(&format!("\tld.global.{ty} {r}, [{base}+{at}];\n"));
            }
        }
        if *x != "d" {
            offset += n * 32 * size;
        }
        names.push(format!("{{{}}}", list.join(", ")));
    }
    let stores: String = names.iter().filter(|s| s.starts_with('\t')).cloned().collect();
    let ops: Vec<&String> = names.iter().filter(|s| s.starts_with('{')).collect();
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %l, %a<4>, %b<4>, %c<4>, %d<4>;\n\t.reg .f64 %fa<2>, %fb<2>, %fc<2>, %fd<2>;\n\
         \t.reg .b64 %i, %o, %x, %i4, %i8, %o4, %o8;\n\
         \tmov.u32 %l, %tid.x;\n\tld.param.u64 %i, [in];\n\tld.param.u64 %o, [out];\n\
         \tmul.wide.u32 %x, %l, 4;\n\tadd.s64 %i4, %i, %x;\n\tadd.s64 %o4, %o, %x;\n\
         \tmul.wide.u32 %x, %l, 8;\n\tadd.s64 %i8, %i, %x;\n\tadd.s64 %o8, %o, %x;\n\
         {body}\tmma.sync.aligned.{} {}, {}, {}, {};\n{stores}\tret;\n}}\n",
        case.modifiers, ops[3], ops[0], ops[1], ops[2]
    )
}

/// The bytes of fragments laid out as the kernel reads them.
fn section(frag: &[[u32; 32]], wide: bool) -> Vec<u8> {
    let mut out = Vec::new();
    if wide {
        for pair in frag.chunks_exact(2) {
            for (&low, &high) in pair[0].iter().zip(&pair[1]) {
                out.extend_from_slice(&(u64::from(low) | u64::from(high) << 32).to_le_bytes());
            }
        }
    } else {
        for reg in frag {
            for word in reg {
                out.extend_from_slice(&word.to_le_bytes());
            }
        }
    }
    out
}

/// `case`'s kernel, its input (A, B and C fragments) and the D it must store.
fn prepared(case: &Case) -> (String, Vec<u8>, Vec<u8>, Vec<i64>) {
    let ((m, k), n) = (dims(case.shape, Operand::A), dims(case.shape, Operand::C).1);
    let per_reg = case.input.bits(0).1;
    let matrix = |rows: usize, cols: usize, value: &dyn Fn(usize, usize) -> i64| (0..rows * cols).map(|at| value(at / cols, at % cols)).collect::<Vec<i64>>();
    let a = matrix(m, k, &|i, t| case.input.value(i, t));
    let b = matrix(k, n, &|t, j| case.input.value(t + 1, 2 * j));
    let c = matrix(m, n, &|i, j| case.c_base + (i * n + j) as i64 % 5);
    let d: Vec<i64> = (0..m * n).map(|at| c[at] + (0..k).map(|t| a[at / n * k + t] * b[t * n + at % n]).sum::<i64>()).collect();
    let bits = |v: &[i64], f: &dyn Fn(i64) -> u64| v.iter().map(|&x| f(x)).collect::<Vec<u64>>();
    let acc_per_reg = match case.acc {
        Acc::F64 => 0,
        Acc::F16 => 2,
        _ => 1,
    };
    let (fa, fb) = (
        fragment(case.shape, Operand::A, per_reg, &bits(&a, &|x| case.input.bits(x).0)),
        fragment(case.shape, Operand::B, per_reg, &bits(&b, &|x| case.input.bits(x).0)),
    );
    let (fc, fd) = (
        fragment(case.shape, Operand::C, acc_per_reg, &bits(&c, &|x| case.acc.bits(x))),
        fragment(case.shape, Operand::C, acc_per_reg, &bits(&d, &|x| case.acc.bits(x))),
    );
    let wide_in = case.input == Input::F64;
    let count = |frag: &[[u32; 32]], wide: bool| if wide { frag.len() / 2 } else { frag.len() };
    let counts = [count(&fa, wide_in), count(&fb, wide_in), count(&fc, case.acc.wide()), count(&fd, case.acc.wide())];
    let source = kernel(case, counts, [wide_in, wide_in, case.acc.wide(), case.acc.wide()]);
    let input: Vec<u8> = [section(&fa, wide_in), section(&fb, wide_in), section(&fc, case.acc.wide())].concat();
    (source, input, section(&fd, case.acc.wide()), d)
}

/// Runs `source` on `input` and returns what it stored.
fn run(source: &str, input: &[u8], out_bytes: usize, simt: SimtModel, dir: &std::path::Path, name: &str) -> Vec<u8> {
    let (in_file, out_file) = (dir.join(format!("{name}.in.bin")), dir.join(format!("{name}.out.bin")));
    std::fs::write(&in_file, input).unwrap();
    std::fs::write(&out_file, vec![0u8; out_bytes]).unwrap();
    let args = vec![Arg::new("in", ArgInit::File(in_file.display().to_string())), Arg::new("out", ArgInit::File(out_file.display().to_string()))];
    run_one_warp(source, args, "out", simt).0
}

#[test]
fn every_mma_form_of_the_tensor_engine_runs_from_ptx() {
    let dir = std::env::temp_dir().join(format!("simt-ptx-mma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for case in &CASES {
        let (source, input, want, d) = prepared(case);
        for simt in [SimtModel::Its, SimtModel::Stack] {
            let got = run(&source, &input, want.len(), simt, &dir, case.modifiers);
            assert!(got == want, "{} under {simt:?}: D differs\n{source}", case.modifiers);
        }
        // The saturating and wrapping forms see the same sums; some of them overflow.
        if let Acc::S32 { .. } = case.acc {
            assert!(d.iter().any(|&x| x > i64::from(i32::MAX)), "{}: no sum overflows", case.modifiers);
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// The register allocator lays fragments out in consecutive registers, so the MMA reads and
/// writes them in place, as ptxas's HMMA does: no moves, and independent MMAs overlap. A
/// fragment naming one register twice cannot lie so, and goes through scratch registers.
#[test]
fn fragments_lie_in_place_unless_a_register_repeats() {
    let dir = std::env::temp_dir().join(format!("simt-ptx-mma-place-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let module = |source: &str| simt_ptx::translate("k.ptx", source, None).unwrap_or_else(|e| panic!("{}", e.render("k.ptx", source, false)));
    // What the MMA has beside it: the fragments' last load before it and D's first store after
    // it, where no moves come between.
    let beside_mma = |source: &str| {
        let code = module(source).kernels.swap_remove(0).code;
        let at = code
            .iter()
            .position(|i| {
                matches!(i.form, simt_isa::Form::MmaM16n8k16(_) | simt_isa::Form::MmaM16n8k8(_) | simt_isa::Form::MmaM16n8k32(_) | simt_isa::Form::MmaM8n8k4(_))
            })
            .expect("an MMA");
        (code[at - 1].opcode(), code[at + 1].opcode())
    };
    let moves = |source: &str| module(source).kernels[0].code.iter().filter(|i| i.opcode() == simt_isa::Opcode::Mov).count();
    let in_place = (simt_isa::Opcode::Ld, simt_isa::Opcode::St);
    for case in &CASES {
        let (source, input, want, _) = prepared(case);
        assert_eq!(beside_mma(&source), in_place, "{}: D, A, B and C in place\n{source}", case.modifiers);
        // Accumulating in place, D the same registers as C.
        let (c, d) = if case.acc.wide() { ("%fc", "%fd") } else { ("%c", "%d") };
        let mma = source.lines().find(|l| l.contains("mma.sync")).unwrap();
        let accumulate = source.replace(mma, &mma.replacen(&format!("{{{d}0"), &format!("{{{c}0"), 1).replace(&format!(", {d}"), &format!(", {c}")));
        let accumulate = accumulate.lines().map(|l| if l.contains("st.global") { l.replace(d, c) } else { l.to_string() }).collect::<Vec<_>>().join("\n");
        assert_ne!(accumulate, source);
        assert_eq!(beside_mma(&accumulate), in_place, "{}: accumulating in place\n{accumulate}", case.modifiers);
        assert!(run(&accumulate, &input, want.len(), SimtModel::Its, &dir, case.modifiers) == want, "{}: accumulating in place", case.modifiers);
    }
    // A with one register four times, against the same A made by moves into four registers.
    let (source, input, want, _) = prepared(&CASES[0]);
    let mma = source.lines().find(|l| l.contains("mma.sync")).unwrap();
    let copied = source.replace(mma, &format!("\tmov.b32 %a1, %a0;\n\tmov.b32 %a2, %a0;\n\tmov.b32 %a3, %a0;\n{mma}"));
    let repeated = source.replace(mma, &mma.replace("{%a0, %a1, %a2, %a3}", "{%a0, %a0, %a0, %a0}"));
    assert_ne!(repeated, source);
    assert_eq!(moves(&repeated), moves(&source) + 4, "A through scratch");
    let (a, b) = (run(&copied, &input, want.len(), SimtModel::Its, &dir, "copied"), run(&repeated, &input, want.len(), SimtModel::Its, &dir, "repeated"));
    assert!(a == b && a != want, "the repeated register reads as four copies of it");
    std::fs::remove_dir_all(dir).unwrap();
}
