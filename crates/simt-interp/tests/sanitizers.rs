//! `--check` racecheck, initcheck and synccheck: each planted bug of
//! `asm/bugs/` is caught at the right line, and the kernel library runs clean.

// Faults travel by value in these helpers, as in the library.
#![allow(clippy::result_large_err)]

mod common;

use common::{asm_dir, assemble_file, assemble_text, library_files};
use simt_host::{LaunchRequest, prepare};
use simt_interp::{Checks, Fault, FaultKind, Finding, RunOptions, SimtModel};
use simt_isa::Module;

const ALL: Checks = Checks { racecheck: true, initcheck: true, synccheck: true };

/// Runs the kernel's default launch: the findings of the checks, or the fault that stopped it.
fn run_with(module: &Module, options: RunOptions) -> Result<Vec<Finding>, Fault> {
    let kernel = &module.kernels[0];
    let p = prepare(kernel, &LaunchRequest::default()).expect("defaults suffice");
    simt_interp::run(kernel, &p.config, &p.memory, &options, None).map(|stats| stats.findings)
}

fn run(module: &Module, simt: SimtModel, checks: Checks) -> Result<Vec<Finding>, Fault> {
    // Enough for every library kernel; the spin lock under `stack` stops here by design.
    run_with(module, RunOptions { simt, checks, max_steps: 1_000_000, ..RunOptions::default() })
}

/// The first problem: the first finding, or the fault that stopped the launch.
fn fault(module: &Module, simt: SimtModel, checks: Checks) -> Fault {
    match run(module, simt, checks) {
        Ok(findings) => findings.into_iter().next().expect("the planted bug is caught").fault,
        Err(fault) => fault,
    }
}

/// Runs the kernel and insists nothing was found.
fn clean(module: &Module, simt: SimtModel, checks: Checks) {
    match run(module, simt, checks) {
        Ok(findings) => assert!(findings.is_empty(), "{}", findings.iter().map(|f| f.render(module, false)).collect::<String>()),
        Err(f) => panic!("{}", f.render(module, false)),
    }
}

#[test]
fn each_planted_bug_is_caught_at_its_line() {
    let cases = [
        ("race.s", FaultKind::Race, 19, Some(14)),
        ("early_arrive.s", FaultKind::Race, 30, Some(44)),
        ("uninit.s", FaultKind::Uninitialized, 19, None),
        ("divergent_barrier.s", FaultKind::Divergence, 23, None),
        ("oob.s", FaultKind::OutOfBounds, 16, None),
    ];
    for (name, kind, line, related) in cases {
        let module = assemble_file(&asm_dir().join("bugs").join(name));
        let f = fault(&module, SimtModel::Its, ALL);
        assert_eq!((f.kind, f.line), (kind, Some(line)), "{name}: {}", f.render(&module, false));
        assert_eq!(f.related.first().map(|r| r.0), related, "{name}");
    }
}

#[test]
fn without_the_checks_the_planted_bugs_go_unnoticed() {
    for name in ["race.s", "early_arrive.s", "uninit.s", "divergent_barrier.s"] {
        let module = assemble_file(&asm_dir().join("bugs").join(name));
        clean(&module, SimtModel::Its, Checks::default());
    }
}

#[test]
fn the_race_report_names_both_threads_and_lines() {
    let module = assemble_file(&asm_dir().join("bugs/race.s"));
    let text = fault(&module, SimtModel::Its, ALL).render(&module, false);
    assert!(text.contains("read after write hazard"), "{text}");
    assert!(text.contains("thread (1,0,0) wrote it here"), "{text}");
    assert!(text.contains("thread (0,0,0)"), "{text}");
    assert!(text.contains("race.s:19"), "{text}");
}

