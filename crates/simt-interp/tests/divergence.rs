//! The divergence demos of `asm/divergence/` under both SIMT models: same
//! results, the same active mask at every issued instruction on structured
//! code, and the documented differences (spin lock, divergent barrier,
//! collectives in divergent code).

// Faults travel by value in these helpers, as in the library.
#![allow(clippy::result_large_err)]

mod common;

use common::{asm_dir, assemble_file, assemble_text, stepped_traces, u32s};
use simt_host::{LaunchRequest, PreparedLaunch, prepare};
use simt_interp::{FaultKind, Launch, RunOptions, SimtModel};
use simt_isa::{ElemType, Module};

fn demo(name: &str) -> std::path::PathBuf {
    asm_dir().join("divergence").join(name)
}

fn options(simt: SimtModel) -> RunOptions {
    RunOptions { simt, max_steps: 1_000_000, ..RunOptions::default() }
}

fn prepared(module: &Module) -> PreparedLaunch {
    prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults suffice")
}

/// Steps every block warp by warp, recording each warp's (pc, active mask) issues, and returns them with the output.
fn trace(module: &Module, simt: SimtModel) -> (Vec<Vec<(u32, u32)>>, Vec<u32>) {
    let kernel = &module.kernels[0];
    let p = prepared(module);
    let opts = options(simt);
    let launch = Launch::new(kernel, &p.config, &p.memory, &opts).expect("valid launch");
    let traces =
        stepped_traces(&launch, |f| f.render(module, false)).into_iter().map(|t| t.into_iter().map(|(pc, active, _)| (pc, active)).collect()).collect();
    let (elem, bytes) = p.buffer("out").expect("every demo has `out`");
    assert_eq!(elem, ElemType::U32);
    (traces, u32s(&bytes))
}

fn run_plain(module: &Module, simt: SimtModel) -> Result<simt_interp::Stats, simt_interp::Fault> {
    let p = prepared(module);
    simt_interp::run(&module.kernels[0], &p.config, &p.memory, &options(simt), None)
}

fn run(module: &Module, simt: SimtModel) -> Result<PreparedLaunch, simt_interp::Fault> {
    let p = prepared(module);
    simt_interp::run(&module.kernels[0], &p.config, &p.memory, &options(simt), None)?;
    Ok(p)
}

#[test]
fn structured_demos_issue_identical_masks_under_both_models() {
    for name in ["if_else.s", "nested.s", "data_loop.s", "loop_diverge.s"] {
        let module = assemble_file(&demo(name));
        let (its, its_out) = trace(&module, SimtModel::Its);
        let (stack, stack_out) = trace(&module, SimtModel::Stack);
        assert_eq!(its_out, stack_out, "{name}: results differ");
        assert_eq!(its, stack, "{name}: issue sequences differ");
    }
}

#[test]
fn structured_demos_compute_what_they_say() {
    let out = |name: &str| trace(&assemble_file(&demo(name)), SimtModel::Its).1;
    let if_else: Vec<u32> = (0..64).map(|t| if t % 2 == 0 { 2 * t } else { 3 * t }).collect();
    assert_eq!(out("if_else.s"), if_else);
    let nested: Vec<u32> = (0..32).map(|l| [10, 10, 20, 20, 30, 30, 40, 50][l as usize % 8] + l).collect();
    assert_eq!(out("nested.s"), nested);
    let data_loop: Vec<u32> = (0..64).map(|t| 3u32.pow(t % 8)).collect();
    assert_eq!(out("data_loop.s"), data_loop);
    let loop_diverge: Vec<u32> = (0..32u32).map(|l| (0..6).fold(0u32, |acc, i| if (l + i) % 4 == 0 { acc + 1000 } else { acc * 2 + i })).collect();
    assert_eq!(out("loop_diverge.s"), loop_diverge);
}

