//! Forms the PTX of ML compilers (Triton, tinygrad) is written in, each run on one warp:
//! Triton's inline-assembly loads and stores with one-element braces and spaced addresses,
//! its `.ptr .global .align` parameter attributes and its DWARF sections.

mod common;

use common::run_one_warp;
use simt_host::Arg;
use simt_interp::SimtModel;
use simt_isa::{ArgInit, Literal};

/// A Triton-style vector add of `n` elements (the load predicated on `tid < n`, as Triton
/// masks it, the address made by `mul.wide`), with a trailing pointer parameter it never
/// reads (Triton's scratch pointers), followed by the debug sections Triton always emits.
const TRITON_ADD: &str = "\
.version 8.4
.target sm_80
.address_size 64
.visible .entry add_kernel(
	.param .u64 .ptr .global .align 1 add_kernel_param_0,
	.param .u64 .ptr .global .align 16 add_kernel_param_1,
	.param .u32 add_kernel_param_2,
	.param .u64 .ptr .global .align 1 add_kernel_param_3
)
.reqntid 32, 1, 1
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<6>;
	.loc	1 10 0
$L__func_begin0:
	.loc	1 10 0
	ld.param.u64 	%rd3, [add_kernel_param_0];
	ld.param.u64 	%rd4, [add_kernel_param_1];
	ld.param.u32 	%r4, [add_kernel_param_2];
	mov.u32 	%r5, %tid.x;
	mul.wide.s32 	%rd5, %r5, 4;
	add.s64 	%rd1, %rd3, %rd5;
	add.s64 	%rd2, %rd4, %rd5;
	setp.lt.s32 	%p1, %r5, %r4;
	// begin inline asm
	mov.u32 %r1, 0x0;
	@%p1 ld.global.b32 { %r1 }, [ %rd1 + 0 ];
	// end inline asm
	add.s32 	%r3, %r1, %r1;
	// begin inline asm
	@%p1 st.global.b32 [ %rd2 + 0 ], { %r3 };
	// end inline asm
	ret;
$L__func_end0:
}
	.file	1 \"/tmp/add.py\"
	.section	.debug_abbrev
	{
.b8 1
.b8 17
.b8 0
	}
";

#[test]
fn triton_inline_asm_loads_and_stores() {
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let args = vec![
            Arg::new("add_kernel_param_0", ArgInit::Iota(32)),
            Arg::new("add_kernel_param_1", ArgInit::Fill(32, Literal::Int(7))),
            Arg::new("add_kernel_param_2", ArgInit::Scalar(Literal::Int(20))),
        ];
        // The unread parameter is left out: it is a .u64 that defaults to 0.
        let (bytes, types) = run_one_warp(TRITON_ADD, args, "add_kernel_param_1", simt);
        assert_eq!(types, ["raw.b32", "raw.b32", "u32", "u64"]);
        let got: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let want: Vec<u32> = (0..32).map(|i| if i < 20 { 2 * i } else { 7 }).collect();
        assert_eq!(got, want, "{simt:?}");
    }
}

/// tinygrad takes a shared array's address as `mov.u64 %r, local0[0]` and reduces through it.
#[test]
fn tinygrad_shared_array_address() {
    let source = "\
.version 7.5
.target sm_80
.address_size 64
.visible .entry r(.param .u64 data0)
{
	.reg .u32 %t;
	.reg .u64 %a, %b, %s, %o;
	.reg .f32 %f, %g;
	.shared .align 16 .b8 local0[128];
	ld.param.u64 %o, [data0+0];
	mov.u64 %s, local0[0];
	mov.u32 %t, %tid.x;
	cvt.u64.u32 %a, %t;
	shl.b64 %a, %a, 2;
	add.s64 %b, %s, %a;
	cvt.rn.f32.u32 %f, %t;
	st.shared.f32 [%b+0], %f;
	bar.sync 0;
	ld.shared.f32 %g, [%s+124];
	add.f32 %g, %g, %f;
	add.s64 %a, %o, %a;
	st.global.f32 [%a+0], %g;
	ret;
}
";
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let (bytes, _) = run_one_warp(source, vec![Arg::new("data0", ArgInit::Zeros(32))], "data0", simt);
        let got: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, (0..32).map(|i| 31.0 + i as f32).collect::<Vec<_>>(), "{simt:?}");
    }
    let indexed = source.replace("local0[0]", "local0[8]");
    let err = simt_ptx::translate("r.ptx", &indexed, None).unwrap_err().render("r.ptx", &indexed, false);
    assert!(err.contains("`local0[N]` with N other than 0 is not supported"), "{err}");
}

/// tinygrad's int64 kernels reach their buffers only through 64-bit integer loads and
/// stores, which no element type names: the parameters are still pointers (raw words), not
/// `.u64` scalars that would take a buffer's address as a number.
#[test]
fn tinygrad_int64_buffers_are_pointers() {
    let source = "\
.version 7.5
.target sm_35
.address_size 64
.visible .entry neg(.param .u64 data0, .param .u64 data1)
{
	.reg .u32 %t;
	.reg .u64 %o, %i, %a, %b;
	.reg .s64 %v;
	ld.param.u64 %o, [data0+0];
	ld.param.u64 %i, [data1+0];
	mov.u32 %t, %tid.x;
	cvt.s64.s32 %a, %t;
	mad.lo.s64 %b, %a, 8, %i;
	ld.global.s64 %v, [%b+0];
	neg.s64 %v, %v;
	mad.lo.s64 %a, %a, 8, %o;
	st.global.s64 [%a+0], %v;
	ret;
}
";
    for simt in [SimtModel::Its, SimtModel::Stack] {
        // Each i64 as two little-endian words: data1[j] = j - 5.
        let words = (0..32i64).flat_map(|j| {
            let [low, high] = [(j - 5) as u64 as u32, ((j - 5) as u64 >> 32) as u32];
            [low, high]
        });
        let values: Vec<Literal> = words.map(|w| Literal::Int(w.into())).collect();
        let args = vec![Arg::new("data0", ArgInit::Zeros(64)), Arg::new("data1", ArgInit::List(values))];
        let (bytes, types) = run_one_warp(source, args, "data0", simt);
        assert_eq!(types, ["raw.u32", "raw.u32"]);
        let got: Vec<i64> = bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, (0..32).map(|i| 5 - i).collect::<Vec<i64>>(), "{simt:?}");
    }
}

/// Runs `body` (parameters `out` and `in`) on one warp under both SIMT models: lane `l`'s
/// word of `out` must be `want[l]`.
fn each_lanes_word_is(body: &str, input: &[u32], want: &[u32]) {
    each_lanes_word_is_given(body, input.iter().map(|&v| Literal::Int(v.into())).collect(), want);
}

/// [`each_lanes_word_is`] with `in` given as literals of the element type the kernel reads.
fn each_lanes_word_is_given(body: &str, input: Vec<Literal>, want: &[u32]) {
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let args = vec![Arg::new("out", ArgInit::Zeros(32)), Arg::new("in", ArgInit::List(input.clone()))];
        let (bytes, _) = run_one_warp(body, args, "out", simt);
        let got: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, want, "{simt:?}");
    }
}