#[test]
fn the_kernel_library_runs_clean_under_every_check() {
    let files = library_files();
    assert!(files.len() >= 10, "the library is missing: {files:?}");
    for path in files {
        let module = assemble_file(&path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // The microbenchmarks time instructions on whatever their registers hold (zeros),
        // so the seed's worked trace keeps its exact shape: reading unwritten registers
        // is their design, not a bug.
        let microbenchmark = path.parent().is_some_and(|p| p.ends_with("bench"));
        let checks = Checks { initcheck: !microbenchmark, ..ALL };
        for simt in [SimtModel::Its, SimtModel::Stack] {
            match run(&module, simt, checks) {
                Ok(findings) if findings.is_empty() => {}
                // The spin lock cannot finish under the stack model by design: a step limit, not a finding.
                Err(f) if f.kind == FaultKind::StepLimit && f.findings.is_empty() && simt == SimtModel::Stack && name == "spinlock.s" => {}
                Ok(findings) => panic!("{name} under {simt:?}: {}", findings.iter().map(|f| f.render(&module, false)).collect::<String>()),
                Err(f) => panic!("{name} under {simt:?}: {}", f.render(&module, false)),
            }
        }
    }
}

fn text(source: &str) -> Module {
    assemble_text(source)
}

const NEIGHBOURS: &str = ".kernel k\n.param .ptr.u32 out\n.shared .u32 s[32]\n.launch grid(1) block(32)\n.arg out = zeros(32)\n\
    S2R R0, SR_LANEID\nLEA R1, R0, s, 2\nST.SHARED.U32 [R1], R0\nSYNC\nXOR R2, R0, 1\nLEA R2, R2, s, 2\nLD.SHARED.U32 R3, [R2]\n\
    LD.PARAM.U32 R4, [out]\nLEA R4, R0, R4, 2\nST.GLOBAL.U32 [R4], R3\nEXIT\n";

#[test]
fn threads_of_one_warp_race_under_its_unless_they_warpsync() {
    let unsynced = text(&NEIGHBOURS.replace("SYNC\n", ""));
    assert_eq!(fault(&unsynced, SimtModel::Its, ALL).kind, FaultKind::Race);
    // A lock-step warp orders its instructions: no hazard under the stack model.
    clean(&unsynced, SimtModel::Stack, ALL);
    let synced = text(&NEIGHBOURS.replace("SYNC\n", "WARPSYNC\n"));
    clean(&synced, SimtModel::Its, ALL);
}

/// Warp 0 writes a row and arrives at counted barrier 1; warp 1 waits there and reads it;
/// warp 2 reads it too, taking no part in the barrier.
const BYSTANDER: &str = ".kernel k\n.param .ptr.u32 out\n.shared .u32 row[32]\n.launch grid(1) block(96)\n.arg out = zeros(96)\n\
    S2R R0, SR_TID.X\nSHR.U32 R1, R0, 5\nAND R2, R0, 31\nLEA R3, R2, row, 2\nISETP.NE.U32 P0, R1, 0\n@P0 BRA READ\n\
    ST.SHARED.U32 [R3], R0\nBAR.ARRIVE 1, 64\nEXIT\nREAD:\nISETP.EQ.U32 P1, R1, 1\n@P1 BAR.SYNC 1, 64\nLD.SHARED.U32 R4, [R3]\n\
    LD.PARAM.U32 R5, [out]\nLEA R5, R0, R5, 2\nST.GLOBAL.U32 [R5], R4\nEXIT\n";

#[test]
fn arriving_after_the_read_mends_the_early_arrival() {
    let planted = std::fs::read_to_string(asm_dir().join("bugs/early_arrive.s")).unwrap();
    let (arrive, read) = ("@P2 BAR.ARRIVE 2, 64", "LD.SHARED.U32 R6, [R3+slot]");
    let mended = planted.replacen(arrive, "NOP", 1).replacen(read, &format!("{read}\n{arrive}"), 1);
    for simt in [SimtModel::Its, SimtModel::Stack] {
        clean(&text(&mended), simt, ALL);
    }
}

#[test]
fn tensor_copies_race_with_the_threads_they_are_not_ordered_with() {
    let tma = std::fs::read_to_string(asm_dir().join("tma.s")).unwrap();
    // Reading the tile without waiting for the copy's phase: warps 1 to 3 race with the
    // TMA.LOAD thread 0 issued (warp 0 is one unit with its issuing lane).
    let unwaited = tma.replacen("MBAR.TEST P1, [bar], 0", "NOP", 1).replacen("@!P1 BRA    WAIT", "NOP", 1);
    let f = fault(&text(&unwaited), SimtModel::Its, ALL);
    assert_eq!((f.kind, f.thread, f.related.first().map(|r| r.0)), (FaultKind::Race, Some([32, 0, 0]), Some(42)), "{}", f.message);
    assert!(f.message.contains("read after write"), "{}", f.message);
    // Storing the tile before every thread has written its share: the TMA.STORE's read races.
    let unbarriered = tma.replacen("BAR.SYNC                        // `moved` is whole", "NOP", 1);
    let f = fault(&text(&unbarriered), SimtModel::Its, ALL);
    assert_eq!((f.kind, f.line), (FaultKind::Race, Some(72)), "{}", f.message);
    // Storing a tile nobody wrote: initcheck names the first byte.
    let unwritten = tma.replacen("ST.SHARED.U32 [R17+moved], R16", "NOP", 1);
    let f = fault(&text(&unwritten), SimtModel::Its, ALL);
    assert_eq!((f.kind, f.line), (FaultKind::Uninitialized, Some(72)), "{}", f.message);
    assert!(f.message.contains("TMA.STORE.2D reads the box's byte at shared address 0x1000"), "{}", f.message);
}

#[test]
fn a_wgmma_reading_tiles_no_barrier_orders_races_with_their_stores() {
    let wgmma = std::fs::read_to_string(asm_dir().join("wgmma.s")).unwrap();
    let unbarriered = wgmma.replacen("BAR.SYNC                        // the tiles are whole", "NOP //", 1);
    assert_ne!(unbarriered, wgmma);
    let f = fault(&text(&unbarriered), SimtModel::Its, ALL);
    assert_eq!((f.kind, f.line), (FaultKind::Race, Some(84)), "{}", f.message);
    assert!(f.message.contains("read after write"), "{}", f.message);
}

/// `asm/tcgen05.s` is clean; loading D from tensor memory without waiting for the commit's
/// mbarrier races with the `TCMMA` thread 0 issued (warps 1 to 3 read its rows), and loading
/// all 32 lanes of a warp's quarter reads the 16 an M = 64 MMA leaves unwritten.
#[test]
fn tensor_memory_accesses_race_unless_the_commit_orders_them() {
    let tcgen05 = std::fs::read_to_string(asm_dir().join("tcgen05.s")).unwrap();
    for simt in [SimtModel::Its, SimtModel::Stack] {
        clean(&text(&tcgen05), simt, ALL);
    }
    let unwaited = tcgen05.replacen("MBAR.TEST P2, [bar], 0", "NOP", 1).replacen("@!P2 BRA    WAIT", "NOP", 1);
    assert_ne!(unwaited, tcgen05);
    let f = fault(&text(&unwaited), SimtModel::Its, ALL);
    assert_eq!((f.kind, f.thread, f.related.first().map(|r| r.0)), (FaultKind::Race, Some([32, 0, 0]), Some(90)), "{}", f.message);
    assert!(f.message.contains("read after write hazard on TMEM lane 32 column 0"), "{}", f.message);
    let whole_quarter = tcgen05.replacen("TMEM.LD.16X32BX2.X16 R16, [R15], 16", "TMEM.LD.32X32B.X16 R16, [R15]", 1);
    assert_ne!(whole_quarter, tcgen05);
    let f = fault(&text(&whole_quarter), SimtModel::Its, ALL);
    assert_eq!(f.kind, FaultKind::Uninitialized, "{}", f.message);
    assert!(f.message.contains("reads TMEM lane 16 column 0, which no thread wrote since TMEM.ALLOC gave it"), "{}", f.message);
}

#[test]
fn a_counted_barrier_orders_only_the_warps_that_take_part() {
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let f = fault(&text(BYSTANDER), simt, ALL);
        assert_eq!((f.kind, f.line, f.related.first().map(|r| r.0)), (FaultKind::Race, Some(18), Some(12)), "{simt:?}");
        assert_eq!(f.thread, Some([64, 0, 0]), "warp 2 reads what warp 0 wrote: {simt:?}");
        // Warp 2 waiting at the barrier too (it counts 96 threads then) orders its read.
        clean(&text(&BYSTANDER.replace("64", "96").replace("@P1 BAR.SYNC", "BAR.SYNC")), simt, ALL);
    }
}

