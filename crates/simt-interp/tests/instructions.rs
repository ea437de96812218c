//! Per-instruction conformance tests, table-driven (iced-style).
//!
//! Every case is one instruction under test plus its input registers and
//! predicates (per lane) and the expected output bits (per lane). A harness
//! generates one kernel per table: for each case it loads the inputs from an
//! input buffer into `R0..` / `P0..` (registers it does not set get a
//! sentinel, predicates false), runs optional setup code, the instruction,
//! optional post code, and stores the named outputs (predicates through
//! `SEL`) to `out`. Each table runs in one launch of one full warp, under both
//! SIMT models. The expected values come from the contract
//! (`shared/spec/isa.md`) and `docs/simt-models.md`.

use std::collections::BTreeSet;

use simt_host::{Arg, LaunchRequest, prepare};
use simt_interp::{FaultKind, RunOptions, SimtModel};
use simt_isa::{ArgInit, Literal, Module, Opcode, TABLE, Unit};

// ---------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    R(u8),
    P(u8),
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Loc::R(r) => write!(f, "R{r}"),
            Loc::P(p) => write!(f, "P{p}"),
        }
    }
}

type Lanes = [u32; 32];

#[derive(Clone, Debug)]
struct Case {
    /// The instruction under test (first statement; `{L}` is replaced by a unique label).
    text: String,
    setup: String,
    post: String,
    ins: Vec<(Loc, Lanes)>,
    outs: Vec<(Loc, Lanes)>,
}

fn lanes(f: impl Fn(u32) -> u32) -> Lanes {
    std::array::from_fn(|l| f(l as u32))
}

fn f32b(x: f32) -> u32 {
    x.to_bits()
}

/// Parses `R0=f:1.5 R2=d:2 P0=1 R3=0x10 R4=-1 R6=q:0x7FF0000000000001` into uniform lane values.
fn parse_vals(spec: &str) -> Vec<(Loc, Lanes)> {
    let mut v = Vec::new();
    for item in spec.split_whitespace() {
        let (loc, val) = item.split_once('=').unwrap_or_else(|| panic!("bad item {item}"));
        let n: u8 = loc[1..].parse().unwrap_or_else(|_| panic!("bad loc {loc}"));
        let loc = match &loc[..1] {
            "R" => Loc::R(n),
            "P" => Loc::P(n),
            _ => panic!("bad loc {loc}"),
        };
        let pair = |bits: u64, v: &mut Vec<(Loc, Lanes)>| {
            let Loc::R(n) = loc else { panic!("pair into predicate") };
            v.push((Loc::R(n), [bits as u32; 32]));
            v.push((Loc::R(n + 1), [(bits >> 32) as u32; 32]));
        };
        if let Some(f) = val.strip_prefix("f:") {
            v.push((loc, [f.parse::<f32>().unwrap_or_else(|_| panic!("bad f32 {f}")).to_bits(); 32]));
        } else if let Some(d) = val.strip_prefix("d:") {
            pair(d.parse::<f64>().unwrap_or_else(|_| panic!("bad f64 {d}")).to_bits(), &mut v);
        } else if let Some(q) = val.strip_prefix("q:0x") {
            pair(u64::from_str_radix(q, 16).unwrap(), &mut v);
        } else if let Some(h) = val.strip_prefix("0x") {
            v.push((loc, [u32::from_str_radix(h, 16).unwrap_or_else(|_| panic!("bad hex {h}")); 32]));
        } else {
            v.push((loc, [val.parse::<i64>().unwrap_or_else(|_| panic!("bad int {val}")) as u32; 32]));
        }
    }
    v
}

/// A case with lane-uniform inputs and outputs.
fn c(text: &str, ins: &str, outs: &str) -> Case {
    Case { text: text.into(), setup: String::new(), post: String::new(), ins: parse_vals(ins), outs: parse_vals(outs) }
}

impl Case {
    fn new(text: &str) -> Case {
        Case { text: text.into(), setup: String::new(), post: String::new(), ins: vec![], outs: vec![] }
    }
    fn setup(mut self, s: &str) -> Case {
        self.setup = s.into();
        self
    }
    fn post(mut self, s: &str) -> Case {
        self.post = s.into();
        self
    }
    fn inp(mut self, loc: Loc, v: Lanes) -> Case {
        self.ins.push((loc, v));
        self
    }
    fn out(mut self, loc: Loc, v: Lanes) -> Case {
        self.outs.push((loc, v));
        self
    }
}

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

const HEADER: &str = "\
.kernel t
.param .ptr.u32 out
.param .ptr.u32 inp
.param .ptr.u32 gin
.param .ptr.u32 gout
.param .u32 pu
.param .s32 ps
.param .f32 pf
.param .f64 pd
.shared .align 16 .u32 sh[64]
.shared .u8 sh2[16]
.local 64
";

/// `gin`'s contents (read-only input for loads).
fn gin_words() -> Vec<u32> {
    let mut v = vec![0xF1E2_D3C4, 0x7F80_FF01, 0x0000_0000, 0x3FF8_0000, 0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444];
    v.extend((8..64).map(|i| 0x100 + i));
    v
}

const SENTINEL: u32 = 0x5EED_0000;
/// Registers the harness resets before every case.
const CASE_REGS: u8 = 16;

fn label(text: &str, i: usize) -> String {
    text.replace("{L}", &format!("L{i}"))
}

fn harness_source(cases: &[Case]) -> String {
    let mut s = String::from(HEADER);
    s.push_str(".launch grid(1) block(32)\n");
    s.push_str("S2R R251, SR_LANEID\nLD.PARAM.U32 R253, [inp]\nLEA R253, R251, R253, 2\n");
    s.push_str("LD.PARAM.U32 R252, [out]\nLEA R252, R251, R252, 2\nLD.PARAM.U32 R250, [gin]\nLD.PARAM.U32 R249, [gout]\n");
    for (i, case) in cases.iter().enumerate() {
        s.push_str(&format!("// case {i}: {}\n", case.text.lines().next().unwrap_or("")));
        for r in 0..CASE_REGS {
            if !case.ins.iter().any(|(l, _)| *l == Loc::R(r)) {
                s.push_str(&format!("MOV R{r}, {:#x}\n", SENTINEL + u32::from(r)));
            }
        }
        for p in 0..7u8 {
            if !case.ins.iter().any(|(l, _)| *l == Loc::P(p)) {
                s.push_str(&format!("ISETP.NE.AND P{p}, RZ, RZ\n"));
            }
        }
        for (loc, _) in &case.ins {
            match loc {
                Loc::R(r) => s.push_str(&format!("LD.GLOBAL.U32 R{r}, [R253]\n")),
                Loc::P(p) => s.push_str(&format!("LD.GLOBAL.U32 R254, [R253]\nISETP.NE.AND P{p}, R254, RZ\n")),
            }
            s.push_str("IADD R253, R253, 128\n");
        }
        for part in [&case.setup, &case.text, &case.post] {
            if !part.is_empty() {
                s.push_str(&label(part, i));
                s.push('\n');
            }
        }
        for (loc, _) in &case.outs {
            match loc {
                Loc::R(r) => s.push_str(&format!("ST.GLOBAL.U32 [R252], R{r}\n")),
                Loc::P(p) => s.push_str(&format!("SEL R254, 1, 0, P{p}\nST.GLOBAL.U32 [R252], R254\n")),
            }
            s.push_str("IADD R252, R252, 128\n");
        }
    }
    s.push_str("EXIT\n");
    s
}

fn assemble(source: &str) -> Module {
    simt_asm::assemble("instructions.s", source).unwrap_or_else(|d| panic!("{d}\n--- source ---\n{source}"))
}

fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn list(words: &[u32]) -> ArgInit {
    ArgInit::List(words.iter().map(|&w| Literal::Int(i64::from(w))).collect())
}

fn options(simt: SimtModel) -> RunOptions {
    RunOptions { simt, max_steps: 10_000_000, ..RunOptions::default() }
}

const MODELS: [SimtModel; 2] = [SimtModel::Its, SimtModel::Stack];

fn harness_request(inputs: Vec<u32>, out_words: usize) -> LaunchRequest {
    let inputs = if inputs.is_empty() { vec![0] } else { inputs };
    LaunchRequest {
        args: vec![
            Arg::new("out", ArgInit::Zeros(out_words.max(1) as u64)),
            Arg::new("inp", list(&inputs)),
            Arg::new("gin", list(&gin_words())),
            Arg::new("gout", ArgInit::Zeros(256)),
            Arg::new("pu", ArgInit::Scalar(Literal::Int(0x89AB_CDEF))),
            Arg::new("ps", ArgInit::Scalar(Literal::Int(-5))),
            Arg::new("pf", ArgInit::Scalar(Literal::Float(1.5))),
            Arg::new("pd", ArgInit::Scalar(Literal::Float(2.5))),
        ],
        ..LaunchRequest::default()
    }
}

/// Runs a table under both models; returns one line per mismatch.
fn run_table(cases: &[Case]) -> Vec<String> {
    // Each case must assemble on its own (a clear message instead of a batch failure).
    for (i, case) in cases.iter().enumerate() {
        let src = format!("{HEADER}{}\nNOP\n", label(&case.text, i));
        if let Err(d) = simt_asm::assemble("case.s", &src) {
            panic!("case `{}` does not assemble:\n{d}", case.text);
        }
    }
    let source = harness_source(cases);
    let module = assemble(&source);
    let inputs: Vec<u32> = cases.iter().flat_map(|c| c.ins.iter().flat_map(|(_, v)| v.iter().copied())).collect();
    let expected: Vec<(usize, Loc, &Lanes)> = cases.iter().enumerate().flat_map(|(i, c)| c.outs.iter().map(move |(l, v)| (i, *l, v))).collect();
    let mut errors = Vec::new();
    for simt in MODELS {
        let p = prepare(&module.kernels[0], &harness_request(inputs.clone(), expected.len() * 32)).expect("prepare");
        if let Err(f) = simt_interp::run(&module.kernels[0], &p.config, &p.memory, &options(simt), None) {
            errors.push(format!("{simt:?}: fault: {}", f.render(&module, false)));
            continue;
        }
        let out = u32s(&p.buffer("out").unwrap().1);
        for (k, (i, loc, want)) in expected.iter().enumerate() {
            let got = &out[32 * k..32 * k + 32];
            let bad: Vec<usize> = (0..32).filter(|&l| got[l] != want[l]).collect();
            if let Some(&l) = bad.first() {
                errors.push(format!(
                    "{simt:?}: case {i} `{}`: {loc} lane {l}: expected {:#010x}, got {:#010x} ({} lanes differ; got lanes 0..4 = {:x?})",
                    cases[*i].text.replace('\n', "; "),
                    want[l],
                    got[l],
                    bad.len(),
                    &got[..4]
                ));
            }
        }
    }
    errors
}

fn check(cases: Vec<Case>) {
    let errors = run_table(&cases);
    assert!(errors.is_empty(), "{} mismatches:\n{}", errors.len(), errors.join("\n"));
}

// ---------------------------------------------------------------------------
// Tables
// ---------------------------------------------------------------------------

const CANON: u32 = 0x7FFF_FFFF;

fn move_cases() -> Vec<Case> {
    vec![
        c("MOV R2, R0", "R0=0x12345678", "R2=0x12345678"),
        c("MOV R2, 0x7fffffff", "", "R2=0x7fffffff"),
        c("MOV R2, -1", "", "R2=0xffffffff"),
        c("MOV R2, -2147483648", "", "R2=0x80000000"),
        c("MOV R2, 4294967295", "", "R2=0xffffffff"),
        c("MOV R2, 0b1010", "", "R2=10"),
        c("MOV R2, 0f3F800000", "", "R2=0x3f800000"),
        c("MOV R2, 1.5", "", "R2=f:1.5"),
        c("MOV R2, -inf", "", "R2=0xff800000"),
        c("MOV R2, 0d3FF8000000000000", "", "R2=0 R3=0x3ff80000"),
        c("MOV R2, sh2", "", "R2=256"),
        c("MOV R2, sh", "", "R2=0"),
        c("MOV R2, RZ", "R2=5", "R2=0"),
        c("MOV RZ, R0", "R0=7", "R2=0").post("MOV R2, RZ"),
        c("SEL R2, R0, R1, P0", "R0=1 R1=2 P0=1", "R2=1"),
        c("SEL R2, R0, R1, P0", "R0=1 R1=2 P0=0", "R2=2"),
        c("SEL R2, R0, R1, !P0", "R0=1 R1=2 P0=0", "R2=1"),
        c("SEL R2, 5, -3, PT", "", "R2=5"),
        c("SEL R2, 5, -3, !PT", "", "R2=-3"),
        c("SEL R2, 1.5, 0x10, P6", "P6=1", "R2=f:1.5"),
        c("SEL R2, RZ, R1, P0", "R1=9 P0=1", "R2=0"),
        // Guards.
        c("@P0 MOV R2, R0", "R0=1 R2=7 P0=0", "R2=7"),
        c("@P0 MOV R2, R0", "R0=1 R2=7 P0=1", "R2=1"),
        c("@!P0 MOV R2, R0", "R0=1 R2=7 P0=0", "R2=1"),
        c("@!P0 MOV R2, R0", "R0=1 R2=7 P0=1", "R2=7"),
        c("@PT MOV R2, R0", "R0=1 R2=7", "R2=1"),
        c("@!PT MOV R2, R0", "R0=1 R2=7", "R2=7"),
        Case::new("@P0 MOV R2, R0")
            .inp(Loc::R(0), [1; 32])
            .inp(Loc::R(2), [7; 32])
            .inp(Loc::P(0), lanes(|l| l % 3))
            .out(Loc::R(2), lanes(|l| if l % 3 != 0 { 1 } else { 7 })),
        // Special registers in a one-warp, one-block launch.
        Case::new("S2R R2, SR_LANEID").out(Loc::R(2), lanes(|l| l)),
        Case::new("S2R R2, SR_TID.X").out(Loc::R(2), lanes(|l| l)),
        c("S2R R2, SR_NTID.X", "", "R2=32"),
        c("S2R R2, SR_WARPID", "", "R2=0"),
        c("S2R R2, SR_NCTAID.Y", "", "R2=1"),
    ]
}

fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = (h >> 10) & 0x1F;
    let man = u32::from(h & 0x3FF);
    let v = if exp == 0 {
        man as f32 * 2f32.powi(-24)
    } else if exp == 31 {
        if man == 0 { f32::INFINITY } else { f32::NAN }
    } else {
        f32::from_bits((u32::from(exp) + 112) << 23 | man << 13)
    };
    f32::from_bits(v.to_bits() | sign)
}

fn convert_cases() -> Vec<Case> {
    let mut v = vec![
        // float -> int: truncate, saturate, NaN -> 0.
        c("CVT.S32.F32 R2, R0", "R0=f:1.9", "R2=1"),
        c("CVT.S32.F32 R2, R0", "R0=f:-1.9", "R2=-1"),
        c("CVT.S32.F32 R2, R0", "R0=f:-0.5", "R2=0"),
        c("CVT.S32.F32 R2, R0", "R0=0x7fc00000", "R2=0"),
        c("CVT.S32.F32 R2, R0", "R0=0xffc00001", "R2=0"),
        c("CVT.S32.F32 R2, R0", "R0=f:inf", "R2=0x7fffffff"),
        c("CVT.S32.F32 R2, R0", "R0=f:-inf", "R2=0x80000000"),
        c("CVT.S32.F32 R2, R0", "R0=f:3e9", "R2=0x7fffffff"),
        c("CVT.S32.F32 R2, R0", "R0=f:-3e9", "R2=0x80000000"),
        c("CVT.S32.F32 R2, R0", "R0=f:-2147483648", "R2=0x80000000"),
        c("CVT.S32.F32 R2, R0", "R0=f:2147483520", "R2=2147483520"),
        c("CVT.S32.F32 R2, -2.5", "", "R2=-2"),
        c("CVT.S32.F32 R2, -R0", "R0=f:7.9", "R2=-7"),
        c("CVT.S32.F32 R2, |R0|", "R0=f:-7.9", "R2=7"),
        c("CVT.S32.F32 R2, -|R0|", "R0=f:7.9", "R2=-7"),
        c("CVT.U32.F32 R2, R0", "R0=f:-1", "R2=0"),
        c("CVT.U32.F32 R2, R0", "R0=f:-0.9", "R2=0"),
        c("CVT.U32.F32 R2, R0", "R0=f:1.99", "R2=1"),
        c("CVT.U32.F32 R2, R0", "R0=f:3e9", "R2=3000000000"),
        c("CVT.U32.F32 R2, R0", "R0=f:4.3e9", "R2=0xffffffff"),
        c("CVT.U32.F32 R2, R0", "R0=f:inf", "R2=0xffffffff"),
        c("CVT.U32.F32 R2, R0", "R0=f:-inf", "R2=0"),
        c("CVT.U32.F32 R2, R0", "R0=0x7fffffff", "R2=0"),
        c("CVT.S32.F64 R2, R0", "R0=d:-2.5", "R2=-2"),
        c("CVT.S32.F64 R2, R0", "R0=d:3e9", "R2=0x7fffffff"),
        c("CVT.S32.F64 R2, R0", "R0=d:-2147483648.9", "R2=0x80000000"),
        c("CVT.S32.F64 R2, R0", "R0=q:0x7ff8000000000000", "R2=0"),
        c("CVT.U32.F64 R2, R0", "R0=d:4294967295.9", "R2=0xffffffff"),
        c("CVT.U32.F64 R2, R0", "R0=d:4294967296", "R2=0xffffffff"),
        c("CVT.U32.F64 R2, R0", "R0=d:-0.5", "R2=0"),
        c("CVT.U32.F64 R2, R0", "R0=d:-inf", "R2=0"),
        c("CVT.S32.F16 R2, R0", "R0=0xc100", "R2=-2"),
        c("CVT.S32.F16 R2, R0", "R0=0x7c00", "R2=0x7fffffff"),
        c("CVT.U32.F16 R2, R0", "R0=0x7bff", "R2=65504"),
        c("CVT.U32.F16 R2, R0", "R0=0xbc00", "R2=0"),
        c("CVT.S32.F16 R2, R0", "R0=0x7e00", "R2=0"),
        c("CVT.U32.BF16 R2, R0", "R0=0x4f80", "R2=0xffffffff"),
        c("CVT.S32.BF16 R2, R0", "R0=0xff80", "R2=0x80000000"),
        c("CVT.S32.BF16 R2, R0", "R0=0xc030", "R2=-2"),
        c("CVT.S32.BF16 R2, R0", "R0=0x7fc0", "R2=0"),
        // int -> float: round to nearest even.
        c("CVT.F32.S32 R2, R0", "R0=16777217", "R2=0x4b800000"),
        c("CVT.F32.S32 R2, R0", "R0=16777219", "R2=0x4b800002"),
        c("CVT.F32.S32 R2, R0", "R0=-16777217", "R2=0xcb800000"),
        c("CVT.F32.S32 R2, R0", "R0=0x80000000", "R2=0xcf000000"),
        c("CVT.F32.S32 R2, R0", "R0=0x7fffffff", "R2=0x4f000000"),
        c("CVT.F32.S32 R2, -7", "", "R2=f:-7"),
        c("CVT.F32.U32 R2, R0", "R0=0xffffffff", "R2=0x4f800000"),
        c("CVT.F32.U32 R2, R0", "R0=16777217", "R2=0x4b800000"),
        c("CVT.F32.U32 R2, R0", "R0=0x80000080", "R2=0x4f000000"),
        c("CVT.F32.U32 R2, R0", "R0=0x80000081", "R2=0x4f000001"),
        c("CVT.F64.S32 R2, R0", "R0=-1", "R2=d:-1"),
        c("CVT.F64.S32 R2, R0", "R0=0x80000000", "R2=d:-2147483648"),
        c("CVT.F32.S64 R4, R0", "R0=q:0xFFFFFFFFFFFFFFFF", "R4=f:-1"),
        // 2^60 + 2^36 + 1 rounds up; rounding through f64 first would round down to even.
        c("CVT.F32.U64 R4, R0", "R0=q:0x1000001000000001", "R4=0x5d800001"),
        c("CVT.F32.U64 R4, R0", "R0=q:0xFFFFFFFFFFFFFFFF", "R4=f:18446744073709551616"),
        c("CVT.F64.S64 R4, R0", "R0=q:0x8000000000000000", "R4=d:-9223372036854775808"),
        c("CVT.F64.U64 R4, R0", "R0=q:0xFFFFFFFFFFFFFFFF", "R4=d:18446744073709551616"),
        c("CVT.F64.S64 R4, -R0", "R0=q:0x5", "R4=d:-5"),
        // 2^60 + 2^52 + 1 to bf16: up to 2^60 + 2^53, where rounding via f64 and f32 gives 2^60.
        c("CVT.BF16.U64 R4, R0", "R0=q:0x1010000000000001", "R4=0x5d81"),
        c("CVT.S64.F32 R4, R0", "R0=f:-3.75", "R4=q:0xFFFFFFFFFFFFFFFD"),
        c("CVT.S64.F32 R4, R0", "R0=f:1e30", "R4=q:0x7FFFFFFFFFFFFFFF"),
        c("CVT.S64.F32 R4, R0", "R0=0x7fc00000", "R4=q:0x0"),
        c("CVT.U64.F64 R4, R0", "R0=d:-5", "R4=q:0x0"),
        c("CVT.U64.F64 R4, R0", "R0=d:1e19", "R4=q:0x8AC7230489E80000"),
        c("CVT.S64.S32 R4, R0", "R0=-5", "R4=q:0xFFFFFFFFFFFFFFFB"),
        c("CVT.U32.S64 R4, R0", "R0=q:0x1FFFFFFFF", "R4=0xffffffff"),
        c("CVT.F64.U32 R2, R0", "R0=0xffffffff", "R2=d:4294967295"),
        c("CVT.F16.S32 R2, R0", "R0=2049", "R2=0x6800"),
        c("CVT.F16.S32 R2, R0", "R0=2051", "R2=0x6802"),
        c("CVT.F16.S32 R2, R0", "R0=-3", "R2=0xc200"),
        c("CVT.F16.S32 R2, R0", "R0=70000", "R2=0x7c00"),
        c("CVT.F16.U32 R2, R0", "R0=0xffffffff", "R2=0x7c00"),
        c("CVT.F16.U32 R2, R0", "R0=65520", "R2=0x7c00"),
        c("CVT.F16.U32 R2, R0", "R0=65519", "R2=0x7bff"),
        // 2^24 + 2^16 + 1: a naive f32 intermediate ties to 0x4b80; correct is 0x4b81.
        c("CVT.BF16.S32 R2, R0", "R0=0x01010001", "R2=0x4b81"),
        c("CVT.BF16.U32 R2, R0", "R0=0xffffffff", "R2=0x4f80"),
        c("CVT.BF16.S32 R2, R0", "R0=-1", "R2=0xbf80"),
        // float <-> float.
        c("CVT.F64.F32 R2, R0", "R0=f:1.5", "R2=d:1.5"),
        c("CVT.F64.F32 R2, R0", "R0=0x00000001", "R2=q:0x36a0000000000000"),
        c("CVT.F64.F32 R2, R0", "R0=f:-inf", "R2=d:-inf"),
        c("CVT.F64.F32 R2, R0", "R0=0x7fc00001", "R2=q:0x7fffffffffffffff"),
        c("CVT.F32.F64 R2, R0", "R0=d:1.0000000596046448", "R2=f:1"),
        c("CVT.F32.F64 R2, R0", "R0=d:1.0000001788139343", "R2=0x3f800002"),
        c("CVT.F32.F64 R2, R0", "R0=d:1e300", "R2=f:inf"),
        c("CVT.F32.F64 R2, R0", "R0=d:-1e300", "R2=f:-inf"),
        c("CVT.F32.F64 R2, R0", "R0=d:1e-50", "R2=0"),
        c("CVT.F32.F64 R2, R0", "R0=d:-1e-50", "R2=0x80000000"),
        c("CVT.F32.F64 R2, R0", "R0=q:0x7ff0000000000001", "R2=0x7fffffff"),
        c("CVT.F32.F64 R2, 0d3FF8000000000000", "", "R2=f:1.5"),
        c("CVT.F16.F32 R2, R0", "R0=f:1", "R2=0x3c00"),
        c("CVT.F16.F32 R2, R0", "R0=f:-2", "R2=0xc000"),
        c("CVT.F16.F32 R2, R0", "R0=f:65504", "R2=0x7bff"),
        c("CVT.F16.F32 R2, R0", "R0=f:65519", "R2=0x7bff"),
        c("CVT.F16.F32 R2, R0", "R0=f:65520", "R2=0x7c00"),
        c("CVT.F16.F32 R2, R0", "R0=f:1e10", "R2=0x7c00"),
        c("CVT.F16.F32 R2, R0", "R0=f:-1e10", "R2=0xfc00"),
        c("CVT.F16.F32 R2, R0", "R0=0x3f801000", "R2=0x3c00"), // 1 + 2^-11: tie to even
        c("CVT.F16.F32 R2, R0", "R0=0x3f803000", "R2=0x3c02"), // 1 + 3*2^-11: tie to even (up)
        c("CVT.F16.F32 R2, R0", "R0=0x3f801001", "R2=0x3c01"),
        c("CVT.F16.F32 R2, R0", "R0=0x33800000", "R2=0x0001"), // 2^-24
        c("CVT.F16.F32 R2, R0", "R0=0x33000000", "R2=0x0000"), // 2^-25: tie to 0
        c("CVT.F16.F32 R2, R0", "R0=0x33400000", "R2=0x0001"), // 1.5 * 2^-25
        c("CVT.F16.F32 R2, R0", "R0=0x80000000", "R2=0x8000"),
        c("CVT.F16.F32 R2, R0", "R0=0x7fc00000", "R2=0x7fff"),
        c("CVT.F16.F32 R2, R0", "R0=f:-inf", "R2=0xfc00"),
        c("CVT.BF16.F32 R2, R0", "R0=f:1", "R2=0x3f80"),
        c("CVT.BF16.F32 R2, R0", "R0=0x3f808000", "R2=0x3f80"),
        c("CVT.BF16.F32 R2, R0", "R0=0x3f818000", "R2=0x3f82"),
        c("CVT.BF16.F32 R2, R0", "R0=0x3f808001", "R2=0x3f81"),
        c("CVT.BF16.F32 R2, R0", "R0=0x7f7fffff", "R2=0x7f80"),
        c("CVT.BF16.F32 R2, R0", "R0=0xff7fffff", "R2=0xff80"),
        c("CVT.BF16.F32 R2, R0", "R0=0x7f800001", "R2=0x7fff"),
        c("CVT.BF16.F32 R2, R0", "R0=0x00000001", "R2=0x0000"),
        c("CVT.BF16.F32 R2, R0", "R0=0x00018000", "R2=0x0002"),
        c("CVT.F16.F64 R2, R0", "R0=q:0x3ff0020000001000", "R2=0x3c01"), // 1 + 2^-11 + 2^-40
        c("CVT.F16.F64 R2, R0", "R0=d:1.00048828125", "R2=0x3c00"),
        c("CVT.F16.F64 R2, R0", "R0=d:1e300", "R2=0x7c00"),
        c("CVT.BF16.F64 R2, R0", "R0=q:0x3ff0100000001000", "R2=0x3f81"), // 1 + 2^-8 + 2^-40
        c("CVT.BF16.F64 R2, R0", "R0=q:0xfff8000000000000", "R2=0x7fff"),
        c("CVT.F32.F16 R2, R0", "R0=0x3c00", "R2=f:1"),
        c("CVT.F32.F16 R2, R0", "R0=0x0001", "R2=0x33800000"),
        c("CVT.F32.F16 R2, R0", "R0=0x8400", "R2=0xb8800000"),
        c("CVT.F32.F16 R2, R0", "R0=0x7c00", "R2=f:inf"),
        c("CVT.F32.F16 R2, R0", "R0=0xfc00", "R2=f:-inf"),
        c("CVT.F32.F16 R2, R0", "R0=0x7e01", "R2=0x7fffffff"),
        c("CVT.F32.BF16 R2, R0", "R0=0x3f80", "R2=f:1"),
        c("CVT.F32.BF16 R2, R0", "R0=0x0001", "R2=0x00010000"),
        c("CVT.F32.BF16 R2, R0", "R0=0xff80", "R2=f:-inf"),
        c("CVT.F64.F16 R2, R0", "R0=0x3c00", "R2=d:1"),
        c("CVT.F64.F16 R2, R0", "R0=0x0001", "R2=d:5.9604644775390625e-8"),
        c("CVT.F64.BF16 R2, R0", "R0=0xc0a0", "R2=d:-5"),
        c("CVT.F16.BF16 R2, R0", "R0=0x3f80", "R2=0x3c00"),
        c("CVT.F16.BF16 R2, R0", "R0=0x4780", "R2=0x7c00"), // 65536 overflows f16
        c("CVT.BF16.F16 R2, R0", "R0=0x3c00", "R2=0x3f80"),
        c("CVT.BF16.F16 R2, R0", "R0=0x3c01", "R2=0x3f80"), // 1 + 2^-10 -> bf16 rounds to 1
        c("CVT.BF16.F16 R2, R0", "R0=0x7bff", "R2=0x4780"),
    ];
    // f16 round trip of every exponent: f32 -> f16 -> f32 is exact for f16 values.
    for h in [0x0001u16, 0x03ff, 0x0400, 0x3555, 0x7bff, 0x8001, 0xc3ff] {
        v.push(c("CVT.F16.F32 R2, R0", &format!("R0={:#x}", f16_to_f32(h).to_bits()), &format!("R2={h:#x}")));
    }
    v
}

