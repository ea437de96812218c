//! The stepping API a timing model drives: one warp instruction at a time,
//! with the unit it issues to, its masks and each lane's address.

mod common;

use common::{assemble_text, load};
use simt_interp::host::{prepare, LaunchRequest};
use simt_interp::{Launch, RunOptions, StepResult};
use simt_isa::{Opcode, Space, Unit};

#[test]
fn steps_report_unit_masks_and_addresses() {
    let module = load("saxpy.s");
    let kernel = &module.kernels[0];
    let p = prepare(kernel, &LaunchRequest::default()).expect("defaults");
    let options = RunOptions::default();
    let launch = Launch::new(kernel, &p.config, &p.memory, &options).expect("valid");
    let mut block = launch.block(1, 0);
    let mut steps = Vec::new();
    while let StepResult::Issued(step) = block.step(0).expect("no fault") {
        steps.push(step);
    }
    assert!(block.is_done() || block.step(0).unwrap() == StepResult::Done);

    let load = steps.iter().find(|s| s.opcode == Opcode::Ld && s.access.is_some_and(|a| a.space == Space::Global)).expect("a global load");
    assert_eq!(load.unit, Unit::LdSt);
    let access = load.access.unwrap();
    assert_eq!((access.size, access.write), (4, false));
    // Block 1, warp 0 handles elements blockDim.x .. blockDim.x + 31, four bytes apart.
    let first = access.addresses[0];
    for (lane, &addr) in access.addresses.iter().enumerate() {
        assert_eq!(addr, first + 4 * lane as u32);
    }
    let ffma = steps.iter().find(|s| s.opcode == Opcode::Ffma).expect("an FFMA");
    assert_eq!((ffma.unit, ffma.active, ffma.executed), (Unit::Fp32, u32::MAX, u32::MAX));
    let store = steps.iter().rev().find(|s| s.opcode == Opcode::St).expect("a store");
    assert!(store.access.unwrap().write);
}

#[test]
fn a_warp_waiting_at_a_barrier_blocks_until_sync_releases_it() {
    let module = assemble_text(".kernel k\n.launch grid(1) block(64)\nBAR.SYNC\nEXIT\n");
    let kernel = &module.kernels[0];
    let p = prepare(kernel, &LaunchRequest::default()).expect("defaults");
    let options = RunOptions::default();
    let launch = Launch::new(kernel, &p.config, &p.memory, &options).expect("valid");
    let mut block = launch.block(0, 0);
    assert!(matches!(block.step(0).unwrap(), StepResult::Issued(s) if s.opcode == Opcode::BarSync && s.unit == Unit::Control));
    assert_eq!(block.step(0).unwrap(), StepResult::Blocked, "warp 0 waits for warp 1");
    assert!(matches!(block.step(1).unwrap(), StepResult::Issued(_)));
    block.sync().expect("everyone arrived");
    assert!(matches!(block.step(0).unwrap(), StepResult::Issued(s) if s.opcode == Opcode::Exit));
    assert!(matches!(block.step(1).unwrap(), StepResult::Issued(s) if s.opcode == Opcode::Exit));
    assert!(block.is_done());
}
