//! The stepping API a timing model drives: one warp instruction at a time,
//! with the unit it issues to, its masks, registers, addresses and control
//! events; and, whatever order a model issues warps in, the same results and
//! the same per-instruction masks as `run`.

mod common;

use common::{Rng, assemble_text, load, stepped_traces};
use simt_host::{LaunchRequest, PreparedLaunch, prepare};
use simt_interp::{BlockReason, Counters, Exchange, Launch, Peek, RunOptions, SimtModel, StepResult};
use simt_isa::{AccessKind, LatencyClass, Module, Opcode, Space, Unit};

fn launch_of<'a>(module: &'a Module, p: &'a PreparedLaunch, options: &'a RunOptions) -> Launch<'a> {
    Launch::new(&module.kernels[0], &p.config, &p.memory, options).expect("valid")
}

#[test]
fn steps_report_unit_registers_and_addresses() {
    let module = load("saxpy.s");
    let p = prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults");
    let options = RunOptions::default();
    let launch = launch_of(&module, &p, &options);
    let mut block = launch.block(1, 0);
    let mut steps = Vec::new();
    while let StepResult::Issued(step) = block.step(0).expect("no fault") {
        steps.push(step);
    }
    assert_eq!(block.step(0).unwrap(), StepResult::Done);

    let load = steps.iter().find(|s| s.issued.opcode == Opcode::Ld && s.access.is_some_and(|a| a.space == Space::Global)).expect("a global load");
    assert_eq!((load.issued.unit, load.issued.latency), (Unit::LdSt, LatencyClass::Memory));
    let access = load.access.unwrap();
    assert_eq!((access.size, access.kind), (4, AccessKind::Load));
    let effects = |step: &simt_interp::Step| module.kernels[0].code[step.issued.pc as usize].effects();
    assert_eq!(effects(load).writes.len(), 1, "one register loaded");
    // Block 1, warp 0 handles elements blockDim.x .. blockDim.x + 31, four bytes apart.
    let first = access.addresses[0];
    for (lane, &addr) in access.addresses.iter().enumerate() {
        assert_eq!(addr, first + 4 * lane as u32);
    }
    let ffma = steps.iter().find(|s| s.issued.opcode == Opcode::Ffma).expect("an FFMA");
    assert_eq!((ffma.issued.unit, ffma.issued.active, ffma.issued.executed), (Unit::Fp32, u32::MAX, u32::MAX));
    assert_eq!((effects(ffma).reads.len(), effects(ffma).writes.len()), (3, 1));
    let store = steps.iter().rev().find(|s| s.issued.opcode == Opcode::St).expect("a store");
    assert_eq!(store.access.unwrap().kind, AccessKind::Store);
    let guard = steps.iter().find(|s| s.issued.opcode == Opcode::Isetp).expect("the bounds check");
    assert_ne!(effects(guard).pred_writes, 0, "ISETP writes a predicate");
}

#[test]
fn branches_barriers_shuffles_and_mma_report_their_events() {
    let module = assemble_text(
        ".kernel k\n.launch grid(1) block(64)\nS2R R0, SR_LANEID\nISETP.LT P0, R0, 8\n@P0 BRA SKIP\nNOP\nSKIP: SHFL.BFLY R1, R0, 1\nBAR.SYNC\nEXIT\n",
    );
    let p = prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults");
    let options = RunOptions::default();
    let launch = launch_of(&module, &p, &options);
    let mut block = launch.block(0, 0);
    let mut steps = Vec::new();
    while let StepResult::Issued(step) = block.step(0).expect("no fault") {
        steps.push(step);
    }
    let bra = steps.iter().find(|s| s.issued.opcode == Opcode::Bra).unwrap().branch.expect("a branch event");
    assert_eq!((bra.taken, bra.target, bra.reconv, bra.diverged), (0xFF, 4, Some(4), true));
    let shfl = steps.iter().find(|s| s.issued.opcode == Opcode::Shfl).unwrap();
    let Some(Exchange::Shuffle { sources }) = shfl.exchange else { panic!("a shuffle exchange") };
    assert_eq!(&sources[..4], &[1, 0, 3, 2]);
    let bar = steps.iter().find(|s| s.issued.opcode == Opcode::BarSync).unwrap();
    assert_eq!(bar.arrived, Some(u32::MAX));
    assert_eq!(block.step(0).unwrap(), StepResult::Blocked(BlockReason::Barrier), "warp 0 waits for warp 1");
    assert!(!block.release_barrier(), "warp 1 has not arrived");
}

