//! The seed's worked trace, exactly, on `teaching` (contract §6 and §7.2).

mod common;

use common::*;
use simt_timing::{Machine, PipeFilter, TimingOptions};

#[test]
fn the_worked_ffma_trace() {
    let machine = Machine::builtin("teaching");
    let options = TimingOptions { pipeview: Some(PipeFilter::default()), ..TimingOptions::default() };
    let (report, _) = timed(&load("bench/seed_trace.s"), &machine, &request(None, None, vec![]), options);
    println!("{}", report.render_pipeview());
    let rows = &report.pipeview;
    let first = &rows[0];
    assert_eq!((first.warp, first.pc, first.issue), (0, 0, 0), "warp 0's FFMA is granted in cycle 0");
    let p = machine.pipeline;
    assert_eq!(first.issue + 1, 1, "register read in cycle 1");
    assert_eq!(first.issue + 1 + u64::from(p.read_cycles), 2, "dispatch (handshake) in cycle 2");
    let execute = 3..3 + u64::from(machine.latency.fp32 - p.overhead());
    assert_eq!(execute, 3..7, "execute 3-6: the 4-stage MAC pipeline");
    assert_eq!(first.complete - u64::from(p.writeback_cycles), 7, "writeback in cycle 7");
    let dependent = rows.iter().find(|r| r.warp == 0 && r.pc == 1).expect("the dependent FFMA");
    assert_eq!(dependent.issue, 8, "the dependent FFMA issues at 8");
    let others: Vec<u64> = rows.iter().filter(|r| r.pc == 0).map(|r| r.issue).collect();
    assert_eq!(others, (0..8).collect::<Vec<_>>(), "independent FFMAs of the other warps issue one per cycle");
    let text = report.render_pipeview();
    let line = text.lines().nth(1).expect("a row");
    for cell in ["FFMA R3, RZ, RZ, RZ", " 0 ", " 1 ", " 2 ", "3-6", " 7 ", " 8 "] {
        assert!(line.contains(cell), "`{cell}` in {line}");
    }
}
