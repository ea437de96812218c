//! Every kernel of the library (`asm/*.s`, default `.launch` and `.arg`) gives
//! bit-identical buffers and equal statistics whatever the number of OS
//! threads and SMs the blocks are spread over, under both SIMT models.
//! (Histogram's atomics included: integer adds commute, so the counts do not
//! depend on the order the blocks run in.)

mod common;

use common::*;
use simt_host::{LaunchRequest, prepare};
use simt_interp::{RunOptions, SimtModel, Stats, run};
use simt_isa::Module;

/// The top-level kernels of `asm/` (the divergence demos and planted bugs have their own tests).
fn library() -> Vec<(String, Module)> {
    library_files()
        .into_iter()
        .filter(|path| path.parent() == Some(asm_dir().as_path()))
        .map(|path| (path.file_name().unwrap().to_string_lossy().into_owned(), assemble_file(&path)))
        .collect()
}

/// Runs every kernel of `module` with its defaults; returns each kernel's buffers and statistics.
/// One kernel's name, its buffers (name, bytes) after the run, and its statistics.
type KernelRun = (String, Vec<(String, Vec<u8>)>, Stats);

fn run_all(module: &Module, options: &RunOptions) -> Vec<KernelRun> {
    module
        .kernels
        .iter()
        .map(|kernel| {
            let request = LaunchRequest { module_dir: Some(asm_dir()), ..LaunchRequest::default() };
            let prepared = prepare(kernel, &request).unwrap_or_else(|e| panic!("{}: {e}", kernel.name));
            let stats = run(kernel, &prepared.config, &prepared.memory, options, None).unwrap_or_else(|f| panic!("{}", f.render(module, false)));
            let buffers = prepared.buffers.iter().map(|(name, _)| (name.clone(), prepared.buffer(name).unwrap().1)).collect();
            (kernel.name.clone(), buffers, stats)
        })
        .collect()
}

#[test]
fn library_runs_are_deterministic() {
    let library = library();
    assert!(library.len() >= 8, "expected the eight library kernels in asm/, found {}", library.len());
    for (file, module) in &library {
        for simt in [SimtModel::Its, SimtModel::Stack] {
            let one = RunOptions { simt, threads: Some(1), sms: 132, ..RunOptions::default() };
            let four = RunOptions { simt, threads: Some(4), sms: 7, ..RunOptions::default() };
            let a = run_all(module, &one);
            let b = run_all(module, &four);
            for ((kernel, bufs_a, stats_a), (_, bufs_b, stats_b)) in a.iter().zip(&b) {
                for ((name, x), (_, y)) in bufs_a.iter().zip(bufs_b) {
                    assert!(x == y, "{file}: kernel {kernel} buffer {name} differs between 1 thread/132 SMs and 4 threads/7 SMs under {simt:?}");
                }
                assert_eq!(stats_a, stats_b, "{file}: kernel {kernel} statistics differ under {simt:?}");
            }
        }
    }
}

#[test]
fn repeated_runs_are_identical() {
    // The same options twice: no hidden state between launches.
    for (file, module) in library() {
        let options = RunOptions { threads: Some(3), sms: 5, ..RunOptions::default() };
        let a = run_all(&module, &options);
        let b = run_all(&module, &options);
        for ((kernel, bufs_a, stats_a), (_, bufs_b, stats_b)) in a.iter().zip(&b) {
            assert!(bufs_a == bufs_b, "{file}: kernel {kernel} buffers differ between two identical runs");
            assert_eq!(stats_a, stats_b, "{file}: kernel {kernel}");
        }
    }
}

#[test]
fn simt_models_agree() {
    // The library kernels are race-free and structured, with divergent loops
    // far shorter than the `its` yield bound: contract section 6 says both
    // models then give the same results and the same active masks at every
    // issued instruction, hence the same statistics.
    for (file, module) in library() {
        let its = run_all(&module, &RunOptions { simt: SimtModel::Its, ..RunOptions::default() });
        let stack = run_all(&module, &RunOptions { simt: SimtModel::Stack, ..RunOptions::default() });
        for ((kernel, bufs_a, stats_a), (_, bufs_b, stats_b)) in its.iter().zip(&stack) {
            assert!(bufs_a == bufs_b, "{file}: kernel {kernel} buffers differ between its and stack");
            assert_eq!(stats_a, stats_b, "{file}: kernel {kernel} statistics differ between its and stack");
        }
    }
}