/// The lanes a memory model sees: `LDSM.X2`'s 16 row lanes whatever executes it, and an
/// `LDGSTS`'s lanes that read some bytes (those with a source size of 0 read nothing).
#[test]
fn matrix_loads_and_copies_show_the_lanes_that_touch_memory() {
    let module = assemble_text(
        ".target sm_80\n.kernel k\n.param .ptr.u32 src\n.shared .align 16 .u32 tile[256]\n.launch grid(1) block(32)\n.arg src = zeros(128)\n\
         S2R R0, SR_LANEID\nSHL R1, R0, 4\nLD.PARAM.U32 R2, [src]\nIADD R2, R2, R1\nAND R3, R0, 1\nLDGSTS.V4 R1, [R2], R3\nLDSM.X2 R4, [R1]\nEXIT\n",
    );
    let p = prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults");
    let options = RunOptions::default();
    let launch = launch_of(&module, &p, &options);
    let mut block = launch.block(0, 0);
    let mut steps = Vec::new();
    while let StepResult::Issued(step) = block.step(0).expect("no fault") {
        steps.push(step);
    }
    let lanes = |opcode| steps.iter().find(|s| s.issued.opcode == opcode).and_then(|s| s.access).map(|a| (a.space, a.size, a.lanes));
    assert_eq!(lanes(Opcode::Ldgsts), Some((Space::Global, 16, 0xAAAA_AAAA)));
    assert_eq!(lanes(Opcode::Ldsm), Some((Space::Shared, 16, 0xFFFF)));
}

#[test]
fn a_warp_waiting_at_a_barrier_blocks_until_it_is_released() {
    let module = assemble_text(".kernel k\n.launch grid(1) block(64)\nBAR.SYNC\nEXIT\n");
    let p = prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults");
    let options = RunOptions::default();
    let launch = launch_of(&module, &p, &options);
    let mut block = launch.block(0, 0);
    assert!(matches!(block.step(0).unwrap(), StepResult::Issued(s) if s.issued.opcode == Opcode::BarSync && s.issued.unit == Unit::Control));
    assert_eq!(block.peek(0), Peek::Blocked(BlockReason::Barrier));
    assert!(matches!(block.peek(1), Peek::Issue(p) if p.opcode == Opcode::BarSync));
    assert_eq!(block.force_progress(), Ok(false), "warp 1 can still issue, so nothing is forced");
    assert!(matches!(block.step(1).unwrap(), StepResult::Issued(_)));
    assert!(block.barrier_complete());
    assert!(block.release_barrier());
    assert!(matches!(block.step(0).unwrap(), StepResult::Issued(s) if s.issued.opcode == Opcode::Exit));
    assert!(matches!(block.step(1).unwrap(), StepResult::Issued(s) if s.issued.opcode == Opcode::Exit));
    assert!(block.is_done());
}

#[test]
fn the_clock_hook_feeds_sr_clock() {
    let module = assemble_text(
        ".kernel k\n.param .ptr.u32 out\n.launch grid(1) block(32)\n.arg out = zeros(32)\nS2R R0, SR_CLOCK\nS2R R1, SR_LANEID\nLD.PARAM.U32 R2, [out]\nLEA R2, R1, R2, 2\nST.GLOBAL.U32 [R2], R0\nEXIT\n",
    );
    let p = prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults");
    let options = RunOptions::default();
    let launch = launch_of(&module, &p, &options);
    let mut block = launch.block(0, 0);
    block.set_clock(1234);
    while let StepResult::Issued(_) = block.step(0).unwrap() {}
    let out = p.buffer("out").unwrap().1;
    assert_eq!(u32::from_le_bytes(out[..4].try_into().unwrap()), 1234);
}

#[test]
fn step_honours_the_step_limit() {
    let module = assemble_text(".kernel k\n.launch grid(1) block(32)\nL: BRA L\n");
    let p = prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults");
    let options = RunOptions { max_steps: 10, ..RunOptions::default() };
    let launch = launch_of(&module, &p, &options);
    let mut block = launch.block(0, 0);
    for _ in 0..10 {
        assert!(matches!(block.step(0), Ok(StepResult::Issued(_))));
    }
    let fault = block.step(0).expect_err("the eleventh step is over the limit");
    assert_eq!(fault.kind, simt_interp::FaultKind::StepLimit);
}

#[test]
fn batched_step_counts_keep_the_limit_and_add_up() {
    let module = assemble_text(".kernel k\n.launch grid(1) block(32)\nL: BRA L\n");
    let p = prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults");
    let options = RunOptions { max_steps: 10, ..RunOptions::default() };
    let launch = launch_of(&module, &p, &options);
    let mut block = launch.block(0, 0);
    block.batch_steps(64);
    for _ in 0..10 {
        assert!(matches!(block.step(0), Ok(StepResult::Issued(_))));
    }
    assert_eq!(launch.steps(), 0, "not added to the shared count yet");
    let fault = block.step(0).expect_err("the limit counts the unflushed steps");
    assert_eq!(fault.kind, simt_interp::FaultKind::StepLimit);
    let _ = block.into_counters();
    assert_eq!(launch.steps(), 10);
}

/// Every warp's (pc, active, executed) issue sequence of one block.
type Trace = Vec<(u32, u32, u32)>;

