//! What the translation refuses, and how it says so: each message names the instruction
//! and its line, and what is supported instead.

fn kernel(body: &str) -> String {
    format!(
        ".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n\tld.param.u64 %rd7, [k_param_0];\n\tcvta.to.global.u64 %rd6, %rd7;\n{body}\tret;\n}}\n"
    )
}

fn refusal(source: &str) -> String {
    match simt_ptx::translate("k.ptx", source, None) {
        Ok(_) => panic!("translated, expected a refusal:\n{source}"),
        Err(d) => d.render("k.ptx", source, false),
    }
}

#[test]
fn an_instruction_newer_than_the_ptx_target() {
    let source = kernel("\tredux.sync.add.s32 %r1, %r2, -1;\n").replace(".target sm_80", ".target sm_70");
    insta::assert_snapshot!(refusal(&source));
}

#[test]
fn two_wide_literals_in_one_instruction() {
    insta::assert_snapshot!(refusal(&kernel("\tadd.s64 %rd1, 5000000000, 6000000000;\n")));
}

#[test]
fn conversions_not_built() {
    insta::assert_snapshot!(refusal(&kernel("\tcvt.rn.relu.f16.f32 %r1, %f1;\n")));
}

#[test]
fn generic_32_bit_address_of_unknown_space() {
    // A 64-bit generic address is resolved as it runs; a 32-bit one cannot hold a window,
    // so one loaded from global memory, which may point anywhere, is refused.
    insta::assert_snapshot!(refusal(&kernel("\tld.global.u32 %r2, [%rd6];\n\tld.u32 %r1, [%r2];\n")));
}

#[test]
fn generic_windows_simt_does_not_have() {
    insta::assert_snapshot!(refusal(&kernel("\tcvta.param.u64 %rd1, %rd6;\n\tisspacep.param %p1, %rd6;\n\tcvta.to.shared.u32 %r1, %r2;\n")));
}

#[test]
fn special_functions_not_built() {
    insta::assert_snapshot!(refusal(&kernel("\ttanh.approx.f16x2 %r1, %r2;\n")));
}

#[test]
fn recursion() {
    let source =
        ".version 7.0\n.target sm_80\n.address_size 64\n.func f()\n{\n\tcall.uni f, ();\n\tret;\n}\n.visible .entry k()\n{\n\tcall.uni f, ();\n\tret;\n}\n";
    insta::assert_snapshot!(refusal(source));
}

#[test]
fn several_problems_in_one_run() {
    insta::assert_snapshot!(refusal(&kernel("\tbfe.u64 %rd1, %rd2, %r1, 8;\n\tmad.lo.cc.u64 %rd1, %rd2, %rd3, %rd4;\n\tvote.ballot.b32 %r1, %p2;\n")));
}

/// A 64-bit product with a carry would need more scratch registers than a kernel keeps; taking
/// it as a plain `mad` would drop the carry.
#[test]
fn a_64_bit_product_with_a_carry() {
    insta::assert_snapshot!(refusal(&kernel("\tmad.lo.cc.u64 %rd1, %rd2, %rd3, %rd4;\n\tst.global.u64 [%rd6], %rd1;\n")));
}

/// `wmma` runs m16n16k16 on `MMA.M16N16K16`: a form that instruction lacks is refused.
#[test]
fn wmma_forms_the_tensor_engine_lacks() {
    insta::assert_snapshot!(refusal(&kernel(
        "\twmma.mma.sync.aligned.row.col.m16n16k16.f32.s8.s8.f32 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r0, %r1}, {%r2, %r3}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7};\n"
    )));
}

#[test]
fn mma_forms_the_tensor_engine_lacks() {
    // Mixed input types, and .satfinite on a float accumulator.
    let mixed = "\tmma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r0, %r1}, {%r0, %r1, %r2, %r3};\n";
    let satfinite =
        "\tmma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%r0, %r1, %r2, %r3}, {%r4, %r5, %r6, %r7}, {%r0, %r1}, {%r0, %r1, %r2, %r3};\n";
    insta::assert_snapshot!(format!("{}\n{}", refusal(&kernel(mixed)), refusal(&kernel(satfinite))));
}

#[test]
fn fp8_mma_below_sm_89() {
    let fp8 = "\tmma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f0, %f1, %f2, %f3}, {%r4, %r5, %r6, %r7}, {%r0, %r1}, {%f0, %f1, %f2, %f3};\n";
    insta::assert_snapshot!(refusal(&kernel(fp8)));
}