/// More live values than simt has registers (a Triton sm_70 matmul needs 255, tinygrad's
/// `max_unpool2d` more): the ones that find no register live in LOCAL memory, as ptxas spills
/// them, and the kernel computes what it would with registers enough.
#[test]
fn more_live_values_than_registers_spill_to_local_memory() {
    const WORDS: usize = 300;
    const PAIRS: usize = 60;
    let mut body = String::new();
    body.push_str(&format!(
        ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry spill(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %t, %acc;\n\t.reg .b32 %w<{WORDS}>;\n\t.reg .b64 %d<{PAIRS}>;\n\t.reg .b64 %o, %i, %a, %sum;\n\
         \tld.param.u64 %o, [out];\n\tld.param.u64 %i, [in];\n\tmov.u32 %t, %tid.x;\n\tmul.wide.u32 %a, %t, 4;\n\tadd.s64 %i, %i, %a;\n\tadd.s64 %o, %o, %a;\n"
    ));
    // Every value is loaded before any is used, in a block before theirs, so all are live at
    // once whatever the order within a block (`schedule.rs`).
    for k in 0..WORDS {
        body.push_str(&format!("\tld.global.u32 %w{k}, [%i+{}];\n", 128 * k));
    }
    for k in 0..PAIRS {
        body.push_str(&format!("\tcvt.u64.u32 %d{k}, %w{k};\n\tmul.lo.u64 %d{k}, %d{k}, {};\n", k + 1));
    }
    body.push_str("$Luse:\n\tmov.u32 %acc, 0;\n\tmov.u64 %sum, 0;\n");
    for k in (0..WORDS).rev() {
        body.push_str(&format!("\txor.b32 %acc, %acc, %w{k};\n\tshf.l.wrap.b32 %acc, %acc, %acc, 1;\n"));
    }
    for k in 0..PAIRS {
        body.push_str(&format!("\tadd.s64 %sum, %sum, %d{k};\n"));
    }
    body.push_str("\tcvt.u32.u64 %t, %sum;\n\tadd.u32 %acc, %acc, %t;\n\tst.global.u32 [%o], %acc;\n\tret;\n}\n");
    let listing = simt_isa::disassemble(&common::translated_module("spill.ptx", &body));
    assert!(listing.contains("ST.LOCAL") && listing.contains("LD.LOCAL"), "the kernel spills");
    let input: Vec<u32> = (0..32 * WORDS as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let want: Vec<u32> = (0..32)
        .map(|lane| {
            let w = |k: usize| input[32 * k + lane];
            let mut acc = 0u32;
            for k in (0..WORDS).rev() {
                acc = (acc ^ w(k)).rotate_left(1);
            }
            let sum = (0..PAIRS).fold(0u64, |s, k| s.wrapping_add(u64::from(w(k)) * (k as u64 + 1)));
            acc.wrapping_add(sum as u32)
        })
        .collect();
    each_lanes_word_is(&body, &input, &want);
}

/// A kernel that spills keeps back only the reload registers its instructions need: here, of
/// scalar instructions, 4 (a pair from an even register beside a word). Keeping back a fixed
/// 24 spilled 53 of these words.
#[test]
fn a_kernel_that_spills_keeps_back_only_the_reload_registers_it_needs() {
    // Used in another block, so that no order within one can part them.
    let (body, input, want) = reversed_fold(246, true);
    let module = common::translated_module("spill.ptx", &body);
    let spilled_words = module.kernels[0].local_size / 4;
    assert!((1..=8).contains(&spilled_words), "{spilled_words} words spilled");
    each_lanes_word_is(&body, &input, &want);
}

/// A kernel that loads `words` words of `in` (each lane its own), then folds them into its
/// word of `out` in the reverse order (xor, rotate), the folding a block of its own where
/// `apart`; with inputs, and the words it must write.
fn reversed_fold(words: usize, apart: bool) -> (String, Vec<u32>, Vec<u32>) {
    let mut body = format!(
        ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry fold(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %t, %acc;\n\t.reg .b32 %w<{words}>;\n\t.reg .b64 %o, %i, %a;\n\
         \tld.param.u64 %o, [out];\n\tld.param.u64 %i, [in];\n\tmov.u32 %t, %tid.x;\n\tmul.wide.u32 %a, %t, 4;\n\tadd.s64 %i, %i, %a;\n\tadd.s64 %o, %o, %a;\n"
    );
    for k in 0..words {
        body.push_str(&format!("\tld.global.u32 %w{k}, [%i+{}];\n", 128 * k));
    }
    body.push_str(if apart { "$Lfold:\n\tmov.u32 %acc, 0;\n" } else { "\tmov.u32 %acc, 0;\n" });
    for k in (0..words).rev() {
        body.push_str(&format!("\txor.b32 %acc, %acc, %w{k};\n\tshf.l.wrap.b32 %acc, %acc, %acc, 1;\n"));
    }
    body.push_str("\tst.global.u32 [%o], %acc;\n\tret;\n}\n");
    let input: Vec<u32> = (0..32 * words as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let want = (0..32).map(|lane| (0..words).rev().fold(0u32, |acc, k| (acc ^ input[32 * k + lane]).rotate_left(1))).collect();
    (body, input, want)
}

/// A `wgmma` accumulator (32 registers, more than the reload registers hold) that is first
/// mentioned after 300 live values: colouring in order of mention spilled its members, and
/// the kernel was refused (Triton's attention backward for sm_90a). Fragments are coloured
/// first instead, and the other values spill.
#[test]
fn a_wgmma_accumulator_stays_in_registers_where_other_values_spill() {
    const WORDS: usize = 300;
    let mut body = format!(
        ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry frag(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .pred %p;\n\t.reg .b32 %t, %acc;\n\t.reg .b32 %w<{WORDS}>;\n\t.reg .f32 %f<32>;\n\t.reg .b64 %o, %i, %a, %da, %db;\n\
         \tld.param.u64 %o, [out];\n\tld.param.u64 %i, [in];\n\tmov.u32 %t, %tid.x;\n\tmul.wide.u32 %a, %t, 4;\n\tadd.s64 %i, %i, %a;\n\
         \tadd.s64 %o, %o, %a;\n\tsetp.ne.u32 %p, %t, 1000;\n\tmov.u64 %da, 0;\n\tmov.u64 %db, 0;\n"
    );
    for k in 0..WORDS {
        body.push_str(&format!("\tld.global.u32 %w{k}, [%i+{}];\n", 128 * k));
    }
    for k in 0..32 {
        body.push_str(&format!("\tmov.f32 %f{k}, 0f00000000;\n"));
    }
    let accumulator: Vec<String> = (0..32).map(|k| format!("%f{k}")).collect();
    body.push_str(&format!(
        "\twgmma.fence.sync.aligned;\n\twgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{}}}, %da, %db, %p, 1, 1, 0, 0;\n\
         \twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned 0;\n\tmov.u32 %acc, 0;\n",
        accumulator.join(",")
    ));
    // Not copies: a copy would join the fragment and be placed with it, first. The words
    // after, so that they cannot be read before the MMA, nor loaded after it (past its fences).
    for k in 0..32 {
        body.push_str(&format!("\tcvt.rzi.u32.f32 %t, %f{k};\n\tadd.u32 %acc, %acc, %t;\n"));
    }
    for k in 0..WORDS {
        body.push_str(&format!("\txor.b32 %acc, %acc, %w{k};\n"));
    }
    body.push_str("\tst.global.u32 [%o], %acc;\n\tret;\n}\n");
    let listing = simt_isa::disassemble(&common::translated_module("frag.ptx", &body));
    assert!(listing.contains("ST.LOCAL") && listing.contains("LD.LOCAL"), "the kernel spills");
    let lines: Vec<&str> = listing.lines().collect();
    let at = lines.iter().position(|l| l.trim_start().starts_with("WGMMA")).expect("a WGMMA");
    assert!(lines[at - 1].trim_start().starts_with("MOV"), "nothing is reloaded for the WGMMA:\n{}", lines[at - 3..=at].join("\n"));
}

/// A kernel that would spill because it loads every shared value before using any (as Triton's
/// f32 matmul does) has its shared loads moved down to their first uses, but never past a
/// store: values used after one are loaded before it, and read what was there.
#[test]
fn shared_loads_move_to_their_uses_but_not_past_a_store() {
    const WORDS: usize = 300;
    const BEFORE: usize = 150;
    let mut body = format!(
        ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry sink(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .pred %p;\n\t.reg .b32 %t, %s, %q, %k, %v, %acc, %w<{WORDS}>;\n\t.reg .b64 %o, %i, %a;\n\t.shared .align 4 .b8 tile[{}];\n\
         \tld.param.u64 %o, [out];\n\tld.param.u64 %i, [in];\n\tmov.u32 %t, %tid.x;\n\tmul.wide.u32 %a, %t, 4;\n\tadd.s64 %i, %i, %a;\n\tadd.s64 %o, %o, %a;\n\
         \tmov.u32 %s, tile;\n\tshl.b32 %k, %t, 2;\n\tadd.s32 %s, %s, %k;\n\tmov.u32 %k, 0;\n\
         $Lfill:\n\tld.global.u32 %v, [%i];\n\tst.shared.u32 [%s], %v;\n\tadd.s64 %i, %i, 128;\n\tadd.s32 %s, %s, 128;\n\tadd.s32 %k, %k, 1;\n\
         \tsetp.lt.u32 %p, %k, {WORDS};\n\t@%p bra $Lfill;\n\tsub.s32 %q, %s, 128;\n\tsub.s32 %s, %s, {};\n\tbar.sync 0;\n",
        128 * WORDS,
        128 * WORDS
    );
    for k in 0..WORDS {
        body.push_str(&format!("\tld.shared.u32 %w{k}, [%s+{}];\n", 128 * k));
    }
    body.push_str("\tmov.u32 %acc, 0;\n");
    for k in 0..WORDS {
        if k == BEFORE {
            // Its address in a register of its own, so that only the store itself holds the loads back.
            body.push_str("\tst.shared.u32 [%q], 0;\n");
        }
        body.push_str(&format!("\txor.b32 %acc, %acc, %w{k};\n\tshf.l.wrap.b32 %acc, %acc, %acc, 1;\n"));
    }
    body.push_str("\tst.global.u32 [%o], %acc;\n\tret;\n}\n");
    let module = common::translated_module("sink.ptx", &body);
    let kernel = &module.kernels[0];
    let line_of = |text: &str| body.lines().position(|l| l.contains(text)).expect("the line") as u32 + 1;
    let pc_of = |line: u32| kernel.lines.iter().position(|&l| l == line).expect("translated");
    let store = pc_of(line_of("[%q], 0;"));
    for k in 0..WORDS {
        let load = pc_of(line_of(&format!("%w{k}, [")));
        if k < BEFORE {
            // The first may have `%acc`'s zeroing between, moved down to its use as well.
            assert!(kernel.lines[load + 1..load + 3].contains(&line_of(&format!("%acc, %w{k};"))), "the load of %w{k} is just before its use");
        } else {
            assert!(load < store, "the load of %w{k} stays above the store");
        }
    }
    assert!(!simt_isa::disassemble(&module).contains("LOCAL"), "nothing spills");
    let input: Vec<u32> = (0..32 * WORDS as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let want: Vec<u32> = (0..32).map(|lane| (0..WORDS).fold(0u32, |acc, k| (acc ^ input[32 * k + lane]).rotate_left(1))).collect();
    each_lanes_word_is(&body, &input, &want);
}

/// A kernel of the ML corpora (`tests/ml/`, `path` below it): its PTX and its translation.
/// The opcodes the first kernel of `module` has for source line `line` (1-based), in order.
fn opcodes_of_line(module: &simt_isa::Module, line: u32) -> Vec<String> {
    let kernel = &module.kernels[0];
    kernel.lines.iter().zip(&kernel.code).filter(|&(&l, _)| l == line).map(|(_, i)| i.opcode().to_string()).collect()
}

/// `opcodes_of_line` for each line of `source` (translated as `module`) holding `pattern`.
fn opcodes_of_lines_with(source: &str, module: &simt_isa::Module, pattern: &str) -> Vec<Vec<String>> {
    source.lines().enumerate().filter(|(_, l)| l.contains(pattern)).map(|(i, _)| opcodes_of_line(module, i as u32 + 1)).collect()
}

fn corpus_kernel(path: &str) -> (String, simt_isa::Module) {
    let source = std::fs::read_to_string(format!("{}/../../tests/ml/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let module = common::translated_module(path, &source);
    (source, module)
}

/// Triton's f32 matmul loads its k-slice from shared memory before its 1024 FMAs; with the
/// loads moved to their uses it needs no LOCAL memory (ptxas: 222 registers), and every FMA
/// is one `FFMA`.
#[test]
fn tritons_f32_matmul_keeps_its_values_in_registers() {
    let (source, module) = corpus_kernel("triton/matmul_f32_s3.ptx");
    assert!(!simt_isa::disassemble(&module).contains("LOCAL"), "nothing spills");
    let fmas = opcodes_of_lines_with(&source, &module, "fma.rn.f32");
    assert_eq!(fmas.len(), 1024);
    for code in fmas {
        assert_eq!(code, ["FFMA"]);
    }
}

/// Triton's f32 matmul for sm_120a loads words in pairs, packs each pair into a 64-bit
/// register (`shl`, `or`) and multiplies with `fma.rn.f32x2`, its whole k-slice loaded and
/// packed before the first FMA: 1,296 LOCAL accesses in PTX's order (ptxas: 96 registers).
/// The loads and their packing go down to their FMAs together, and nothing spills.
#[test]
fn tritons_packed_f32_matmul_keeps_its_values_in_registers() {
    let (_, module) = corpus_kernel("triton/matmul_f32_s2_sm120.ptx");
    assert!(!simt_isa::disassemble(&module).contains("LOCAL"), "nothing spills");
}

/// 246 words loaded from one base register, then used in the reverse order: each load goes
/// down to its use, though the base it reads is live only while loads remain above (counted
/// as born at the first load to move, it kept every load where it was, and 8 words spilled).
#[test]
fn loads_from_one_base_go_down_to_their_uses() {
    const WORDS: usize = 246;
    let (body, input, want) = reversed_fold(WORDS, false);
    let module = common::translated_module("fold.ptx", &body);
    assert!(!simt_isa::disassemble(&module).contains("LOCAL"), "nothing spills");
    let kernel = &module.kernels[0];
    let line_of = |text: &str| body.lines().position(|l| l.contains(text)).expect("the line") as u32 + 1;
    let pc_of = |line: u32| kernel.lines.iter().position(|&l| l == line).expect("translated");
    for k in 0..WORDS - 1 {
        assert_eq!(kernel.lines[pc_of(line_of(&format!("%w{k}, ["))) + 1], line_of(&format!("%acc, %w{k};")), "the load of %w{k} is just before its use");
    }
    each_lanes_word_is(&body, &input, &want);
}

/// 300 bytes loaded above a barrier and packed into words below it, four to a word (two
/// `prmt`s into halves, one into the word, as Triton packs fp8 operands for sm_120a's MMAs):
/// the packing moves up to the loads, past the barrier it does not touch, and 75 words cross
/// the barrier where 300 bytes would not fit.
#[test]
fn packing_moves_up_to_the_loads_it_packs() {
    const WORDS: usize = 75;
    let mut body = format!(
        ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry pack(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .b32 %t, %acc, %b<{}>, %h<{}>, %w<{WORDS}>;\n\t.reg .b64 %o, %i, %a;\n\
         \tld.param.u64 %o, [out];\n\tld.param.u64 %i, [in];\n\tmov.u32 %t, %tid.x;\n\tmul.wide.u32 %a, %t, 4;\n\tadd.s64 %i, %i, %a;\n\tadd.s64 %o, %o, %a;\n",
        4 * WORDS,
        2 * WORDS
    );
    for k in 0..4 * WORDS {
        body.push_str(&format!("\tld.global.u8 %b{k}, [%i+{}];\n", 128 * (k / 4) + k % 4));
    }
    body.push_str("\tbar.sync 0;\n");
    for q in 0..WORDS {
        let (b, h) = (4 * q, 2 * q);
        body.push_str(&format!(
            "\tprmt.b32 %h{h}, %b{b}, %b{}, 0x3340;\n\tprmt.b32 %h{}, %b{}, %b{}, 0x3340;\n\tprmt.b32 %w{q}, %h{h}, %h{}, 0x5410;\n",
            b + 1,
            h + 1,
            b + 2,
            b + 3,
            h + 1
        ));
    }
    body.push_str("\tmov.u32 %acc, 0;\n");
    for q in 0..WORDS {
        body.push_str(&format!("\txor.b32 %acc, %acc, %w{q};\n\tshf.l.wrap.b32 %acc, %acc, %acc, 1;\n"));
    }
    body.push_str("\tst.global.u32 [%o], %acc;\n\tret;\n}\n");
    let module = common::translated_module("pack.ptx", &body);
    assert!(!simt_isa::disassemble(&module).contains("LOCAL"), "nothing spills");
    let input: Vec<u32> = (0..32 * WORDS as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let want: Vec<u32> = (0..32).map(|lane| (0..WORDS).fold(0u32, |acc, q| (acc ^ input[32 * q + lane]).rotate_left(1))).collect();
    // `in` is read as bytes, so it is given as bytes.
    each_lanes_word_is_given(&body, input.iter().flat_map(|w| w.to_le_bytes()).map(|b| Literal::Int(b.into())).collect(), &want);
}

/// Where values must spill, the cheap ones do: 24 words loaded before a loop and read once
/// after it, against 240 that each turn of the loop loads and reads twice (forward, then
/// backward, so that all are live at once in any order). Coloured in order of mention, the
/// 24 took registers first and loop values spilled, reloaded in every turn; each of the 24
/// is mentioned twice among more neighbours, so it gives up its register, and the loop
/// touches no LOCAL memory.
#[test]
fn cold_values_spill_before_values_a_loop_reads() {
    const COLD: usize = 24;
    const HOT: usize = 240;
    const TURNS: u32 = 3;
    let mut body = format!(
        ".version 7.5\n.target sm_80\n.address_size 64\n.visible .entry evict(.param .u64 out, .param .u64 in)\n{{\n\
         \t.reg .pred %p;\n\t.reg .b32 %t, %acc, %k, %c<{COLD}>, %w<{HOT}>;\n\t.reg .b64 %o, %i, %a;\n\
         \tld.param.u64 %o, [out];\n\tld.param.u64 %i, [in];\n\tmov.u32 %t, %tid.x;\n\tmul.wide.u32 %a, %t, 4;\n\tadd.s64 %i, %i, %a;\n\tadd.s64 %o, %o, %a;\n"
    );
    for c in 0..COLD {
        body.push_str(&format!("\tld.global.u32 %c{c}, [%i+{}];\n", 128 * (HOT + c)));
    }
    body.push_str("\tmov.u32 %acc, 0;\n\tmov.u32 %k, 0;\n$Lturn:\n");
    for w in 0..HOT {
        body.push_str(&format!("\tld.global.u32 %w{w}, [%i+{}];\n", 128 * w));
    }
    for w in 0..HOT {
        body.push_str(&format!("\txor.b32 %acc, %acc, %w{w};\n\tshf.l.wrap.b32 %acc, %acc, %acc, 1;\n"));
    }
    for w in (0..HOT).rev() {
        body.push_str(&format!("\tadd.u32 %acc, %acc, %w{w};\n"));
    }
    body.push_str(&format!("\tadd.u32 %k, %k, 1;\n\tsetp.lt.u32 %p, %k, {TURNS};\n\t@%p bra $Lturn;\n"));
    for c in 0..COLD {
        body.push_str(&format!("\txor.b32 %acc, %acc, %c{c};\n"));
    }
    body.push_str("\tst.global.u32 [%o], %acc;\n\tret;\n}\n");
    let module = common::translated_module("evict.ptx", &body);
    let kernel = &module.kernels[0];
    let symbols = simt_isa::Symbols::of(kernel);
    let line_of = |text: &str| body.lines().position(|l| l.contains(text)).expect("the line") as u32 + 1;
    let turn = line_of("$Lturn:")..=line_of("bra $Lturn;");
    let local = |within: bool| {
        kernel
            .lines
            .iter()
            .zip(&kernel.code)
            .filter(|&(l, i)| turn.contains(l) == within && simt_isa::format_instruction(i, &symbols).contains("LOCAL"))
            .count()
    };
    assert!(local(false) > 0, "the kernel spills");
    assert_eq!(local(true), 0, "the loop touches no LOCAL memory:\n{}", simt_isa::disassemble(&module));
    let input: Vec<u32> = (0..32 * (HOT + COLD) as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let want: Vec<u32> = (0..32)
        .map(|lane| {
            let word = |k: usize| input[32 * k + lane];
            let mut acc = 0u32;
            for _ in 0..TURNS {
                acc = (0..HOT).fold(acc, |acc, w| (acc ^ word(w)).rotate_left(1));
                acc = (0..HOT).rev().fold(acc, |acc, w| acc.wrapping_add(word(w)));
            }
            (0..COLD).fold(acc, |acc, c| acc ^ word(HOT + c))
        })
        .collect();
    each_lanes_word_is(&body, &input, &want);
}

/// tinygrad's tensor-core matmul keeps 64 accumulators, made before its loop, and copies
/// four into an MMA's fragment and back around each `mma.sync`. The accumulators are laid
/// out as the fragments they are copied into, so its loop moves nothing (it moved 124 words a
/// turn); its values are the corpus's (`tests/ml/run_corpus.py`).
#[test]
fn tinygrads_mma_accumulators_lie_in_their_fragments() {
    let (_, module) = corpus_kernel("tinygrad/matmul_f16_tc.ptx");
    let listing = simt_isa::disassemble(&module);
    let turn = listing.split_once("LOOP_").and_then(|(_, rest)| rest.split_once("END_")).map(|(turn, _)| turn).expect("the loop");
    assert_eq!(turn.matches("MMA.").count(), 16, "{turn}");
    assert!(!turn.contains("MOV "), "{turn}");
}

/// Triton zeroes an accumulator by copying one zero register into every member and keeps that
/// register live around the loop whose MMA writes them (`%tid.y` here, 0 in a one-dimensional
/// block, so that it is not a literal): the zero may not take the first
/// member's place in the fragment (it interferes with it), so the members still lie in a row
/// and the MMA reads and writes them in place, with no move in or out. (For a `wgmma`, whose
/// accumulator must lie in a row, the translation was refused.)
#[test]
fn an_accumulator_zeroed_from_one_live_register_lies_in_its_fragment() {
    let source = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p;
	.reg .b32 %z, %c<4>, %a<4>, %b<2>, %n, %i, %t;
	.reg .b64 %o;
	ld.param.u64 %o, [out];
	ld.param.u32 %n, [n];
	mov.b32 %a0, 0x3C003C00;
	mov.b32 %a1, %a0;
	mov.b32 %a2, %a0;
	mov.b32 %a3, %a0;
	mov.b32 %b0, %a0;
	mov.b32 %b1, %a0;
	mov.u32 %z, %tid.y;
	mov.b32 %c0, %z;
	mov.b32 %c1, %z;
	mov.b32 %c2, %z;
	mov.b32 %c3, %z;
	mov.u32 %i, 0;
$L:
	mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%c0, %c1, %c2, %c3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, {%c0, %c1, %c2, %c3};
	add.u32 %t, %z, 1;
	add.u32 %i, %i, %t;
	setp.lt.u32 %p, %i, %n;
	@%p bra $L;
	st.global.v4.f32 [%o], {%c0, %c1, %c2, %c3};
	ret;
}
";
    let module = common::translated_module("k.ptx", source);
    assert_eq!(opcodes_of_lines_with(source, &module, "mma.sync"), [["MMA.M16N8K16"]], "{}", simt_isa::disassemble(&module));
}

/// Triton's pipelined loads: `cp.async` copies 16 bytes per lane, of which the first
/// `src-size` come from global memory and the rest are zeros (here 0 to 16 bytes, so words
/// are cut within), a guarded 4-byte copy skips its lane, and the groups complete when waited for.
#[test]
fn cp_async_copies_the_source_size_and_zero_fills() {
    let source = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry copy(.param .u64 out, .param .u64 in)
{
	.reg .pred %p;
	.reg .b32 %l, %n, %d, %e, %w<4>;
	.reg .b64 %o, %i, %s, %a;
	.shared .align 16 .b8 tile[1024];
	ld.param.u64 %o, [out];
	ld.param.u64 %i, [in];
	mov.u32 %l, %tid.x;
	rem.u32 %n, %l, 17;
	mul.wide.u32 %a, %l, 16;
	add.s64 %s, %i, %a;
	mov.u32 %d, tile;
	shl.b32 %e, %l, 4;
	add.s32 %d, %d, %e;
	cp.async.ca.shared.global [%d], [%s], 16, %n;
	setp.lt.u32 %p, %l, 16;
	st.shared.u32 [%d+512], 7;
	@%p cp.async.cg.shared::cta.global [%d+512], [%s], 4, 4;
	cp.async.commit_group;
	cp.async.wait_group 0;
	bar.sync 0;
	ld.shared.v4.u32 {%w0, %w1, %w2, %w3}, [%d];
	mul.wide.u32 %a, %l, 32;
	add.s64 %o, %o, %a;
	st.global.v4.u32 [%o], {%w0, %w1, %w2, %w3};
	ld.shared.u32 %w0, [%d+512];
	st.global.u32 [%o+16], %w0;
	ret;
}
";
    // Each copy is one LDGSTS (the one at an offset adds it first), the commit one LDGDEPBAR,
    // the wait one DEPBAR.
    let module = common::translated_module("copy.ptx", source);
    let kernel = &module.kernels[0];
    let on_line = |text: &str| -> Vec<String> {
        let line = source.lines().position(|l| l.contains(text)).expect("the line") as u32 + 1;
        kernel.lines.iter().zip(&kernel.code).filter(|&(&l, _)| l == line).map(|(_, i)| simt_isa::format_mnemonic(&i.form)).collect()
    };
    assert_eq!(on_line("cp.async.ca"), ["LDGSTS.E.V4"]);
    assert_eq!(on_line("cp.async.cg"), ["IADD", "LDGSTS.E"]);
    assert_eq!(on_line("commit_group"), ["LDGDEPBAR"]);
    assert_eq!(on_line("wait_group"), ["DEPBAR"]);
    let input: Vec<u8> = (0..512u32).map(|i| (i * 7 + 1) as u8).collect();
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let list = input.chunks(4).map(|c| Literal::Int(u32::from_le_bytes(c.try_into().unwrap()).into())).collect();
        let args = vec![Arg::new("out", ArgInit::Zeros(256)), Arg::new("in", ArgInit::List(list))];
        let (bytes, types) = run_one_warp(source, args, "out", simt);
        assert_eq!(types, ["raw.u32", "raw.u32"]);
        for lane in 0..32 {
            let n = lane % 17;
            let want: Vec<u8> = (0..16).map(|b| if b < n { input[16 * lane + b] } else { 0 }).collect();
            assert_eq!(&bytes[32 * lane..32 * lane + 16], &want[..], "{simt:?}: lane {lane} copies {n} bytes");
            let guarded = if lane < 16 { u32::from_le_bytes(input[16 * lane..16 * lane + 4].try_into().unwrap()) } else { 7 };
            assert_eq!(u32::from_le_bytes(bytes[32 * lane + 16..32 * lane + 20].try_into().unwrap()), guarded, "{simt:?}: lane {lane}");
        }
    }
}

/// `ldmatrix` as the PTX ISA lays its fragments out: lanes 8j to 8j + 7 give the rows of
/// matrix j (here rows of a table, in a shuffled order); lane l gets word l % 4 of row l / 4,
/// or with `.trans` the elements of column l / 4 in rows 2 (l % 4) and 2 (l % 4) + 1.
#[test]
fn ldmatrix_fragments_follow_the_row_addresses() {
    let source = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry frag(.param .u64 out)
{
	.reg .b16 %h;
	.reg .b32 %l, %c, %k, %a, %t, %r<12>;
	.reg .b64 %o, %x;
	.shared .align 16 .b16 tile[256];
	mov.u32 %l, %tid.x;
	mov.u32 %c, 0;
FILL:
	shl.b32 %k, %l, 3;
	add.s32 %k, %k, %c;
	cvt.u16.u32 %h, %k;
	shl.b32 %a, %k, 1;
	mov.u32 %t, tile;
	add.s32 %a, %a, %t;
	st.shared.u16 [%a], %h;
	add.s32 %c, %c, 1;
	setp.lt.u32 %p1, %c, 8;
	@%p1 bra FILL;
	bar.sync 0;
	mul.lo.u32 %k, %l, 5;
	and.b32 %k, %k, 31;
	shl.b32 %k, %k, 4;
	add.s32 %a, %t, %k;
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0, %r1, %r2, %r3}, [%a];
	ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r4, %r5, %r6, %r7}, [%a];
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 %r8, [%a];
	ldmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 {%r9, %r10}, [%a];
	ld.param.u64 %o, [out];
	mul.wide.u32 %x, %l, 48;
	add.s64 %o, %o, %x;
	st.global.v4.u32 [%o], {%r0, %r1, %r2, %r3};
	st.global.v4.u32 [%o+16], {%r4, %r5, %r6, %r7};
	st.global.v4.u32 [%o+32], {%r8, %r9, %r10, %r8};
	ret;
}
"
    .replace("\t.reg .b16 %h;", "\t.reg .b16 %h;\n\t.reg .pred %p1;");
    // Each is one LDSM, its registers in place (an x4 was 19 instructions of SHFLs and
    // word loads before the ISA had LDSM).
    let module = common::translated_module("m.ptx", &source);
    let line_of = |text: &str| source.lines().position(|l| l.contains(text)).expect("the line") as u32 + 1;
    for text in ["m8n8.x4.shared", "m8n8.x4.trans", "m8n8.x1", "m8n8.x2"] {
        let code = opcodes_of_line(&module, line_of(text));
        assert_eq!(code.len(), 1, "{text}: {code:?}");
        assert!(code[0].starts_with("LDSM"), "{text}: {code:?}");
    }
    // The table row lane r points at, and the 16-bit element c of table row k.
    let row_of = |lane: u32| (lane * 5) % 32;
    let element = |k: u32, c: u32| k * 8 + c;
    let plain = |j: u32, t: u32| {
        let k = row_of(8 * j + t / 4);
        element(k, 2 * (t % 4)) | element(k, 2 * (t % 4) + 1) << 16
    };
    let trans = |j: u32, t: u32| {
        let (k0, k1) = (row_of(8 * j + 2 * (t % 4)), row_of(8 * j + 2 * (t % 4) + 1));
        element(k0, t / 4) | element(k1, t / 4) << 16
    };
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let (bytes, _) = run_one_warp(&source, vec![Arg::new("out", ArgInit::Zeros(384))], "out", simt);
        let got: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        for t in 0..32 {
            let want = [
                plain(0, t),
                plain(1, t),
                plain(2, t),
                plain(3, t),
                trans(0, t),
                trans(1, t),
                trans(2, t),
                trans(3, t),
                plain(0, t),
                trans(0, t),
                trans(1, t),
                plain(0, t),
            ];
            assert_eq!(&got[12 * t as usize..12 * t as usize + 12], &want[..], "{simt:?}: lane {t}");
        }
    }
}

/// `stmatrix` (sm_90), `ldmatrix`'s inverse, against the PTX ISA's fragment layout: lanes
/// 8j to 8j + 7 give the row addresses of matrix j (rows of a tile, in a shuffled order);
/// lane t holds elements 2 (t % 4) and 2 (t % 4) + 1 of row t / 4 in its register j, or with
/// `.trans` those of column t / 4. The tile, zero where no matrix went, is copied out whole.
/// Each is one `STSM`, its registers in place (it was 5 to 16 instructions of SHFLs and
/// stores before the ISA had STSM).
#[test]
fn stmatrix_stores_fragments_where_the_row_addresses_say() {
    let row_of = |lane: usize| (lane * 5) % 32;
    for (count, trans) in [(1, false), (2, false), (4, false), (1, true), (2, true), (4, true)] {
        let regs: Vec<String> = (0..count).map(|j| format!("%r{j}")).collect();
        let fill: String =
            (0..count).map(|j| format!("\tor.b32 %v, %k, {};\n\tmul.lo.u32 %r{j}, %v, 65537;\n\tadd.u32 %r{j}, %r{j}, 65536;\n", j << 8)).collect();
        let source = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\
             \t.reg .b32 %l, %k, %v, %a, %t, %z, %r<4>, %w<4>;\n\t.reg .b64 %o, %x;\n\t.shared .align 16 .b16 tile[256];\n\
             \tmov.u32 %l, %tid.x;\n\tmov.u32 %t, tile;\n\tmov.u32 %z, 0;\n\tshl.b32 %k, %l, 4;\n\tadd.s32 %a, %t, %k;\n\
             \tst.shared.v4.u32 [%a], {{%z, %z, %z, %z}};\n\tbar.sync 0;\n\
             \tshl.b32 %k, %l, 1;\n{fill}\
             \tmul.lo.u32 %k, %l, 5;\n\tand.b32 %k, %k, 31;\n\tshl.b32 %k, %k, 4;\n\tadd.s32 %a, %t, %k;\n\
             \tstmatrix.sync.aligned.m8n8.x{count}{}.shared.b16 [%a], {{{}}};\n\tbar.sync 0;\n\
             \tshl.b32 %k, %l, 4;\n\tadd.s32 %a, %t, %k;\n\tld.shared.v4.u32 {{%w0, %w1, %w2, %w3}}, [%a];\n\
             \tld.param.u64 %o, [out];\n\tmul.wide.u32 %x, %l, 16;\n\tadd.s64 %o, %o, %x;\n\tst.global.v4.u32 [%o], {{%w0, %w1, %w2, %w3}};\n\tret;\n}}\n",
            if trans { ".trans" } else { "" },
            regs.join(", ")
        );
        let module = common::translated_module("m.ptx", &source);
        assert_eq!(opcodes_of_lines_with(&source, &module, "stmatrix"), [["STSM"]], "x{count} trans {trans}");
        // Lane t's register j holds (j << 8 | 2t) in its low half and that plus 1 in its high half.
        let element = |j: usize, t: usize, half: usize| ((j << 8) | (2 * t) | half) as u16;
        let mut want = vec![0u16; 32 * 8];
        for j in 0..count {
            for i in 0..8 {
                for c in 0..8 {
                    // Row i, column c of matrix j.
                    let value = if trans { element(j, 4 * c + i / 2, i % 2) } else { element(j, 4 * i + c / 2, c % 2) };
                    want[row_of(8 * j + i) * 8 + c] = value;
                }
            }
        }
        for simt in [SimtModel::Its, SimtModel::Stack] {
            let (bytes, _) = run_one_warp(&source, vec![Arg::new("out", ArgInit::Zeros(128))], "out", simt);
            let got: Vec<u16> = bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
            assert_eq!(got, want, "x{count} trans {trans} under {simt:?}");
        }
    }
}

/// Triton's softmax and tinygrad's exp write `ex2.approx.ftz.f32` (and `rcp`, `rsqrt`, `lg2`
/// alike): one `MUFU.FTZ`, as ptxas makes it one MUFU, which flushes a subnormal input and
/// result itself.
#[test]
fn approximate_ftz_functions_are_one_mufu_that_flushes() {
    let source = "\
.version 7.5
.target sm_80
.address_size 64
.visible .entry f(.param .u64 data0)
{
	.reg .u32 %t;
	.reg .u64 %a, %o;
	.reg .f32 %x, %e, %r;
	ld.param.u64 %o, [data0+0];
	mov.u32 %t, %tid.x;
	cvt.u64.u32 %a, %t;
	shl.b64 %a, %a, 3;
	add.s64 %a, %o, %a;
	ld.global.f32 %x, [%a+0];
	ex2.approx.ftz.f32 %e, %x;
	rcp.approx.ftz.f32 %r, %x;
	st.global.f32 [%a+0], %e;
	st.global.f32 [%a+4], %r;
	ret;
}
";
    let module = common::translated_module("f.ptx", source);
    let code = &module.kernels[0].code;
    let sfu: Vec<_> = code.iter().filter_map(|i| if let simt_isa::Form::Mufu(m) = i.form { Some(m) } else { None }).collect();
    assert_eq!(sfu.len(), 2, "{sfu:?}");
    assert!(sfu.iter().all(|m| m.ftz == simt_isa::Ftz::Yes), "{sfu:?}");
    assert!(!code.iter().any(|i| i.opcode() == simt_isa::Opcode::Fmul), "no FMUL flushes around them");
    // Lane 0: 2^-140 (a subnormal result) and the reciprocal of a subnormal input; lane 1: 3.
    let run = |x0: f32| {
        let mut input = vec![Literal::Float(0.0); 64];
        input[0] = Literal::Float(x0.into());
        input[2] = Literal::Float(3.0);
        let (bytes, _) = run_one_warp(source, vec![Arg::new("data0", ArgInit::List(input))], "data0", SimtModel::Its);
        bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<f32>>()
    };
    let out = run(-140.0);
    assert_eq!(out[0].to_bits(), 0, "2^-140 flushed to +0");
    assert_eq!((out[2], out[3]), (8.0, 1.0 / 3.0), "2^3 and rcp(3)");
    assert_eq!(run(f32::from_bits(1))[1], f32::INFINITY, "rcp of a flushed subnormal: 1 / +0");
}

/// tinygrad and Triton move float4s and float2s with `ld`/`st` `.v4`/`.v2`: the register
/// allocator lays each vector out as the access moves it (from a multiple of its size), so it
/// is one instruction, as on hardware, not one and a move per element.
#[test]
fn vector_loads_and_stores_take_their_registers_in_place() {
    let source = "\
.version 7.5
.target sm_80
.address_size 64
.visible .entry v(.param .u64 data0)
{
	.reg .u32 %t;
	.reg .u64 %a, %o;
	.reg .f32 %x<4>, %y<2>;
	ld.param.u64 %o, [data0+0];
	mov.u32 %t, %tid.x;
	cvt.u64.u32 %a, %t;
	shl.b64 %a, %a, 4;
	add.s64 %a, %o, %a;
	ld.global.v4.f32 {%x0, %x1, %x2, %x3}, [%a+0];
	add.f32 %y0, %x0, %x1;
	add.f32 %y1, %x2, %x3;
	st.global.v2.f32 [%a+0], {%y1, %y0};
	st.global.v2.f32 [%a+8], {%x2, %x3};
	ret;
}
";
    let module = common::translated_module("v.ptx", source);
    let code = &module.kernels[0].code;
    let memory: Vec<_> = code.iter().filter(|i| matches!(i.opcode(), simt_isa::Opcode::Ld | simt_isa::Opcode::St)).collect();
    assert_eq!(memory.len(), 4, "the parameter load, the v4 load and two v2 stores");
    let vector_at = code.iter().position(|i| i.opcode() == simt_isa::Opcode::Ld && matches!(i.form, simt_isa::Form::Ld(m) if m.vec == simt_isa::VecWidth::V4));
    let moves = code.iter().skip(vector_at.expect("a v4 load")).filter(|i| i.opcode() == simt_isa::Opcode::Mov).count();
    assert_eq!(moves, 0, "no element passes through a scratch register");
    let input: Vec<Literal> = (0..128).map(|i| Literal::Float(f64::from(i))).collect();
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let (bytes, _) = run_one_warp(source, vec![Arg::new("data0", ArgInit::List(input.clone()))], "data0", simt);
        let got: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        let want: Vec<f32> = (0..32)
            .flat_map(|l| {
                let x = [0, 1, 2, 3].map(|k| (4 * l + k) as f32);
                [x[2] + x[3], x[0] + x[1], x[2], x[3]]
            })
            .collect();
        assert_eq!(got, want, "{simt:?}");
    }
}

/// Halves unpacked from a word (`mov.b32 {%lo, %hi}, %w`) and packed again: `%h`'s pair
/// travels only through the unpack at the loop's end and the pack at its top, as Triton
/// carries `ldmatrix` results, so it stays a whole word (copies, no shifts or masks);
/// `%q`'s high half is also added to, so it is taken apart (`AND`, `SHR`) and put together
/// (`BFI`). Both give the right words.
#[test]
fn halves_that_only_travel_together_stay_a_word() {
    let source = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry halves(.param .u64 out)
{
	.reg .pred %done;
	.reg .b16 %h<2>, %q<3>;
	.reg .b32 %w, %v, %x, %y, %i;
	.reg .b64 %o, %a;
	mov.u32 %w, %tid.x;
	mul.lo.u32 %w, %w, 65539;
	mov.b32 {%h0, %h1}, %w;
	mov.b32 {%q0, %q1}, %w;
	mov.u32 %i, 0;
LOOP:
	mov.b32 %x, {%h0, %h1};
	mov.b32 %y, {%q0, %q1};
	add.s32 %v, %x, 0x00010001;
	mov.b32 {%h0, %h1}, %v;
	add.u16 %q2, %q1, 1;
	mov.b32 {%q0, %q1}, %y;
	mov.b16 %q1, %q2;
	add.s32 %i, %i, 1;
	setp.lt.u32 %done, %i, 3;
	@%done bra LOOP;
	ld.param.u64 %o, [out];
	mov.u32 %v, %tid.x;
	mul.wide.u32 %a, %v, 8;
	add.s64 %o, %o, %a;
	st.global.v2.u32 [%o], {%x, %y};
	ret;
}
";
    let module = common::translated_module("m.ptx", source);
    let translated = |pattern: &str| opcodes_of_lines_with(source, &module, pattern);
    for code in translated("{%h0, %h1}") {
        assert!(code.iter().all(|op| op == "MOV"), "the whole word travels: {code:?}");
    }
    assert_eq!(translated("mov.b32 %y, {%q0, %q1}"), [["BFI"]]);
    assert_eq!(translated("mov.b32 {%q0, %q1}"), [vec!["AND", "SHR"], vec!["AND", "SHR"]]);
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let (bytes, _) = run_one_warp(source, vec![Arg::new("out", ArgInit::Zeros(64))], "out", simt);
        let got: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        for t in 0..32u32 {
            let w = t.wrapping_mul(65539);
            // %x: the word after two turns of adding 1 to each half (no carry between them);
            // %y: the high half after two increments.
            let halves = |w: u32, n: u32| (w & 0xFFFF).wrapping_add(n) & 0xFFFF | ((w >> 16).wrapping_add(n) & 0xFFFF) << 16;
            assert_eq!(got[2 * t as usize], halves(w, 2), "%x, thread {t}");
            assert_eq!(got[2 * t as usize + 1], (w & 0xFFFF) | ((w >> 16).wrapping_add(2) & 0xFFFF) << 16, "%y, thread {t}");
        }
    }
}

/// Halves carried to the loop's next turn by copies, as Triton carries its widened fp8
/// operands on sm_80 (`mov.b16 %h0, %n0; mov.b16 %h1, %n1`, the loop's phi copies): `%h`'s
/// and `%a`/`%b`'s (two stages, their copies interleaved) stay words, the low half's copy a
/// word's and the high half's none. `%e`'s copies leave `%e` holding `%f`'s low half and its
/// own high one, not one word's two halves, so `%e` and `%f` are taken apart and put
/// together again (`BFI`). All give the right words.
#[test]
fn halves_carried_by_copies_stay_a_word() {
    let source = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry carried(.param .u64 out)
{
	.reg .pred %more;
	.reg .b16 %h<2>, %n<2>, %a<2>, %b<2>, %c<2>, %e<2>, %f<2>;
	.reg .b32 %w, %v, %x, %y, %z, %i;
	.reg .b64 %o, %p;
	mov.u32 %w, %tid.x;
	mul.lo.u32 %w, %w, 65539;
	mov.b32 {%h0, %h1}, %w;
	mov.b32 {%a0, %a1}, %w;
	mov.b32 {%b0, %b1}, %w;
	mov.b32 {%e0, %e1}, %w;
	mov.u32 %i, 0;
LOOP:
	mov.b32 %x, {%h0, %h1};
	add.s32 %v, %x, 0x00010001;
	mov.b32 {%n0, %n1}, %v;
	mov.b32 %y, {%b0, %b1};
	add.s32 %v, %y, 0x00020002;
	mov.b32 {%c0, %c1}, %v;
	mov.b32 %z, {%e0, %e1};
	add.s32 %v, %z, 0x00030003;
	mov.b32 {%f0, %f1}, %v;
	mov.b16 %h0, %n0;
	mov.b16 %h1, %n1;
	mov.b16 %a0, %b0;
	mov.b16 %b0, %c0;
	mov.b16 %a1, %b1;
	mov.b16 %b1, %c1;
	mov.b16 %e0, %f0;
	mov.b16 %f1, %e1;
	mov.b16 %e1, %f1;
	add.s32 %i, %i, 1;
	setp.lt.u32 %more, %i, 3;
	@%more bra LOOP;
	mov.b32 %x, {%h0, %h1};
	mov.b32 %y, {%a0, %a1};
	mov.b32 %z, {%e0, %e1};
	ld.param.u64 %o, [out];
	mov.u32 %v, %tid.x;
	mul.wide.u32 %p, %v, 16;
	add.s64 %o, %o, %p;
	st.global.v4.u32 [%o], {%x, %y, %z, %i};
	ret;
}
";
    let module = common::translated_module("m.ptx", source);
    let translated = |pattern: &str| opcodes_of_lines_with(source, &module, pattern);
    for pattern in ["{%h0, %h1}", "{%a0, %a1}", "{%b0, %b1}", "{%n0, %n1}", "{%c0, %c1}", "mov.b16 %h0", "mov.b16 %a0", "mov.b16 %b0"] {
        for code in translated(pattern) {
            assert!(code.iter().all(|op| op == "MOV"), "`{pattern}`: the whole word travels: {code:?}");
        }
    }
    for pattern in ["mov.b16 %h1", "mov.b16 %a1", "mov.b16 %b1"] {
        assert_eq!(translated(pattern), [Vec::<String>::new()], "`{pattern}`: the high half's copy is left out");
    }
    assert_eq!(translated("mov.b32 %z, {%e0, %e1}"), [["BFI"], ["BFI"]]);
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let (bytes, _) = run_one_warp(source, vec![Arg::new("out", ArgInit::Zeros(512))], "out", simt);
        let got: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        for t in 0..32u32 {
            let w = t.wrapping_mul(65539);
            let halves = |lo: u32, hi: u32| (w & 0xFFFF).wrapping_add(lo) & 0xFFFF | ((w >> 16).wrapping_add(hi) & 0xFFFF) << 16;
            let at = 4 * t as usize;
            assert_eq!(got[at..at + 4], [halves(3, 3), halves(4, 4), halves(9, 0), 3], "thread {t} ({simt:?})");
        }
    }
}

/// Two words loaded into 64-bit registers, packed by `shl.b64`/`or.b64` and unpacked again
/// (Triton's f32 matmul for sm_120a, its B operand) are loaded into the unpack's registers
/// and nothing else is left. Where one of those registers is read between the loads and the
/// unpack, the chain stays as written. Both give the right words.
#[test]
fn words_loaded_into_a_pair_only_to_be_unpacked_are_loaded_in_place() {
    let body = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
	.reg .b32 %t, %k, %a, %x, %y, %u, %v, %w;
	.reg .b64 %o, %e, %rd<9>;
	.shared .align 8 .b32 buf[64];
	ld.param.u64 %o, [out];
	mov.u32 %t, %tid.x;
	shl.b32 %k, %t, 3;
	mov.u32 %a, buf;
	add.s32 %a, %a, %k;
	mul.lo.u32 %u, %t, 7;
	add.u32 %v, %u, 1000;
	st.shared.v2.u32 [%a], {%u, %v};
	bar.sync 0;
	ld.shared.b32 %rd1, [%a];
	ld.shared.b32 %rd2, [%a+4];
	shl.b64 %rd3, %rd2, 32;
	or.b64 %rd4, %rd3, %rd1;
	mov.b64 {%x, %y}, %rd4;
	ld.shared.b32 %rd5, [%a];
	ld.shared.b32 %rd6, [%a+4];
	shl.b64 %rd7, %rd6, 32;
	or.b64 %rd8, %rd7, %rd5;
	add.u32 %w, %x, %y;
	mov.b64 {%x, %u}, %rd8;
	sub.u32 %w, %w, %u;
	add.u32 %w, %w, %x;
	mul.wide.u32 %e, %t, 4;
	add.s64 %o, %o, %e;
	st.global.u32 [%o], %w;
	ret;
}
";
    let module = common::translated_module("k.ptx", body);
    let none: [Vec<String>; 1] = [Vec::new()];
    for gone in ["shl.b64 %rd3", "or.b64 %rd4", "mov.b64 {%x, %y}"] {
        assert_eq!(opcodes_of_lines_with(body, &module, gone), none, "{gone}");
    }
    // `%x` is read between the second chain's loads and its unpack.
    assert_eq!(opcodes_of_lines_with(body, &module, "shl.b64 %rd7"), [["SHL64"]]);
    // Each pair is (7t, 7t + 1000): the first pair's sum less the second's high word plus its low word, 14t.
    let want: Vec<u32> = (0..32).map(|t: u32| 14 * t).collect();
    each_lanes_word_is(body, &[0; 32], &want);
}