fn pack_cases() -> Vec<Case> {
    vec![
        c("PACK.F16X2 R2, R0, R1", "R0=f:1 R1=f:-2", "R2=0xc0003c00"),
        c("PACK.F16X2 R2, R0, R1", "R0=0x3f801000 R1=0x3f803000", "R2=0x3c023c00"),
        c("PACK.F16X2 R2, R0, R1", "R0=0x7fc00000 R1=f:1e10", "R2=0x7c007fff"),
        c("PACK.F16X2 R2, R0, R1", "R0=0x33800000 R1=0x80000000", "R2=0x80000001"),
        c("PACK.F16X2 R2, 1.0, 0f40000000", "", "R2=0x40003c00"),
        c("PACK.F16X2 R2, -R0, |R1|", "R0=f:1 R1=f:-2", "R2=0x4000bc00"),
        c("PACK.BF16X2 R2, R0, R1", "R0=f:1 R1=0x3f818000", "R2=0x3f823f80"),
        c("PACK.BF16X2 R2, R0, R1", "R0=0x3f808000 R1=0x7f7fffff", "R2=0x7f803f80"),
        c("PACK.BF16X2 R2, R0, R1", "R0=0xffc00000 R1=f:-1", "R2=0xbf807fff"),
        c("PACK.BF16X2 R2, -|R0|, 2", "R0=f:3", "R2=0x4000c040"),
    ]
}

/// Pairs of halves (f16: 1.0 is 0x3c00; bf16: 0x3f80), each half on its own, rounded once.
fn half_cases() -> Vec<Case> {
    vec![
        c("HADD2 R2, R0, R1", "R0=0x40003c00 R1=0x3c003c00", "R2=0x42004000"),
        c("HADD2.F16X2 R2, R0, 0x3c003c00", "R0=0x40003c00", "R2=0x42004000"),
        // Ties to even: 1 + 2^-11 gives 1; (1 + 2^-10) + 2^-11 gives 1 + 2^-9.
        c("HADD2 R2, R0, R1", "R0=0x3c013c00 R1=0x10001000", "R2=0x3c023c00"),
        // 65504 + 65504 overflows; 65504 + 16 is the tie with infinity, which is even.
        c("HADD2 R2, R0, R1", "R0=0x7bff7bff R1=0x4c007bff", "R2=0x7c007c00"),
        // NaN in, and infinity minus infinity: the canonical NaN.
        c("HADD2 R2, R0, R1", "R0=0x7c007e00 R1=0xfc003c00", "R2=0x7fff7fff"),
        // -0 + -0 is -0, +0 + -0 is +0; subnormals add exactly, and cancel to +0.
        c("HADD2 R2, R0, R1", "R0=0x00008000 R1=0x80008000", "R2=0x00008000"),
        c("HADD2 R2, R0, R1", "R0=0x80010001 R1=0x00010001", "R2=0x00000002"),
        c("HADD2.BF16X2 R2, R0, R1", "R0=0x40003f80 R1=0x3f803f80", "R2=0x40404000"),
        c("HMUL2 R2, R0, R1", "R0=0xb8004000 R1=0x00004200", "R2=0x80004600"),
        // 2^-25 is the tie between 0 and the smallest subnormal; 2^-24 is that subnormal.
        c("HMUL2 R2, R0, R1", "R0=0x04000400 R1=0x14001000", "R2=0x00010000"),
        c("HMUL2.BF16X2 R2, R0, R1", "R0=0x7f003f80 R1=0x40004000", "R2=0x7f804000"),
        // (1 + 2^-10)^2 - (1 + 2^-9) is 2^-20, a subnormal that rounding the product first loses;
        // (1 + 2^-10)^2 - 1 is the tie 2^-9 (1 + 2^-11), which goes to even.
        c("HFMA2 R3, R0, R0, R1", "R0=0x3c013c01 R1=0xbc00bc02", "R3=0x18000010"),
        // 3 (1 + 2^-7) is the bf16 tie between 0x4041 and 0x4042: 2^-100 below it rounds down,
        // 2^-100 above it up. An f64 sum would lose the 2^-100 and go to even both times.
        c("HFMA2.BF16X2 R3, R0, R1, R2", "R0=0x40404040 R1=0x3f813f81 R2=0x0d808d80", "R3=0x40424041"),
        c("HFMA2 R3, R0, R1, R2", "R0=0x00008000 R1=0x3c003c00 R2=0x80000000", "R3=0x00000000"),
        // The non-NaN operand wins, -0 is below +0, two NaNs give the canonical NaN.
        c("HMIN2 R2, R0, R1", "R0=0x00007e00 R1=0x80003c00", "R2=0x80003c00"),
        c("HMAX2 R2, R0, R1", "R0=0x00007e00 R1=0x80003c00", "R2=0x00003c00"),
        c("HMIN2 R2, R0, R1", "R0=0x7e007e00 R1=0xfe01fe01", "R2=0x7fff7fff"),
        c("HMAX2.BF16X2 R2, R0, R1", "R0=0xbf804000 R1=0x3f803f80", "R2=0x3f804000"),
        // With NAN, a NaN in either half of either operand makes that half 0x7FFF.
        c("HMIN2.NAN R2, R0, R1", "R0=0x00007e00 R1=0x80003c00", "R2=0x80007fff"),
        c("HMAX2.NAN R2, R0, R1", "R0=0x4000fc01 R1=0x3c003c00", "R2=0x40007fff"),
        c("HMAX2.NAN.BF16X2 R2, R0, R1", "R0=0xbf807fc1 R1=0x3f803f80", "R2=0x3f807fff"),
        // HSETP2: the low halves into p, the high ones into q, as FSETP compares their values.
        c("HSETP2.LT P0, P1, R0, R1", "R0=0x40003c00 R1=0x3c004000", "P0=1 P1=0"),
        c("HSETP2.GE P0, P1, R0, R1", "R0=0x40003c00 R1=0x3c004000", "P0=0 P1=1"),
        // -0 equals +0; a NaN is unordered; PT discards a result.
        c("HSETP2.EQ P0, P1, R0, R1", "R0=0x7e008000 R1=0x3c000000", "P0=1 P1=0"),
        c("HSETP2.NEU P0, PT, R0, R1", "R0=0x00007e00 R1=0x00007e00", "P0=1"),
        c("HSETP2.NAN P0, P1, R0, R1", "R0=0x7e003c00 R1=0x3c003c00", "P0=0 P1=1"),
        // A subnormal half is above zero (no flushing), and bf16 halves are read as bf16.
        c("HSETP2.GT P0, P1, R0, RZ", "R0=0x80000001", "P0=1 P1=0"),
        c("HSETP2.LT.BF16X2 P0, P1, R0, R1", "R0=0x3f804000 R1=0x40003f80", "P0=0 P1=1"),
        // Combined with c, which is read before p and q are written.
        c("HSETP2.LT.AND P0, P1, R0, R1, P0", "R0=0x3c004000 R1=0x40003c00 P0=1", "P0=0 P1=1"),
        c("HSETP2.LT.OR P0, P1, R0, R1, !P0", "R0=0x40004000 R1=0x3c003c00 P0=0", "P0=1 P1=1"),
        c("HSETP2.LT.XOR P0, P1, R0, R1, P2", "R0=0x3c003c00 R1=0x40000000 P2=1", "P0=1 P1=0"),
    ]
}

fn integer_cases() -> Vec<Case> {
    vec![
        c("IADD R2, R0, R1", "R0=0xffffffff R1=1", "R2=0"),
        c("IADD R2, R0, R1", "R0=0x7fffffff R1=1", "R2=0x80000000"),
        c("IADD R2, -R0, R1", "R0=5 R1=3", "R2=-2"),
        c("IADD R2, R0, -R1", "R0=5 R1=3", "R2=2"),
        c("IADD R2, -R0, -R1", "R0=5 R1=3", "R2=-8"),
        c("IADD R2, -R0, R1", "R0=0x80000000 R1=0", "R2=0x80000000"),
        c("IADD R2, R0, -5", "R0=3", "R2=-2"),
        c("IADD R2, R0, 0x10", "R0=3", "R2=19"),
        c("IADD R2, R0, 0b101", "R0=3", "R2=8"),
        c("IADD R2, R0, 0xffffffff", "R0=3", "R2=2"),
        c("IADD R2, RZ, R0", "R0=3", "R2=3"),
        c("IADD R2, -RZ, R0", "R0=3", "R2=3"),
        c("IADD RZ, R0, R0", "R0=3", "R2=0").post("IADD R2, RZ, RZ"),
        c("IADD R0, R0, R0", "R0=3", "R0=6"),
        c("ISUB R2, R0, R1", "R0=0 R1=1", "R2=0xffffffff"),
        c("ISUB R2, R0, R1", "R0=0x80000000 R1=1", "R2=0x7fffffff"),
        c("ISUB R2, 10, R1", "R1=3", "R2=7"),
        c("ISUB R2, R0, -3", "R0=3", "R2=6"),
        c("IMUL R2, R0, R1", "R0=0x10000 R1=0x10000", "R2=0"),
        c("IMUL R2, R0, R1", "R0=0xffffffff R1=0xffffffff", "R2=1"),
        c("IMUL R2, R0, R1", "R0=-3 R1=7", "R2=-21"),
        c("IMUL R2, R0, 0x12345", "R0=0x10001", &format!("R2={:#x}", 0x10001u32.wrapping_mul(0x12345))),
        c("IMUL.HI.U32 R2, R0, R1", "R0=0xffffffff R1=0xffffffff", "R2=0xfffffffe"),
        c("IMUL.HI.S32 R2, R0, R1", "R0=0xffffffff R1=0xffffffff", "R2=0"),
        c("IMUL.HI.S32 R2, R0, R1", "R0=0x80000000 R1=0x80000000", "R2=0x40000000"),
        c("IMUL.HI.U32 R2, R0, R1", "R0=0x80000000 R1=0x80000000", "R2=0x40000000"),
        c("IMUL.HI.S32 R2, R0, R1", "R0=-1 R1=2", "R2=0xffffffff"),
        c("IMUL.HI.U32 R2, R0, R1", "R0=-1 R1=2", "R2=1"),
        c("IMUL.HI.S32 R2, R0, R1", "R0=0x80000000 R1=0x7fffffff", "R2=0xc0000000"),
        c("IMUL.HI.U32 R2, R0, R1", "R0=0x12345678 R1=0x9abcdef0", &format!("R2={:#x}", (0x12345678u64 * 0x9abcdef0u64) >> 32)),
        c("IMUL.HI R2, R0, R1", "R0=-1 R1=2", "R2=0xffffffff"),
        c("IMAD R2, R0, R1, R3", "R0=3 R1=4 R3=5", "R2=17"),
        c("IMAD R2, R0, R1, R3", "R0=0xffffffff R1=0xffffffff R3=0xffffffff", "R2=0"),
        c("IMAD R2, R0, R1, R3", "R0=0x10000 R1=0x10000 R3=7", "R2=7"),
        // 1*5 + 2*6 + 3*7 + 255*255 (or -1 * -1 signed) + 10.
        c("IDP.4A.U8.U8 R2, R0, R1, R3", "R0=0xff030201 R1=0xff070605 R3=10", "R2=65073"),
        c("IDP.4A.S8.S8 R2, R0, R1, R3", "R0=0xff030201 R1=0xff070605 R3=10", "R2=49"),
        // -1 * 255 + 38 = -217 with a signed a and an unsigned b.
        c("IDP.4A.S8.U8 R2, R0, R1, R3", "R0=0xff000000 R1=0xff000000 R3=38", "R2=0xffffff27"),
        // Halves 2 and -1 (signed) times bytes 3 and 4 (LO) or 5 and 6 (HI), plus 1.
        c("IDP.2A.LO.S16.U8 R2, R0, R1, R3", "R0=0xffff0002 R1=0x06050403 R3=1", "R2=3"),
        c("IDP.2A.HI.S16.U8 R2, R0, R1, R3", "R0=0xffff0002 R1=0x06050403 R3=1", "R2=5"),
        c("IDP.2A.HI.U16.S8 R2, R0, R1, R3", "R0=0x00010002 R1=0xfe050403 R3=0", "R2=8"),
        c("IMAD R2, R0, -2, 100", "R0=3", "R2=94"),
        c("IMIN.S32 R2, R0, R1", "R0=-1 R1=1", "R2=-1"),
        c("IMIN.U32 R2, R0, R1", "R0=-1 R1=1", "R2=1"),
        c("IMIN R2, R0, R1", "R0=-1 R1=1", "R2=-1"),
        c("IMAX.S32 R2, R0, R1", "R0=-1 R1=1", "R2=1"),
        c("IMAX.U32 R2, R0, R1", "R0=-1 R1=1", "R2=-1"),
        c("IMAX R2, R0, R1", "R0=-1 R1=1", "R2=1"),
        c("IMAX.S32 R2, R0, R1", "R0=0x80000000 R1=0x7fffffff", "R2=0x7fffffff"),
        c("IMIN.S32 R2, R0, R1", "R0=0x80000000 R1=0x7fffffff", "R2=0x80000000"),
        c("IMIN.U32 R2, R0, R1", "R0=0x80000000 R1=0x7fffffff", "R2=0x7fffffff"),
        c("IMAX.U32 R2, R0, R1", "R0=0x80000000 R1=0x7fffffff", "R2=0x80000000"),
        c("IMIN.S32 R2, R0, -7", "R0=-8", "R2=-8"),
        c("IABS R2, R0", "R0=-5", "R2=5"),
        c("IABS R2, R0", "R0=7", "R2=7"),
        c("IABS R2, R0", "R0=0", "R2=0"),
        c("IABS R2, R0", "R0=0x80000000", "R2=0x80000000"),
        c("IABS R2, R0", "R0=0x80000001", "R2=0x7fffffff"),
        c("IABS R2, -9", "", "R2=9"),
        c("LEA R2, R0, R1, 2", "R0=3 R1=100", "R2=112"),
        c("LEA R2, R0, R1, 0", "R0=3 R1=100", "R2=103"),
        c("LEA R2, R0, R1, 31", "R0=1 R1=5", "R2=0x80000005"),
        c("LEA R2, R0, R1, R3", "R0=0x80000001 R1=1 R3=1", "R2=3"),
        c("LEA R2, R0, R1, R3", "R0=0xffffffff R1=0xffffffff R3=4", "R2=0xffffffef"),
        c("LEA R2, 3, sh2, 2", "", "R2=268"),
    ]
}

fn logic_cases() -> Vec<Case> {
    let mut v = vec![
        c("AND R2, R0, R1", "R0=0xff00ff00 R1=0x0ff00ff0", "R2=0x0f000f00"),
        c("OR R2, R0, R1", "R0=0xff00ff00 R1=0x0ff00ff0", "R2=0xfff0fff0"),
        c("XOR R2, R0, R1", "R0=0xff00ff00 R1=0x0ff00ff0", "R2=0xf0f0f0f0"),
        c("AND R2, R0, 0xf", "R0=0x1234", "R2=4"),
        c("OR R2, R0, -16", "R0=3", "R2=0xfffffff3"),
        c("XOR R2, R0, 0b11", "R0=1", "R2=2"),
        c("NOT R2, R0", "R0=0x0f0f0000", "R2=0xf0f0ffff"),
        c("NOT R2, RZ", "", "R2=0xffffffff"),
        c("NOT R2, 0", "", "R2=0xffffffff"),
        c("POPC R2, R0", "R0=0", "R2=0"),
        c("POPC R2, R0", "R0=0xffffffff", "R2=32"),
        c("POPC R2, R0", "R0=0x80000001", "R2=2"),
        c("POPC R2, R0", "R0=0x12345678", "R2=13"),
        c("CLZ R2, R0", "R0=0", "R2=32"),
        c("CLZ R2, R0", "R0=0xffffffff", "R2=0"),
        c("CLZ R2, R0", "R0=1", "R2=31"),
        c("CLZ R2, R0", "R0=0x00010000", "R2=15"),
        c("BREV R2, R0", "R0=0", "R2=0"),
        c("BREV R2, R0", "R0=0xffffffff", "R2=0xffffffff"),
        c("BREV R2, R0", "R0=1", "R2=0x80000000"),
        c("BREV R2, R0", "R0=0x12345678", "R2=0x1e6a2c48"),
        // Without a type SHR is logical, as PTX `shr.b32`; `.S32` is the arithmetic shift.
        c("SHR R2, R0, 4", "R0=0x80000000", "R2=0x08000000"),
        c("SHR R2, R0, 31", "R0=0xffffffff", "R2=1"),
        c("SHR R2, R0, 32", "R0=0xffffffff", "R2=0"),
        c("SHR.S32 R2, R0, 4", "R0=0x80000000", "R2=0xf8000000"),
    ];
    for a in [0x8000_0001u32, 0x4000_0000, 0xFFFF_FFFF] {
        for n in [0u32, 1, 31, 32, 33, 0xFFFF_FFFF] {
            let shl = if n >= 32 { 0 } else { a << n };
            let shru = if n >= 32 { 0 } else { a >> n };
            let shrs = if n >= 32 { ((a as i32) >> 31) as u32 } else { ((a as i32) >> n) as u32 };
            let ins = format!("R0={a:#x} R1={n:#x}");
            v.push(c("SHL R2, R0, R1", &ins, &format!("R2={shl:#x}")));
            v.push(c("SHR.U32 R2, R0, R1", &ins, &format!("R2={shru:#x}")));
            v.push(c("SHR.S32 R2, R0, R1", &ins, &format!("R2={shrs:#x}")));
        }
    }
    v.push(c("SHL R2, R0, 33", "R0=1", "R2=0"));
    v.push(c("SHR.S32 R2, R0, 0xffffffff", "R0=0x80000000", "R2=0xffffffff"));
    v.push(c("SHR.U32 R2, R0, 32", "R0=0x80000000", "R2=0"));
    v
}