#[test]
fn stmatrix_below_sm_90() {
    let source = kernel("\tmov.u32 %r1, 0;\n\tstmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], %r2;\n");
    insta::assert_snapshot!(refusal(&source));
}

#[test]
fn blackwell_tensor_memory_forms_not_built() {
    // A pair of blocks, block-scaled MMAs with A in tensor memory and without their block size,
    // a weight-stationary one, and a guarded indexed branch.
    let cta_pair = kernel("\ttcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%r1], 32;\n").replace(".target sm_80", ".target sm_100a");
    let scaled_tmem = kernel("\ttcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 [%r1], [%r5], %rd2, %r2, [%r3], [%r4], %p1;\n")
        .replace(".target sm_80", ".target sm_100a");
    let scaled_unsized = kernel("\ttcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale [%r1], %rd1, %rd2, %r2, [%r3], [%r4], %p1;\n")
        .replace(".target sm_80", ".target sm_100a");
    let ws = kernel("\ttcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;\n").replace(".target sm_80", ".target sm_100a");
    let guarded = kernel("JT:\n\t.branchtargets L0, L1;\n\t@%p1 brx.idx %r1, JT;\nL0:\nL1:\n");
    insta::assert_snapshot!([cta_pair, scaled_tmem, scaled_unsized, ws, guarded].map(|source| refusal(&source)).join("\n"));
}

#[test]
fn hopper_async_forms_not_built() {
    // What the parser refuses: plain bulk copies, a state's pending count, a generic mbarrier.
    let parsed = kernel(
        "\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd6], 16, [%r2];\n\tmbarrier.pending_count.b64 %r1, %rd1;\n\tmbarrier.arrive.b64 %rd1, [%rd6];\n",
    );
    // What the translation refuses: the address of a scalar parameter, tensor map fields simt's
    // copies cannot follow (NaN fill, PTX's `.f32.ftz`).
    let translated = kernel(
        "\tmov.u32 %r1, k_param_1;\n\ttensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r2], 1;\n\ttensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%r2], 8;\n",
    );
    insta::assert_snapshot!(format!("{}\n{}", refusal(&parsed), refusal(&translated)));
}

#[test]
fn barriers_and_register_counts_not_built() {
    // A reduction at a named barrier, and a register count `setmaxnreg` does not take.
    let source = kernel("\tbar.red.popc.u32 %r1, 1, %p1;\n\tsetmaxnreg.inc.sync.aligned.u32 20;\n").replace(".target sm_80", ".target sm_90a");
    insta::assert_snapshot!(refusal(&source));
}

#[test]
fn consumer_blackwell_block_scaled_forms_not_built() {
    // A 16-bit type in `.kind::mxf8f6f4`, selectors in registers, a pair of scales from byte 1,
    // and E4M3 scales a 32 elements.
    let mma = |modifiers: &str, a_selector: &str| {
        format!(
            "\tmma.sync.aligned.{modifiers} {{%f0, %f1, %f2, %f3}}, {{%r0, %r1, %r2, %r3}}, {{%r4, %r5}}, {{%f0, %f1, %f2, %f3}}, %r6, {a_selector}, %r7, {{0, 0}};\n"
        )
    };
    let lines = [
        mma("m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.bf16.f32.ue8m0", "{0, 0}"),
        mma("m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0", "{%r1, 0}"),
        mma("m16n8k64.row.col.kind::mxf4.block_scale.f32.e2m1.e2m1.f32.ue8m0", "{1, 0}"),
        mma("m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue4m3", "{0, 0}"),
    ];
    let refusals = lines.map(|line| refusal(&kernel(&line).replace(".target sm_80", ".target sm_120a")));
    insta::assert_snapshot!(refusals.join("\n"));
}

#[test]
fn nan_minimums_simt_does_not_have_and_float_reductions_that_are_not_orderings() {
    let source = kernel("\tmax.NaN.xorsign.abs.f32 %f1, %f2, %f3;\n\tredux.sync.add.f32 %f1, %f2, -1;\n\tredux.sync.min.abs.u32 %r1, %r2, -1;\n")
        .replace(".target sm_80", ".target sm_100a")
        .replace(".version 7.0", ".version 8.7");
    insta::assert_snapshot!(refusal(&source));
}