/// A pair packed only to be unpacked by the next instruction (Triton's tensor-memory
/// epilogues on sm_100a) costs nothing: its words stay where they are. `%q`, read again
/// after its unpack, is packed and unpacked as written. Both give the right words.
#[test]
fn a_pair_unpacked_at_once_is_never_packed() {
    let body = "\
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
	.reg .b32 %t, %a, %b, %c, %d, %e, %f, %v;
	.reg .b64 %p, %q, %o, %x;
	ld.param.u64 %o, [out];
	mov.u32 %t, %tid.x;
	mul.lo.u32 %a, %t, 3;
	add.u32 %b, %t, 1000;
	mov.b64 %p, {%a, %b};
	mov.b64 {%c, %d}, %p;
	sub.u32 %v, %d, %c;
	mov.b64 %q, {%v, %t};
	mov.b64 {%e, %f}, %q;
	mul.lo.u32 %e, %e, %f;
	shr.u64 %q, %q, 32;
	cvt.u32.u64 %f, %q;
	add.u32 %e, %e, %f;
	mul.wide.u32 %x, %t, 4;
	add.s64 %o, %o, %x;
	st.global.u32 [%o], %e;
	ret;
}
";
    let module = common::translated_module("k.ptx", body);
    let none: [Vec<String>; 1] = [Vec::new()];
    assert_eq!(opcodes_of_lines_with(body, &module, "mov.b64 %p, {%a, %b}"), none);
    assert_eq!(opcodes_of_lines_with(body, &module, "mov.b64 {%c, %d}, %p"), none);
    assert_eq!(opcodes_of_lines_with(body, &module, "mov.b64 %q, {%v, %t}"), [["MOV", "MOV"]]);
    let want: Vec<u32> = (0..32).map(|t: u32| (1000 - 2 * t) * t + t).collect();
    each_lanes_word_is(body, &[0; 32], &want);
}