fn isetp_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let cmps = ["EQ", "NE", "LT", "LE", "GT", "GE"];
    let int_cmp = |cmp: &str, a: i64, b: i64| match cmp {
        "EQ" => a == b,
        "NE" => a != b,
        "LT" => a < b,
        "LE" => a <= b,
        "GT" => a > b,
        _ => a >= b,
    };
    for cmp in cmps {
        for ty in ["", ".S32", ".U32"] {
            for (a, b) in [(0xFFFF_FFFFu32, 1u32), (1, 1), (1, 0xFFFF_FFFF), (0x8000_0000, 0x7FFF_FFFF), (5, 6)] {
                let (x, y) = if ty == ".U32" { (i64::from(a), i64::from(b)) } else { (i64::from(a as i32), i64::from(b as i32)) };
                let r = int_cmp(cmp, x, y) as u32;
                v.push(c(&format!("ISETP.{cmp}{ty} P0, R0, R1"), &format!("R0={a:#x} R1={b:#x}"), &format!("P0={r}")));
            }
        }
    }
    for bop in ["AND", "OR", "XOR"] {
        for (a, b) in [(3u32, 3u32), (3, 4)] {
            for q in [0u32, 1] {
                for neg in [false, true] {
                    let cmp = a == b;
                    let qv = (q == 1) != neg;
                    let r = match bop {
                        "AND" => cmp && qv,
                        "OR" => cmp || qv,
                        _ => cmp != qv,
                    } as u32;
                    let qs = if neg { "!P1" } else { "P1" };
                    v.push(c(&format!("ISETP.EQ.{bop} P0, R0, R1, {qs}"), &format!("R0={a} R1={b} P1={q}"), &format!("P0={r}")));
                    v.push(c(&format!("ISETP.EQ.U32.{bop} P0, R0, R1, {qs}"), &format!("R0={a} R1={b} P1={q}"), &format!("P0={r}")));
                }
            }
        }
    }
    v.extend([
        c("ISETP.EQ.AND P0, R0, R1", "R0=2 R1=2", "P0=1"),
        c("ISETP.EQ.XOR P0, R0, R1", "R0=2 R1=2", "P0=0"),
        c("ISETP.EQ.OR P0, R0, R1, !PT", "R0=2 R1=3", "P0=0"),
        c("ISETP.LT P6, R0, -1", "R0=-2", "P6=1"),
        c("ISETP.LT.U32 P3, R0, 0xffffffff", "R0=-2", "P3=1"),
        c("ISETP.GE P0, RZ, R0", "R0=1", "P0=0"),
        c("ISETP.EQ P0, R0, R0, P0", "R0=1 P0=1", "P0=1"),
        c("ISETP.EQ.AND PT, R0, R0", "R0=1", "P0=0"),
    ]);
    v
}

const FCMPS: [&str; 14] = ["EQ", "NE", "LT", "LE", "GT", "GE", "EQU", "NEU", "LTU", "LEU", "GTU", "GEU", "NUM", "NAN"];

fn fcmp(cmp: &str, a: f64, b: f64) -> bool {
    let un = a.is_nan() || b.is_nan();
    match cmp {
        "EQ" => a == b,
        "NE" => !un && a != b,
        "LT" => a < b,
        "LE" => a <= b,
        "GT" => a > b,
        "GE" => a >= b,
        "EQU" => un || a == b,
        "NEU" => un || a != b,
        "LTU" => un || a < b,
        "LEU" => un || a <= b,
        "GTU" => un || a > b,
        "GEU" => un || a >= b,
        "NUM" => !un,
        "NAN" => un,
        _ => unreachable!(),
    }
}

fn fsetp_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let nan = f32::from_bits(0x7FC0_0000);
    let pairs =
        [(1f32, 2f32), (2.0, 1.0), (1.0, 1.0), (nan, 1.0), (1.0, nan), (nan, nan), (-0.0, 0.0), (f32::INFINITY, f32::INFINITY), (f32::NEG_INFINITY, 1.0)];
    for cmp in FCMPS {
        for (a, b) in pairs {
            let r = fcmp(cmp, f64::from(a), f64::from(b)) as u32;
            v.push(c(&format!("FSETP.{cmp} P0, R0, R1"), &format!("R0={:#x} R1={:#x}", a.to_bits(), b.to_bits()), &format!("P0={r}")));
        }
    }
    for cmp in FCMPS {
        for (a, b) in [(1f64, 2f64), (2.0, 2.0), (f64::NAN, 1.0), (-0.0, 0.0)] {
            let r = fcmp(cmp, a, b) as u32;
            v.push(c(&format!("DSETP.{cmp} P0, R0, R2"), &format!("R0=q:{:#x} R2=q:{:#x}", a.to_bits(), b.to_bits()), &format!("P0={r}")));
        }
    }
    for bop in ["AND", "OR", "XOR"] {
        for q in [0u32, 1] {
            for neg in [false, true] {
                for (a, b) in [(1f32, 2f32), (nan, 2.0)] {
                    let cmp = a < b;
                    let qv = (q == 1) != neg;
                    let r = match bop {
                        "AND" => cmp && qv,
                        "OR" => cmp || qv,
                        _ => cmp != qv,
                    } as u32;
                    let qs = if neg { "!P2" } else { "P2" };
                    let ins = format!("R0={:#x} R1={:#x} P2={q}", a.to_bits(), b.to_bits());
                    v.push(c(&format!("FSETP.LT.{bop} P0, R0, R1, {qs}"), &ins, &format!("P0={r}")));
                }
                let qv = (q == 1) != neg;
                let cmp = true; // 1 < 2 in f64
                let r = match bop {
                    "AND" => cmp && qv,
                    "OR" => cmp || qv,
                    _ => cmp != qv,
                } as u32;
                let qs = if neg { "!P2" } else { "P2" };
                v.push(c(&format!("DSETP.LT.{bop} P0, R0, R2, {qs}"), &format!("R0=d:1 R2=d:2 P2={q}"), &format!("P0={r}")));
            }
        }
    }
    v.extend([
        c("FSETP.LT P0, -R0, R1", "R0=f:1 R1=f:0", "P0=1"),
        c("FSETP.GT P0, |R0|, R1", "R0=f:-3 R1=f:2", "P0=1"),
        c("FSETP.LT P0, -|R0|, -R1", "R0=f:3 R1=f:2", "P0=1"),
        c("FSETP.EQ P0, R0, 1.5", "R0=f:1.5", "P0=1"),
        c("FSETP.EQ P0, R0, 0f3FC00000", "R0=f:1.5", "P0=1"),
        c("FSETP.EQ P0, R0, 2", "R0=f:2", "P0=1"),
        c("FSETP.LT P0, R0, inf", "R0=f:3e38", "P0=1"),
        c("FSETP.NAN P0, R0, nan", "R0=f:1", "P0=1"),
        c("FSETP.EQ P0, R0, RZ", "R0=0x80000000", "P0=1"),
        c("FSETP.EQ P0, R0, R1", "R0=0x00000001 R1=0", "P0=0"),
        c("DSETP.EQ P0, R0, 0d3FF0000000000000", "R0=d:1", "P0=1"),
        c("DSETP.EQ P0, R0, 2.5", "R0=d:2.5", "P0=1"),
        c("DSETP.LT P0, -R0, R2", "R0=d:1 R2=d:0", "P0=1"),
        c("DSETP.GT P0, |R0|, R2", "R0=d:-3 R2=d:2", "P0=1"),
        c("DSETP.LT P0, -|R0|, R2", "R0=d:3 R2=d:-2", "P0=1"),
        c("DSETP.EQ P0, R0, R2", "R0=q:0x0000000000000001 R2=d:0", "P0=0"),
        c("DSETP.LT P0, R0, R2", "R0=q:0x3ff0000000000000 R2=q:0x3ff0000000000001", "P0=1"),
    ]);
    v
}

fn hex(x: f32) -> String {
    format!("{:#x}", x.to_bits())
}

fn sat(x: f32) -> f32 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > 1.0 {
        1.0
    } else {
        x
    }
}

fn f32_cases() -> Vec<Case> {
    let tiny = f32::from_bits(1);
    let mut v = vec![
        c("FADD R2, R0, R1", "R0=f:1 R1=f:2", "R2=f:3"),
        c("FADD R2, R0, R1", "R0=f:0.1 R1=f:0.2", &format!("R2={}", hex(0.1f32 + 0.2f32))),
        c("FADD R2, R0, R1", "R0=f:inf R1=f:-inf", "R2=0x7fffffff"),
        c("FADD R2, R0, R1", "R0=0x7fc00001 R1=f:1", "R2=0x7fffffff"),
        c("FADD R2, R0, R1", "R0=f:1 R1=0xff800001", "R2=0x7fffffff"),
        c("FADD R2, R0, R1", "R0=0x7f7fffff R1=0x7f7fffff", "R2=f:inf"),
        c("FADD R2, R0, R1", "R0=0x00000001 R1=0x00000001", "R2=0x00000002"),
        c("FADD R2, R0, R1", "R0=0x80000000 R1=0x80000000", "R2=0x80000000"),
        c("FADD R2, R0, R1", "R0=0 R1=0x80000000", "R2=0"),
        c("FADD R2, R0, R1", "R0=f:5 R1=f:-5", "R2=0"),
        c("FADD R2, R0, R1", "R0=f:1 R1=0x33800000", "R2=f:1"), // 1 + 2^-24: tie to even
        c("FADD R2, R0, R1", "R0=0x3f800001 R1=0x33800000", "R2=0x3f800002"),
        c("FADD.FTZ R2, R0, R1", "R0=0x00000001 R1=0x00000001", "R2=0"),
        c("FADD.FTZ R2, R0, R1", "R0=0x00000001 R1=0", "R2=0"),
        c("FADD.FTZ R2, R0, R1", "R0=0x80000001 R1=0x80000000", "R2=0x80000000"),
        c("FADD.FTZ R2, R0, R1", "R0=0x00800000 R1=0x80000001", "R2=0x00800000"),
        c("FADD.FTZ R2, R0, R1", "R0=0x00800001 R1=0x80800000", "R2=0"), // result 2^-149 flushed
        c("FADD R2, R0, R1", "R0=0x00800001 R1=0x80800000", "R2=0x00000001"),
        c("FADD.FTZ R2, R0, R1", "R0=0x80800001 R1=0x00800000", "R2=0x80000000"),
        c("FADD.SAT R2, R0, R1", "R0=f:0.5 R1=f:0.25", "R2=f:0.75"),
        c("FADD.SAT R2, R0, R1", "R0=f:1 R1=f:1", "R2=f:1"),
        c("FADD.SAT R2, R0, R1", "R0=f:-1 R1=f:0.5", "R2=0"),
        c("FADD.SAT R2, R0, R1", "R0=f:inf R1=f:-inf", "R2=0"),
        c("FADD.SAT R2, R0, R1", "R0=0x7fc00000 R1=f:1", "R2=0"),
        c("FADD.SAT R2, R0, R1", "R0=0x80000000 R1=0x80000000", "R2=0"),
        c("FADD.SAT R2, R0, R1", "R0=f:inf R1=f:1", "R2=f:1"),
        c("FADD.SAT R2, R0, R1", "R0=f:-inf R1=f:1", "R2=0"),
        c("FADD.SAT R2, R0, R1", "R0=f:1 R1=0x33800001", "R2=f:1"),
        c("FADD.FTZ.SAT R2, R0, R1", "R0=0x00000001 R1=0x00000001", "R2=0"),
        c("FADD.FTZ.SAT R2, R0, R1", "R0=f:0.5 R1=f:2", "R2=f:1"),
        c("FADD R2, R0, 0f3F800000", "R0=f:1", "R2=f:2"),
        c("FADD R2, R0, 1.5", "R0=f:1", "R2=f:2.5"),
        c("FADD R2, R0, -2", "R0=f:1", "R2=f:-1"),
        c("FADD R2, R0, -2.5e-3", "R0=f:0", &format!("R2={}", hex(-2.5e-3))),
        c("FADD R2, R0, inf", "R0=f:1", "R2=f:inf"),
        c("FADD R2, R0, -inf", "R0=f:1", "R2=f:-inf"),
        c("FADD R2, R0, nan", "R0=f:1", "R2=0x7fffffff"),
        c("FADD R2, R0, 1e9", "R0=f:0", "R2=f:1e9"),
        c("FADD R2, -R0, R1", "R0=f:0 R1=f:0", "R2=0"),
        c("FADD R2, -R0, R1", "R0=f:0 R1=0x80000000", "R2=0x80000000"),
        c("FADD R2, |R0|, R1", "R0=f:-3 R1=f:1", "R2=f:4"),
        c("FADD R2, -|R0|, R1", "R0=f:3 R1=f:1", "R2=f:-2"),
        c("FADD R2, -|R0|, -R1", "R0=f:-3 R1=f:1", "R2=f:-4"),
        c("FADD R2, R0, RZ", "R0=f:1.25", "R2=f:1.25"),
        c("FMUL R2, R0, R1", "R0=f:-2 R1=f:3", "R2=f:-6"),
        c("FMUL R2, R0, R1", "R0=f:0 R1=f:inf", "R2=0x7fffffff"),
        c("FMUL R2, R0, R1", "R0=f:-0 R1=f:5", "R2=0x80000000"),
        c("FMUL R2, R0, R1", "R0=f:1e30 R1=f:1e30", "R2=f:inf"),
        c("FMUL R2, R0, R1", "R0=0x00800000 R1=f:0.5", "R2=0x00400000"),
        c("FMUL.FTZ R2, R0, R1", "R0=0x00800000 R1=f:0.5", "R2=0"),
        c("FMUL.FTZ R2, R0, R1", "R0=0x80800000 R1=f:0.5", "R2=0x80000000"),
        c("FMUL.FTZ R2, R0, R1", "R0=0x00400000 R1=f:4", "R2=0"),
        c("FMUL R2, R0, R1", "R0=0x00400000 R1=f:4", "R2=0x01000000"),
        c("FMUL.SAT R2, R0, R1", "R0=f:0.5 R1=f:3", "R2=f:1"),
        c("FMUL.SAT R2, R0, R1", "R0=f:-0.5 R1=f:0.5", "R2=0"),
        c("FMUL.SAT R2, R0, R1", "R0=f:0 R1=f:inf", "R2=0"),
        c("FMUL.SAT R2, R0, R1", "R0=f:-0 R1=f:1", "R2=0"),
        c("FMUL.FTZ.SAT R2, R0, R1", "R0=0x00400000 R1=f:-4", "R2=0"),
        c("FMUL R2, |R0|, 1.0", "R0=0x80000000", "R2=0"),
        c("FMUL R2, -R0, -R1", "R0=f:2 R1=f:3", "R2=f:6"),
        c("FMUL R2, R0, 0.5", "R0=f:3", "R2=f:1.5"),
        // FFMA: one rounding. (1+2^-23)^2 - (1+2^-22) = 2^-46 exactly; FMUL+FADD gives 0.
        c("FFMA R3, R0, R1, R2", "R0=0x3f800001 R1=0x3f800001 R2=0xbf800002", "R3=0x28800000"),
        c("FFMA R3, R0, R1, R2", "R0=f:2 R1=f:3 R2=f:4", "R3=f:10"),
        c("FFMA R3, R0, R1, R2", "R0=f:inf R1=f:0 R2=f:1", "R3=0x7fffffff"),
        c("FFMA R3, R0, R1, R2", "R0=f:inf R1=f:1 R2=f:-inf", "R3=0x7fffffff"),
        c("FFMA R3, R0, R1, R2", "R0=f:1 R1=f:1 R2=0x7fa00000", "R3=0x7fffffff"),
        c("FFMA R3, R0, R1, R2", "R0=f:1e30 R1=f:1e30 R2=f:-inf", "R3=f:-inf"),
        c("FFMA R3, R0, R1, R2", "R0=f:-0 R1=f:1 R2=f:-0", "R3=0x80000000"),
        c("FFMA R3, R0, R1, R2", "R0=f:-0 R1=f:1 R2=f:0", "R3=0"),
        c("FFMA R3, R0, R1, R2", "R0=0x0d800000 R1=0x31000000 R2=0", "R3=0x00100000"), // 2^-100 * 2^-29 = 2^-129
        c("FFMA.FTZ R3, R0, R1, R2", "R0=0x0d800000 R1=0x31000000 R2=0", "R3=0"),
        c("FFMA.FTZ R3, R0, R1, R2", "R0=f:1 R1=f:1 R2=0x00000001", "R3=f:1"),
        c("FFMA.FTZ R3, R0, R1, R2", "R0=0x00000001 R1=f:1e30 R2=f:0", "R3=0"),
        c("FFMA R3, R0, R1, R2", "R0=0x00000001 R1=f:1e30 R2=f:0", &format!("R3={}", hex(tiny.mul_add(1e30, 0.0)))),
        c("FFMA.FTZ R3, R0, R1, R2", "R0=0x80000001 R1=f:1 R2=0x80000000", "R3=0x80000000"),
        c("FFMA.SAT R3, R0, R1, R2", "R0=f:0.5 R1=f:0.5 R2=f:0.25", "R3=f:0.5"),
        c("FFMA.SAT R3, R0, R1, R2", "R0=f:2 R1=f:2 R2=f:-1", "R3=f:1"),
        c("FFMA.SAT R3, R0, R1, R2", "R0=f:2 R1=f:-2 R2=f:1", "R3=0"),
        c("FFMA.SAT R3, R0, R1, R2", "R0=f:inf R1=f:0 R2=f:1", "R3=0"),
        c("FFMA.SAT R3, R0, R1, R2", "R0=f:-0 R1=f:1 R2=f:-0", "R3=0"),
        c("FFMA.FTZ.SAT R3, R0, R1, R2", "R0=0x00000001 R1=f:1e30 R2=f:0.5", "R3=f:0.5"),
        c("FFMA R3, -R0, |R1|, -|R2|", "R0=f:2 R1=f:-3 R2=f:4", "R3=f:-10"),
        c("FFMA R3, R0, 2.0, 0f3F800000", "R0=f:3", "R3=f:7"),
        c("FFMA R3, R0, R0, R0", "R0=f:3", "R3=f:12"),
        // FMIN / FMAX: the non-NaN operand; -0 below +0; canonical NaN when both are NaN.
        c("FMIN R2, R0, R1", "R0=f:1 R1=f:2", "R2=f:1"),
        c("FMAX R2, R0, R1", "R0=f:1 R1=f:2", "R2=f:2"),
        c("FMIN R2, R0, R1", "R0=0x7fc00000 R1=f:1", "R2=f:1"),
        c("FMIN R2, R0, R1", "R0=f:1 R1=0xffc00001", "R2=f:1"),
        c("FMAX R2, R0, R1", "R0=0x7fc00000 R1=f:-1", "R2=f:-1"),
        c("FMAX R2, R0, R1", "R0=f:-1 R1=0x7f800001", "R2=f:-1"),
        c("FMIN R2, R0, R1", "R0=0x7fc00000 R1=0x7fc00001", "R2=0x7fffffff"),
        c("FMAX R2, R0, R1", "R0=0xffc00000 R1=0x7fc00001", "R2=0x7fffffff"),
        c("FMIN R2, R0, R1", "R0=0x80000000 R1=0", "R2=0x80000000"),
        c("FMIN R2, R0, R1", "R0=0 R1=0x80000000", "R2=0x80000000"),
        c("FMAX R2, R0, R1", "R0=0x80000000 R1=0", "R2=0"),
        c("FMAX R2, R0, R1", "R0=0 R1=0x80000000", "R2=0"),
        c("FMIN R2, R0, R1", "R0=f:-inf R1=f:inf", "R2=f:-inf"),
        c("FMAX R2, R0, R1", "R0=f:-inf R1=f:inf", "R2=f:inf"),
        c("FMIN R2, R0, R1", "R0=0x00000001 R1=0x00000002", "R2=0x00000001"),
        c("FMIN.FTZ R2, R0, R1", "R0=0x00000001 R1=0x00000002", "R2=0"),
        c("FMIN.FTZ R2, R0, R1", "R0=0x80000001 R1=0", "R2=0x80000000"),
        c("FMAX.FTZ R2, R0, R1", "R0=0x80000001 R1=0", "R2=0"),
        c("FMAX.FTZ R2, R0, R1", "R0=0x00000001 R1=0x80000000", "R2=0"),
        c("FMAX.FTZ R2, R0, R1", "R0=0x80000001 R1=0x80000002", "R2=0x80000000"),
        // FMIN.NAN / FMAX.NAN: the canonical NaN when either operand is NaN, else as FMIN / FMAX.
        c("FMIN.NAN R2, R0, R1", "R0=0x7fc00000 R1=f:1", "R2=0x7fffffff"),
        c("FMAX.NAN R2, R0, R1", "R0=f:-1 R1=0xff800001", "R2=0x7fffffff"),
        c("FMAX.NAN R2, R0, R1", "R0=f:-1 R1=f:-inf", "R2=f:-1"),
        c("FMIN.NAN R2, R0, R1", "R0=0 R1=0x80000000", "R2=0x80000000"),
        c("FMAX.NAN R2, R0, R1", "R0=0x80000000 R1=0", "R2=0"),
        c("FMAX.NAN.FTZ R2, R0, R1", "R0=0x00000001 R1=0x80000000", "R2=0"),
        c("FMIN R2, -R0, R1", "R0=f:5 R1=f:1", "R2=f:-5"),
        c("FMAX R2, |R0|, R1", "R0=f:-5 R1=f:1", "R2=f:5"),
        c("FMAX R2, -|R0|, -0.5", "R0=f:5", "R2=f:-0.5"),
        c("FMIN R2, R0, nan", "R0=f:5", "R2=f:5"),
        c("FMAX R2, R0, RZ", "R0=f:-5", "R2=0"),
    ];
    // A few FADD/FMUL/FFMA results against Rust's IEEE arithmetic (and .SAT of them).
    let vals = [1.0f32 / 3.0, -7.25, 1e-20, 3.4e38, f32::MIN_POSITIVE, 0.1];
    for &a in &vals {
        for &b in &vals {
            let ins = format!("R0={} R1={} R2={}", hex(a), hex(b), hex(-a));
            let canon = |x: f32| if x.is_nan() { CANON } else { x.to_bits() };
            v.push(c("FADD R3, R0, R1", &ins, &format!("R3={:#x}", canon(a + b))));
            v.push(c("FMUL R3, R0, R1", &ins, &format!("R3={:#x}", canon(a * b))));
            v.push(c("FFMA R3, R0, R1, R2", &ins, &format!("R3={:#x}", canon(a.mul_add(b, -a)))));
            v.push(c("FFMA.SAT R3, R0, R1, R2", &ins, &format!("R3={:#x}", sat(a.mul_add(b, -a)).to_bits())));
        }
    }
    v
}

