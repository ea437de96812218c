//! The memory-efficiency report on the kernels lab 5 compares: the three transposes
//! show the difference the lab asks about, and the histogram's atomics serialise.

mod common;

use common::load;
use simt_host::{LaunchRequest, prepare};
use simt_interp::stats::MemoryLine;
use simt_interp::{RunOptions, run};

fn report(file: &str) -> Vec<MemoryLine> {
    let module = load(file);
    let kernel = &module.kernels[0];
    let p = prepare(kernel, &LaunchRequest::default()).expect("defaults");
    let options = RunOptions { memory_report: true, ..RunOptions::default() };
    run(kernel, &p.config, &p.memory, &options, None).expect("runs").memory_lines
}

fn line<'a>(report: &'a [MemoryLine], instruction: &str) -> &'a MemoryLine {
    report.iter().find(|m| m.instruction == instruction).unwrap_or_else(|| panic!("no {instruction} in {report:?}"))
}

#[test]
fn the_transposes_differ_where_the_lab_says() {
    let naive = report("transpose_naive.s");
    let unpadded = report("transpose_unpadded.s");
    let padded = report("transpose.s");
    // The naive transpose's stores are a row of `out` apart: a sector per lane.
    let (got, ideal) = line(&naive, "ST.GLOBAL.F32").sectors.unwrap();
    assert!(got > 7.0 * ideal, "naive stores: {got} sectors per request, ideal {ideal}");
    // Through shared memory both tiled versions store coalesced.
    for tiled in [&unpadded, &padded] {
        let (got, ideal) = line(tiled, "ST.GLOBAL.F32").sectors.unwrap();
        assert!(got <= ideal + 0.5, "tiled stores: {got} sectors per request, ideal {ideal}");
    }
    // Reading a tile column: 32 x 32 puts it in one bank, 32 x 33 in 32 banks.
    let (unpadded_passes, _) = line(&unpadded, "LD.SHARED.F32").bank_passes.unwrap();
    let (padded_passes, ideal) = line(&padded, "LD.SHARED.F32").bank_passes.unwrap();
    assert!(unpadded_passes > 20.0, "unpadded column reads: {unpadded_passes} passes");
    assert_eq!((padded_passes, ideal), (1.0, 1.0));
}

#[test]
fn atomics_report_their_serialisation() {
    let histogram = report("histogram.s");
    let atomics: Vec<f64> = histogram.iter().filter_map(|m| m.atomic_serialisation).collect();
    assert!(!atomics.is_empty() && atomics.iter().all(|&a| a >= 1.0), "{histogram:?}");
}
