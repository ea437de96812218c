//! The divergence lints: each fires on the pattern it names, with both lines, and
//! stays quiet on the kernel library and on uniform control flow.

use std::path::{Path, PathBuf};

use simt_asm::{Level, LintKind, LintLevels, lint};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn warnings_of(name: &str, source: &str) -> String {
    let module = simt_asm::assemble(name, source).unwrap_or_else(|d| panic!("{d}"));
    lint(&module, &LintLevels::default(), false).text
}

fn file(path: &str) -> (String, String) {
    let source = std::fs::read_to_string(repo().join(path)).expect("a shipped kernel");
    (path.to_string(), source)
}

/// The lints that fire on `source`, by name.
fn fired(source: &str) -> Vec<&'static str> {
    let module = simt_asm::assemble("t.s", source).unwrap_or_else(|d| panic!("{d}"));
    module.kernels.iter().flat_map(|k| simt_kernel::lint::lint(&k.code)).map(|l| l.kind.name()).collect()
}

#[test]
fn loop_divergence_finds_the_collatz_pattern_and_not_its_fix() {
    let (name, source) = file("asm/divergence/collatz.s");
    insta::assert_snapshot!(warnings_of(&name, &source));
}

#[test]
fn divergent_barrier_names_the_branch_and_where_it_rejoins() {
    let (name, source) = file("asm/bugs/divergent_barrier.s");
    insta::assert_snapshot!(warnings_of(&name, &source));
}

const HEAD: &str = ".kernel k\n.param .ptr.u32 out\n.shared .u32 s[32]\n.launch grid(2) block(64)\n.arg out = zeros(64)\n";

#[test]
fn unreachable_code_and_reads_before_writes() {
    let source = format!("{HEAD}    S2R R0, SR_TID.X\n@P1 BRA SKIP\n    MOV R5, 1\nSKIP:\n    IADD R6, R5, R7\n    EXIT\n    MOV R1, 2\n    IADD R1, R1, 1\n");
    insta::assert_snapshot!(warnings_of("t.s", &source));
}

#[test]
fn uniform_branches_and_barriers_outside_divergence_are_fine() {
    let cases = [
        // A barrier in a loop whose trip count is the same for the whole block.
        "    S2R R0, SR_TID.X\n    MOV R1, 0\nLOOP:\n    BAR.SYNC\n    IADD R1, R1, 1\n    ISETP.LT.U32 P0, R1, 4\n@P0 BRA LOOP\n    EXIT\n",
        // A branch on the block index, with a barrier inside: every thread of a block goes the same way.
        "    S2R R0, SR_CTAID.X\n    ISETP.EQ P0, R0, 0\n@P0 BRA SKIP\n    BAR.SYNC\nSKIP:\n    EXIT\n",
        // A divergent if/else whose sides meet before the barrier; P0 reused for a uniform loop.
        "    S2R R0, SR_TID.X\n    MOV R1, 0\nLOOP:\n    AND R2, R0, 1\n    ISETP.EQ P0, R2, 0\n@P0 BRA EVEN\n    IADD R3, R0, 1\n    BRA JOIN\nEVEN:\n    MOV R3, R0\nJOIN:\n    BAR.SYNC\n    IADD R1, R1, 1\n    ISETP.LT.U32 P0, R1, 4\n@P0 BRA LOOP\n    EXIT\n",
        // A data-dependent loop exit reconverging after the loop is how loops end.
        "    S2R R0, SR_TID.X\n    MOV R1, 0\nLOOP:\n    ISETP.GE.U32 P0, R1, R0\n@P0 BRA DONE\n    IADD R1, R1, 1\n    BRA LOOP\nDONE:\n    EXIT\n",
    ];
    for body in cases {
        assert_eq!(fired(&format!("{HEAD}{body}")), Vec::<&str>::new(), "{body}");
    }
}

#[test]
fn a_barrier_after_a_divergent_branch_inside_its_region_is_found() {
    let body = "    S2R R0, SR_TID.X\n    ISETP.LT.U32 P0, R0, 16\n@P0 BRA SKIP\n    BAR.SYNC\nSKIP:\n    EXIT\n";
    assert_eq!(fired(&format!("{HEAD}{body}")), ["divergent_barrier"]);
    // Values loaded from LOCAL memory, atomics and shuffles differ per thread too.
    let body = "    ATOM.SHARED.ADD.U32 R1, [s], 1\n    ISETP.EQ P0, R1, 0\n@P0 BRA SKIP\n    BAR.SYNC\nSKIP:\n    EXIT\n";
    assert_eq!(fired(&format!("{HEAD}{body}")), ["divergent_barrier"]);
}