fn mufu_cases() -> Vec<Case> {
    let r = |x: f64| {
        let y = x as f32;
        if y.is_nan() { CANON } else { y.to_bits() }
    };
    let mut v = vec![
        c("MUFU.TANH R2, R0", "R0=f:-0", "R2=0x80000000"),
        c("MUFU.TANH R2, R0", "R0=f:-inf", "R2=f:-1"),
        c("MUFU.TANH R2, R0", "R0=f:1", &format!("R2=0x{:08x}", (1f64.tanh() as f32).to_bits())),
        c("MUFU.TANH R2, R0", "R0=0x7fc00000", "R2=0x7fffffff"),
        c("MUFU.RCP R2, R0", "R0=f:0", "R2=f:inf"),
        c("MUFU.RCP R2, R0", "R0=f:-0", "R2=f:-inf"),
        c("MUFU.RCP R2, R0", "R0=f:inf", "R2=0"),
        c("MUFU.RCP R2, R0", "R0=f:-inf", "R2=0x80000000"),
        c("MUFU.RCP R2, R0", "R0=f:2", "R2=f:0.5"),
        c("MUFU.RCP R2, R0", "R0=f:-4", "R2=f:-0.25"),
        c("MUFU.RCP R2, R0", "R0=0x7fc00000", "R2=0x7fffffff"),
        c("MUFU.RSQ R2, R0", "R0=f:0", "R2=f:inf"),
        c("MUFU.RSQ R2, R0", "R0=f:-0", "R2=f:-inf"),
        c("MUFU.RSQ R2, R0", "R0=f:-1", "R2=0x7fffffff"),
        c("MUFU.RSQ R2, R0", "R0=f:inf", "R2=0"),
        c("MUFU.RSQ R2, R0", "R0=f:-inf", "R2=0x7fffffff"),
        c("MUFU.RSQ R2, R0", "R0=f:4", "R2=f:0.5"),
        c("MUFU.SQRT R2, R0", "R0=f:0", "R2=0"),
        c("MUFU.SQRT R2, R0", "R0=f:-0", "R2=0x80000000"),
        c("MUFU.SQRT R2, R0", "R0=f:-1", "R2=0x7fffffff"),
        c("MUFU.SQRT R2, R0", "R0=f:inf", "R2=f:inf"),
        c("MUFU.SQRT R2, R0", "R0=f:-inf", "R2=0x7fffffff"),
        c("MUFU.SQRT R2, R0", "R0=f:16", "R2=f:4"),
        c("MUFU.SIN R2, R0", "R0=f:0", "R2=0"),
        c("MUFU.SIN R2, R0", "R0=f:-0", "R2=0x80000000"),
        c("MUFU.SIN R2, R0", "R0=f:inf", "R2=0x7fffffff"),
        c("MUFU.COS R2, R0", "R0=f:0", "R2=f:1"),
        c("MUFU.COS R2, R0", "R0=f:-inf", "R2=0x7fffffff"),
        c("MUFU.EX2 R2, R0", "R0=f:1", "R2=f:2"),
        c("MUFU.EX2 R2, R0", "R0=f:-1", "R2=f:0.5"),
        c("MUFU.EX2 R2, R0", "R0=f:-inf", "R2=0"),
        c("MUFU.EX2 R2, R0", "R0=f:inf", "R2=f:inf"),
        c("MUFU.EX2 R2, R0", "R0=f:128", "R2=f:inf"),
        c("MUFU.EX2 R2, R0", "R0=f:-149", "R2=0x00000001"),
        c("MUFU.LG2 R2, R0", "R0=f:8", "R2=f:3"),
        c("MUFU.LG2 R2, R0", "R0=f:0", "R2=f:-inf"),
        c("MUFU.LG2 R2, R0", "R0=f:-0", "R2=f:-inf"),
        c("MUFU.LG2 R2, R0", "R0=f:-1", "R2=0x7fffffff"),
        c("MUFU.LG2 R2, R0", "R0=f:inf", "R2=f:inf"),
        c("MUFU.LG2 R2, R0", "R0=0x00000001", "R2=f:-149"),
        c("MUFU.RCP R2, -R0", "R0=f:2", "R2=f:-0.5"),
        c("MUFU.SQRT R2, |R0|", "R0=f:-9", "R2=f:3"),
        c("MUFU.RSQ R2, 0.25", "", "R2=f:2"),
    ];
    for &x in &[3.0f32, 0.7, 1e-3, 12345.678, f32::from_bits(1)] {
        let d = f64::from(x);
        let ins = format!("R0={}", hex(x));
        v.push(c("MUFU.RCP R2, R0", &ins, &format!("R2={:#x}", r(1.0 / d))));
        v.push(c("MUFU.RSQ R2, R0", &ins, &format!("R2={:#x}", r(1.0 / d.sqrt()))));
        v.push(c("MUFU.SQRT R2, R0", &ins, &format!("R2={:#x}", r(d.sqrt()))));
        v.push(c("MUFU.SIN R2, R0", &ins, &format!("R2={:#x}", r(d.sin()))));
        v.push(c("MUFU.COS R2, R0", &ins, &format!("R2={:#x}", r(d.cos()))));
        v.push(c("MUFU.EX2 R2, R0", &ins, &format!("R2={:#x}", r(d.exp2()))));
        v.push(c("MUFU.LG2 R2, R0", &ins, &format!("R2={:#x}", r(d.log2()))));
    }
    v
}

/// 64-bit integers on pairs, predicate logic and f32 division: the rows compiled PTX needs.
fn ptx_support_cases() -> Vec<Case> {
    vec![
        c("IADD64 R4, R0, R2", "R0=q:0x00000001FFFFFFFF R2=q:0x1", "R4=q:0x0000000200000000"),
        c("IADD64 R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFFF R2=q:0x2", "R4=q:0x1"),
        c("IADD64 R4, R0, -4", "R0=q:0x100000000", "R4=q:0xFFFFFFFC"),
        c("IADD64 R4, R0, 0x7fffffff", "R0=q:0x1", "R4=q:0x80000000"),
        c("IMUL64 R4, R0, R2", "R0=q:0x100000001 R2=q:0x100000001", "R4=q:0x0000000200000001"),
        c("IMUL64 R4, R0, -1", "R0=q:0x5", "R4=q:0xFFFFFFFFFFFFFFFB"),
        c("IMUL.WIDE R4, R0, R1", "R0=-3 R1=4", "R4=q:0xFFFFFFFFFFFFFFF4"),
        c("IMUL.WIDE.S32 R4, R0, 4", "R0=0x7fffffff", "R4=q:0x1FFFFFFFC"),
        c("IMUL.WIDE.U32 R4, R0, R1", "R0=0xffffffff R1=0xffffffff", "R4=q:0xFFFFFFFE00000001"),
        // IMAD.WIDE: the whole product plus a pair, wrapping; a literal `c` is sign-extended.
        c("IMAD.WIDE R4, R0, 4, R2", "R0=-3 R2=q:0x1000", "R4=q:0xFF4"),
        c("IMAD.WIDE.U32 R4, R0, R1, R2", "R0=0xffffffff R1=0xffffffff R2=q:0x1FFFFFFFE", "R4=q:0xFFFFFFFFFFFFFFFF"),
        c("IMAD.WIDE R4, R0, R1, R2", "R0=0x7fffffff R1=2 R2=q:0xFFFFFFFFFFFFFFFF", "R4=q:0xFFFFFFFD"),
        c("IMAD.WIDE.U32 R4, R0, 8, -1", "R0=0x80000000", "R4=q:0x3FFFFFFFF"),
        c("IMAD.WIDE R0, R0, R2, R0", "R0=q:0x0000000100000002 R2=3", "R0=q:0x100000008"),
        c("SHL64 R4, R0, 4", "R0=q:0x0F00000000000001", "R4=q:0xF000000000000010"),
        c("SHL64 R4, R0, R2", "R0=q:0x1 R2=63", "R4=q:0x8000000000000000"),
        c("SHL64 R4, R0, R2", "R0=q:0x1 R2=64", "R4=q:0x0"),
        c("SHR64 R4, R0, 4", "R0=q:0x8000000000000000", "R4=q:0xF800000000000000"),
        c("SHR64.S64 R4, R0, R2", "R0=q:0x8000000000000000 R2=200", "R4=q:0xFFFFFFFFFFFFFFFF"),
        c("SHR64.U64 R4, R0, 36", "R0=q:0x8000000000000000", "R4=q:0x8000000"),
        c("SHR64.U64 R4, R0, R2", "R0=q:0x8000000000000000 R2=64", "R4=q:0x0"),
        c("ISUB64 R4, R0, R2", "R0=q:0x200000000 R2=q:0x1", "R4=q:0x1FFFFFFFF"),
        c("ISUB64 R4, R0, R2", "R0=q:0x1 R2=q:0x2", "R4=q:0xFFFFFFFFFFFFFFFF"),
        c("ISUB64 R4, R0, -1", "R0=q:0xFFFFFFFF", "R4=q:0x100000000"),
        c("IMIN64 R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFFF R2=q:0x1", "R4=q:0xFFFFFFFFFFFFFFFF"),
        c("IMIN64.U64 R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFFF R2=q:0x1", "R4=q:0x1"),
        c("IMAX64.S64 R4, R0, R2", "R0=q:0x8000000000000000 R2=q:0x7FFFFFFFFFFFFFFF", "R4=q:0x7FFFFFFFFFFFFFFF"),
        c("IMAX64.U64 R4, R0, -2", "R0=q:0x100000000", "R4=q:0xFFFFFFFFFFFFFFFE"),
        c("ISETP64.LT P0, R0, R2", "R0=q:0xFFFFFFFF00000000 R2=q:0x1", "P0=1"),
        c("ISETP64.LT.U64 P0, R0, R2", "R0=q:0xFFFFFFFF00000000 R2=q:0x1", "P0=0"),
        c("ISETP64.GE.U64 P1, R0, R2", "R0=q:0x100000000 R2=q:0xFFFFFFFF", "P1=1"),
        c("ISETP64.EQ P0, R0, R2", "R0=q:0x100000001 R2=q:0x1", "P0=0"),
        c("ISETP64.NE.S64.OR P0, R0, R2, P1", "R0=q:0x5 R2=q:0x5 P1=1", "P0=1"),
        c("ISETP64.LE P0, R0, -1", "R0=q:0xFFFFFFFFFFFFFFFF", "P0=1"),
        c("ISETP64.GT.S64.AND P0, R0, 0, !P1", "R0=q:0x100000000 P1=1", "P0=0"),
        c("IDIV64 R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFF9 R2=q:0x2", "R4=q:0xFFFFFFFFFFFFFFFD"),
        c("IDIV64.U64 R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFF9 R2=q:0x2", "R4=q:0x7FFFFFFFFFFFFFFC"),
        c("IDIV64 R4, R0, -1", "R0=q:0x8000000000000000", "R4=q:0x8000000000000000"),
        c("IDIV64 R4, R0, 0", "R0=q:0x5", "R4=q:0xFFFFFFFFFFFFFFFF"),
        c("IDIV64.U64 R4, R0, R2", "R0=q:0x300000000 R2=q:0x100000000", "R4=q:0x3"),
        c("IREM64 R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFF9 R2=q:0x2", "R4=q:0xFFFFFFFFFFFFFFFF"),
        c("IREM64.U64 R4, R0, 7", "R0=q:0xFFFFFFFFFFFFFFFF", "R4=q:0x1"),
        c("IREM64 R4, R0, 0", "R0=q:0x9", "R4=q:0x9"),
        c("IREM64 R4, R0, -1", "R0=q:0x8000000000000000", "R4=q:0x0"),
        // FFMA with directed rounding: 1 + 2^-30 lies between 1 and the next f32 up.
        c("FFMA.RM R3, R0, R1, R2", "R0=f:1 R1=f:1 R2=0x30800000", "R3=0x3f800000"),
        c("FFMA.RP R3, R0, R1, R2", "R0=f:1 R1=f:1 R2=0x30800000", "R3=0x3f800001"),
        c("FFMA.RZ R3, R0, R1, R2", "R0=f:1 R1=f:1 R2=0x30800000", "R3=0x3f800000"),
        c("FFMA.RM R3, R0, R1, R2", "R0=f:-1 R1=f:1 R2=0xb0800000", "R3=0xbf800001"),
        c("FFMA.RP R3, R0, R1, R2", "R0=f:-1 R1=f:1 R2=0xb0800000", "R3=0xbf800000"),
        c("FFMA.RZ R3, R0, R1, R2", "R0=f:-1 R1=f:1 R2=0xb0800000", "R3=0xbf800000"),
        // An exact zero of opposite signs is -0 only rounding down; zeros of one sign keep it.
        c("FFMA.RM R3, R0, R1, R2", "R0=f:1 R1=f:1 R2=f:-1", "R3=0x80000000"),
        c("FFMA.RP R3, R0, R1, R2", "R0=f:1 R1=f:1 R2=f:-1", "R3=0"),
        c("FFMA.RZ R3, R0, R1, R2", "R0=f:-0 R1=f:1 R2=f:-0", "R3=0x80000000"),
        // Past the largest finite value: rounding toward it stops there.
        c("FFMA.RM R3, R0, R1, RZ", "R0=0x7f7fffff R1=f:2", "R3=0x7f7fffff"),
        c("FFMA.RP R3, R0, R1, RZ", "R0=0x7f7fffff R1=f:2", "R3=0x7f800000"),
        c("FFMA.RZ R3, R0, R1, RZ", "R0=0xff7fffff R1=f:2", "R3=0xff7fffff"),
        // nvcc's expf takes the floor of a value in [2^23, 2^24) with FFMA.RM.
        c("FFMA.RM R3, R0, R1, R2", "R0=0x3e99999a R1=f:252 R2=0x4b400001", "R3=0x4b40004c"),
        c("FFMA.RP R3, R0, R1, R2", "R0=0x3e99999a R1=f:252 R2=0x4b400001", "R3=0x4b40004d"),
        // Below the smallest subnormal: 0, or the smallest subnormal rounding up; FTZ flushes it.
        c("FFMA.RM R3, R0, R0, RZ", "R0=0x0d800000", "R3=0"),
        c("FFMA.RP R3, R0, R0, RZ", "R0=0x0d800000", "R3=0x00000001"),
        c("FFMA.FTZ.RP R3, R0, R0, RZ", "R0=0x0d800000", "R3=0"),
        c("FFMA.SAT.RM R3, R0, R1, R2", "R0=f:-1 R1=f:1 R2=0x30800000", "R3=0"),
        c("FFMA.RZ R3, R0, R1, R2", "R0=0x7fc00001 R1=f:1 R2=f:1", "R3=0x7fffffff"),
        c("FRND R1, R0", "R0=f:2.5", "R1=f:2"),
        c("FRND R1, R0", "R0=f:-3.5", "R1=f:-4"),
        c("FRND.RZ R1, R0", "R0=f:-2.75", "R1=f:-2"),
        c("FRND.RM R1, R0", "R0=f:-2.25", "R1=f:-3"),
        c("FRND.RP R1, R0", "R0=f:2.25", "R1=f:3"),
        c("FRND.RP R1, R0", "R0=f:-0.5", "R1=0x80000000"),
        c("FRND.RM R1, R0", "R0=f:0.5", "R1=0"),
        c("FRND R1, R0", "R0=0x4b800001", "R1=0x4b800001"),
        c("FRND.RM R1, R0", "R0=0xff800000", "R1=0xff800000"),
        c("FRND.RZ R1, R0", "R0=0x7fc00001", "R1=0x7fffffff"),
        c("FRND.RP.FTZ R1, R0", "R0=0x00000001", "R1=0"),
        c("FRND.RP R1, R0", "R0=0x00000001", "R1=f:1"),
        c("FRND.RM R1, -R0", "R0=f:1.5", "R1=f:-2"),
        c("BFI R4, R0, R1, R2, R3", "R0=0xF R1=0xFFFF0000 R2=4 R3=8", "R4=0xFFFF00F0"),
        c("BFI R4, R0, R1, 28, 8", "R0=0xAB R1=0", "R4=0xB0000000"),
        c("BFI R4, R0, R1, 0, 32", "R0=0x12345678 R1=-1", "R4=0x12345678"),
        c("BFI R4, R0, R1, 0x104, 0", "R0=0xF R1=0x55", "R4=0x55"),
        c("BFI R4, R0, R1, 32, 4", "R0=0xF R1=0x55", "R4=0x55"),
        // LOP3's table is F(0xF0, 0xCC, 0xAA): 0x96 a ^ b ^ c, 0xE8 the majority, 0xF8 a | (b & c).
        c("LOP3 R4, R0, R1, R2, 0x96", "R0=0xFF00FF00 R1=0xF0F0F0F0 R2=0xCCCCCCCC", "R4=0xC33CC33C"),
        c("LOP3 R4, R0, R1, R2, 0xE8", "R0=0xFF00FF00 R1=0xF0F0F0F0 R2=0xCCCCCCCC", "R4=0xFCC0FCC0"),
        c("LOP3 R4, R0, R1, R2, R3", "R0=0x10000 R1=0xFFFF R2=0x100 R3=0xF8", "R4=0x10100"),
        c("LOP3 R4, R0, R1, R2, 0x100", "R0=-1 R1=-1 R2=-1", "R4=0"),
        c("PLOP.AND P2, P0, P1", "P0=1 P1=1", "P2=1"),
        c("PLOP.AND P2, P0, !P1", "P0=1 P1=1", "P2=0"),
        c("PLOP.OR P2, !P0, P1", "P0=1 P1=0", "P2=0"),
        c("PLOP.XOR P2, P0, P1", "P0=1 P1=0", "P2=1"),
        c("PLOP.XOR P2, P0, PT", "P0=1", "P2=0"),
        c("FDIV R2, R0, R1", "R0=f:1 R1=f:3", "R2=0x3eaaaaab"),
        c("FDIV.RZ R2, R0, R1", "R0=f:1 R1=f:3", "R2=0x3eaaaaaa"),
        c("FDIV.RM R2, R0, R1", "R0=f:-1 R1=f:3", "R2=0xbeaaaaab"),
        c("FDIV.RP R2, R0, R1", "R0=f:1 R1=f:3", "R2=0x3eaaaaab"),
        c("FDIV.RZ R2, R0, R1", "R0=f:1 R1=f:0", "R2=f:inf"),
        c("FSQRT R2, R0", "R0=f:2", "R2=0x3fb504f3"),
        c("FSQRT.RZ R2, R0", "R0=f:2", "R2=0x3fb504f3"),
        c("CVT.F32.S32.RP R2, -R0", "R0=16777217", "R2=0xcb800000"),
        c("CVT.F32.F64.RM R2, |R0|", "R0=d:-0.1", "R2=0x3dcccccc"),
        c("FSQRT.RP R2, R0", "R0=f:2", "R2=0x3fb504f4"),
        c("FSQRT.RM R2, R0", "R0=f:-0", "R2=0x80000000"),
        c("FSQRT.RM R2, R0", "R0=f:-2", "R2=0x7fffffff"),
        c("CVT.F32.S32.RZ R2, R0", "R0=16777217", "R2=0x4b800000"),
        c("CVT.F32.S32.RP R2, R0", "R0=16777217", "R2=0x4b800001"),
        c("CVT.F32.S32.RM R2, R0", "R0=-16777217", "R2=0xcb800001"),
        c("CVT.F32.F64.RZ R2, R0", "R0=d:0.1", "R2=0x3dcccccc"),
        c("CVT.F32.F64.RP R2, R0", "R0=d:0.1", "R2=0x3dcccccd"),
        c("CVT.F32.F64.RZ R2, R0", "R0=d:1e300", "R2=0x7f7fffff"),
        c("CVT.F16.F32.RP R2, R0", "R0=f:70000", "R2=0x7c00"),
        c("CVT.S32.F32.RM R2, R0", "R0=f:-2.5", "R2=-3"),
        c("CVT.F64.U64.RP R4, R0", "R0=q:0xFFFFFFFFFFFFFFFF", "R4=d:18446744073709551616"),
        c("CVT.F64.U64.RZ R4, R0", "R0=q:0xFFFFFFFFFFFFFFFF", "R4=q:0x43efffffffffffff"),
        c("FDIV R2, R0, R1", "R0=f:-6 R1=f:0.5", "R2=f:-12"),
        c("FDIV R2, R0, R1", "R0=f:1 R1=f:-0", "R2=f:-inf"),
        c("FDIV R2, R0, R1", "R0=f:0 R1=f:0", "R2=0x7fffffff"),
        c("FDIV R2, R0, 0.5", "R0=0x00000001", "R2=0x00000002"),
        c("IDIV R2, R0, R1", "R0=-7 R1=2", "R2=-3"),
        c("IDIV.S32 R2, R0, R1", "R0=0x80000000 R1=-1", "R2=0x80000000"),
        c("IDIV.U32 R2, R0, R1", "R0=-7 R1=2", "R2=0x7ffffffc"),
        c("IDIV R2, R0, RZ", "R0=5", "R2=0xffffffff"),
        c("IDIV.U32 R2, R0, 0", "R0=5", "R2=0xffffffff"),
        c("IREM R2, R0, R1", "R0=-7 R1=2", "R2=-1"),
        c("IREM R2, R0, R1", "R0=0x80000000 R1=-1", "R2=0"),
        c("IREM.U32 R2, R0, 7", "R0=-1", "R2=3"),
        c("IREM.U32 R2, R0, RZ", "R0=9", "R2=9"),
        c("BFE R2, R0, 5, 3", "R0=0xE0", "R2=7"),
        c("BFE.U32 R2, R0, 28, 8", "R0=0xF0000000", "R2=0xF"),
        c("BFE.S32 R2, R0, 4, 4", "R0=0x80", "R2=0xfffffff8"),
        c("BFE.S32 R2, R0, 28, 8", "R0=0x80000000", "R2=0xfffffff8"),
        c("BFE.S32 R2, R0, 40, 4", "R0=0x80000000", "R2=0xffffffff"),
        c("BFE.U32 R2, R0, 40, 4", "R0=0x80000000", "R2=0"),
        c("BFE.S32 R2, R0, 4, 0", "R0=-1", "R2=0"),
        c("BFE.U32 R2, R0, 0, 0x120", "R0=0x12345678", "R2=0x12345678"),
        c("IMUL64.HI R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFFF R2=q:0x2", "R4=q:0xFFFFFFFFFFFFFFFF"),
        c("IMUL64.HI.U64 R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFFF R2=q:0x2", "R4=q:0x1"),
        c("IMUL64.HI.U64 R4, R0, R2", "R0=q:0xFFFFFFFFFFFFFFFF R2=q:0xFFFFFFFFFFFFFFFF", "R4=q:0xFFFFFFFFFFFFFFFE"),
        c("IMUL64.HI.S64 R4, R0, -1", "R0=q:0x8000000000000000", "R4=q:0x0"),
        c("PRMT R4, R0, R1, R2", "R0=0x44332211 R1=0x88776655 R2=0x3210", "R4=0x44332211"),
        c("PRMT R4, R0, R1, R2", "R0=0x44332211 R1=0x88776655 R2=0x7654", "R4=0x88776655"),
        c("PRMT R4, R0, R1, 0x1F80", "R0=0x44332211 R1=0x88776655", "R4=0x22FF0011"),
        c("PRMT.F4E R4, R0, R1, 1", "R0=0x44332211 R1=0x88776655", "R4=0x55443322"),
        c("PRMT.B4E R4, R0, R1, 0", "R0=0x44332211 R1=0x88776655", "R4=0x66778811"),
        c("PRMT.RC8 R4, R0, R1, 6", "R0=0x44332211 R1=0x88776655", "R4=0x33333333"),
        c("PRMT.ECL R4, R0, R1, 2", "R0=0x44332211 R1=0x88776655", "R4=0x44333333"),
        c("PRMT.ECR R4, R0, R1, 1", "R0=0x44332211 R1=0x88776655", "R4=0x22222211"),
        c("PRMT.RC16 R4, R0, R1, 1", "R0=0x44332211 R1=0x88776655", "R4=0x44334433"),
        c("SHF.L.WRAP R4, R0, R1, R2", "R0=0x80000001 R1=0x2 R2=4", "R4=0x28"),
        c("SHF.L.WRAP R4, R0, R1, 36", "R0=0x80000001 R1=0x2", "R4=0x28"),
        c("SHF.L.CLAMP R4, R0, R1, 36", "R0=0x80000001 R1=0x2", "R4=0x80000001"),
        c("SHF.R.WRAP R4, R0, R1, 4", "R0=0x80000001 R1=0x2", "R4=0x28000000"),
        c("SHF.R.CLAMP R4, R0, R1, 40", "R0=0x80000001 R1=0x2", "R4=0x2"),
        c("SHF.R.CLAMP R4, R0, R1, 0", "R0=0x80000001 R1=0x2", "R4=0x80000001"),
        // A false guard: the launch goes on (a true one faults; see the fault cases).
        c("@!PT TRAP", "R0=1", "R0=1"),
    ]
}