/// Runs every block through the stepping API, issuing warps in an order chosen by
/// `rng`: random warps, random holds, and release calls made early and often.
fn adversarial(module: &Module, p: &PreparedLaunch, options: &RunOptions, rng: &mut Rng) -> (Vec<Trace>, Counters) {
    let launch = launch_of(module, p, options);
    let mut all = Counters::new(module.kernels[0].code.len());
    let mut traces = Vec::new();
    for b in 0..launch.blocks() {
        let mut block = launch.block(b, 0);
        let mut trace = vec![Vec::new(); block.warp_count()];
        while !block.is_done() {
            // Early calls must change nothing while a warp can still issue.
            if rng.below(4) == 0 {
                block.release_barrier();
                block.force_progress().expect("no deadlock");
            }
            let runnable: Vec<usize> = (0..block.warp_count()).filter(|&w| matches!(block.peek(w), Peek::Issue(_))).collect();
            if runnable.is_empty() {
                if !block.release_barrier() {
                    assert!(block.force_progress().expect("no deadlock"), "a stalled block must make progress");
                }
                continue;
            }
            let w = runnable[rng.below(runnable.len() as u64) as usize];
            // Peek again (it must not change anything), then issue a random burst.
            for _ in 0..=rng.below(3) {
                let StepResult::Issued(step) = block.step(w).expect("no fault") else { break };
                trace[w].push((step.issued.pc, step.issued.active, step.issued.executed));
            }
        }
        traces.extend(trace);
        all.add(&block.into_counters());
    }
    (traces, all)
}

#[test]
fn any_warp_order_gives_the_results_and_masks_of_run() {
    for (file, grid) in [
        ("block_reduce.s", None),
        ("prefix_scan.s", None),
        ("histogram.s", None),
        ("warp_reduce.s", None),
        ("divergence/nested.s", None),
        ("divergence/loop_diverge.s", None),
        ("sgemm.s", Some([2, 2, 1])),
    ] {
        let module = load(file);
        for simt in [SimtModel::Its, SimtModel::Stack] {
            let options = RunOptions { simt, threads: Some(1), ..RunOptions::default() };
            let request = LaunchRequest { grid, ..LaunchRequest::default() };
            let reference = prepare(&module.kernels[0], &request).expect("defaults");
            let stats = simt_interp::run(&module.kernels[0], &reference.config, &reference.memory, &options, None).expect("runs");
            let ordered = prepare(&module.kernels[0], &request).expect("defaults");
            let want = stepped_traces(&launch_of(&module, &ordered, &options), |f| f.render(&module, false));
            let stepped = prepare(&module.kernels[0], &request).expect("defaults");
            let mut rng = Rng(0x5eed ^ file.len() as u64);
            let (got, counters) = adversarial(&module, &stepped, &options, &mut rng);
            assert_eq!(got, want, "{file} under {simt:?}: issue masks differ");
            for (name, _) in &reference.buffers {
                assert_eq!(stepped.buffer(name), reference.buffer(name), "{file} under {simt:?}: buffer {name}");
            }
            let launch = launch_of(&module, &stepped, &options);
            assert_eq!(launch.stats(&counters), stats, "{file} under {simt:?}: statistics");
        }
    }
}

#[test]
fn warp_views_show_the_split_under_both_models() {
    use simt_interp::{ControlView, ConvergenceBarrier, StackEntry, ThreadGroup, ThreadState};
    // Lanes 0-7 jump to SKIP (pc 4) and wait there while lanes 8-31 run the NOP at pc 3.
    let module =
        assemble_text(".kernel k\n.launch grid(1) block(32)\n.shared .u32 s[2]\nS2R R0, SR_LANEID\nISETP.LT P0, R0, 8\n@P0 BRA SKIP\nNOP\nSKIP: EXIT\n");
    let p = prepare(&module.kernels[0], &LaunchRequest::default()).expect("defaults");
    let (low, high) = (0xffu32, !0xffu32);
    for simt in [SimtModel::Stack, SimtModel::Its] {
        let options = RunOptions { simt, ..RunOptions::default() };
        let launch = launch_of(&module, &p, &options);
        let mut block = launch.block(0, 0);
        assert_eq!(block.shared_words(), &[0, 0]);
        for _ in 0..3 {
            assert!(matches!(block.step(0).expect("no fault"), StepResult::Issued(_)));
        }
        let view = block.warp_view(0);
        assert_eq!((view.valid, view.exited, view.at_barrier), (u32::MAX, 0, 0));
        match view.control {
            ControlView::Stack(entries) => {
                assert_eq!(simt, SimtModel::Stack);
                assert_eq!(
                    entries,
                    [
                        StackEntry { pc: 4, reconv: None, mask: u32::MAX },
                        StackEntry { pc: 4, reconv: Some(4), mask: low },
                        StackEntry { pc: 3, reconv: Some(4), mask: high },
                    ]
                );
            }
            ControlView::Its { groups, barriers } => {
                assert_eq!(simt, SimtModel::Its);
                assert_eq!(
                    groups,
                    [ThreadGroup { pc: 4, lanes: low, state: ThreadState::Reconvergence }, ThreadGroup { pc: 3, lanes: high, state: ThreadState::Ready }]
                );
                assert_eq!(barriers, [ConvergenceBarrier { reconv: 4, members: u32::MAX, arrived: low }]);
            }
        }
    }
}