/// Triton's f16 matmul, as the corpus holds it: each `ldmatrix` is one `LDSM`, each
/// `mma.sync` one `MMA` with every fragment in place, and its halves travel as words (at
/// most a copy per `mov.b32` of a pair).
#[test]
fn tritons_matmul_loads_and_multiplies_in_place() {
    let (source, module) = corpus_kernel("triton/matmul_f16_s3.ptx");
    let mut seen = 0;
    for (i, line) in source.lines().enumerate() {
        let code = opcodes_of_line(&module, i as u32 + 1);
        let want: Option<&[&str]> = if line.contains("ldmatrix") {
            Some(&["LDSM"])
        } else if line.contains("mma.sync") {
            Some(&["MMA.M16N8K16"])
        } else {
            None
        };
        if let Some(want) = want {
            assert_eq!(code, want, "line {}: {line}", i + 1);
            seen += 1;
        }
        if line.contains("mov.b32") && line.contains('{') {
            assert!(code.len() <= 1 && code.iter().all(|op| op == "MOV"), "line {}: {line}: {code:?}", i + 1);
        }
    }
    assert_eq!(seen, 28, "12 ldmatrix and 16 mma.sync");
}

/// `tcgen05.st` of a vector naming one register twice (stored a repetition at a time), then of
/// one register over its first column, read back with another shape: lane `t`'s registers of
/// `.16x64b.x2` are TMEM lane `t / 4 + 8 (t % 2)`, columns `(t / 2) % 2` and `2 + (t / 2) % 2`
/// (PTX's fragment figure), where the stores left each lane's id in column 0 and its id + 64
/// in column 1; columns 2 and 3 read the 0 of a fresh allocation.
#[test]
fn tensor_memory_stores_and_loads_follow_the_fragment_maps() {
    let body = "\
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
	.reg .b32 %t, %base, %hi, %lo, %up, %sum;
	.reg .b64 %o, %a;
	.shared .align 4 .b32 slot[1];
	ld.param.u64 %o, [out];
	mov.u32 %t, %tid.x;
	mov.u32 %a, slot;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	bar.sync 0;
	ld.shared.b32 %base, [slot];
	add.s32 %hi, %t, 64;
	mov.b32 %lo, 0;
	tcgen05.st.sync.aligned.32x32b.x4.b32 [%base], {%lo, %lo, %lo, %lo};
	tcgen05.st.sync.aligned.32x32b.x2.b32 [%base], {%hi, %hi};
	tcgen05.st.sync.aligned.32x32b.x1.b32 [%base], {%t};
	tcgen05.wait::st.sync.aligned;
	tcgen05.ld.sync.aligned.16x64b.x2.b32 {%lo, %up}, [%base];
	tcgen05.wait::ld.sync.aligned;
	mul.lo.s32 %up, %up, 1000;
	add.s32 %sum, %lo, %up;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %base, 32;
	mul.wide.u32 %a, %t, 4;
	add.s64 %o, %o, %a;
	st.global.u32 [%o], %sum;
	ret;
}
";
    let want: Vec<u32> = (0..32)
        .map(|t: u32| {
            let lane = t / 4 + 8 * (t % 2);
            let odd = (t / 2) % 2;
            lane + 64 * odd
        })
        .collect();
    each_lanes_word_is(body, &[0; 32], &want);
    // The store of zeros, columns 0-3 (the loads read 0-1 after the stores above them), is one
    // `TMEM.ST` of `RZ`; the store of `%hi` twice one a repetition.
    let module = common::translated_module("k.ptx", body);
    let listing = simt_isa::disassemble(&module);
    assert!(listing.lines().any(|l| l.contains("TMEM.ST.32X32B.X4 [R") && l.contains("], RZ")), "{listing}");
    let stores = opcodes_of_lines_with(body, &module, "tcgen05.st");
    assert_eq!(stores, [vec!["TMEM.ST"], vec!["TMEM.ST", "TMEM.ST"], vec!["TMEM.ST"]]);
}