#[test]
fn the_divergent_branch_splits_the_mask_and_reconverges() {
    let module = assemble_file(&demo("if_else.s"));
    let (traces, _) = trace(&module, SimtModel::Its);
    let odd = 0xAAAA_AAAA;
    let even = 0x5555_5555;
    let masks: Vec<u32> = traces[0].iter().map(|&(_, m)| m).collect();
    // S2R AND ISETP BRA (all), IMUL BRA (odd), SHL (even), LD LEA ST EXIT (all)
    assert_eq!(masks, [!0, !0, !0, !0, odd, odd, even, !0, !0, !0, !0]);
}

#[test]
fn early_exit_threads_leave_the_vote() {
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let (_, out) = trace(&assemble_file(&demo("early_exit.s")), simt);
        let want: Vec<u32> = (0..32).map(|l| if l % 2 == 1 { l } else { 100 * l + 0x5555 }).collect();
        assert_eq!(out, want, "{simt:?}");
    }
}

#[test]
fn the_spin_lock_completes_under_its_and_faults_under_stack() {
    let module = assemble_file(&demo("spinlock.s"));
    // One OS thread for both: with two, a block spinning on the lock the other block's thread
    // holds can spend the step limit while the OS has that thread descheduled (seen on a loaded
    // 2-core machine); and under the stack model the block that reports the step limit may be
    // the one spinning on the other's lock, none of its lanes waiting on the stack (1 run in 30).
    let one_thread = |simt| RunOptions { threads: Some(1), ..options(simt) };
    let p = prepared(&module);
    simt_interp::run(&module.kernels[0], &p.config, &p.memory, &one_thread(SimtModel::Its), None).unwrap_or_else(|f| panic!("{}", f.render(&module, false)));
    assert_eq!(u32s(&p.buffer("counter").unwrap().1), [128]);

    let p = prepared(&module);
    let fault = simt_interp::run(&module.kernels[0], &p.config, &p.memory, &one_thread(SimtModel::Stack), None).expect_err("the stack model cannot finish");
    assert_eq!(fault.kind, FaultKind::StepLimit);
    let text = fault.render(&module, false);
    assert!(text.contains("spinlock.s:"), "{text}");
    assert!(text.contains("wait on the reconvergence stack"), "{text}");
}

#[test]
fn a_smaller_yield_count_still_completes_the_spin_lock() {
    let module = assemble_file(&demo("spinlock.s"));
    for y in [1, 2, 100] {
        let p = prepared(&module);
        // One OS thread, as above.
        let opts = RunOptions { its_yield: y, threads: Some(1), ..options(SimtModel::Its) };
        simt_interp::run(&module.kernels[0], &p.config, &p.memory, &opts, None).expect("completes");
        assert_eq!(u32s(&p.buffer("counter").unwrap().1), [128], "Y = {y}");
    }
}

#[test]
fn a_divergent_barrier_completes_under_its_and_deadlocks_under_stack() {
    let module = assemble_file(&asm_dir().join("bugs/divergent_barrier.s"));
    let p = run(&module, SimtModel::Its).unwrap_or_else(|f| panic!("{}", f.render(&module, false)));
    let want: Vec<u32> = (0..64).map(|t| t ^ 1).collect();
    assert_eq!(u32s(&p.buffer("out").unwrap().1), want);

    let fault = run(&module, SimtModel::Stack).expect_err("deadlock");
    assert_eq!(fault.kind, FaultKind::Deadlock);
    let text = fault.render(&module, false);
    assert!(text.contains("wait at the block barrier"), "{text}");
    assert!(text.contains("wait on the reconvergence stack"), "{text}");
}

#[test]
fn collectives_at_different_pcs_deadlock_under_its() {
    let module = assemble_text(
        ".kernel k\n.launch grid(1) block(32)\n\
         S2R R0, SR_LANEID\nISETP.LT P0, R0, 16\n@P0 BRA LOW\nVOTE.ANY P1, PT\nBRA JOIN\n\
         LOW:\nSHFL.IDX R1, R0, 0\nJOIN:\nEXIT\n",
    );
    let fault = run_plain(&module, SimtModel::Its).expect_err("deadlock");
    assert_eq!(fault.kind, FaultKind::Deadlock);
    let text = fault.render(&module, false);
    assert!(text.contains("lanes 0-15: wait for the whole warp at a collective at pc 5"), "{text}");
    assert!(text.contains("lanes 16-31: wait for the whole warp at a collective at pc 3"), "{text}");
    // Under the stack model each side runs its collective with its own active lanes.
    run_plain(&module, SimtModel::Stack).expect("stack runs them with the active mask");
}

