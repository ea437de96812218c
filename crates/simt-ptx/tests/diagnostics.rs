//! What the parser says about bad input: one snapshot per kind of mistake, rendered as a user
//! sees it.

fn kernel(body: &str) -> String {
    format!(".version 7.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\t.reg .b32 \t%r<4>;\n{body}}}\n")
}

fn render(source: &str) -> String {
    let parsed = simt_ptx::parse(source);
    assert!(!parsed.diagnostics.is_empty(), "expected diagnostics for:\n{source}");
    parsed.diagnostics.render("bad.ptx", source, false)
}

/// Parses `source`, which must draw no diagnostic.
fn parse_clean(source: &str) -> simt_ptx::Parsed<'_> {
    let parsed = simt_ptx::parse(source);
    assert!(parsed.diagnostics.is_empty(), "{}", parsed.diagnostics.render("ok.ptx", source, false));
    parsed
}

#[test]
fn unknown_instruction() {
    insta::assert_snapshot!(render(&kernel("\tmov.u32 \t%r1, 1;\n\tfrobnicate.b32 \t%r2, %r1;\n\tret;\n")));
}

#[test]
fn unknown_modifier() {
    insta::assert_snapshot!(render(&kernel("\tld.global.fancy.u32 \t%r1, [k_param_0];\n\tret;\n")));
}

#[test]
fn modifier_the_opcode_does_not_take() {
    insta::assert_snapshot!(render(&kernel("\tadd.approx.s32 \t%r1, %r2, %r3;\n\tret;\n")));
}

#[test]
fn two_modifiers_of_one_kind() {
    insta::assert_snapshot!(render(&kernel("\tld.global.shared.u32 \t%r1, [k_param_0];\n\tret;\n")));
}

#[test]
fn missing_type() {
    insta::assert_snapshot!(render(&kernel("\tld.global \t%r1, [k_param_0];\n\tret;\n")));
}

#[test]
fn integer_multiply_without_part() {
    insta::assert_snapshot!(render(&kernel("\tmul.s32 \t%r1, %r2, %r3;\n\tret;\n")));
}

#[test]
fn unterminated_comment() {
    insta::assert_snapshot!(render(&kernel("\tmov.u32 \t%r1, 1; /* the rest of the file\n\tret;\n")));
}

#[test]
fn unterminated_string() {
    insta::assert_snapshot!(render(&kernel("\t.pragma \"nounroll;\n\tret;\n")));
}

#[test]
fn missing_semicolon() {
    insta::assert_snapshot!(render(&kernel("\tmov.u32 \t%r1, 1\n\tadd.s32 \t%r2, %r1, 2;\n\tret\n")));
}

#[test]
fn bad_register_ranges() {
    let source = kernel("\t.reg .b32 \t%a<0>;\n\t.reg .b32 \t%b<x>;\n\t.reg .b32 \t%c<4;\n\t.reg .pred \t%p<99999999>;\n\tret;\n");
    insta::assert_snapshot!(render(&source));
}

#[test]
fn wrong_operand_count() {
    insta::assert_snapshot!(render(&kernel("\tadd.s32 \t%r1, %r2;\n\tselp.b32 \t%r1, %r2, %r3;\n\tret;\n")));
}

#[test]
fn bad_literals() {
    insta::assert_snapshot!(render(&kernel("\tmov.f32 \t%r1, 0f3F80;\n\tmov.u32 \t%r1, 099;\n\tmov.u64 \t%r1, 0x1FFFFFFFFFFFFFFFF;\n\tret;\n")));
}

#[test]
fn special_register_without_component() {
    insta::assert_snapshot!(render(&kernel("\tmov.u32 \t%r1, %tid;\n\tret;\n")));
}

#[test]
fn malformed_call() {
    insta::assert_snapshot!(render(&kernel("\tcall.uni (retval0), (param0), f;\n\tret;\n")));
}

#[test]
fn unexpected_character_and_module_junk() {
    insta::assert_snapshot!(render(".version 7.0\n.target sm_80\n.address_size 48\n.bogus 1;\n.visible .entry k()\n{\n\tmov.u32 \t%r1, #3;\n\tret;\n}\n"));
}