/// Blackwell's PTX: three-input `max` and `min`, and `add`, `sub`, `mul` and `fma.f32x2` on pairs
/// of singles (Triton's f32 matmuls for sm_100a and sm_120a use `fma.rn.f32x2`).
#[test]
fn three_input_min_max_and_pairs_of_singles() {
    let body = "\
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
	.reg .b32 %t, %x, %y, %z, %m, %n, %r;
	.reg .b64 %o, %i, %a, %p, %q, %s;
	ld.param.u64 %o, [out];
	ld.param.u64 %i, [in];
	mov.u32 %t, %tid.x;
	mul.wide.u32 %a, %t, 4;
	add.s64 %i, %i, %a;
	add.s64 %o, %o, %a;
	ld.global.f32 %x, [%i];
	cvt.rn.f32.u32 %y, %t;
	neg.f32 %z, %y;
	max.f32 %m, %x, %y, %z;
	min.f32 %n, %x, %y, %z;
	mov.b64 %p, {%m, %n};
	mov.b64 %q, {%x, %y};
	add.f32x2 %s, %p, %q;
	sub.f32x2 %s, %s, %q;
	mul.f32x2 %s, %s, %q;
	fma.rn.f32x2 %s, %s, %q, %p;
	mov.b64 {%m, %n}, %s;
	sub.f32 %r, %m, %n;
	st.global.f32 [%o], %r;
	ret;
}
";
    // `in` is an f32 buffer: each integer is its value.
    let input: Vec<u32> = (0..32).map(|l| (l * 7) % 13).collect();
    let want: Vec<u32> = (0..32)
        .map(|l| {
            let (x, y) = (((l * 7) % 13) as f32, l as f32);
            let (m, n) = (x.max(y).max(-y), x.min(y).min(-y));
            ((((m + x) - x) * x).mul_add(x, m) - (((n + y) - y) * y).mul_add(y, n)).to_bits()
        })
        .collect();
    each_lanes_word_is(body, &input, &want);
}

