//! Machine files a user could write: a built-in machine with values replaced by hostile ones
//! (zero, tiny, huge, negative, NaN, the integer limits, the bounds and just past them),
//! lines dropped or repeated. What loads must be a machine on which the timing engine runs a
//! small saxpy to a result or a fault within its deadline; what does not load must say where.
//! Shared by the `machine_file` fuzz target and `tests/robustness.rs`.

use std::time::{Duration, Instant};

use crate::program::Choices;

const MACHINES: [&str; 5] = [
    include_str!("../../configs/teaching.toml"),
    include_str!("../../configs/v100.toml"),
    include_str!("../../configs/a100.toml"),
    include_str!("../../configs/h100.toml"),
    include_str!("../../configs/b200.toml"),
];

/// Values that have broken machine files, and the bounds of `docs/timing.md` on either side.
const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "1e-8",
    "1e-20",
    "1e300",
    "-1e300",
    "nan",
    "inf",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "65535",
    "65536",
    "10000",
    "10001",
    "0.1",
    "0.09",
    "10.0",
    "10.1",
    "1000000",
    "1e6",
    "1.000001e6",
    "100",
    "101",
    "4096",
    "4097",
    "\"x\"",
    "[]",
    "true",
];

/// The (start, end) of each number on `line`, comments left out.
fn numbers(line: &str) -> Vec<(usize, usize)> {
    let code = line.split('#').next().unwrap_or_default();
    let bytes = code.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit() && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
            i += 1;
        }
        spans.push((start, i));
    }
    spans
}

/// A machine file: one of the built-in machines with one to four edits.
pub fn text(c: &mut impl Choices) -> String {
    let base = MACHINES[c.below(MACHINES.len() as u32) as usize];
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    for _ in 0..1 + c.below(4) {
        let i = c.below(lines.len() as u32) as usize;
        let spans = numbers(&lines[i]);
        match c.below(8) {
            0 => {
                lines.remove(i);
            }
            1 => lines.insert(i, lines[i].clone()),
            _ if !spans.is_empty() => {
                let (start, end) = spans[c.below(spans.len() as u32) as usize];
                let value = if c.one_in(4) { c.below(u32::MAX).to_string() } else { VALUES[c.below(VALUES.len() as u32) as usize].to_string() };
                lines[i].replace_range(start..end, &value);
            }
            _ => {}
        }
    }
    lines.join("\n")
}

const SAXPY: &str = ".kernel saxpy\n.param .u32 n\n.param .f32 a\n.param .ptr.f32 x\n.param .ptr.f32 y\n.launch grid(8) block(128)\n\
    .arg n = 1000\n.arg a = 2\n.arg x = iota(1000)\n.arg y = zeros(1000)\n\
    S2R R0, SR_TID.X\nS2R R1, SR_CTAID.X\nS2R R2, SR_NTID.X\nIMAD R0, R1, R2, R0\nLD.PARAM.U32 R3, [n]\n\
    ISETP.GE.U32 P0, R0, R3\n@P0 EXIT\nLD.PARAM.U32 R4, [x]\nLD.PARAM.U32 R5, [y]\nLEA R4, R0, R4, 2\n\
    LEA R5, R0, R5, 2\nLD.GLOBAL.F32 R6, [R4]\nLD.GLOBAL.F32 R7, [R5]\nLD.PARAM.F32 R8, [a]\n\
    FFMA R7, R8, R6, R7\nST.GLOBAL.F32 [R5], R7\nEXIT\n";

/// How long a timed saxpy may run on any machine that loads, deadline included.
pub const BUDGET: Duration = Duration::from_secs(3);

/// Loads a generated machine file; what loads times a saxpy, which must end (with a result,
/// or a time-limit fault at its one-second deadline) within [`BUDGET`]. Returns whether the
/// file loaded.
pub fn check(c: &mut impl Choices) -> bool {
    let text = text(c);
    let machine = match simt_timing::Machine::parse("fuzz.toml", &text) {
        Ok(machine) => machine,
        Err(e) => {
            assert!(e.to_string().starts_with("fuzz.toml:"), "an error that names no place: {e}");
            return false;
        }
    };
    let module = simt_asm::assemble("saxpy.s", SAXPY).expect("the saxpy assembles");
    let kernel = &module.kernels[0];
    let prepared = simt_host::prepare(kernel, &simt_host::LaunchRequest::default()).expect("the saxpy's launch is valid");
    let started = Instant::now();
    let options = simt_interp::RunOptions {
        deadline: Some(started + Duration::from_secs(1)),
        threads: Some(1 + c.below(2) as usize),
        ..simt_interp::RunOptions::default()
    };
    let timing = simt_timing::TimingOptions { pipeview: None, timeline: c.one_in(2), progress: None };
    let _ = simt_timing::run(kernel, &prepared.config, &prepared.memory, &options, &machine, &timing);
    assert!(started.elapsed() < BUDGET, "a saxpy took {:?} on this machine:\n{text}", started.elapsed());
    true
}