fn f64_cases() -> Vec<Case> {
    let q = |x: f64| format!("q:{:#x}", x.to_bits());
    let a = 1.0 + f64::EPSILON;
    vec![
        c("DDIV R4, R0, R2", "R0=d:1 R2=d:3", &format!("R4={}", q(1.0 / 3.0))),
        c("DDIV R4, R0, R2", "R0=d:1 R2=d:-0", "R4=d:-inf"),
        c("DDIV R4, R0, R2", "R0=d:0 R2=d:0", "R4=q:0x7fffffffffffffff"),
        c("DDIV R4, R0, 2.0", "R0=d:7", "R4=d:3.5"),
        c("DSQRT R4, R0", "R0=d:2", &format!("R4={}", q(2f64.sqrt()))),
        c("DSQRT R4, R0", "R0=d:-0", "R4=q:0x8000000000000000"),
        c("DSQRT R4, R0", "R0=d:-1", "R4=q:0x7fffffffffffffff"),
        c("DSQRT R4, -R0", "R0=d:-4", "R4=d:2"),
        c("DRND R4, R0", "R0=d:2.5", "R4=d:2"),
        c("DRND.RM R4, R0", "R0=d:-2.5", "R4=d:-3"),
        c("DRND.RP R4, R0", "R0=d:-0.5", "R4=q:0x8000000000000000"),
        c("DRND.RZ R4, R0", "R0=d:-7.9", "R4=d:-7"),
        c("DRND.RZ R4, R0", "R0=q:0x7ff0000000000001", "R4=q:0x7fffffffffffffff"),
        c("DADD R4, R0, R2", "R0=d:1.5 R2=d:2.25", "R4=d:3.75"),
        c("DADD R4, R0, R2", "R0=d:0.1 R2=d:0.2", &format!("R4={}", q(0.1 + 0.2))),
        c("DADD R4, R0, R2", "R0=q:0x7ff8000000000001 R2=d:1", "R4=q:0x7fffffffffffffff"),
        c("DADD R4, R0, R2", "R0=d:inf R2=d:-inf", "R4=q:0x7fffffffffffffff"),
        c("DADD R4, R0, R2", "R0=d:-0 R2=d:-0", "R4=q:0x8000000000000000"),
        c("DADD R4, R0, R2", "R0=q:0x0000000000000001 R2=q:0x0000000000000001", "R4=q:0x0000000000000002"),
        c("DADD R4, R0, R2", "R0=q:0x7fefffffffffffff R2=q:0x7fefffffffffffff", "R4=d:inf"),
        c("DADD R4, R0, 0d3FF0000000000000", "R0=d:1", "R4=d:2"),
        c("DADD R4, R0, 1.5", "R0=d:1", "R4=d:2.5"),
        c("DADD R4, R0, -2", "R0=d:1", "R4=d:-1"),
        c("DADD R4, -R0, |R2|", "R0=d:1 R2=d:-3", "R4=d:2"),
        c("DADD R4, -|R0|, R2", "R0=d:-1 R2=d:3", "R4=d:2"),
        c("DADD R4, R0, R2", "R0=d:1", "R4=d:3").setup("MOV R2, 0d4000000000000000"),
        c("DADD R0, R0, R0", "R0=d:1.25", "R0=d:2.5"),
        c("DMUL R4, R0, R2", "R0=d:3 R2=d:-0.5", "R4=d:-1.5"),
        c("DMIN R4, R0, R2", "R0=d:1 R2=d:-2", "R4=d:-2"),
        // 1 + 2^-60 is between 1 and the next f64 up.
        c("DFMA.RP R4, R0, R2, R6", "R0=d:1 R2=d:1 R6=q:0x3c30000000000000", "R4=q:0x3ff0000000000001"),
        c("DFMA.RZ R4, R0, R2, R6", "R0=d:1 R2=d:1 R6=q:0x3c30000000000000", "R4=d:1"),
        c("DFMA.RM R4, R0, R2, R6", "R0=d:1 R2=d:-1 R6=d:1", "R4=q:0x8000000000000000"),
        c("DFMA.RZ R4, R0, R2, R6", "R0=d:1e308 R2=d:10 R6=d:0", "R4=q:0x7fefffffffffffff"),
        c("DDIV.RZ R4, R0, R2", "R0=d:1 R2=d:3", "R4=q:0x3fd5555555555555"),
        c("DDIV.RP R4, R0, R2", "R0=d:1 R2=d:3", "R4=q:0x3fd5555555555556"),
        c("DDIV.RM R4, R0, R2", "R0=d:-1 R2=d:3", "R4=q:0xbfd5555555555556"),
        c("DSQRT.RZ R4, R0", "R0=d:2", "R4=q:0x3ff6a09e667f3bcc"),
        c("DSQRT.RP R4, R0", "R0=d:2", "R4=q:0x3ff6a09e667f3bcd"),
        c("DSQRT.RM R4, R0", "R0=d:-1", "R4=q:0x7fffffffffffffff"),
        c("DMAX R4, R0, R2", "R0=d:1 R2=d:-2", "R4=d:1"),
        c("DMIN R4, R0, R2", "R0=d:0 R2=d:-0", "R4=q:0x8000000000000000"),
        c("DMAX R4, R0, R2", "R0=d:-0 R2=d:0", "R4=q:0x0"),
        c("DMAX R4, R0, R2", "R0=q:0x7ff8000000000000 R2=d:3", "R4=d:3"),
        c("DMIN R4, R0, R2", "R0=q:0x7ff8000000000000 R2=q:0xfff0000000000001", "R4=q:0x7fffffffffffffff"),
        c("DMUL R4, R0, R2", "R0=d:0 R2=d:inf", "R4=q:0x7fffffffffffffff"),
        c("DMUL R4, R0, R2", "R0=d:1e200 R2=d:1e200", "R4=d:inf"),
        c("DMUL R4, R0, R2", "R0=d:0.1 R2=d:3", &format!("R4={}", q(0.1 * 3.0))),
        c("DMUL R4, R0, 0d4000000000000000", "R0=d:-1.5", "R4=d:-3"),
        c("DFMA R6, R0, R2, R4", "R0=d:2 R2=d:3 R4=d:4", "R6=d:10"),
        c("DFMA R6, R0, R2, R4", &format!("R0={} R2={} R4={}", q(a), q(a), q(-(1.0 + 2.0 * f64::EPSILON))), "R6=d:4.930380657631324e-32"),
        c("DFMA R6, R0, R2, R4", "R0=d:inf R2=d:0 R4=d:1", "R6=q:0x7fffffffffffffff"),
        c("DFMA R6, -R0, R2, |R4|", "R0=d:2 R2=d:3 R4=d:-4", "R6=d:-2"),
        c("DFMA R6, R0, 0.5, 0d3FF0000000000000", "R0=d:4", "R6=d:3"),
        c("MOV R4, 0d7FF0000000000000", "", "R4=d:inf"),
        c("MOV R4, 0dFFFFFFFFFFFFFFFF", "", "R4=q:0xffffffffffffffff"),
    ]
}

fn memory_cases() -> Vec<Case> {
    let mut v = vec![
        // GLOBAL loads from `gin` (R250): F1E2D3C4 7F80FF01 00000000 3FF80000 11111111 22222222 33333333 44444444.
        c("LD.GLOBAL.U8 R2, [R250]", "", "R2=0xc4"),
        c("LD.GLOBAL.U8 R2, [R250+1]", "", "R2=0xd3"),
        c("LD.GLOBAL.U8 R2, [R250+3]", "", "R2=0xf1"),
        c("LD.GLOBAL.S8 R2, [R250]", "", "R2=0xffffffc4"),
        c("LD.GLOBAL.S8 R2, [R250+4]", "", "R2=1"),
        c("LD.GLOBAL.S8 R2, [R250+6]", "", "R2=0xffffff80"),
        c("LD.GLOBAL.S8 R2, [R250+7]", "", "R2=0x7f"),
        c("LD.GLOBAL.U16 R2, [R250]", "", "R2=0xd3c4"),
        c("LD.GLOBAL.U16 R2, [R250+2]", "", "R2=0xf1e2"),
        c("LD.GLOBAL.S16 R2, [R250]", "", "R2=0xffffd3c4"),
        c("LD.GLOBAL.S16 R2, [R250+4]", "", "R2=0xffffff01"),
        c("LD.GLOBAL.S16 R2, [R250+6]", "", "R2=0x7f80"),
        c("LD.GLOBAL.U32 R2, [R250+4]", "", "R2=0x7f80ff01"),
        c("LD.GLOBAL.S32 R2, [R250]", "", "R2=0xf1e2d3c4"),
        c("LD.GLOBAL.B32 R2, [R250+0x10]", "", "R2=0x11111111"),
        c("LD.GLOBAL.F32 R2, [R250+20]", "", "R2=0x22222222"),
        c("LD.GLOBAL.B64 R2, [R250+8]", "", "R2=0 R3=0x3ff80000"),
        c("LD.GLOBAL.F64 R2, [R250+8]", "", "R2=d:1.5"),
        c("LD.GLOBAL.B64 R2, [R250+16]", "", "R2=0x11111111 R3=0x22222222"),
        c("LD.GLOBAL.V2.B32 R2, [R250+24]", "", "R2=0x33333333 R3=0x44444444"),
        c("LD.GLOBAL.V4.B32 R4, [R250+16]", "", "R4=0x11111111 R5=0x22222222 R6=0x33333333 R7=0x44444444"),
        c("LD.GLOBAL.U32 R2, [R1-4]", "", "R2=0x11111111").setup("IADD R1, R250, 20"),
        c("LD.GLOBAL.U32 R1, [R1]", "", "R1=0x7f80ff01").setup("IADD R1, R250, 4"),
        Case::new("LD.GLOBAL.U32 R2, [R1+32]").setup("S2R R9, SR_LANEID\nLEA R1, R9, R250, 2").out(Loc::R(2), lanes(|l| gin_words()[8 + l as usize])),
        // A guarded-off lane does not access memory: no fault from address 0.
        c("@P0 LD.GLOBAL.U32 R2, [R0]", "R0=0 R2=3 P0=0", "R2=3"),
        c("@!PT ST.GLOBAL.U32 [RZ], R0", "R0=1", "R0=1"),
        // GLOBAL stores into `gout` (R249), read back as a word.
        c("ST.GLOBAL.U8 [R249+1], R0", "R0=0x12345678 R1=0xaaaaaaaa", "R5=0xaaaa78aa").setup("ST.GLOBAL.B32 [R249], R1").post("LD.GLOBAL.B32 R5, [R249]"),
        c("ST.GLOBAL.S8 [R249+3], R0", "R0=0x12345680 R1=0xaaaaaaaa", "R5=0x80aaaaaa").setup("ST.GLOBAL.B32 [R249], R1").post("LD.GLOBAL.B32 R5, [R249]"),
        c("ST.GLOBAL.U16 [R249+2], R0", "R0=0x12345678 R1=0xaaaaaaaa", "R5=0x5678aaaa").setup("ST.GLOBAL.B32 [R249], R1").post("LD.GLOBAL.B32 R5, [R249]"),
        c("ST.GLOBAL.S16 [R249], R0", "R0=0x1234fedc R1=0xaaaaaaaa", "R5=0xaaaafedc").setup("ST.GLOBAL.B32 [R249], R1").post("LD.GLOBAL.B32 R5, [R249]"),
        c("ST.GLOBAL.U32 [R249+8], R0", "R0=0x12345678", "R5=0x12345678").post("LD.GLOBAL.U32 R5, [R249+8]"),
        c("ST.GLOBAL.S32 [R249+8], R0", "R0=-9", "R5=-9").post("LD.GLOBAL.S32 R5, [R249+8]"),
        c("ST.GLOBAL.F32 [R249+8], R0", "R0=f:2.5", "R5=f:2.5").post("LD.GLOBAL.F32 R5, [R249+8]"),
        c("ST.GLOBAL.B32 [R249+8], R0", "R0=0xdeadbeef", "R5=0xdeadbeef").post("LD.GLOBAL.U32 R5, [R249+8]"),
        c("ST.GLOBAL.B64 [R249+16], R0", "R0=0x01234567 R1=0x89abcdef", "R5=0x01234567 R6=0x89abcdef")
            .post("LD.GLOBAL.U32 R5, [R249+16]\nLD.GLOBAL.U32 R6, [R249+20]"),
        c("ST.GLOBAL.F64 [R249+16], R0", "R0=d:-2.5", "R6=d:-2.5").post("LD.GLOBAL.F64 R6, [R249+16]"),
        c("ST.GLOBAL.V2.B32 [R249+24], R0", "R0=7 R1=8", "R5=7 R6=8").post("LD.GLOBAL.U32 R5, [R249+24]\nLD.GLOBAL.U32 R6, [R249+28]"),
        c("ST.GLOBAL.V4.B32 [R249+32], R0", "R0=1 R1=2 R2=3 R3=4", "R8=1 R9=2 R10=3 R11=4").post("LD.GLOBAL.V4.B32 R8, [R249+32]"),
        c("ST.GLOBAL.U32 [R1-8], R0", "R0=0x77", "R5=0x77").setup("IADD R1, R249, 48").post("LD.GLOBAL.U32 R5, [R249+40]"),
        c("ST.GLOBAL.U32 [R249+8], RZ", "R5=1", "R5=0").post("LD.GLOBAL.U32 R5, [R249+8]"),
        Case::new("ST.GLOBAL.U32 [R1], R9")
            .setup("S2R R9, SR_LANEID\nLEA R1, R9, R249, 2\nIADD R8, R9, 1\nAND R8, R8, 31\nLEA R7, R8, R249, 2")
            .post("LD.GLOBAL.U32 R5, [R7]")
            .out(Loc::R(5), lanes(|l| (l + 1) % 32)),
        // SHARED: `sh` at 0 (u32[64], align 16), `sh2` at 256.
        c("ST.SHARED.U32 [sh+8], R0", "R0=0xcafe", "R5=0xcafe").post("LD.SHARED.U32 R5, [sh+8]"),
        c("ST.SHARED.U32 [sh], R0", "R0=0xbeef", "R5=0xbeef").post("LD.SHARED.U32 R5, [0x0]"),
        c("ST.SHARED.B32 [R1+sh2], R0", "R0=0xf00d R1=4", "R5=0xf00d").post("LD.SHARED.B32 R5, [sh2+4]"),
        c("ST.SHARED.U32 [R1+sh], R0", "R0=0x1234 R1=12", "R5=0x1234").post("LD.SHARED.U32 R5, [R1+sh]"),
        c("ST.SHARED.U32 [R1-4], R0", "R0=0x4321 R1=20", "R5=0x4321").post("LD.SHARED.U32 R5, [0x10]"),
        c("ST.SHARED.U8 [sh+1], R0", "R0=0x12345680 R1=0xaaaaaaaa", "R5=0xaaaa80aa R6=0xffffff80 R7=0x80")
            .setup("ST.SHARED.B32 [sh], R1")
            .post("LD.SHARED.B32 R5, [sh]\nLD.SHARED.S8 R6, [sh+1]\nLD.SHARED.U8 R7, [sh+1]"),
        c("ST.SHARED.S8 [sh+2], R0", "R0=0x7f R1=0", "R5=0x007f0000").setup("ST.SHARED.B32 [sh], R1").post("LD.SHARED.B32 R5, [sh]"),
        c("ST.SHARED.U16 [sh+2], R0", "R0=0x12348765 R1=0", "R5=0x87650000 R6=0xffff8765 R7=0x8765")
            .setup("ST.SHARED.B32 [sh], R1")
            .post("LD.SHARED.B32 R5, [sh]\nLD.SHARED.S16 R6, [sh+2]\nLD.SHARED.U16 R7, [sh+2]"),
        c("ST.SHARED.S16 [sh], R0", "R0=0x7fff R1=0", "R5=0x7fff").setup("ST.SHARED.B32 [sh], R1").post("LD.SHARED.S32 R5, [sh]"),
        c("ST.SHARED.S32 [sh+4], R0", "R0=-3", "R5=-3").post("LD.SHARED.S32 R5, [sh+4]"),
        c("ST.SHARED.F32 [sh+4], R0", "R0=f:-0", "R5=0x80000000").post("LD.SHARED.F32 R5, [sh+4]"),
        c("ST.SHARED.B64 [sh+8], R0", "R0=0xaaaa R1=0xbbbb", "R4=0xaaaa R5=0xbbbb").post("LD.SHARED.B64 R4, [sh+8]"),
        c("ST.SHARED.F64 [sh+8], R0", "R0=d:0.1", "R4=d:0.1 R6=0x9999999a").post("LD.SHARED.F64 R4, [sh+8]\nLD.SHARED.U32 R6, [sh+8]"),
        c("ST.SHARED.V2.B32 [sh+16], R0", "R0=5 R1=6", "R4=5 R5=6").post("LD.SHARED.V2.B32 R4, [sh+16]"),
        c("ST.SHARED.V4.B32 [sh+32], R0", "R0=1 R1=2 R2=3 R3=4", "R4=1 R5=2 R6=3 R7=4 R8=4").post("LD.SHARED.V4.B32 R4, [sh+32]\nLD.SHARED.U32 R8, [sh+44]"),
        c("ST.SHARED.U32 [sh2+12], R0", "R0=0x99", "R5=0x99").post("LD.SHARED.U32 R5, [R1+sh2]").setup("MOV R1, 12"),
        c("LD.SHARED.U32 R2, [sh+100]", "", "R2=0"),
        Case::new("LD.SHARED.U32 R2, [R8+sh]")
            .setup("S2R R9, SR_LANEID\nSHL R1, R9, 2\nST.SHARED.U32 [R1+sh], R9\nIADD R8, R9, 5\nAND R8, R8, 31\nSHL R8, R8, 2")
            .out(Loc::R(2), lanes(|l| (l + 5) % 32)),
        // LOCAL: per thread.
        Case::new("ST.LOCAL.U32 [0x10], R9").setup("S2R R9, SR_LANEID").post("LD.LOCAL.U32 R5, [0x10]").out(Loc::R(5), lanes(|l| l)),
        c("ST.LOCAL.U8 [R1+3], R0", "R0=0xff R1=4 R2=0x11223344", "R5=0xff223344 R6=0xffffffff R7=0xff")
            .setup("ST.LOCAL.B32 [R1], R2")
            .post("LD.LOCAL.B32 R5, [R1]\nLD.LOCAL.S8 R6, [R1+3]\nLD.LOCAL.U8 R7, [7]"),
        c("ST.LOCAL.S8 [8], R0", "R0=0x01 R2=0", "R5=1").setup("ST.LOCAL.B32 [8], R2").post("LD.LOCAL.U32 R5, [8]"),
        c("ST.LOCAL.U16 [R1-2], R0", "R0=0xabcd R1=12 R2=0", "R5=0xabcd0000 R6=0xffffabcd R7=0xabcd")
            .setup("ST.LOCAL.B32 [8], R2")
            .post("LD.LOCAL.B32 R5, [8]\nLD.LOCAL.S16 R6, [10]\nLD.LOCAL.U16 R7, [10]"),
        c("ST.LOCAL.S16 [0], R0", "R0=0x8000 R2=0", "R5=0x8000").setup("ST.LOCAL.B32 [0], R2").post("LD.LOCAL.U32 R5, [0]"),
        c("ST.LOCAL.S32 [60], R0", "R0=-1", "R5=-1").post("LD.LOCAL.S32 R5, [60]"),
        c("ST.LOCAL.F32 [4], R0", "R0=f:3.5", "R5=f:3.5").post("LD.LOCAL.F32 R5, [4]"),
        c("ST.LOCAL.B64 [56], R0", "R0=1 R1=2", "R4=1 R5=2").post("LD.LOCAL.B64 R4, [56]"),
        c("ST.LOCAL.F64 [16], R0", "R0=d:-0.5", "R4=d:-0.5").post("LD.LOCAL.F64 R4, [16]"),
        c("ST.LOCAL.V2.B32 [24], R0", "R0=3 R1=4", "R4=3 R5=4").post("LD.LOCAL.V2.B32 R4, [24]"),
        c("ST.LOCAL.V4.B32 [48], R0", "R0=9 R1=8 R2=7 R3=6", "R4=9 R5=8 R6=7 R7=6").post("LD.LOCAL.V4.B32 R4, [48]"),
        c("ST.LOCAL.B32 [32], R0", "R0=0x5a5a", "R5=0x5a5a").post("LD.LOCAL.B32 R5, [R1+32]").setup("MOV R1, 0"),
        // PARAM: out@0 inp@4 gin@8 gout@12 pu@16 ps@20 pf@24 pd@32.
        c("LD.PARAM.U32 R2, [pu]", "", "R2=0x89abcdef"),
        c("LD.PARAM.S32 R2, [ps]", "", "R2=-5"),
        c("LD.PARAM.B32 R2, [pu+4]", "", "R2=-5"),
        c("LD.PARAM.F32 R2, [pf]", "", "R2=f:1.5"),
        c("LD.PARAM.F64 R2, [pd]", "", "R2=d:2.5"),
        c("LD.PARAM.B64 R2, [pd]", "", "R2=d:2.5"),
        c("LD.PARAM.U8 R2, [pu]", "", "R2=0xef"),
        c("LD.PARAM.S8 R2, [pu+1]", "", "R2=0xffffffcd"),
        c("LD.PARAM.U16 R2, [pu+2]", "", "R2=0x89ab"),
        c("LD.PARAM.S16 R2, [pu+2]", "", "R2=0xffff89ab"),
        c("LD.PARAM.V2.B32 R2, [pu]", "", "R2=0x89abcdef R3=-5"),
        c("LD.PARAM.V4.B32 R4, [pu]", "", "R4=0x89abcdef R5=-5 R6=f:1.5 R7=0"),
        c("LD.PARAM.U32 R2, [16]", "", "R2=0x89abcdef"),
    ];
    v.push(c("LD.PARAM.U32 R2, [gin]", "", "R5=1").post("ISETP.EQ P0, R2, R250\nSEL R5, 1, 0, P0"));
    v.extend(matrix_cases());
    v.extend(copy_cases());
    v.extend(mbarrier_cases());
    v
}