/// DWARF sections (Triton always writes them) are skipped, nested braces and all.
#[test]
fn debug_sections_are_skipped() {
    let source = format!(
        "{}\t.file\t1 \"/tmp/add.py\"\n\t.section\t.debug_abbrev\n\t{{\n.b8 1\n.b8 17\n{{ .b8 0 }}\n\t}}\n\t.section\t.debug_info\n\t{{\n.b32 .debug_abbrev\n.b64 $L__func_begin0\n\t}}\n",
        kernel("\tret;\n")
    );
    assert_eq!(parse_clean(&source).module.entries().count(), 1);
}

#[test]
fn unclosed_debug_section() {
    insta::assert_snapshot!(render(".version 7.0\n.target sm_80\n.address_size 64\n.section .debug_abbrev\n{\n.b8 1\n.b8 17\n"));
}

#[test]
fn sections_other_than_debug_ones() {
    insta::assert_snapshot!(render(".version 7.0\n.target sm_80\n.address_size 64\n.section .nv.info\n{\n.b8 1\n}\n"));
}

/// `.loc` with PTX 7.2's `function_name` and `inlined_at`, as Triton writes it for inlined calls.
#[test]
fn loc_with_inlining_information() {
    let source = kernel(
        "\t.loc\t1 10 0\n\t.loc\t2 286 36, function_name $L__info_string0, inlined_at 1 23 24\n\t.loc\t2 1 2, function_name $L__info_string1+8, inlined_at 2 286 36\n\tret;\n",
    );
    let parsed = parse_clean(&source);
    let body = parsed.module.entries().next().unwrap().body.as_ref().unwrap();
    let inlined: Vec<_> =
        body.statements.iter().filter_map(|s| if let simt_ptx::ast::Statement::Loc { inlined_at, .. } = s { Some(*inlined_at) } else { None }).collect();
    assert_eq!(inlined, vec![None, Some([1, 23, 24]), Some([2, 286, 36])]);
}

#[test]
fn loc_with_an_unknown_attribute() {
    insta::assert_snapshot!(render(&kernel("\t.loc\t1 10 0, discriminator 3\n\tret;\n")));
}

#[test]
fn unclosed_block() {
    insta::assert_snapshot!(render(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret;\n"));
}

/// Every error of a file in one run: the parser recovers at the next `;`.
#[test]
fn every_error_in_one_run() {
    let source = kernel(
        "\tfrobnicate.b32 \t%r1;\n\tld.global.fancy.u32 \t%r1, [k_param_0];\n\tmov.u32 \t%r1, %tid;\n\tadd.s32 \t%r1, %r2, %r3;\n\tmul.s32 \t%r1, %r2, %r3;\n\tret;\n",
    );
    let parsed = simt_ptx::parse(&source);
    let lines: Vec<(usize, usize)> = parsed.diagnostics.iter().map(|d| d.line_column(&source)).collect();
    assert_eq!(lines, vec![(10, 2), (11, 11), (12, 16), (14, 2)]);
    // The good instructions around the bad ones are kept.
    let kernel = parsed.module.entries().next().expect("the kernel");
    let body = kernel.body.as_ref().expect("a body");
    assert_eq!(body.statements.len(), 3, "the .reg, the add and the ret");
}

#[test]
fn diagnostics_past_the_limit_are_counted() {
    let body: String = (0..150).map(|i| format!("\tbad{i}.u32 \t%r1;\n")).collect();
    let source = kernel(&body);
    let parsed = simt_ptx::parse(&source);
    assert_eq!(parsed.diagnostics.total(), 150);
    assert_eq!(parsed.diagnostics.iter().count(), simt_ptx::diagnostic::MAX_DIAGNOSTICS);
    assert!(parsed.diagnostics.render("bad.ptx", &source, false).ends_with("error: 50 more errors not shown; fix the ones above first\n"));
}

#[test]
fn long_lines_are_located_not_printed() {
    let source = kernel(&format!("\tmov.u32 \t%r1, 1;{}bogus.u32 %r1;\n", " ".repeat(600)));
    insta::assert_snapshot!(render(&source));
}