/// Warp 0 writes a row and thread 0 arrives on an mbarrier; warp 1 waits for its phase and
/// reads the row.
const HANDOFF: &str = ".kernel k\n.param .ptr.u32 out\n.shared .align 8 .u64 bar\n.shared .u32 row[32]\n.launch grid(1) block(64)\n\
    .arg out = zeros(32)\nS2R R0, SR_TID.X\nISETP.EQ.U32 P0, R0, 0\n@P0 MBAR.INIT [bar], 1\nBAR.SYNC\nSHR.U32 R1, R0, 5\n\
    AND R2, R0, 31\nLEA R3, R2, row, 2\nISETP.NE.U32 P1, R1, 0\n@P1 BRA CONSUME\nIADD R4, R2, 100\nST.SHARED.U32 [R3], R4\n\
    WARPSYNC\n@P0 MBAR.ARRIVE RZ, [bar], 1, 0\nEXIT\nCONSUME:\nMBAR.TEST P2, [bar], 0\n@!P2 BRA CONSUME\nLD.SHARED.U32 R5, [R3]\n\
    LD.PARAM.U32 R6, [out]\nLEA R6, R2, R6, 2\nST.GLOBAL.U32 [R6], R5\nEXIT\n";

#[test]
fn an_mbarrier_wait_orders_what_its_arrivals_did_before() {
    for simt in [SimtModel::Its, SimtModel::Stack] {
        clean(&text(HANDOFF), simt, ALL);
        // Without the wait, the read races with the write.
        let unordered = text(&HANDOFF.replace("MBAR.TEST P2, [bar], 0\n@!P2 BRA CONSUME\n", ""));
        let f = fault(&unordered, simt, ALL);
        assert_eq!((f.kind, f.thread), (FaultKind::Race, Some([32, 0, 0])), "{simt:?}: {}", f.render(&unordered, false));
    }
}