/// `MBAR` on `sh`'s first 8 bytes, every lane acting in lane order on the one mbarrier, read
/// back as its two words: pending arrivals (bits 0..20), expected arrivals (20..40), pending
/// transaction bytes (40..61, signed) and the phase's parity (63). `TMA` guarded off does
/// nothing (`tests/tma.rs` copies boxes).
fn mbarrier_cases() -> Vec<Case> {
    let words = "LD.SHARED.V2.B32 R4, [sh]";
    let lane0 = |case: Case| case.inp(Loc::P(0), lanes(|l| u32::from(l == 0)));
    vec![
        Case::new("MBAR.INIT [sh], 5").post(words).out(Loc::R(4), lanes(|_| 5 | 5 << 20)).out(Loc::R(5), lanes(|_| 0)),
        // 32 arrivals complete phase 0: the next phase waits for 32 again, with parity 1.
        Case::new("MBAR.ARRIVE R2, [sh], 1, 0")
            .setup("MBAR.INIT [sh], 32")
            .post(&format!(
                "MBAR.TEST P1, [sh], 0\nSEL R3, 1, 0, P1\nMBAR.TEST P2, [sh], R2\nSEL R6, 1, 0, P2\nMBAR.TEST P2, [sh], 1\nSEL R7, 1, 0, P2\n{words}"
            ))
            .out(Loc::R(2), lanes(|_| 0))
            .out(Loc::R(3), lanes(|_| 1))
            .out(Loc::R(6), lanes(|_| 1))
            .out(Loc::R(7), lanes(|_| 0))
            .out(Loc::R(4), lanes(|_| 32 | 32 << 20))
            .out(Loc::R(5), lanes(|_| 0x8000_0000)),
        // Half the arrivals a phase expects: it stays open.
        Case::new("MBAR.ARRIVE RZ, [sh], 1, 0")
            .setup("MBAR.INIT [sh], 64")
            .post(&format!("MBAR.TEST P1, [sh], 0\nSEL R3, 1, 0, P1\n{words}"))
            .out(Loc::R(3), lanes(|_| 0))
            .out(Loc::R(4), lanes(|_| 32 | 64 << 20))
            .out(Loc::R(5), lanes(|_| 0)),
        // An arrival expecting 256 bytes leaves the phase open until they complete.
        lane0(Case::new("@P0 MBAR.ARRIVE R2, [sh], 1, 256"))
            .setup("MBAR.INIT [sh], 1")
            .post("MBAR.TEST P1, [sh], 0\nSEL R3, 1, 0, P1\n@P0 MBAR.TX.COMPLETE [sh], 256\nMBAR.TEST P1, [sh], 0\nSEL R6, 1, 0, P1")
            .inp(Loc::R(2), lanes(|_| 7))
            .out(Loc::R(2), lanes(|l| if l == 0 { 0 } else { 7 }))
            .out(Loc::R(3), lanes(|_| 0))
            .out(Loc::R(6), lanes(|_| 1)),
        // Bytes expected on their own sit in bits 40.. until they complete.
        lane0(Case::new("@P0 MBAR.TX.EXPECT [sh], 16"))
            .setup("MBAR.INIT [sh], 1")
            .post(&format!("{words}\n@P0 MBAR.ARRIVE RZ, [sh], 1, 0\nMBAR.TEST P1, [sh], 0\nSEL R3, 1, 0, P1"))
            .out(Loc::R(4), lanes(|_| 1 | 1 << 20))
            .out(Loc::R(5), lanes(|_| 16 << 8))
            .out(Loc::R(3), lanes(|_| 0)),
        // Completing bytes before they are expected makes the count negative.
        lane0(Case::new("@P0 MBAR.TX.COMPLETE [sh], 16"))
            .setup("MBAR.INIT [sh], 1")
            .post(words)
            .out(Loc::R(4), lanes(|_| 1 | 1 << 20))
            .out(Loc::R(5), lanes(|_| (((1 << 21) - 16) << 8) & 0x1FFF_FF00)),
        // A dropping arrival lowers what later phases expect.
        lane0(Case::new("@P0 MBAR.ARRIVE.DROP RZ, [sh], 1, 0")).setup("MBAR.INIT [sh], 2").post(words).out(Loc::R(4), lanes(|_| 1 | 1 << 20)),
        // A fresh mbarrier is in phase 0: the phase of parity 1 before it counts as complete.
        Case::new("MBAR.TEST P1, [sh], R0")
            .setup("MBAR.INIT [sh], 1")
            .post("SEL R3, 1, 0, P1")
            .inp(Loc::R(0), lanes(|l| l % 2))
            .out(Loc::R(3), lanes(|l| l % 2)),
        c("@!PT TMA.LOAD.2D R0, R2, R4, R6", "R0=1", "R0=1"),
        c("@!PT TMA.STORE.1D R2, R4, R0", "R0=1", "R0=1"),
    ]
}

/// Tensor memory: allocations (first fit at a multiple of the count, their address stored at
/// `sh`), each load shape's map from the cells `TMEM.ST.32X32B` wrote (column `c` of lane `l`
/// holds `l + 100 c`), packed halves, a commit's arrival; every case frees what it allocated,
/// and `TMEM.RELINQUISH` comes last (the block cannot allocate after it).
fn tmem_cases() -> Vec<Case> {
    // R8: the allocation's address; columns 0 and 1 of lane l: l and l + 100.
    let filled = "TMEM.ALLOC [sh], 32\nLD.SHARED.U32 R8, [sh]\nS2R R10, SR_LANEID\nIADD R11, R10, 100\nTMEM.ST.32X32B.X2 [R8], R10";
    let free = "TMEM.DEALLOC R8, 32";
    let lane0 = |case: Case| case.inp(Loc::P(0), lanes(|l| u32::from(l == 0)));
    vec![
        Case::new("TMEM.ALLOC [sh], 64").post("LD.SHARED.U32 R2, [sh]\nTMEM.DEALLOC R2, 64").out(Loc::R(2), lanes(|_| 0)),
        // Columns 0-31 taken: 64 columns start at 64, and 32 more fill the gap at 32.
        Case::new("TMEM.ALLOC [sh+4], 64")
            .setup("TMEM.ALLOC [sh], 32")
            .post("TMEM.ALLOC [sh+8], 32\nLD.SHARED.V2.B32 R2, [sh]\nLD.SHARED.U32 R4, [sh+8]\nTMEM.DEALLOC R2, 32\nTMEM.DEALLOC R3, 64\nTMEM.DEALLOC R4, 32")
            .out(Loc::R(2), lanes(|_| 0))
            .out(Loc::R(3), lanes(|_| 64))
            .out(Loc::R(4), lanes(|_| 32)),
        // An allocation reads 0, whatever the columns held before.
        Case::new("TMEM.ALLOC [sh], 32")
            .setup(&format!("{filled}\n{free}"))
            .post(&format!("LD.SHARED.U32 R8, [sh]\nTMEM.LD.32X32B.X2 R4, [R8]\n{free}"))
            .out(Loc::R(4), lanes(|_| 0))
            .out(Loc::R(5), lanes(|_| 0)),
        // Freed columns are allocated again.
        Case::new("TMEM.DEALLOC R2, 32")
            .setup("TMEM.ALLOC [sh], 32\nLD.SHARED.U32 R2, [sh]")
            .post("TMEM.ALLOC [sh], 32\nLD.SHARED.U32 R3, [sh]\nTMEM.DEALLOC R3, 32")
            .out(Loc::R(3), lanes(|_| 0)),
        Case::new("TMEM.ST.32X32B.X2 [R8], R10")
            .setup(&filled.replace("\nTMEM.ST.32X32B.X2 [R8], R10", ""))
            .post(&format!("TMEM.LD.32X32B.X2 R4, [R8]\n{free}"))
            .out(Loc::R(4), lanes(|l| l))
            .out(Loc::R(5), lanes(|l| l + 100)),
        // RZ stores zero to every cell its registers would.
        Case::new("TMEM.ST.32X32B.X2 [R8], RZ")
            .setup(filled)
            .post(&format!("TMEM.LD.32X32B.X2 R4, [R8]\n{free}"))
            .out(Loc::R(4), lanes(|_| 0))
            .out(Loc::R(5), lanes(|_| 0)),
        Case::new("TMEM.LD.16X64B.X1 R4, [R8]").setup(filled).post(free).out(Loc::R(4), lanes(|t| t / 4 + 8 * (t % 2) + 100 * ((t / 2) % 2))),
        Case::new("TMEM.LD.16X128B.X1 R4, [R8]")
            .setup(filled)
            .post(free)
            .out(Loc::R(4), lanes(|t| if t % 4 < 2 { t / 4 + 100 * (t % 4) } else { 0 }))
            .out(Loc::R(5), lanes(|t| if t % 4 < 2 { t / 4 + 8 + 100 * (t % 4) } else { 0 })),
        Case::new("TMEM.LD.16X32BX2.X1 R4, [R8], 1").setup(filled).post(free).out(Loc::R(4), lanes(|t| if t < 16 { t } else { t - 16 + 100 })),
        // Two 16-bit halves: column 0's low half, then column 1's.
        Case::new("TMEM.LD.32X32B.X1.PACK16 R4, [R8]").setup(filled).post(free).out(Loc::R(4), lanes(|l| l | (l + 100) << 16)),
        Case::new("TMEM.ST.32X32B.X1.PACK16 [R8], R10")
            .setup(&format!("{filled}\nMOV R10, 0xBEEF0007"))
            .post(&format!("TMEM.LD.32X32B.X2 R4, [R8]\n{free}"))
            .out(Loc::R(4), lanes(|_| 7))
            .out(Loc::R(5), lanes(|_| 0xBEEF)),
        // A commit arrives once, for the lane that makes it.
        lane0(Case::new("@P0 TCMMA.COMMIT [sh]")).setup("MBAR.INIT [sh], 1").post("MBAR.TEST P1, [sh], 0").out(Loc::P(1), lanes(|_| 1)),
        Case::new("TMEM.RELINQUISH"),
    ]
}

/// `LDGSTS` from `gin` into `sh` (filled with 0xEEEEEEEE first, so zeroed bytes show), read
/// back with `LD.SHARED.V4`: whole copies of each size, a 64-bit address, a source size per
/// lane (0 to 16 bytes, lane `l` copying `l % 17`), and `n = 0` at an address no buffer has.
/// `LDGDEPBAR` and `DEPBAR` change nothing.
fn copy_cases() -> Vec<Case> {
    let gin = gin_words();
    let fill = "MOV R8, 0xEEEEEEEE\nMOV R9, R8\nMOV R10, R8\nMOV R11, R8\nST.SHARED.V4.B32 [sh], R8";
    let copied = |n: u32| -> [u32; 4] {
        std::array::from_fn(|k| {
            let first = 4 * k as u32;
            let keep = if n >= first + 4 {
                u32::MAX
            } else if n > first {
                u32::MAX >> (32 - 8 * (n - first))
            } else {
                0
            };
            gin[k] & keep
        })
    };
    let read_back = "LD.SHARED.V4.B32 R4, [sh]";
    let whole = |text: &str, bytes: u32| {
        let words = copied(bytes);
        let mut case = Case::new(text).setup(&format!("{fill}\nMOV R2, R250\nMOV R3, 0")).post(read_back).inp(Loc::R(0), lanes(|_| 0));
        for k in 0..4u8 {
            let want = if u32::from(k) < bytes / 4 { words[usize::from(k)] } else { 0xEEEE_EEEE };
            case = case.out(Loc::R(4 + k), lanes(|_| want));
        }
        case
    };
    let mut v = vec![
        whole("LDGSTS R0, [R250], 4", 4),
        whole("LDGSTS.V2 R0, [R250], 8", 8),
        whole("LDGSTS.V4 R0, [R250], 16", 16),
        whole("LDGSTS.E.V4 R0, [R2], 99", 16),
        Case::new("LDGSTS.V4 R0, [R1], 0")
            .setup(&format!("{fill}\nMOV R1, 0x40000000"))
            .post(read_back)
            .inp(Loc::R(0), lanes(|_| 0))
            .out(Loc::R(4), lanes(|_| 0))
            .out(Loc::R(7), lanes(|_| 0)),
        c("LDGDEPBAR", "R0=7", "R0=7"),
        c("DEPBAR 1", "R0=7", "R0=7"),
    ];
    // Each lane its own 16 bytes of shared memory (lanes 16 and up share the first 16 rows).
    let mut per_lane = Case::new("LDGSTS.V4 R0, [R250], R1")
        .setup("S2R R9, SR_LANEID\nAND R9, R9, 15\nSHL R9, R9, 4\nIADD R0, R9, sh\nMOV R8, 0xEEEEEEEE\nMOV R9, R8\nMOV R10, R8\nMOV R11, R8\nST.SHARED.V4.B32 [R0], R8")
        .post("LD.SHARED.V4.B32 R4, [R0]")
        .inp(Loc::R(1), lanes(|l| l % 17));
    // Lanes l and l + 16 write the same row; the later lane wins, as for stores.
    let owner = |l: u32| if l < 16 { l + 16 } else { l };
    for k in 0..4u8 {
        per_lane = per_lane.out(Loc::R(4 + k), lanes(|l| copied(owner(l) % 17)[usize::from(k)]));
    }
    v.push(per_lane);
    v
}

/// `LDSM` in every form: `sh`'s 16 rows of eight 16-bit elements each (element `e` of row
/// `r` is `0x100 r + e`, stored by lanes `r` and `r + 16`), each lane naming row
/// `(5 l + 3) % 16` (so rows repeat across lanes), and each register checked against the
/// exchange written out element by element.
fn matrix_cases() -> Vec<Case> {
    let element = |row: u32, e: u32| 0x100 * row + e;
    let word = |row: u32, k: u32| element(row, 2 * k) | element(row, 2 * k + 1) << 16;
    let row_of = |lane: u32| (5 * lane + 3) % 16;
    let setup = "S2R R9, SR_LANEID\nAND R9, R9, 15\nSHL R9, R9, 4\nST.SHARED.V4.B32 [R9+sh], R4";
    let mut v = Vec::new();
    for (count, matrices) in [("X1", 1u32), ("X2", 2), ("X4", 4)] {
        for trans in [false, true] {
            let text = format!("LDSM.{count}{} R12, [R0+sh]", if trans { ".T" } else { "" });
            let mut case = Case::new(&text).setup(setup).inp(Loc::R(0), lanes(|l| 16 * row_of(l)));
            for k in 0..4 {
                case = case.inp(Loc::R(4 + k as u8), lanes(|l| word(l % 16, k)));
            }
            for j in 0..matrices {
                let got = lanes(|l| {
                    if trans {
                        let (rows, column) = (8 * j + 2 * (l % 4), l / 4);
                        element(row_of(rows), column) | element(row_of(rows + 1), column) << 16
                    } else {
                        word(row_of(8 * j + l / 4), l % 4)
                    }
                });
                case = case.out(Loc::R(12 + j as u8), got);
            }
            v.push(case);
        }
    }
    // STSM stores what LDSM loads back, the rows its lanes name distinct (X1, X2: 16 rows).
    for (count, matrices) in [("X1", 1u8), ("X2", 2)] {
        for trans in [false, true] {
            let t = if trans { ".T" } else { "" };
            let mut case =
                Case::new(&format!("STSM.{count}{t} [R0+sh], R12")).inp(Loc::R(0), lanes(|l| 16 * row_of(l))).post(&format!("LDSM.{count}{t} R20, [R0+sh]"));
            for j in 0..matrices {
                let given = lanes(|l| (0x0101_0101 * (l + 1)) ^ (u32::from(j) << 12));
                case = case.inp(Loc::R(12 + j), given).out(Loc::R(20 + j), given);
            }
            v.push(case);
        }
    }
    v
}