#[test]
fn a_collective_completes_once_the_other_threads_have_exited() {
    // Lanes 16..31 wait to reconverge while lanes 0..15 wait at the shuffle: the
    // convergence barrier clears because every other participant is blocked, they
    // exit, and then every live thread has arrived at the shuffle.
    let module = assemble_text(
        ".kernel k\n.param .ptr.u32 out\n.launch grid(1) block(32)\n.arg out = zeros(32)\n\
         S2R R0, SR_LANEID\nISETP.LT P0, R0, 16\n@P0 BRA LOW\nMOV R1, 1\nBRA JOIN\n\
         LOW:\nSHFL.IDX R1, R0, 3\nJOIN:\nLD.PARAM.U32 R2, [out]\nLEA R2, R0, R2, 2\nST.GLOBAL.U32 [R2], R1\nEXIT\n",
    );
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let p = run(&module, simt).unwrap_or_else(|f| panic!("{}", f.render(&module, false)));
        let want: Vec<u32> = (0..32).map(|l| if l < 16 { 3 } else { 1 }).collect();
        assert_eq!(u32s(&p.buffer("out").unwrap().1), want, "{simt:?}");
    }
}

#[test]
fn a_barrier_some_threads_skip_deadlocks_and_names_everyone() {
    let module = assemble_text(".kernel k\n.launch grid(1) block(64)\nS2R R0, SR_TID.X\nISETP.GE P0, R0, 32\n@P0 EXIT\nBAR.SYNC\nEXIT\n");
    // Threads 32..63 exit, so the barrier only needs warp 0: it completes.
    for simt in [SimtModel::Its, SimtModel::Stack] {
        run_plain(&module, simt).expect("exited threads do not block a barrier");
    }
    let module = assemble_text(".kernel k\n.launch grid(1) block(64)\nS2R R0, SR_TID.X\nISETP.GE P0, R0, 32\n@P0 BRA SPIN\nBAR.SYNC\nEXIT\nSPIN:\nBRA SPIN\n");
    let fault = run_plain(&module, SimtModel::Its).expect_err("warp 1 never arrives");
    assert_eq!(fault.kind, FaultKind::StepLimit);
    assert!(fault.render(&module, false).contains("warp 0, lanes 0-31: wait at the block barrier"));
}

#[test]
fn guarded_off_lanes_do_not_vote_and_keep_their_destination() {
    let module = assemble_text(
        ".kernel k\n.param .ptr.u32 out\n.launch grid(1) block(32)\n.arg out = zeros(64)\n\
         S2R R0, SR_LANEID\nMOV R1, 7\nISETP.LT P0, R0, 8\n\
         @P0 VOTE.BALLOT R1, PT\n\
         @P0 VOTE.ALL P1, PT\nSEL R2, 1, 0, P1\n\
         LD.PARAM.U32 R3, [out]\nLEA R4, R0, R3, 3\nST.GLOBAL.U32 [R4], R1\nST.GLOBAL.U32 [R4+4], R2\nEXIT\n",
    );
    for simt in [SimtModel::Its, SimtModel::Stack] {
        let p = run(&module, simt).unwrap();
        let out = u32s(&p.buffer("out").unwrap().1);
        for l in 0..32 {
            let (ballot, all) = (out[2 * l], out[2 * l + 1]);
            if l < 8 {
                assert_eq!((ballot, all), (0xFF, 1), "lane {l}: guard-false lanes 8.. take no part, so ALL holds (contract v0.3)");
            } else {
                assert_eq!((ballot, all), (7, 0), "lane {l} keeps R1 and P1");
            }
        }
    }
}