/// Every thread of two warps stores a value to one shared word, and thread 0 reads it back
/// after a barrier.
const ONE_WORD: &str = ".kernel k\n.param .ptr.u32 out\n.shared .u32 c\n.launch grid(1) block(64)\n.arg out = zeros(1)\n\
    S2R R0, SR_TID.X\nMOV R1, VALUE\nST.SHARED.U32 [c], R1\nBAR.SYNC\nISETP.NE.U32 P0, R0, 0\n@P0 EXIT\nLD.SHARED.U32 R2, [c]\n\
    LD.PARAM.U32 R3, [out]\nST.GLOBAL.U32 [R3], R2\nEXIT\n";

#[test]
fn stores_of_one_value_to_one_address_do_not_race() {
    for simt in [SimtModel::Its, SimtModel::Stack] {
        // Whichever lane's or warp's store lands last, the word holds 7.
        clean(&text(&ONE_WORD.replace("VALUE", "7")), simt, ALL);
        // Each thread's own index: the word holds whichever came last.
        let f = fault(&text(&ONE_WORD.replace("VALUE", "R0")), simt, ALL);
        assert_eq!((f.kind, f.line), (FaultKind::Race, Some(8)), "{simt:?}");
        assert!(f.message.contains("write after write"), "{}", f.message);
    }
}

#[test]
fn atomics_do_not_race_with_each_other() {
    let module = text(
        ".kernel k\n.param .ptr.u32 out\n.shared .u32 c\n.launch grid(1) block(128)\n.arg out = zeros(1)\n\
         S2R R0, SR_TID.X\nISETP.NE P0, R0, 0\n@!P0 ST.SHARED.U32 [c], RZ\nBAR.SYNC\nATOM.SHARED.ADD.U32 RZ, [c], 1\nBAR.SYNC\n\
         @P0 EXIT\nLD.SHARED.U32 R1, [c]\nLD.PARAM.U32 R2, [out]\nST.GLOBAL.U32 [R2], R1\nEXIT\n",
    );
    clean(&module, SimtModel::Its, ALL);
}

#[test]
fn initcheck_catches_an_unwritten_register_and_local_memory() {
    let reg = text(".kernel k\n.launch grid(1) block(32)\nIADD R1, R0, 1\nEXIT\n");
    let f = fault(&reg, SimtModel::Its, ALL);
    assert_eq!((f.kind, f.line), (FaultKind::Uninitialized, Some(3)));
    assert!(f.message.contains("R0 is read by lanes 0-31"), "{}", f.message);

    let local = text(".kernel k\n.local 16\n.launch grid(1) block(32)\nST.LOCAL.U32 [0], RZ\nLD.LOCAL.U32 R1, [4]\nEXIT\n");
    let f = fault(&local, SimtModel::Stack, ALL);
    assert_eq!((f.kind, f.line), (FaultKind::Uninitialized, Some(5)));
}

