//! Block barriers by number and count (`BAR.SYNC a, b`, `BAR.ARRIVE a, b`, PTX `bar.sync` and
//! `bar.arrive`), beyond `asm/producer_consumer.s` (library.rs): a phase completes with exactly
//! its count of threads, a warp at a time; arrivals do not wait; threads exiting can complete
//! one; and the faults misuse raises, each saying why.

mod common;

use common::*;
use simt_host::LaunchRequest;
use simt_interp::{FaultKind, Peek, RunOptions, SimtModel, StepResult, run};
use simt_isa::Opcode;

/// A kernel of `threads` threads whose body starts with `R0` = thread index and `R1` = warp,
/// with 32 words of shared memory, `buf`.
fn kernel(threads: u32, body: &str) -> String {
    format!(
        ".kernel k\n.param .ptr.u32 out\n.shared .u32 buf[32]\n.launch grid(1) block({threads})\n.arg out = zeros({threads})\n    S2R R0, SR_TID.X\n    SHR.U32 R1, R0, 5\n{body}\n    EXIT\n"
    )
}

fn fault(threads: u32, body: &str, simt: SimtModel) -> simt_interp::Fault {
    let module = assemble_text(&kernel(threads, body));
    let prepared = prepared(&module, &LaunchRequest::default());
    let options = RunOptions { simt, ..RunOptions::default() };
    run(&module.kernels[0], &prepared.config, &prepared.memory, &options, None).expect_err("a fault")
}

/// Each thread writes, after the body, the word `R2` holds to `out[tid]`.
fn outputs(threads: u32, body: &str, simt: SimtModel) -> Vec<u32> {
    let store = format!("{body}\n    LD.PARAM.U32 R3, [out]\n    LEA R3, R0, R3, 2\n    ST.GLOBAL.U32 [R3], R2");
    let l = launch(&assemble_text(&kernel(threads, &store)), &LaunchRequest::default(), simt);
    u32s(l.output("out"))
}

/// Warp 0 waits at barrier 1 for 64 threads; warp 1 arrives there without waiting, then
/// writes, then waits at barrier 2 with warp 0's... so warp 0 reads what warp 1 wrote before
/// arriving, through shared memory, and nobody waits for warps 2 and 3 (they never take part).
#[test]
fn arrivals_complete_a_phase_without_waiting() {
    let body = "\
    MOV R2, 7
    ISETP.EQ.U32 P0, R1, 1
@P0 BRA PRODUCER
    ISETP.NE.U32 P1, R1, 0
@P1 BRA DONE
    BAR.SYNC 1, 64          // warp 0: wait for warp 1's arrival
    SHL R7, R0, 2
    LD.SHARED.U32 R2, [R7+buf]
    BAR.SYNC 2, 64
    BRA DONE
PRODUCER:
    IADD R4, R0, 100
    ISUB R5, R0, 32
    SHL R5, R5, 2
    ST.SHARED.U32 [R5+buf], R4
    BAR.ARRIVE 1, 64        // warp 1: go on at once
    MOV R2, 9
    BAR.SYNC 2, 64
DONE:";
    for simt in MODELS {
        let got = outputs(128, body, simt);
        let want: Vec<u32> = (0..128)
            .map(|t| {
                if t < 32 {
                    t + 132
                } else if t < 64 {
                    9
                } else {
                    7
                }
            })
            .collect();
        assert_eq!(got, want, "{simt:?}");
    }
}

/// Five warps each wait once at a barrier of 64 threads: the first two arrivals complete one
/// phase, the next two another, and the fifth warp waits alone in a third that never completes;
/// the deadlock names the barrier it waits at.
#[test]
fn a_phase_takes_exactly_its_count() {
    for simt in MODELS {
        let f = fault(160, "    BAR.SYNC 1, 64", simt);
        assert_eq!(f.kind, FaultKind::Deadlock, "{simt:?}: {}", f.message);
        assert_eq!(f.notes, ["warp 4, lanes 0-31: wait at barrier 1 (64 threads) at pc 2 (line 8)"], "{simt:?}");
    }
}