#[derive(Clone, Copy)]
enum AOp {
    Add(&'static str),
    Min(bool),
    Max(bool),
    Exch,
    And,
    Or,
    Xor,
}

fn atom_apply(op: AOp, m: u32, b: u32) -> u32 {
    match op {
        AOp::Add("F32") => {
            let r = f32::from_bits(m) + f32::from_bits(b);
            if r.is_nan() { CANON } else { r.to_bits() }
        }
        AOp::Add(_) => m.wrapping_add(b),
        AOp::Min(true) => (m as i32).min(b as i32) as u32,
        AOp::Min(false) => m.min(b),
        AOp::Max(true) => (m as i32).max(b as i32) as u32,
        AOp::Max(false) => m.max(b),
        AOp::Exch => b,
        AOp::And => m & b,
        AOp::Or => m | b,
        AOp::Xor => m ^ b,
    }
}

fn atomic_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let perm = |l: u32| (l * 13 + 7) % 32;
    let ops: Vec<(&str, AOp, u32, Lanes)> = vec![
        ("ADD.U32", AOp::Add("U32"), 0xFFFF_0000, lanes(|l| l.wrapping_mul(0x1000_0001))),
        ("ADD.S32", AOp::Add("S32"), 5, lanes(|l| ((l as i32 - 16) * 3) as u32)),
        ("ADD.F32", AOp::Add("F32"), f32b(1.0), lanes(|l| f32b(0.1 * (l + 1) as f32))),
        ("MIN.U32", AOp::Min(false), 0x9000_0000, lanes(|l| perm(l).wrapping_mul(0x0800_0001))),
        ("MIN.S32", AOp::Min(true), 0x7000_0000, lanes(|l| ((perm(l) as i32 - 16) * 0x0100_0001) as u32)),
        ("MAX.U32", AOp::Max(false), 0x0800_0000, lanes(|l| perm(l).wrapping_mul(0x0800_0001))),
        ("MAX.S32", AOp::Max(true), 0x8000_0005, lanes(|l| ((perm(l) as i32 - 16) * 0x0100_0001) as u32)),
        ("EXCH.B32", AOp::Exch, 0xABCD, lanes(|l| 0xE000_0000 | l)),
        ("AND.B32", AOp::And, 0xFFFF_FFFF, lanes(|l| !(1 << l))),
        ("OR.B32", AOp::Or, 0, lanes(|l| 1 << l)),
        ("XOR.B32", AOp::Xor, 0x1234_5678, lanes(|l| 0x8000_0001u32.rotate_left(l % 5))),
    ];
    for space in ["GLOBAL", "SHARED"] {
        let (same, base) = if space == "GLOBAL" { ("[R249+64]", "R249") } else { ("[sh+64]", "") };
        for (name, op, init, b) in &ops {
            // 32 lanes on one address: lane l sees lanes 0..l-1 applied.
            let mut m = *init;
            let mut old = [0; 32];
            for l in 0..32 {
                old[l] = m;
                m = atom_apply(*op, m, b[l]);
            }
            v.push(
                Case::new(&format!("ATOM.{space}.{name} R2, {same}, R0"))
                    .setup(&format!("ST.{space}.B32 {same}, R3"))
                    .post(&format!("LD.{space}.B32 R5, {same}"))
                    .inp(Loc::R(0), *b)
                    .inp(Loc::R(3), [*init; 32])
                    .out(Loc::R(2), old)
                    .out(Loc::R(5), [m; 32]),
            );
            // One address per lane: plain read-modify-write semantics.
            let inits = lanes(|l| init.rotate_left(l).wrapping_add(l * 0x0101_0101));
            let addr_setup = if space == "GLOBAL" {
                format!("S2R R9, SR_LANEID\nLEA R1, R9, {base}, 2\nST.{space}.B32 [R1+128], R3")
            } else {
                format!("S2R R9, SR_LANEID\nSHL R1, R9, 2\nST.{space}.B32 [R1+sh], R3")
            };
            let addr = if space == "GLOBAL" { "[R1+128]" } else { "[R1+sh]" };
            v.push(
                Case::new(&format!("ATOM.{space}.{name} R2, {addr}, R0"))
                    .setup(&addr_setup)
                    .post(&format!("LD.{space}.B32 R5, {addr}"))
                    .inp(Loc::R(0), *b)
                    .inp(Loc::R(3), inits)
                    .out(Loc::R(2), inits)
                    .out(Loc::R(5), lanes(|l| atom_apply(*op, inits[l as usize], b[l as usize]))),
            );
        }
        // CAS on one address: lanes whose compare value matches the running value swap.
        let cmpv = lanes(|l| if l % 3 == 2 { l + 100 } else { l });
        let newv = lanes(|l| l + 1);
        let mut m = 0;
        let mut old = [0; 32];
        for l in 0..32 {
            old[l] = m;
            if m == cmpv[l] {
                m = newv[l];
            }
        }
        // lane 0: 0 == 0 -> 1; lane 1: 1 -> 2; lane 2 compares 102: no; lane 3 compares 3 != 2 ...
        v.push(
            Case::new(&format!("ATOM.{space}.CAS.B32 R2, {same}, R0, R1"))
                .setup(&format!("ST.{space}.B32 {same}, RZ"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .inp(Loc::R(0), cmpv)
                .inp(Loc::R(1), newv)
                .out(Loc::R(2), old)
                .out(Loc::R(5), [m; 32]),
        );
        // CAS chain that always succeeds: lane l expects l and writes l+1.
        v.push(
            Case::new(&format!("ATOM.{space}.CAS.B32 R2, {same}, R0, R1"))
                .setup(&format!("ST.{space}.B32 {same}, RZ"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .inp(Loc::R(0), lanes(|l| l))
                .inp(Loc::R(1), newv)
                .out(Loc::R(2), lanes(|l| l))
                .out(Loc::R(5), [32; 32]),
        );
        // Literal operands, RZ destination, guards.
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.U32 R2, {same}, 1"))
                .setup(&format!("ST.{space}.B32 {same}, RZ"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .out(Loc::R(2), lanes(|l| l))
                .out(Loc::R(5), [32; 32]),
        );
        v.push(
            Case::new(&format!("ATOM.{space}.CAS.B32 R2, {same}, 5, 7"))
                .setup(&format!("MOV R3, 5\nST.{space}.B32 {same}, R3"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .out(Loc::R(2), lanes(|l| if l == 0 { 5 } else { 7 }))
                .out(Loc::R(5), [7; 32]),
        );
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.F32 R2, {same}, 0.5"))
                .setup(&format!("ST.{space}.B32 {same}, RZ"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .out(Loc::R(2), lanes(|l| f32b(0.5 * l as f32)))
                .out(Loc::R(5), [f32b(16.0); 32]),
        );
        // Contract v0.3: subnormal inputs (memory or operand) and results flush to sign-preserving zero.
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.F32 R2, {same}, 0f00000001"))
                .setup(&format!("MOV R3, 0f80000010\nST.{space}.B32 {same}, R3"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                // -0 + +0 is +0, so after the first lane the value is +0.
                .out(Loc::R(2), lanes(|l| if l == 0 { 0x8000_0010 } else { 0 }))
                .out(Loc::R(5), [0; 32]),
        );
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.F32 R2, {same}, 0f80800000"))
                .setup(&format!("MOV R3, 0f00800001\nST.{space}.B32 {same}, R3"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .out(
                    Loc::R(2),
                    lanes(|l| match l {
                        0 => 0x0080_0001,
                        1 => 0x0000_0000,
                        _ => f32b(-(l as f32 - 1.0) * f32::MIN_POSITIVE),
                    }),
                )
                .out(Loc::R(5), [f32b(-31.0 * f32::MIN_POSITIVE); 32]),
        );
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.S32 R2, {same}, -2"))
                .setup(&format!("ST.{space}.B32 {same}, RZ"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .out(Loc::R(2), lanes(|l| (-2 * l as i32) as u32))
                .out(Loc::R(5), [(-64i32) as u32; 32]),
        );
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.U32 RZ, {same}, R0"))
                .setup(&format!("ST.{space}.B32 {same}, RZ"))
                .post(&format!("LD.{space}.B32 R5, {same}\nMOV R2, RZ"))
                .inp(Loc::R(0), lanes(|l| l))
                .out(Loc::R(2), [0; 32])
                .out(Loc::R(5), [496; 32]),
        );
        v.push(
            Case::new(&format!("ATOM.{space}.CAS.B32 RZ, {same}, RZ, R0"))
                .setup(&format!("ST.{space}.B32 {same}, RZ"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .inp(Loc::R(0), lanes(|l| l + 10))
                .out(Loc::R(5), [10; 32]),
        );
        v.push(
            Case::new(&format!("@P0 ATOM.{space}.EXCH.B32 R2, {same}, R0"))
                .setup(&format!("ST.{space}.B32 {same}, RZ"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .inp(Loc::R(0), lanes(|l| l + 1))
                .inp(Loc::R(2), [0x77; 32])
                .inp(Loc::P(0), lanes(|l| l % 2))
                .out(Loc::R(2), lanes(|l| if l % 2 == 1 { if l == 1 { 0 } else { l - 1 } } else { 0x77 }))
                .out(Loc::R(5), [32; 32]),
        );
        // Halves (PTX `atom.add.noftz.f16` and friends): one half of a word, the other kept;
        // each add rounds to nearest even (2048 + 1 ties back to 2048 in f16).
        let (f16b, bf16b) = (|x: f32| u32::from(half::f16::from_f32(x).to_bits()), |x: f32| f32b(x) >> 16);
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.F16 R2, {}, R0", same.replace("+64]", "+66]")))
                .setup(&format!("MOV R3, 0x68001234\nST.{space}.B32 {same}, R3"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .inp(Loc::R(0), [f16b(1.0); 32])
                .out(Loc::R(2), [0x6800; 32])
                .out(Loc::R(5), [0x6800_1234; 32]),
        );
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.BF16 R2, {same}, R0"))
                .setup(&format!("MOV R3, 0xABCD3F80\nST.{space}.B32 {same}, R3"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .inp(Loc::R(0), [bf16b(1.0); 32])
                .out(Loc::R(2), lanes(|l| bf16b(l as f32 + 1.0)))
                .out(Loc::R(5), [0xABCD_0000 | bf16b(33.0); 32]),
        );
        v.push(
            Case::new(&format!("ATOM.{space}.ADD.F16X2 R2, {same}, R0"))
                .setup(&format!("MOV R3, 0x40003C00\nST.{space}.B32 {same}, R3"))
                .post(&format!("LD.{space}.B32 R5, {same}"))
                .inp(Loc::R(0), [0x3C00_3C00; 32])
                .out(Loc::R(2), lanes(|l| f16b(l as f32 + 1.0) | f16b(l as f32 + 2.0) << 16))
                .out(Loc::R(5), [f16b(33.0) | f16b(34.0) << 16; 32]),
        );
    }
    v
}

/// The contract's (PTX `shfl.sync`) source-lane formula, transcribed. `b` uses
/// its low 5 bits as PTX's `bval = b[4:0]` does.
fn shfl_src(mode: &str, lane: u32, b: u32, w: u32) -> u32 {
    let segmask = !(w - 1) & 31;
    let c = if mode == "UP" { 0 } else { w - 1 };
    let max_lane = ((lane & segmask) | (c & !segmask)) as i64;
    let min_lane = (lane & segmask) as i64;
    let bval = (b & 31) as i64;
    let lane = lane as i64;
    let (j, valid) = match mode {
        "UP" => (lane - bval, lane - bval >= max_lane),
        "DOWN" => (lane + bval, lane + bval <= max_lane),
        "BFLY" => (lane ^ bval, (lane ^ bval) <= max_lane),
        _ => {
            let j = min_lane | (bval & !(segmask as i64) & 31);
            (j, j <= max_lane)
        }
    };
    if valid { j as u32 } else { lane as u32 }
}

fn warp_cases() -> Vec<Case> {
    let mut v = Vec::new();
    let a = lanes(|l| 0xA000_0000 | (l * 0x0101));
    let reg_bs = [lanes(|l| (l * 7 + 3) % 37), lanes(|l| l ^ 0x25), lanes(|l| 0xFFFF_FFFE - l), lanes(|l| 31 - l)];
    for mode in ["IDX", "UP", "DOWN", "BFLY"] {
        for w in [0u32, 1, 2, 4, 8, 16, 32] {
            let (ws, wv) = if w == 0 { (String::new(), 32) } else { (format!(", {w}"), w) };
            for b in [0u32, 1, 3, 5, 17, 31, 32, 33, 0xFFFF_FFFF] {
                v.push(Case::new(&format!("SHFL.{mode} R2, R0, {b}{ws}")).inp(Loc::R(0), a).out(Loc::R(2), lanes(|l| a[shfl_src(mode, l, b, wv) as usize])));
            }
            for bs in &reg_bs {
                v.push(
                    Case::new(&format!("SHFL.{mode} R2, R0, R1{ws}"))
                        .inp(Loc::R(0), a)
                        .inp(Loc::R(1), *bs)
                        .out(Loc::R(2), lanes(|l| a[shfl_src(mode, l, bs[l as usize], wv) as usize])),
                );
            }
        }
    }
    v.extend([
        // d may be a; guarded-off lanes are still read but not written.
        Case::new("SHFL.DOWN R0, R0, 1").inp(Loc::R(0), a).out(Loc::R(0), lanes(|l| a[(l + 1).min(31) as usize])),
        Case::new("@P0 SHFL.IDX R2, R0, 0")
            .inp(Loc::R(0), a)
            .inp(Loc::R(2), [0x77; 32])
            .inp(Loc::P(0), lanes(|l| l % 2))
            .out(Loc::R(2), lanes(|l| if l % 2 == 1 { a[0] } else { 0x77 })),
        Case::new("SHFL.BFLY R2, RZ, 1").out(Loc::R(2), [0; 32]),
        Case::new("SHFL.IDX RZ, R0, 3").inp(Loc::R(0), a).post("MOV R2, RZ").out(Loc::R(2), [0; 32]),
    ]);
    // REDUX and MATCH: over guard-true lanes only.
    let quarters = lanes(|l| l % 4);
    v.extend([
        Case::new("REDUX.ADD R2, R0").inp(Loc::R(0), lanes(|l| l)).out(Loc::R(2), [496; 32]),
        Case::new("REDUX.ADD R2, R0").inp(Loc::R(0), [u32::MAX; 32]).out(Loc::R(2), [0xFFFF_FFE0; 32]),
        Case::new("REDUX.MIN R2, R0").inp(Loc::R(0), lanes(|l| l.wrapping_sub(3))).out(Loc::R(2), [(-3i32) as u32; 32]),
        Case::new("REDUX.MIN.U32 R2, R0").inp(Loc::R(0), lanes(|l| l.wrapping_sub(3))).out(Loc::R(2), [0; 32]),
        Case::new("REDUX.MAX R2, R0").inp(Loc::R(0), lanes(|l| l.wrapping_sub(3))).out(Loc::R(2), [28; 32]),
        Case::new("REDUX.MAX.U32 R2, R0").inp(Loc::R(0), lanes(|l| l.wrapping_sub(3))).out(Loc::R(2), [(-1i32) as u32; 32]),
        Case::new("REDUX.AND R2, R0").inp(Loc::R(0), lanes(|l| 0xF0 | l)).out(Loc::R(2), [0xF0; 32]),
        Case::new("REDUX.OR R2, R0").inp(Loc::R(0), lanes(|l| 1 << l)).out(Loc::R(2), [u32::MAX; 32]),
        Case::new("REDUX.XOR R2, R0").inp(Loc::R(0), lanes(|l| l)).out(Loc::R(2), [0; 32]),
        Case::new("@P0 REDUX.ADD R2, R0")
            .inp(Loc::R(2), [0; 32])
            .inp(Loc::R(0), lanes(|l| l))
            .inp(Loc::P(0), lanes(|l| u32::from(l < 4)))
            .out(Loc::R(2), lanes(|l| if l < 4 { 6 } else { 0 })),
        Case::new("MATCH.ANY R2, R0").inp(Loc::R(0), quarters).out(Loc::R(2), lanes(|l| 0x1111_1111 << (l % 4))),
        Case::new("@P0 MATCH.ANY R2, R0")
            .inp(Loc::R(2), [0; 32])
            .inp(Loc::R(0), quarters)
            .inp(Loc::P(0), lanes(|l| u32::from(l < 8)))
            .out(Loc::R(2), lanes(|l| if l < 8 { 0x11 << (l % 4) } else { 0 })),
        Case::new("MATCH.ALL R2, R0").inp(Loc::R(0), [7; 32]).out(Loc::R(2), [u32::MAX; 32]),
        Case::new("MATCH.ALL R2, R0").inp(Loc::R(0), quarters).out(Loc::R(2), [0; 32]),
        Case::new("@P0 MATCH.ALL R2, R0")
            .inp(Loc::R(2), [0; 32])
            .inp(Loc::R(0), quarters)
            .inp(Loc::P(0), lanes(|l| u32::from(l % 4 == 2)))
            .out(Loc::R(2), lanes(|l| if l % 4 == 2 { 0x4444_4444 } else { 0 })),
    ]);
    // A member mask `m`: each lane combines the guard-true lanes of its own (8-lane tiles
    // here, as cooperative groups' masks; a literal is every lane's).
    let tiles = lanes(|l| 0xFF << (l & 24));
    let tile_of = |l: u32| l & 24;
    v.extend([
        Case::new("REDUX.ADD R2, R0, R1").inp(Loc::R(0), lanes(|l| l)).inp(Loc::R(1), tiles).out(Loc::R(2), lanes(|l| 8 * tile_of(l) + 28)),
        Case::new("REDUX.MIN R2, R0, R1").inp(Loc::R(0), lanes(|l| 40 - l)).inp(Loc::R(1), tiles).out(Loc::R(2), lanes(|l| 33 - tile_of(l))),
        Case::new("REDUX.ADD R2, R0, 0xF0").inp(Loc::R(0), lanes(|l| l)).out(Loc::R(2), [4 + 5 + 6 + 7; 32]),
        Case::new("@P0 REDUX.MAX R2, R0, R1")
            .inp(Loc::R(2), [0; 32])
            .inp(Loc::R(0), lanes(|l| l))
            .inp(Loc::R(1), tiles)
            .inp(Loc::P(0), lanes(|l| u32::from(l % 8 < 3)))
            .out(Loc::R(2), lanes(|l| if l % 8 < 3 { tile_of(l) + 2 } else { 0 })),
        Case::new("MATCH.ANY R2, R0, R1").inp(Loc::R(0), quarters).inp(Loc::R(1), tiles).out(Loc::R(2), lanes(|l| 0x11 << (l % 4) << tile_of(l))),
        // Tiles 0 and 2 agree; 1 and 3 do not.
        Case::new("MATCH.ALL R2, R0, R1")
            .inp(Loc::R(0), lanes(|l| if tile_of(l) % 16 == 0 { tile_of(l) } else { l }))
            .inp(Loc::R(1), tiles)
            .out(Loc::R(2), lanes(|l| if tile_of(l) % 16 == 0 { 0xFF << tile_of(l) } else { 0 })),
        // ELECT: the lowest guard-true lane of each lane's mask; none in it gives 0xFFFFFFFF.
        Case::new("ELECT R2, P1").out(Loc::R(2), [0; 32]).out(Loc::P(1), lanes(|l| u32::from(l == 0))),
        Case::new("ELECT R2, P1, R1").inp(Loc::R(1), tiles).out(Loc::R(2), lanes(tile_of)).out(Loc::P(1), lanes(|l| u32::from(l % 8 == 0))),
        Case::new("@P0 ELECT R2, P1, R1")
            .inp(Loc::R(2), [7; 32])
            .inp(Loc::R(1), tiles)
            .inp(Loc::P(0), lanes(|l| u32::from(l % 8 >= 5)))
            .out(Loc::R(2), lanes(|l| if l % 8 >= 5 { tile_of(l) + 5 } else { 7 }))
            .out(Loc::P(1), lanes(|l| u32::from(l % 8 == 5))),
        Case::new("ELECT R2, P1, 0").out(Loc::R(2), [u32::MAX; 32]).out(Loc::P(1), [0; 32]),
        // REDUX.F32: floats ordered as FMIN / FMAX order them; ABS of the magnitudes; NaNs
        // passed over, or with NAN, any NaN gives the canonical one.
        Case::new("REDUX.MAX.F32 R2, R0").inp(Loc::R(0), lanes(|l| (l as f32 - 40.0).to_bits())).out(Loc::R(2), [(-9.0f32).to_bits(); 32]),
        Case::new("REDUX.MIN.F32 R2, R0, R1")
            .inp(Loc::R(0), lanes(|l| (-(l as f32)).to_bits()))
            .inp(Loc::R(1), tiles)
            .out(Loc::R(2), lanes(|l| (-((tile_of(l) + 7) as f32)).to_bits())),
        Case::new("REDUX.MAX.F32.ABS R2, R0").inp(Loc::R(0), lanes(|l| (l as f32 - 40.0).to_bits())).out(Loc::R(2), [40.0f32.to_bits(); 32]),
        Case::new("REDUX.MAX.F32 R2, R0").inp(Loc::R(0), lanes(|l| if l == 3 { 0x7FC0_0000 } else { 0x8000_0000 })).out(Loc::R(2), [0x8000_0000; 32]),
        Case::new("REDUX.MAX.F32.NAN R2, R0").inp(Loc::R(0), lanes(|l| if l == 3 { 0x7FC0_0000 } else { l })).out(Loc::R(2), [0x7FFF_FFFF; 32]),
        Case::new("REDUX.MIN.F32 R2, R0").inp(Loc::R(0), [0xFFC0_0000; 32]).out(Loc::R(2), [0x7FFF_FFFF; 32]),
        Case::new("REDUX.MIN.F32 R2, R0").inp(Loc::R(0), lanes(|l| if l % 2 == 0 { 0 } else { 0x8000_0000 })).out(Loc::R(2), [0x8000_0000; 32]),
        Case::new("@P0 REDUX.MAX.F32 R2, R0")
            .inp(Loc::R(2), [0; 32])
            .inp(Loc::R(0), lanes(|l| (l as f32).to_bits()))
            .inp(Loc::P(0), lanes(|l| u32::from(l < 5)))
            .out(Loc::R(2), lanes(|l| if l < 5 { 4.0f32.to_bits() } else { 0 })),
        Case::new("ELECT RZ, P1, 0xF0").out(Loc::P(1), lanes(|l| u32::from(l == 4))),
    ]);
    // VOTE.
    let pat = lanes(|l| u32::from(l % 5 == 1));
    let pat_mask = (0..32).filter(|l| l % 5 == 1).fold(0u32, |m, l| m | 1 << l);
    let odd = lanes(|l| l % 2);
    v.extend([
        c("VOTE.ALL P1, P0", "P0=1", "P1=1"),
        c("VOTE.ALL P1, P0", "P0=0", "P1=0"),
        c("VOTE.ANY P1, P0", "P0=0", "P1=0"),
        c("VOTE.ANY P1, !P0", "P0=0", "P1=1"),
        c("VOTE.ALL P1, PT", "", "P1=1"),
        c("VOTE.ALL P1, !PT", "", "P1=0"),
        c("VOTE.ANY P1, PT", "", "P1=1"),
        c("VOTE.ANY P1, !PT", "", "P1=0"),
        c("VOTE.BALLOT R2, PT", "", "R2=0xffffffff"),
        c("VOTE.BALLOT R2, !PT", "", "R2=0"),
        c("VOTE.BALLOT RZ, PT", "", "R2=0").post("MOV R2, RZ"),
        Case::new("VOTE.ALL P1, P0").inp(Loc::P(0), pat).out(Loc::P(1), [0; 32]),
        Case::new("VOTE.ANY P1, P0").inp(Loc::P(0), pat).out(Loc::P(1), [1; 32]),
        Case::new("VOTE.ALL P1, !P0").inp(Loc::P(0), pat).out(Loc::P(1), [0; 32]),
        Case::new("VOTE.ANY P6, !P0").inp(Loc::P(0), pat).out(Loc::P(6), [1; 32]),
        Case::new("VOTE.BALLOT R2, P0").inp(Loc::P(0), pat).out(Loc::R(2), [pat_mask; 32]),
        Case::new("VOTE.BALLOT R2, !P0").inp(Loc::P(0), pat).out(Loc::R(2), [!pat_mask; 32]),
        // Guards: guarded-off lanes vote false and keep their destination.
        Case::new("@P2 VOTE.BALLOT R2, PT").inp(Loc::P(2), odd).inp(Loc::R(2), [7; 32]).out(Loc::R(2), lanes(|l| if l % 2 == 1 { 0xAAAA_AAAA } else { 7 })),
        // Contract v0.3: guard-false lanes take no part in the vote.
        Case::new("@P2 VOTE.ALL P1, PT").inp(Loc::P(2), odd).inp(Loc::P(1), lanes(|l| u32::from(l % 2 == 0))).out(Loc::P(1), [1; 32]),
        Case::new("@P2 VOTE.ANY P1, P0").inp(Loc::P(2), odd).inp(Loc::P(0), lanes(|l| u32::from(l == 4))).out(Loc::P(1), [0; 32]),
        Case::new("@!P2 VOTE.ANY P1, P0").inp(Loc::P(2), odd).inp(Loc::P(1), [1; 32]).inp(Loc::P(0), lanes(|l| u32::from(l == 4))).out(Loc::P(1), [1; 32]),
        Case::new("@!P2 VOTE.ALL P1, !P2").inp(Loc::P(2), odd).out(Loc::P(1), lanes(|l| u32::from(l % 2 == 0))),
        c("WARPSYNC", "R2=5", "R2=5"),
        c("@P0 WARPSYNC", "R2=5 P0=0", "R2=5"),
        c("MEMBAR.CTA", "R2=5", "R2=5"),
        c("MEMBAR.GL", "R2=5", "R2=5"),
        c("NOP", "R2=5", "R2=5"),
        c("BAR.SYNC", "R2=5", "R2=5"),
        // A one-warp block: its own arrival completes a barrier of 32 threads, whether it waits
        // there or not, at a number given by literal or register (more in tests/barriers.rs).
        c("BAR.SYNC 15", "R2=5", "R2=5"),
        c("BAR.SYNC R3, R4", "R2=5 R3=2 R4=32", "R2=5"),
        c("BAR.ARRIVE 1, 32\nBAR.ARRIVE 1, 32", "R2=5", "R2=5"),
        c("@P0 BAR.ARRIVE 1, 64", "R2=5 P0=0", "R2=5"),
        // A one-warp block: the barrier reduces over its 32 threads.
        Case::new("BAR.RED.POPC R2, P0").inp(Loc::P(0), pat).out(Loc::R(2), [pat_mask.count_ones(); 32]),
        Case::new("BAR.RED.POPC R2, !P0").inp(Loc::P(0), pat).out(Loc::R(2), [32 - pat_mask.count_ones(); 32]),
        c("BAR.RED.AND R2, PT", "", "R2=1"),
        Case::new("BAR.RED.AND R2, P0").inp(Loc::P(0), pat).out(Loc::R(2), [0; 32]),
        Case::new("BAR.RED.OR R2, P0").inp(Loc::P(0), pat).out(Loc::R(2), [1; 32]),
        c("BAR.RED.OR R2, !PT", "", "R2=0"),
        // A warp whose guard is false throughout passes the barrier, keeping its destination
        // (guard-false threads of a warp that arrives never do: as at `BAR.SYNC`).
        c("@P2 BAR.RED.POPC R2, PT", "P2=0 R2=7", "R2=7"),
        // Printing writes no register (its text is checked in `tests/cli.rs` and the PTX
        // corpus); `VPRINTF` of a null format prints nothing and returns -1, as CUDA's printf.
        c("PRINTF \"x = %d\\n\", R2", "R2=5", "R2=5"),
        c("VPRINTF R2, R4, R6", "R4=0 R5=0 R6=0 R7=0", "R2=4294967295"),
        c("@!PT VPRINTF R2, R4, R6", "R2=3 R4=0 R5=0", "R2=3"),
        // A failed assert stops the launch (its message is checked in `tests/cli.rs`).
        c("@!PT TRAP.ASSERT R4, R6, 7, R8", "R2=5", "R2=5"),
        c("@!PT EXIT", "R2=5", "R2=5"),
        // Branches: uniform and divergent, reconverging at the label.
        c("BRA {L}\nMOV R2, 1\n{L}:", "R2=5", "R2=5"),
        c("@P0 BRA {L}\nMOV R2, 1\n{L}:", "R2=5 P0=0", "R2=1"),
        Case::new("@P0 BRA {L}\nMOV R2, 1\n{L}: IADD R2, R2, 10")
            .inp(Loc::P(0), odd)
            .out(Loc::R(2), lanes(|l| if l % 2 == 1 { SENTINEL + 2 + 10 } else { 11 })),
        Case::new("@!P0 BRA {L}\nSHFL.IDX R2, R9, 3\n{L}: VOTE.BALLOT R3, P0")
            .setup("S2R R9, SR_LANEID")
            .inp(Loc::P(0), [1; 32])
            .out(Loc::R(2), [3; 32])
            .out(Loc::R(3), [0xFFFF_FFFF; 32]),
    ]);
    v
}

/// Contract section 9: TF32 rounds to nearest with ties away; the FP8/FP4 pairs round to
/// nearest even and saturate; the widening conversions are exact.
fn lowp_convert_cases() -> Vec<Case> {
    vec![
        c("CVT.TF32.F32 R2, R0", "R0=0x3f801000", "R2=0x3f802000"), // 1 + 2^-11: a tie, away from zero
        c("CVT.TF32.F32 R2, R0", "R0=0xbf801000", "R2=0xbf802000"),
        c("CVT.TF32.F32 R2, R0", "R0=0x3f800fff", "R2=0x3f800000"),
        c("CVT.TF32.F32 R2, R0", "R0=0x7f7ff000", "R2=0x7f800000"), // past the largest TF32
        c("CVT.TF32.F32 R2, R0", "R0=0x7f7fefff", "R2=0x7f7fe000"),
        c("CVT.TF32.F32 R2, R0", "R0=0xffc00001", "R2=0x7fffe000"), // NaN
        c("CVT.TF32.F32 R2, R0", "R0=0x00001000", "R2=0x00002000"), // a subnormal tie
        c("CVT.TF32.F32 R2, -R0", "R0=f:1.5", "R2=f:-1.5"),
        c("CVT.TF32.F32 R2, 0f3F801000", "", "R2=0x3f802000"),
        c("CVT.E4M3X2.F32 R2, R0, R1", "R0=f:1 R1=f:-2", "R2=0xc038"),
        c("CVT.E4M3X2.F32 R2, R0, R1", "R0=f:448 R1=f:464", "R2=0x7e7e"), // 464 ties down to 448
        c("CVT.E4M3X2.F32 R2, R0, R1", "R0=f:inf R1=f:-1e30", "R2=0xfe7e"),
        c("CVT.E4M3X2.F32 R2, R0, R1", "R0=0x7fc00000 R1=f:-1e-9", "R2=0x807f"), // NaN; -0
        c("CVT.E4M3X2.F32 R2, R0, R1", "R0=f:0.0009765625 R1=f:0.0029296875", "R2=0x0200"), // subnormal ties to even
        c("CVT.E4M3X2.F32 R2, |R0|, 0.1015625", "R0=f:-0.3", "R2=0x1d2a"),
        c("CVT.E5M2X2.F32 R2, R0, R1", "R0=f:57344 R1=f:61440", "R2=0x7b7b"), // the tie above saturates too
        c("CVT.E5M2X2.F32 R2, R0, R1", "R0=f:-inf R1=0x7f800001", "R2=0x7ffb"),
        c("CVT.E5M2X2.F32 R2, R0, R1", "R0=f:1.125 R1=f:1.375", "R2=0x3e3c"),
        c("CVT.E5M2X2.F32 R2, R0, R1", "R0=f:0.0000152587890625 R1=f:0.00000762939453125", "R2=0x0001"),
        c("CVT.E2M1X2.F32 R2, R0, R1", "R0=f:0.75 R1=f:5", "R2=0x62"),
        c("CVT.E2M1X2.F32 R2, R0, R1", "R0=0x7fc00000 R1=f:-100", "R2=0xf7"),
        c("CVT.E2M1X2.F32 R2, R0, R1", "R0=f:-0.25 R1=f:0.3", "R2=0x18"),
        c("CVT.F32.E4M3 R2, R0", "R0=0xffffff38", "R2=f:1"), // only the lowest byte counts
        c("CVT.F32.E4M3 R2, R0", "R0=0xfe", "R2=f:-448"),
        c("CVT.F32.E4M3 R2, R0", "R0=0x01", "R2=f:0.001953125"),
        c("CVT.F32.E4M3 R2, R0", "R0=0x7f", "R2=0x7fffffff"),
        c("CVT.F32.E4M3 R2, 0xff", "", "R2=0x7fffffff"),
        c("CVT.F32.E5M2 R2, R0", "R0=0x7c", "R2=f:inf"),
        c("CVT.F32.E5M2 R2, R0", "R0=0xfd", "R2=0x7fffffff"),
        c("CVT.F32.E5M2 R2, R0", "R0=0x1280", "R2=0x80000000"),
        c("CVT.F32.E2M1 R2, R0", "R0=0xf7", "R2=f:6"),
        c("CVT.F32.E2M1 R2, R0", "R0=0x9", "R2=f:-0.5"),
        c("CVT.F32.E2M1 R2, R0", "R0=0x8", "R2=0x80000000"),
        // Pairs widened: the lowest element into the low half, exactly; NaN is 0x7FFF.
        c("CVT.F16X2.E4M3X2 R2, R0", "R0=0xffff3830", "R2=0x3c003800"), // only the lowest two bytes count
        c("CVT.F16X2.E4M3X2 R2, R0", "R0=0xfe7f", "R2=0xdf007fff"),
        c("CVT.F16X2.E4M3X2 R2, R0", "R0=0x0001", "R2=0x00001800"),
        c("CVT.BF16X2.E4M3X2 R2, R0", "R0=0x3830", "R2=0x3f803f00"),
        c("CVT.F16X2.E5M2X2 R2, R0", "R0=0x7c3c", "R2=0x7c003c00"),
        c("CVT.F16X2.E2M1X2 R2, R0", "R0=0xf721", "R2=0x3c003800"), // two nibbles
        c("CVT.BF16X2.E2M1X2 R2, R0", "R0=0x9f", "R2=0xbf00c0c0"),
    ]
}

/// 64-bit atomics on register pairs: all 32 lanes on one address, in lane order.
fn atomic64_cases() -> Vec<Case> {
    /// The operation, how it updates memory, memory's first value, lane `l`'s operand.
    type Atomic64 = (&'static str, fn(u64, u64) -> u64, u64, fn(u64) -> u64);
    let ops: [Atomic64; 9] = [
        ("ADD.U64", |m, x| m.wrapping_add(x), 0xFFFF_FFFF_0000_0000, |l| l * 0x1_0000_0001),
        ("ADD.F64", |m, x| (f64::from_bits(m) + f64::from_bits(x)).to_bits(), 1f64.to_bits(), |l| (0.1 * (l + 1) as f64).to_bits()),
        ("MIN.S64", |m, x| (m as i64).min(x as i64) as u64, 1 << 40, |l| ((l as i64 - 16) << 35) as u64),
        ("MIN.U64", |m, x| m.min(x), u64::MAX, |l| (l * 7919 % 32) << 40),
        ("MAX.S64", |m, x| (m as i64).max(x as i64) as u64, i64::MIN as u64, |l| ((l as i64 * 13 % 32 - 16) << 50) as u64),
        ("EXCH.B64", |_, x| x, 0x1234_5678_9ABC_DEF0, |l| l << 33 | l),
        ("AND.B64", |m, x| m & x, u64::MAX, |l| !(1 << (2 * l))),
        ("OR.B64", |m, x| m | x, 0, |l| 1 << (2 * l + 1)),
        ("XOR.B64", |m, x| m ^ x, 0x5555, |l| 0x8000_0000_0000_0001u64.rotate_left(l as u32 % 7)),
    ];
    let pair = |f: &dyn Fn(usize) -> u64| -> [Lanes; 2] { [lanes(|l| f(l as usize) as u32), lanes(|l| (f(l as usize) >> 32) as u32)] };
    let mut v = Vec::new();
    for (space, at) in [("GLOBAL", "[R249+64]"), ("SHARED", "[sh+64]")] {
        for (name, apply, init, b) in ops {
            let (mut m, mut old) = (init, [0u64; 32]);
            for (l, o) in old.iter_mut().enumerate() {
                *o = m;
                m = apply(m, b(l as u64));
            }
            let [b_lo, b_hi] = pair(&|l| b(l as u64));
            let [old_lo, old_hi] = pair(&|l| old[l]);
            v.push(
                Case::new(&format!("ATOM.{space}.{name} R2, {at}, R0"))
                    .setup(&format!("ST.{space}.B64 {at}, R6"))
                    .post(&format!("LD.{space}.B64 R8, {at}"))
                    .inp(Loc::R(0), b_lo)
                    .inp(Loc::R(1), b_hi)
                    .inp(Loc::R(6), [init as u32; 32])
                    .inp(Loc::R(7), [(init >> 32) as u32; 32])
                    .out(Loc::R(2), old_lo)
                    .out(Loc::R(3), old_hi)
                    .out(Loc::R(8), [m as u32; 32])
                    .out(Loc::R(9), [(m >> 32) as u32; 32]),
            );
        }
        // Compare-and-swap: only the lane whose expected value matches swaps.
        v.push(
            Case::new(&format!("ATOM.{space}.CAS.B64 R2, {at}, R0, R4"))
                .setup(&format!("ST.{space}.B64 {at}, R6"))
                .post(&format!("LD.{space}.B64 R8, {at}"))
                .inp(Loc::R(0), lanes(|l| l))
                .inp(Loc::R(1), [7; 32])
                .inp(Loc::R(4), lanes(|l| 100 + l))
                .inp(Loc::R(5), [9; 32])
                .inp(Loc::R(6), [5; 32])
                .inp(Loc::R(7), [7; 32])
                .out(Loc::R(2), lanes(|l| if l <= 5 { 5 } else { 105 }))
                .out(Loc::R(3), lanes(|l| if l <= 5 { 7 } else { 9 }))
                .out(Loc::R(8), [105; 32])
                .out(Loc::R(9), [9; 32]),
        );
    }
    v
}

fn all_groups() -> Vec<(&'static str, Vec<Case>)> {
    vec![
        ("move", move_cases()),
        ("convert", convert_cases()),
        ("convert (section 9)", lowp_convert_cases()),
        ("pack", pack_cases()),
        ("halves", half_cases()),
        ("integer", integer_cases()),
        ("logic", logic_cases()),
        ("isetp", isetp_cases()),
        ("fsetp/dsetp", fsetp_cases()),
        ("f32", f32_cases()),
        ("mufu", mufu_cases()),
        ("f64", f64_cases()),
        ("ptx support", ptx_support_cases()),
        ("memory", memory_cases()),
        ("atomic", atomic_cases()),
        ("atomic (64-bit)", atomic64_cases()),
        ("warp/control", warp_cases()),
        ("tensor memory", tmem_cases()),
    ]
}

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[test]
fn tensor_memory() {
    check(tmem_cases());
}

#[test]
fn move_and_guards() {
    check(move_cases());
}

#[test]
fn conversions() {
    check(convert_cases());
}

#[test]
fn pack() {
    check(pack_cases());
}

#[test]
fn pairs_of_halves() {
    check(half_cases());
}

#[test]
fn integer_arithmetic() {
    check(integer_cases());
}

#[test]
fn logic_and_shifts() {
    check(logic_cases());
}

#[test]
fn isetp() {
    check(isetp_cases());
}

#[test]
fn fsetp_and_dsetp() {
    check(fsetp_cases());
}

#[test]
fn f32_arithmetic() {
    check(f32_cases());
}

#[test]
fn mufu() {
    check(mufu_cases());
}

#[test]
fn f64_arithmetic() {
    check(f64_cases());
}

#[test]
fn ptx_support() {
    check(ptx_support_cases());
}

#[test]
fn loads_and_stores() {
    check(memory_cases());
}

#[test]
fn atomics() {
    check(atomic_cases());
    check(atomic64_cases());
}

#[test]
fn warp_collectives_and_control() {
    check(warp_cases());
}

/// The harness itself: a wrong expectation is reported under both models.
#[test]
fn the_harness_reports_mismatches() {
    let errors = run_table(&[c("IADD R2, R0, R1", "R0=1 R1=2", "R2=4"), c("FSETP.EQ P0, R0, R1", "R0=0 R1=0", "P0=0")]);
    assert_eq!(errors.len(), 4, "{errors:#?}");
    assert!(errors[0].contains("expected 0x00000004, got 0x00000003"), "{}", errors[0]);
}

/// iced-style: every opcode of the table (except the MMA rows, tested in
/// `tensor_kernels.rs` and `simt-tensor`) is the opcode of some case, as the
/// assembler decodes it.
#[test]
fn every_opcode_is_tested() {
    let mut seen = BTreeSet::new();
    for (group, cases) in all_groups() {
        eprintln!("{group}: {} cases", cases.len());
        for (i, case) in cases.iter().enumerate() {
            let src = format!("{HEADER}{}\nNOP\n", label(&case.text, i));
            let module = assemble(&src);
            seen.insert(module.kernels[0].code[0].opcode());
        }
    }
    let missing: Vec<Opcode> = TABLE.iter().map(|r| r.opcode).filter(|o| o.info().unit != Unit::Tensor && !seen.contains(o)).collect();
    assert!(missing.is_empty(), "opcodes without a case: {missing:?}");
}

// ---------------------------------------------------------------------------
// Special registers in a 3-D launch with a partial last warp
// ---------------------------------------------------------------------------

#[test]
fn special_registers_in_a_3d_launch() {
    let (grid, block) = ([2u32, 3, 2], [8u32, 5, 2]); // 80 threads: warps 0, 1 full, warp 2 has 16 lanes
    let src = format!(
        ".kernel s\n.param .ptr.u32 out\n.launch grid({},{},{}) block({},{},{})\n\
         S2R R30, SR_CLOCK\n\
         S2R R0, SR_TID.X\nS2R R1, SR_TID.Y\nS2R R2, SR_TID.Z\n\
         S2R R3, SR_NTID.X\nS2R R4, SR_NTID.Y\nS2R R5, SR_NTID.Z\n\
         S2R R6, SR_CTAID.X\nS2R R7, SR_CTAID.Y\nS2R R8, SR_CTAID.Z\n\
         S2R R9, SR_NCTAID.X\nS2R R10, SR_NCTAID.Y\nS2R R11, SR_NCTAID.Z\n\
         S2R R12, SR_LANEID\nS2R R13, SR_WARPID\nS2R R14, SR_SMID\n\
         VOTE.BALLOT R16, PT\n\
         IMAD R20, R8, R10, R7\nIMAD R20, R20, R9, R6\n\
         IMAD R21, R2, R4, R1\nIMAD R21, R21, R3, R0\n\
         IMUL R22, R3, R4\nIMUL R22, R22, R5\nIMAD R22, R20, R22, R21\n\
         LD.PARAM.U32 R23, [out]\nLEA R23, R22, R23, 7\n\
         ST.GLOBAL.V4.B32 [R23], R0\nST.GLOBAL.V4.B32 [R23+16], R4\nST.GLOBAL.V4.B32 [R23+32], R8\n\
         ST.GLOBAL.V4.B32 [R23+48], R12\nST.GLOBAL.U32 [R23+64], R16\nST.GLOBAL.U32 [R23+68], R30\n\
         S2R R31, SR_CLOCK\nST.GLOBAL.U32 [R23+72], R31\nEXIT\n",
        grid[0], grid[1], grid[2], block[0], block[1], block[2]
    );
    let module = assemble(&src);
    let nblocks = grid.iter().product::<u32>();
    let nthreads = block.iter().product::<u32>();
    for simt in MODELS {
        let req = LaunchRequest { args: vec![Arg::new("out", ArgInit::Zeros(u64::from(nblocks * nthreads * 32)))], ..LaunchRequest::default() };
        let p = prepare(&module.kernels[0], &req).unwrap();
        let opts = options(simt);
        simt_interp::run(&module.kernels[0], &p.config, &p.memory, &opts, None).unwrap_or_else(|f| panic!("{}", f.render(&module, false)));
        let out = u32s(&p.buffer("out").unwrap().1);
        for bz in 0..grid[2] {
            for by in 0..grid[1] {
                for bx in 0..grid[0] {
                    let b = bx + by * grid[0] + bz * grid[0] * grid[1];
                    for tz in 0..block[2] {
                        for ty in 0..block[1] {
                            for tx in 0..block[0] {
                                let t = tx + ty * block[0] + tz * block[0] * block[1];
                                let row = &out[((b * nthreads + t) * 32) as usize..][..19];
                                let warp = t / 32;
                                let ballot = if warp == nthreads / 32 { (1u32 << (nthreads % 32)) - 1 } else { !0 };
                                let want =
                                    [tx, ty, tz, block[0], block[1], block[2], bx, by, bz, grid[0], grid[1], grid[2], t % 32, warp, b % opts.sms, 0, ballot];
                                assert_eq!(&row[..17], &want, "{simt:?}: block {b} thread {t} (R0..R14, -, ballot)");
                                assert!(row[18] > row[17], "{simt:?}: SR_CLOCK must advance: {} then {}", row[17], row[18]);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn exited_lanes_leave_the_warp() {
    let src = ".kernel e\n.param .ptr.u32 out\n.launch grid(1) block(32)\n\
               S2R R0, SR_LANEID\nLD.PARAM.U32 R1, [out]\nLEA R1, R0, R1, 2\nMOV R2, 0x77\nST.GLOBAL.U32 [R1], R2\n\
               ISETP.GE P0, R0, 8\n@P0 EXIT\nVOTE.BALLOT R2, PT\nSHFL.DOWN R3, R0, 4\nIADD R2, R2, R3\nST.GLOBAL.U32 [R1], R2\nEXIT\n";
    let module = assemble(src);
    for simt in MODELS {
        let req = LaunchRequest { args: vec![Arg::new("out", ArgInit::Zeros(32))], ..LaunchRequest::default() };
        let p = prepare(&module.kernels[0], &req).unwrap();
        simt_interp::run(&module.kernels[0], &p.config, &p.memory, &options(simt), None).unwrap_or_else(|f| panic!("{}", f.render(&module, false)));
        // Lanes 0..7 see a ballot of 0xFF; SHFL.DOWN by 4 from lanes 4..7 reads exited lanes 8..11, whose
        // registers still hold their lane index.
        let want: Vec<u32> = (0..32).map(|l| if l < 8 { 0xFF + l + 4 } else { 0x77 }).collect();
        assert_eq!(u32s(&p.buffer("out").unwrap().1), want, "{simt:?}");
    }
}

// ---------------------------------------------------------------------------
// Faults: kind, lane and source line
// ---------------------------------------------------------------------------

struct FaultCase {
    setup: &'static str,
    text: &'static str,
    kind: FaultKind,
    lane: u32,
}

fn fault_cases() -> Vec<FaultCase> {
    use FaultKind::*;
    let f = |setup, text, kind, lane| FaultCase { setup, text, kind, lane };
    vec![
        f("", "LD.GLOBAL.U32 R2, [R1+2]", Misaligned, 0),
        f("", "LD.GLOBAL.S16 R2, [R1+1]", Misaligned, 0),
        f("", "ST.GLOBAL.B64 [R1+4], R2", Misaligned, 0),
        f("", "LD.GLOBAL.F64 R2, [R1+4]", Misaligned, 0),
        f("", "LD.GLOBAL.V2.B32 R4, [R1+4]", Misaligned, 0),
        f("", "LD.GLOBAL.V4.B32 R4, [R1+8]", Misaligned, 0),
        f("", "ATOM.GLOBAL.ADD.U32 R2, [R1+2], 1", Misaligned, 0),
        f("", "ATOM.GLOBAL.ADD.F16 R2, [R1+1], R9", Misaligned, 0),
        f("", "LD.GLOBAL.B64 R2, [R1+8]", OutOfBounds, 0),
        f("", "LD.GLOBAL.U32 R2, [R1+12]", OutOfBounds, 0),
        f("", "ST.GLOBAL.U8 [R1+12], R9", OutOfBounds, 0),
        f("LEA R3, R9, R1, 2", "LD.GLOBAL.U32 R2, [R3]", OutOfBounds, 3),
        f("LEA R3, R9, R1, 2", "ATOM.GLOBAL.CAS.B32 R2, [R3], 0, 1", OutOfBounds, 3),
        f("", "ST.GLOBAL.U32 [RZ], R9", NullAccess, 0),
        f("", "LD.GLOBAL.U32 R2, [0x80]", NullAccess, 0),
        f("MOV R3, 0x40000000", "LD.GLOBAL.U32 R2, [R3]", Unmapped, 0),
        f("MOV R3, 1", "ST.SHARED.U16 [R3], R9", Misaligned, 0),
        f("", "LD.SHARED.B64 R2, [s+4]", Misaligned, 0),
        f("", "LD.SHARED.B64 R2, [s+8]", OutOfBounds, 0),
        f("SHL R3, R9, 2", "ATOM.SHARED.ADD.U32 R2, [R3+s], 1", OutOfBounds, 3),
        f("MOV R3, 2", "LD.LOCAL.U32 R2, [R3]", Misaligned, 0),
        f("", "LD.LOCAL.V4.B32 R4, [8]", Misaligned, 0),
        f("", "ST.LOCAL.B64 [12], R2", Misaligned, 0),
        f("", "LD.LOCAL.V2.B32 R4, [16]", OutOfBounds, 0),
        f("SHL R3, R9, 2", "ST.LOCAL.U32 [R3], R9", OutOfBounds, 4),
        // LDSM's rows are 16 bytes, aligned; the lanes naming them must execute it, the others need not.
        f("MOV R3, 8", "LDSM.X1 R4, [R3]", Misaligned, 0),
        f("ISETP.LT P0, R9, 8", "@P0 LDSM.X1 R4, [RZ]", OutOfBounds, 0),
        f("ISETP.NE P0, R9, 5", "@P0 LDSM.X2 R4, [RZ]", Tensor, 5),
        f("MOV R3, 4", "STSM.X1 [R3], R4", Misaligned, 0),
        f("ISETP.NE P0, R9, 9", "@P0 STSM.X2 [RZ], R4", Tensor, 9),
        f("ISETP.GE P0, R9, 3", "@P0 TRAP", Trap, 3),
        f("", "TRAP", Trap, 0),
    ]
}

fn fault_source(case: &FaultCase) -> (String, u32) {
    let mut s = String::from(
        ".kernel f\n.param .ptr.u32 b\n.shared .u32 s[3]\n.local 16\n.launch grid(1) block(32)\n.arg b = zeros(3)\n\
         LD.PARAM.U32 R1, [b]\nS2R R9, SR_LANEID\n",
    );
    if !case.setup.is_empty() {
        s.push_str(case.setup);
        s.push('\n');
    }
    let line = s.lines().count() as u32 + 1;
    s.push_str(case.text);
    s.push_str("\nEXIT\n");
    (s, line)
}

#[test]
fn bad_accesses_fault_with_the_right_kind_lane_and_line() {
    let mut errors = Vec::new();
    for case in fault_cases() {
        let (src, line) = fault_source(&case);
        let module = assemble(&src);
        for simt in MODELS {
            let p = prepare(&module.kernels[0], &LaunchRequest::default()).unwrap();
            match simt_interp::run(&module.kernels[0], &p.config, &p.memory, &options(simt), None) {
                Ok(_) => errors.push(format!("{simt:?}: `{}` did not fault", case.text)),
                Err(f) => {
                    if f.kind != case.kind || f.line != Some(line) || f.lane != Some(case.lane) {
                        errors.push(format!(
                            "{simt:?}: `{}`: expected {:?} at line {line} lane {}, got {:?} at line {:?} lane {:?}: {}",
                            case.text, case.kind, case.lane, f.kind, f.line, f.lane, f.message
                        ));
                    }
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}