#[test]
fn synccheck_catches_a_shuffle_from_a_lane_that_takes_no_part() {
    let source = ".kernel k\n.launch grid(1) block(32)\nS2R R0, SR_LANEID\nISETP.LT P0, R0, 16\n@P0 BRA LOW\nMOV R1, 7\nBRA JOIN\nLOW:\nSHFL.IDX R1, R0, SRC\nJOIN:\nEXIT\n";
    let module = text(&source.replace("SRC", "31"));
    // Under `stack` lane 31 waits at JOIN, inactive; under `its` it is released from JOIN
    // (everyone else is blocked at the shuffle) and exits before the shuffle runs.
    for (simt, why) in [(SimtModel::Stack, "inactive"), (SimtModel::Its, "exited")] {
        let f = fault(&module, simt, ALL);
        assert_eq!((f.kind, f.line), (FaultKind::Divergence, Some(9)), "{simt:?}");
        assert!(f.message.contains(why), "{}", f.message);
    }
    clean(&text(&source.replace("SRC", "3")), SimtModel::Stack, ALL);
}

/// A racy neighbour exchange in every block, and in block `FAULTY` a store out of bounds.
const RACY_GRID: &str = ".kernel k\n.param .ptr.u32 out\n.shared .u32 s[64]\n.launch grid(GRID) block(64)\n.arg out = zeros(64)\n\
    S2R R0, SR_TID.X\nLEA R1, R0, s, 2\nST.SHARED.U32 [R1], R0\nIADD R2, R0, 1\nAND R2, R2, 63\nLEA R2, R2, s, 2\n\
    LD.SHARED.U32 R3, [R2]\nS2R R5, SR_CTAID.X\nISETP.EQ P0, R5, FAULTY\n@P0 IADD R0, R0, 1000\n\
    LD.PARAM.U32 R4, [out]\nLEA R4, R0, R4, 2\nST.GLOBAL.U32 [R4], R3\nEXIT\n";

#[test]
fn the_launch_goes_on_after_a_finding_and_reports_each_distinct_one_once() {
    let module = text(&RACY_GRID.replace("GRID", "4").replace("FAULTY", "99"));
    let findings = run(&module, SimtModel::Its, Checks { racecheck: true, ..Checks::default() }).expect("no fault");
    let seen: Vec<_> = findings.iter().map(|f| (f.fault.kind, f.fault.line, f.fault.related.first().map(|r| r.0), f.count)).collect();
    // Every thread but lane 31 of warp 0 reads a neighbour's slot written before (63 a
    // block); lane 31 reads slot 32 before warp 1 writes it, which warp 1 then does.
    assert_eq!(seen, [(FaultKind::Race, Some(12), Some(8), Some(4 * 63)), (FaultKind::Race, Some(8), Some(12), Some(4))]);
    assert_eq!(findings[0].fault.block, [0, 0, 0], "the first occurrence is the lowest block's");
}

#[test]
fn findings_are_the_same_for_any_thread_count() {
    for faulty in ["99", "2"] {
        let module = text(&RACY_GRID.replace("GRID", "16").replace("FAULTY", faulty));
        let results: Vec<_> = [(1, 1), (1, 4), (2, 4), (4, 16)]
            .into_iter()
            .map(|(threads, sms)| {
                let options = RunOptions { checks: ALL, threads: Some(threads), sms, ..RunOptions::default() };
                run_with(&module, options)
            })
            .collect();
        assert!(results.windows(2).all(|w| w[0] == w[1]), "faulty block {faulty}: {results:#?}");
    }
}

#[test]
fn a_fault_reports_the_findings_made_before_it_without_counts() {
    let module = text(&RACY_GRID.replace("GRID", "8").replace("FAULTY", "2"));
    let options = RunOptions { checks: ALL, threads: Some(2), sms: 8, ..RunOptions::default() };
    let fault = run_with(&module, options).expect_err("block 2 stores past its buffer");
    assert_eq!((fault.kind, fault.block), (FaultKind::Unmapped, [2, 0, 0]));
    assert!(!fault.findings.is_empty());
    assert!(fault.findings.iter().all(|f| f.count.is_none() && f.fault.block[0] <= 2), "{:#?}", fault.findings);
}