/// Under `its` a warp's threads arrive at a barrier as they come: the warp counts once every
/// non-exited thread is there, and threads that exit after the others wait complete it.
#[test]
fn threads_exiting_complete_a_warps_arrival() {
    let body = "\
    MOV R2, 5
    S2R R6, SR_LANEID
    ISETP.GE.U32 P0, R6, 16
    ISETP.EQ.OR P0, R1, 0, P0   // warp 0, and the upper half of warp 1, take the branch
@P0 BRA LATE
    BAR.SYNC 1, 64              // warp 1's lower half waits first...
    MOV R2, 6
    BRA DONE
LATE:
    ISETP.NE.U32 P1, R1, 0
@P1 EXIT                        // ...then its upper half exits, and warp 1 has arrived
    BAR.SYNC 1, 64
DONE:";
    let got = outputs(64, body, SimtModel::Its);
    let want: Vec<u32> = (0..64)
        .map(|t| {
            if t < 32 {
                5
            } else if t < 48 {
                6
            } else {
                0
            }
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn misuse_faults_and_says_why() {
    let cases: &[(u32, &str, FaultKind, &str)] = &[
        (64, "    S2R R2, SR_LANEID\n    BAR.SYNC R2, 64", FaultKind::Barrier, "the barrier's number is 0 in lane 0 but 1 in lane 1: a warp names one barrier"),
        (64, "    MOV R2, 16\n    BAR.SYNC R2", FaultKind::Barrier, "barrier 16 does not exist"),
        (64, "    MOV R2, 48\n    BAR.ARRIVE 3, R2", FaultKind::Barrier, "barrier 3 is given a thread count of 48: it counts whole warps"),
        (48, "    BAR.SYNC 1, 96", FaultKind::Barrier, "barrier 1 waits for 96 threads, but the block has 2 warps (64 threads as barriers count them)"),
        (
            64,
            "    ISETP.EQ.U32 P0, R1, 0\n@P0 BAR.ARRIVE 5, 64\n@!P0 BAR.SYNC 5, 32",
            FaultKind::Barrier,
            "warp 1 arrives at barrier 5 counting 32 threads, but the warps before it in this phase count 64",
        ),
    ];
    for simt in MODELS {
        for &(threads, body, kind, words) in cases {
            let f = fault(threads, body, simt);
            assert_eq!(f.kind, kind, "{simt:?} {body}: {}", f.message);
            assert!(f.message.contains(words), "{simt:?} {body}: `{}` does not say `{words}`", f.message);
        }
    }
    // Under `its` the halves of a warp may reach different barriers, which neither can pass.
    let f = fault(64, "    S2R R2, SR_LANEID\n    ISETP.LT.U32 P0, R2, 16\n@P0 BRA A\n    BAR.SYNC 2, 64\n    BRA B\nA:  BAR.SYNC 1, 64\nB:", SimtModel::Its);
    assert_eq!(f.kind, FaultKind::Deadlock, "{}", f.message);
    assert!(f.message.contains("arrive at barrier 1 (64 threads) while lanes 16-31 of the warp wait at barrier 2 (64 threads)"), "{}", f.message);
}

/// Stepping: the last warp to arrive opens the phase in its own step, which says so, and the
/// waiting warp can issue at once; until then it is blocked at the barrier.
#[test]
fn the_step_that_completes_a_phase_says_so() {
    let module = assemble_text(&kernel(64, "    ISETP.EQ.U32 P0, R1, 0\n@P0 BAR.SYNC 4, 64\n@!P0 BAR.ARRIVE 4, 64"));
    let prepared = prepared(&module, &LaunchRequest::default());
    let options = RunOptions::default();
    let launch = simt_interp::Launch::new(&module.kernels[0], &prepared.config, &prepared.memory, &options).unwrap();
    let mut block = launch.block(0, 0);
    let steps_until = |block: &mut simt_interp::BlockSim, w: usize, opcode: Opcode| loop {
        match block.step(w).unwrap() {
            StepResult::Issued(s) if s.issued.opcode == opcode => return s,
            StepResult::Issued(_) => {}
            other => panic!("warp {w}: {other:?}"),
        }
    };
    let wait = steps_until(&mut block, 0, Opcode::BarSync);
    assert!(!wait.opened && wait.arrived == Some(u32::MAX));
    assert!(matches!(block.peek(0), Peek::Blocked(_)));
    let arrive = steps_until(&mut block, 1, Opcode::BarArrive);
    assert!(arrive.opened && arrive.arrived.is_none());
    assert!(matches!(block.peek(0), Peek::Issue(p) if p.opcode == Opcode::BarArrive), "warp 0 goes on to its (guarded-off) arrival");
}