/// Unpacking a word's high half (`mov.b32 {_, %hi}, %w`) is no copy of it: `%hi` may not take
/// `%w`'s register while `%w` is read again (Triton's sm_100a epilogues take the low half with
/// `cvt.u16.u32` after the high one; sharing the register lost the low half).
#[test]
fn an_unpacked_half_does_not_take_its_words_register() {
    let body = "\
.version 8.7
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
	.reg .b16 %hi, %lo;
	.reg .b32 %t, %w, %a, %b, %r;
	.reg .b64 %o, %i, %x;
	ld.param.u64 %o, [out];
	ld.param.u64 %i, [in];
	mov.u32 %t, %tid.x;
	mul.wide.u32 %x, %t, 4;
	add.s64 %i, %i, %x;
	add.s64 %o, %o, %x;
	ld.global.u32 %w, [%i];
	mov.b32 {_, %hi}, %w;
	cvt.u16.u32 %lo, %w;
	cvt.u32.u16 %a, %hi;
	cvt.u32.u16 %b, %lo;
	shl.b32 %a, %a, 16;
	or.b32 %r, %a, %b;
	st.global.u32 [%o], %r;
	ret;
}
";
    let input: Vec<u32> = (0..32).map(|l| 0x1234_0000 + l * 0x0101_0101).collect();
    each_lanes_word_is(body, &input, &input);
}

/// `brx.idx` (Triton's warp-specialized kernels pick each warp's role with one): lane `l`
/// branches to label `l % 3` of the `.branchtargets` list, the warp diverging three ways and
/// reconverging after.
#[test]
fn an_indexed_branch_goes_to_the_label_its_index_names() {
    let body = "\
.version 8.7
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 in)
{
	.reg .b32 %t, %i, %v;
	.reg .b64 %o, %x;
	ld.param.u64 %o, [out];
	mov.u32 %t, %tid.x;
	rem.u32 %i, %t, 3;
JT:
	.branchtargets ZERO, ONE, TWO;
	brx.idx %i, JT;
ZERO:
	mov.u32 %v, 10;
	bra.uni DONE;
ONE:
	mov.u32 %v, 11;
	bra.uni DONE;
TWO:
	mov.u32 %v, 12;
DONE:
	mul.wide.u32 %x, %t, 4;
	add.s64 %o, %o, %x;
	st.global.u32 [%o], %v;
	ret;
}
";
    let want: Vec<u32> = (0..32).map(|l| 10 + l % 3).collect();
    each_lanes_word_is(body, &[0; 32], &want);
}
