//! Snapshot tests of rendered diagnostics (colour off), one per kind of
//! mistake, plus counts: a file with N independent errors reports N.

fn render(source: &str) -> String {
    match simt_asm::assemble("bad.s", source) {
        Ok(_) => panic!("expected errors from:\n{source}"),
        Err(d) => d.render(false),
    }
}

fn count(source: &str) -> usize {
    simt_asm::assemble("bad.s", source).map_or_else(|d| d.len(), |_| 0)
}

macro_rules! snap {
    ($name:ident, $source:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(render($source));
        }
    };
}

const HEAD: &str = ".kernel k\n.param .ptr.u32 out\n.param .u32 n\n.shared .f32 tile[64]\n";

fn k(body: &str) -> String {
    format!("{HEAD}{body}\n    EXIT\n")
}

snap!(
    conformance_bad_file,
    ".kernel bad\n.param .ptr.u32 out\n    S2R  R0, SR_TID.X\n    FROB R1, R0, R0\n    IADD R2, R0, 1\n    @P0 BRA NOWHERE\n    EXIT\n"
);
snap!(unknown_mnemonic_with_suggestion, &k("    IADDD R1, R2, R3"));
snap!(unknown_modifier, &k("    LD.GLOBL.U32 R1, [R2]"));
snap!(missing_modifier, &k("    LD.GLOBAL R1, [R2]"));
snap!(modifier_out_of_order, &k("    LD.U32.GLOBAL R1, [R2]"));
snap!(bad_modifier_combination, &k("    ATOM.GLOBAL.ADD.B32 R1, [R2], R3"));
snap!(wrong_operand_count, &k("    IADD R1, R2"));
snap!(register_out_of_range, &k("    IADD R255, R2, R3"));
snap!(predicate_out_of_range, &k("    ISETP.LT P7, R1, R2"));
snap!(misaligned_pair, &k("    DADD R3, R4, R6"));
snap!(misaligned_vector, &k("    LD.GLOBAL.V4.B32 R2, [R8]"));
snap!(undefined_label, &k("LOOP:\n    BRA LOPP"));
snap!(duplicate_label, &k("A:\n    NOP\nA:\n    NOP"));
snap!(label_at_end, ".kernel k\n    BRA END\n    EXIT\nEND:\n");
snap!(unknown_shared_symbol, &k("    LD.SHARED.F32 R1, [tilee+4]"));
snap!(unknown_parameter, &k("    LD.PARAM.U32 R1, [m]"));
snap!(float_in_integer_slot, &k("    IADD R1, R2, 1.5"));
snap!(integer_too_large, &k("    IADD R1, R2, 0x100000000"));
snap!(f64_literal_in_f32_slot, &k("    FADD R1, R2, 0d3FF0000000000000"));
snap!(source_modifier_not_allowed, &k("    AND R1, -R2, R3"));
snap!(arg_type_mismatch, &format!("{HEAD}.arg n = 2.5\n    EXIT\n"));
snap!(arg_unknown_parameter, &format!("{HEAD}.arg nn = 2\n    EXIT\n"));
snap!(regs_too_small, ".kernel k\n.regs 4\n    MOV R7, 1\n    EXIT\n");
snap!(shared_param_clash, ".kernel k\n.param .u32 x\n.shared .u32 x[4]\n    EXIT\n");
snap!(statement_before_kernel, "    NOP\n.kernel k\n    EXIT\n");
snap!(syntax_error, &k("    IADD R1, , R2"));
snap!(launch_too_many_threads, ".kernel k\n.launch grid(1) block(64, 32)\n    EXIT\n");
snap!(unknown_special_register, &k("    S2R R1, SR_TID.W"));
snap!(unterminated_comment, ".kernel k\n    EXIT /* never closed\n");
snap!(mma_overlap, &k("    MMA.M16N16K16.F32.F16 R0, R4, R8, R12"));
snap!(scaled_mma_selectors, &k("    MMA.SCALED.NVF4.E2M1.E2M1 R16, R0, R4, R16, R8, R9, 0x2000"));
snap!(guard_not_a_predicate, &k("    @R1 EXIT"));
snap!(empty_kernel, ".kernel k\n.param .u32 n\n");
snap!(unknown_target, ".kernel k\n.target sm_61\n    EXIT\n");
snap!(form_beyond_kernel_target, &k(".target sm_75\n    MMA.M16N16K16.F32.BF16 R16, R0, R4, R8\n    CVT.E4M3X2.F32 R1, R2, R3"));
snap!(form_beyond_file_target, ".target sm_80\n.kernel k\n    CVT.F32.E2M1 R1, R2\n    EXIT\n");
snap!(target_given_twice, ".kernel k\n.target sm_80\n.target sm_90\n    EXIT\n");
snap!(packed_shared_array, ".kernel k\n.shared .e2m1 w[64]\n    EXIT\n");
snap!(
    names_read_as_something_else,
    ".kernel R1\n.param .u32 pt\n.param .u32 r5\n.shared .f32 inf[4]\n.shared .f32 P0[4]\n    LD.PARAM.U32 R2, [pt]\n    EXIT\n"
);
snap!(static_shared_after_dynamic, ".kernel k\n.shared .align 16 .u8 smem[]\n.shared .f32 tile[64]\n    EXIT\n");
snap!(second_dynamic_shared_array, ".kernel k\n.shared .u8 smem[]\n.shared .f32 more[]\n    EXIT\n");

