//! Bad PTX never panics the translation: every corpus fixture, damaged at random (lines
//! dropped, swapped or duplicated, the text cut short), translates or is refused with
//! diagnostics.

use proptest::prelude::*;

static FIXTURES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx/fixtures");
    let mut files: Vec<_> = std::fs::read_dir(&dir).expect("fixtures").map(|e| e.expect("entry").path()).collect();
    files.sort();
    files.iter().map(|p| std::fs::read_to_string(p).expect("fixture")).collect()
});

#[derive(Clone, Debug)]
enum Damage {
    Drop(usize),
    Swap(usize, usize),
    Duplicate(usize),
    Cut(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<usize>().prop_map(Damage::Drop),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Damage::Swap(a, b)),
        any::<usize>().prop_map(Damage::Duplicate),
        any::<usize>().prop_map(Damage::Cut),
    ]
}

fn apply(text: &str, damages: &[Damage]) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    for d in damages {
        let n = lines.len().max(1);
        match *d {
            Damage::Drop(i) if !lines.is_empty() => {
                lines.remove(i % n);
            }
            Damage::Swap(a, b) if !lines.is_empty() => lines.swap(a % n, b % n),
            Damage::Duplicate(i) if !lines.is_empty() => {
                let line = lines[i % n];
                lines.insert(i % n, line);
            }
            Damage::Cut(i) => lines.truncate(i % n),
            _ => {}
        }
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn damaged_fixtures_never_panic(which in any::<usize>(), damages in proptest::collection::vec(damage(), 1..6)) {
        let text = apply(&FIXTURES[which % FIXTURES.len()], &damages);
        if let Err(d) = simt_ptx::translate("damaged.ptx", &text, None) {
            prop_assert!(!d.is_empty());
            let _ = d.render("damaged.ptx", &text, false);
        }
    }
}

/// Found by the `translate_ptx` fuzzer: a register given pointers of two parameters made the
/// pointer inference flip between them forever.
#[test]
fn a_register_with_two_origins_does_not_hang() {
    let source = ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<2>;\n\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u64 %rd2, [k_param_1];\n\tcvta.to.global.u64 %rd1, %rd2;\n\tcvta.to.global.u64 %rd2, %rd1;\n\tld.global.f32 %f1, [%rd1];\n\tret;\n}\n";
    assert!(simt_ptx::translate("k.ptx", source, None).is_ok());
}

/// clang 15 and later name labels `$L__BB0_2`; `simt ptx` keeps the name, and its output
/// assembles back to the same code.
#[test]
fn labels_with_dollars_reassemble() {
    let source = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ptx/fixtures/saxpy.sm_80.O3.ptx"))
        .expect("fixture")
        .replace("LBB0_2", "$L__BB0_2");
    let module = simt_ptx::translate("new.ptx", &source, None).expect("translates");
    let shown = simt_isa::disassemble_with_source(&module);
    assert!(shown.contains("\n$L__BB0_2:\n"), "{shown}");
    let back = simt_asm::assemble("new.s", &shown).unwrap_or_else(|d| panic!("{}", d.render(false)));
    assert_eq!(back.kernels[0].code, module.kernels[0].code);
}

/// Found by the `translate_ptx` fuzzer: PTX names may hold `$` and begin with `%`, a parameter
/// may be called what `.s` calls a predicate (`pt`), and an `.extern .shared` array has no length. `simt ptx` writes them as they are (`.s` spells
/// names as PTX does, and a dynamic array `NAME[]`), and its output assembles to the same code.
#[test]
fn ptx_names_and_dynamic_shared_arrays_reassemble() {
    let source = ".version 8.0\n.target sm_80\n.address_size 64\n.extern .shared .align 16 .b8 $dyn[];\n\
                  .visible .entry $k(.param .u32 %n, .param .u32 pt)\n{\n\t.reg .b32 %r<3>;\n\t.shared .align 4 .b32 tile$0[4];\n\
                  \tld.param.u32 %r1, [%n];\n\tld.param.u32 %r2, [pt];\n\tadd.s32 %r1, %r1, %r2;\n\tst.shared.u32 [tile$0+4], %r1;\n\tmov.u32 %r2, $dyn;\n\tst.shared.u32 [%r2], %r1;\n\tret;\n}\n";
    let module = simt_ptx::translate("names.ptx", source, None).unwrap_or_else(|d| panic!("{}", d.render("names.ptx", source, false)));
    let shown = simt_isa::disassemble_with_source(&module);
    for line in [".kernel $k\n", ".param .u32 %n\n", ".param .u32 pt\n", ".shared .u8 tile$0[16]\n", ".shared .align 16 .u8 $dyn[]\n"] {
        assert!(shown.contains(line), "{line:?} in\n{shown}");
    }
    let back = simt_asm::assemble("names.s", &shown).unwrap_or_else(|d| panic!("{}", d.render(false)));
    assert_eq!(back.kernels[0].code, module.kernels[0].code);
    assert_eq!(back.kernels[0].shared, module.kernels[0].shared);
}

/// Found by the `translate_ptx` fuzzer: an unterminated string (after `.pragma` or `.file`)
/// ending in a multi-byte character, or a lone `"`, was cut as if it had its closing quote.
#[test]
fn unterminated_strings_are_reported_not_cut() {
    for tail in ["\"nounroll\u{e9}", "\"", "\"\u{20ac}"] {
        for directive in [".pragma ", ".file 1 "] {
            let source = format!(".version 8.0\n.target sm_80\n.address_size 64\n{directive}{tail}\n");
            let errors = simt_ptx::translate("s.ptx", &source, None).expect_err("an unterminated string");
            assert!(errors.render("s.ptx", &source, false).contains("string"), "{}", errors.render("s.ptx", &source, false));
        }
    }
}

/// Found by the `translate_ptx` fuzzer: a kernel defined twice became two kernels of one
/// name, whose listing does not assemble (and a function defined twice would have its calls
/// reach the first body only). Each second definition is refused where it is, as ptxas does.
#[test]
fn a_second_definition_is_refused() {
    let entry = ".visible .entry k()\n{\n\tret;\n}\n";
    let func = ".func f()\n{\n\tret;\n}\n";
    let source = format!(".version 8.0\n.target sm_80\n.address_size 64\n{func}{entry}{func}{entry}");
    let errors = simt_ptx::translate("twice.ptx", &source, None).expect_err("two definitions");
    let shown = errors.render("twice.ptx", &source, false);
    assert!(shown.contains("`f` is defined a second time here") && shown.contains("first defined on line 4"), "{shown}");
    assert!(shown.contains("`k` is defined a second time here") && shown.contains("first defined on line 8"), "{shown}");
}