#[test]
fn the_kernel_library_is_clean_but_for_its_lessons() {
    // The planted bugs and the Collatz lesson are there to be found; the microbenchmarks
    // write every register they read, so a student timing them sees no warning.
    let expected = [("asm/bugs/divergent_barrier.s", vec!["divergent_barrier", "divergent_barrier"]), ("asm/divergence/collatz.s", vec!["loop_divergence"])];
    let mut files = Vec::new();
    for dir in ["asm", "asm/divergence", "asm/bugs", "asm/bench"] {
        for entry in std::fs::read_dir(repo().join(dir)).expect("the library") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "s") {
                files.push(format!("{dir}/{}", path.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(files.len() > 20, "{files:?}");
    for path in files {
        let (_, source) = file(&path);
        let want = expected.iter().find(|(p, _)| *p == path).map(|(_, w)| w.clone()).unwrap_or_default();
        assert_eq!(fired(&source), want, "{path}");
    }
}

#[test]
fn levels_follow_rustc() {
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let levels = |a: &[&str], w: &[&str], d: &[&str]| LintLevels::from_flags(&names(a), &names(w), &names(d)).expect("known names");
    assert_eq!(levels(&[], &[], &[]).level(LintKind::UninitRead), Level::Warn);
    // A single lint overrides the group, whatever the order of the flags.
    let l = levels(&["unreachable_code"], &[], &["warnings"]);
    assert_eq!((l.level(LintKind::UnreachableCode), l.level(LintKind::LoopDivergence)), (Level::Allow, Level::Deny));
    let l = levels(&["warnings"], &["uninit_read"], &[]);
    assert_eq!((l.level(LintKind::UninitRead), l.level(LintKind::DivergentBarrier)), (Level::Warn, Level::Allow));
    // At the same detail, deny beats warn beats allow.
    assert_eq!(levels(&["uninit_read"], &[], &["uninit_read"]).level(LintKind::UninitRead), Level::Deny);
    let error = LintLevels::from_flags(&names(&["loop_divergense"]), &[], &[]).expect_err("a typo");
    assert_eq!((error.given.as_str(), error.what), ("loop_divergense", "a lint"));
    assert!(error.choices.contains(&"loop_divergence") && error.choices.contains(&"warnings"), "{error}");
}

#[test]
fn allowed_lints_say_nothing_and_denied_ones_count() {
    let (name, source) = file("asm/divergence/collatz.s");
    let module = simt_asm::assemble(&name, &source).expect("assembles");
    let allow = LintLevels::from_flags(&["warnings".into()], &[], &[]).expect("known");
    assert_eq!(lint(&module, &allow, false).text, "");
    let deny = LintLevels::from_flags(&[], &[], &["loop_divergence".into()]).expect("known");
    let report = lint(&module, &deny, false);
    assert_eq!((report.denied, report.warnings, report.first_denied_line), (1, 0, Some(23)));
    assert!(report.text.starts_with("error[loop_divergence]"), "{}", report.text);
}

/// One line of a random kernel body: registers R1..R4 only, so the prologue's R0 (the
/// thread index) and P0, P1 (compared against it) stay varying everywhere.
fn line(kind: u8, a: u8, b: u8, target: usize) -> String {
    let (a, b) = (1 + a % 4, 1 + b % 4);
    match kind % 7 {
        0 => format!("IADD R{a}, R{b}, 1"),
        1 => format!("@P{} BRA L{target}", a % 2),
        2 => format!("BRA L{target}"),
        3 => "BAR.SYNC".into(),
        4 => "@P0 EXIT".into(),
        5 => format!("MOV R{a}, 7"),
        _ => "NOP".into(),
    }
}

const PROLOGUE: usize = 3;

fn random_kernel(lines: &[(u8, u8, u8, usize)]) -> String {
    let mut text = String::from(".kernel k\n.launch grid(1) block(64)\nS2R R0, SR_TID.X\nISETP.LT.U32 P0, R0, 5\nISETP.LT.U32 P1, R0, 40\n");
    for (i, &(kind, a, b, target)) in lines.iter().enumerate() {
        text.push_str(&format!("L{i}: {}\n", line(kind, a, b, target % lines.len())));
    }
    text.push_str("EXIT\n");
    text
}

/// Nodes reachable from `from` by walking the graph but never leaving a node `stop` accepts.
fn walk(cfg: &simt_kernel::cfg::Cfg, from: &[u32], stop: impl Fn(u32) -> bool) -> Vec<bool> {
    let mut seen = vec![false; cfg.exit() as usize + 1];
    let mut stack = from.to_vec();
    while let Some(v) = stack.pop() {
        if std::mem::replace(&mut seen[v as usize], true) || stop(v) {
            continue;
        }
        stack.extend(cfg.successors(v).iter().copied());
    }
    seen
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
    /// Each lint against a brute-force reading of its definition on small random kernels.
    #[test]
    fn lints_agree_with_brute_force(lines in proptest::collection::vec((0u8..7, 0u8..4, 0u8..4, 0usize..64), 1..24)) {
        use simt_isa::Flags;
        let module = simt_asm::assemble("r.s", &random_kernel(&lines)).expect("random kernels assemble");
        let code = &module.kernels[0].code;
        let found = simt_kernel::lint::lint(code);
        let cfg = simt_kernel::cfg::Cfg::build(code);
        let ipdom = cfg.post_dominators();
        let n = code.len() as u32;
        let reachable = walk(&cfg, &[0], |_| false);
        let at = |kind: LintKind| found.iter().filter(|l| l.kind == kind).map(|l| l.pc).collect::<Vec<_>>();
        let flags = |pc: u32| code[pc as usize].info().flags;

        // unreachable_code: each run of unreached instructions, reported at its start.
        let runs: Vec<u32> = (0..n).filter(|&pc| !reachable[pc as usize] && (pc == 0 || reachable[pc as usize - 1])).collect();
        proptest::prop_assert_eq!(at(LintKind::UnreachableCode), runs);

        // divergent_barrier: barriers reachable from a guarded branch's sides before its reconvergence point.
        let branches: Vec<u32> = (PROLOGUE as u32..n).filter(|&pc| reachable[pc as usize] && flags(pc).contains(Flags::BRANCH) && code[pc as usize].guard.pred != simt_isa::PT).collect();
        let mut under = vec![false; n as usize + 1];
        for &b in &branches {
            let r = ipdom[b as usize];
            let sides: Vec<u32> = cfg.successors(b).iter().copied().filter(|&s| s != r).collect();
            let region = walk(&cfg, &sides, |v| v == r);
            (0..n as usize).filter(|&v| region[v] && v as u32 != r).for_each(|v| under[v] = true);
        }
        let barriers: Vec<u32> = (0..n).filter(|&pc| flags(pc).contains(Flags::BARRIER) && under[pc as usize]).collect();
        proptest::prop_assert_eq!(at(LintKind::DivergentBarrier), barriers);

        // loop_divergence: a guarded branch on a cycle, both sides on it, reconverging off it.
        let from = |v: u32| walk(&cfg, cfg.successors(v), |_| false);
        let same_loop = |b: u32, v: u32| from(b)[v as usize] && from(v)[b as usize];
        let looping: Vec<u32> = branches.iter().copied().filter(|&b| {
            let r = ipdom[b as usize];
            same_loop(b, b) && cfg.successors(b).iter().all(|&s| same_loop(b, s)) && !same_loop(b, r)
        }).collect();
        proptest::prop_assert_eq!(at(LintKind::LoopDivergence), looping);

        // uninit_read: every register reported is read there, with a path on which nothing wrote it,
        // and every register that has such a path somewhere is reported somewhere.
        let writes = |pc: u32, r: u8| code[pc as usize].effects().writes.contains(r);
        let unwritten_path = |pc: u32, r: u8| walk(&cfg, &[0], |v| v != pc && v < n && writes(v, r))[pc as usize];
        let mut reported = Vec::new();
        for l in found.iter().filter(|l| l.kind == LintKind::UninitRead) {
            let names = l.message.split(" is read").next().unwrap().split(" are read").next().unwrap();
            for name in names.split(", ").flat_map(|s| s.split(" and ")) {
                let r: u8 = name[1..].parse().expect("a register number");
                proptest::prop_assert!(name.starts_with('R') && code[l.pc as usize].effects().reads.contains(r) && unwritten_path(l.pc, r), "{}", l.message);
                reported.push(r);
            }
        }
        for pc in (0..n).filter(|&pc| reachable[pc as usize]) {
            for r in code[pc as usize].effects().reads.iter() {
                if unwritten_path(pc, r) {
                    proptest::prop_assert!(reported.contains(&r), "R{r} at pc {pc}");
                }
            }
        }
    }
}