/// `--arch` overrides every `.target`, in both directions.
#[test]
fn arch_overrides_the_targets() {
    use simt_isa::Target;
    let source = ".target sm_70\n.kernel a\n    MMA.M16N16K16.F32.TF32 R16, R0, R8, R24\n    EXIT\n.kernel b\n.target sm_100\n    MMA.M16N16K16.S32.S4 R16, R0, R1, R8\n    EXIT\n";
    assert!(simt_asm::assemble("t.s", source).is_err(), "kernel a needs sm_80");
    let module = simt_asm::assemble_for("t.s", source, Target::Sm80).unwrap();
    assert!(module.kernels.iter().all(|k| k.target == Target::Sm80));
    insta::assert_snapshot!(simt_asm::assemble_for("t.s", source, Target::Sm75).unwrap_err().render(false));
    // Without --arch: a kernel's own `.target` wins over the file's, and the default has everything.
    let own = simt_asm::assemble("t.s", &source.replace("sm_70", "sm_80")).unwrap();
    assert_eq!(own.kernels.iter().map(|k| k.target).collect::<Vec<_>>(), [Target::Sm80, Target::Sm100]);
    let default = simt_asm::assemble("t.s", ".kernel k\n    CVT.F32.E2M1 R1, R2\n    EXIT\n").unwrap();
    assert_eq!(default.kernels[0].target, Target::DEFAULT);
}

#[test]
fn independent_errors_are_all_reported() {
    let lines = [
        "    FROB R1",
        "    IADD R1, R2",
        "    IADD R300, R1, R2",
        "    FADD R1, R2, 0d3FF0000000000000",
        "    BRA NOWHERE",
        "    LD.SHARED.U32 R1, [nothing]",
        "    IADD R1, R2, 1.0",
        "    ISETP.XX P0, R1, R2",
        "    MOV R1, , R2",
        "    LD.GLOBAL.V2.B32 R1, [R2]",
        "    S2R R1, SR_FOO",
        "    SEL R1, R2, R3, R4",
        "    @P9 EXIT",
        "    EXIT $",
    ];
    let source = format!("{HEAD}{}\n    EXIT\n", lines.join("\n"));
    assert_eq!(count(&source), lines.len(), "{}", render(&source));
    // Removing any one bad line removes exactly one diagnostic.
    for skip in 0..lines.len() {
        let rest: Vec<&str> = lines.iter().enumerate().filter(|&(i, _)| i != skip).map(|(_, l)| *l).collect();
        assert_eq!(count(&format!("{HEAD}{}\n    EXIT\n", rest.join("\n"))), lines.len() - 1, "without line {skip}");
    }
}

#[test]
fn colour_rendering_adds_escapes_only() {
    let d = simt_asm::assemble("bad.s", ".kernel k\n    FROB\n").unwrap_err();
    let coloured = d.render(true);
    assert!(coloured.contains('\u{1b}'));
    assert_eq!(d.to_string(), d.render(false));
    assert_eq!(d.len(), 1);
}
snap!(
    printf_formats,
    &k(
        "    PRINTF \"tab\\t%d and %y\\n\", R4\n    PRINTF \"%d %f\\n\", R5\n    PRINTF \"x = %d\\n\"\n    PRINTF \"bad \\q\"\n    PRINTF \"open\n    IADD R1, \"x\", R2"
    )
);
