//! Stable-toolchain robustness harness: bounded proptest runs of what the
//! libFuzzer targets in `fuzz/` do at length (`cargo fuzz run T -s none`).
//!
//! - the assembler on arbitrary text and on mutations of the shipped kernels;
//! - the bytecode loader on arbitrary bytes and on mutated valid bytecode;
//! - the interpreter on random *valid* programs from the instruction table
//!   (the generator is `fuzz/src/program.rs`, shared with the `interp` fuzz target);
//! - the interpreter and the stepping API on crafted bytecode: valid modules mutated
//!   field by field, loaded and run (`fuzz/src/crafted.rs`, shared with the
//!   `run_bytecode` fuzz target);
//! - the `.npy` reader on arbitrary and mutated files;
//! - the PTX front end on mutated files of the PTX corpus (the `translate_ptx` fuzz target's
//!   check);
//! - machine files with hostile values, timed (`fuzz/src/machine.rs`, shared with the
//!   `machine_file` fuzz target).
//!
//! Nothing here may panic. Crashes the fuzzers found live at the bottom as
//! regression tests.

#[path = "../fuzz/src/crafted.rs"]
mod crafted;
#[path = "../fuzz/src/machine.rs"]
mod machine;
#[path = "../fuzz/src/program.rs"]
mod program;

use proptest::prelude::*;

/// The `.s` files shipped in `asm/` (and the shared conformance cases when present).
fn corpus() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut files = Vec::new();
    for dir in [format!("{root}/asm"), format!("{root}/asm/divergence")] {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "s") {
                files.push(std::fs::read_to_string(path).expect("a shipped kernel is UTF-8"));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 8, "asm/ kernels are missing");
    files
}

/// Tokens to splice into mutated sources.
const DICTIONARY: &[&str] = &[
    ".kernel",
    ".param",
    ".ptr.f32",
    ".u32",
    ".shared",
    ".align",
    ".local",
    ".regs",
    ".launch",
    ".arg",
    "grid(",
    "block(",
    ")",
    "[",
    "]",
    ",",
    ":",
    ";",
    "@P0",
    "@!PT",
    "R254",
    "R255",
    "RZ",
    "PT",
    "-|R1|",
    "0x",
    "0b",
    "0f3F800000",
    "0d",
    "1e999",
    "-9223372036854775808",
    "99999999999999999999",
    "nan",
    "inf",
    "/*",
    "*/",
    "//",
    "\n",
    "BRA",
    "EXIT",
    "BAR.SYNC",
    "MMA.M16N16K16.F32.F16",
    "MMA.SP.M16N16K32.F32.F16",
    "SHFL.IDX",
    "LD.GLOBAL.V4.B32",
    "ST.SHARED.F64",
    "ATOM.GLOBAL.CAS.B32",
    "zeros(",
    "fill(",
    "iota(",
    "rand(",
    "@",
    "x[4294967295]",
    "SR_TID.X",
    "ISETP.LT.U32.AND",
    "\u{0}",
    "é",
    "label:",
];

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize),
    Flip(usize, u8),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), 0..DICTIONARY.len()).prop_map(|(a, t)| Edit::Insert(a, t)),
        (any::<usize>(), 0usize..200).prop_map(|(a, n)| Edit::Duplicate(a, n)),
        (any::<usize>(), any::<u8>()).prop_map(|(a, b)| Edit::Flip(a, b)),
    ]
}

fn apply(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = bytes.len();
        let at = |a: usize| if len == 0 { 0 } else { a % (len + 1) };
        match *e {
            Edit::Delete(a, n) => {
                let a = at(a);
                bytes.drain(a..(a + n).min(len));
            }
            Edit::Insert(a, t) => {
                let a = at(a);
                bytes.splice(a..a, DICTIONARY[t].bytes());
            }
            Edit::Duplicate(a, n) => {
                let a = at(a);
                let piece = bytes[a..(a + n).min(len)].to_vec();
                bytes.splice(a..a, piece);
            }
            Edit::Flip(a, b) if len > 0 => bytes[a % len] ^= b.max(1),
            Edit::Flip(..) => {}
        }
    }
    bytes
}

/// Assembles; whatever assembles must also write, load and disassemble.
fn check_source(text: &str) {
    if let Ok(module) = simt_asm::assemble("robust.s", text) {
        let back = simt_isa::read_module(&simt_isa::write_module(&module)).expect("assembled bytecode loads back");
        let _ = simt_isa::disassemble(&back);
    }
}

fn check_bytecode(bytes: &[u8]) {
    if let Ok(module) = simt_isa::read_module(bytes) {
        simt_isa::read_module(&simt_isa::write_module(&module)).expect("a loaded module round-trips");
        let _ = simt_isa::disassemble(&module);
    }
}

fn bytecode_corpus() -> Vec<Vec<u8>> {
    corpus().iter().map(|s| simt_isa::write_module(&simt_asm::assemble("k.s", s).expect("shipped kernels assemble"))).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_assembler_takes_any_text(text in "(\\PC|[\\n\\[\\]@.,:;/*]){0,300}") {
        check_source(&text);
    }

    #[test]
    fn the_assembler_takes_mutated_kernels(which in any::<usize>(), edits in proptest::collection::vec(edit(), 1..8)) {
        let files = corpus();
        let bytes = apply(files[which % files.len()].clone().into_bytes(), &edits);
        check_source(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn the_loader_takes_any_bytes(tail in proptest::collection::vec(any::<u8>(), 0..200), magic in any::<bool>()) {
        let mut bytes = if magic { b"\x7fSMT\x01\x00\x00\x00".to_vec() } else { vec![] };
        bytes.extend(tail);
        check_bytecode(&bytes);
    }

    #[test]
    fn the_loader_takes_mutated_bytecode(which in any::<usize>(), edits in proptest::collection::vec(edit(), 1..6),
                                         word_at in any::<usize>(), word in prop_oneof![Just(u32::MAX), Just(0x8000_0000u32), any::<u32>()]) {
        let all = bytecode_corpus();
        let mut bytes = apply(all[which % all.len()].clone(), &edits);
        if !bytes.is_empty() {
            let at = word_at % bytes.len();
            let end = (at + 4).min(bytes.len());
            bytes[at..end].copy_from_slice(&word.to_le_bytes()[..end - at]);
        }
        check_bytecode(&bytes);
    }

    #[test]
    fn the_npy_reader_takes_any_bytes(header in "\\{('descr'|'shape'|'fortran_order'|: |'<f4'|'>i2'|\\(|\\)|,|[0-9]{1,25}|True|False| |\\})*",
                                      version in 0u8..5, data in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut bytes = b"\x93NUMPY".to_vec();
        bytes.extend([version, 0]);
        if version >= 2 {
            bytes.extend((header.len() as u32).to_le_bytes());
        } else {
            bytes.extend((header.len() as u16).to_le_bytes());
        }
        bytes.extend(header.bytes());
        bytes.extend(data);
        for cut in [bytes.len(), bytes.len() / 2, 11] {
            let _ = simt_io::npy::read(&bytes[..cut.min(bytes.len())]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random valid programs from the instruction table run to a result or a fault, never a panic.
    #[test]
    fn the_interpreter_runs_random_valid_programs(choices in proptest::collection::vec(any::<u32>(), 0..600)) {
        let case = program::case(&mut program::FromSlice(&choices), 40);
        program::check_round_trip(&case.kernel);
        program::run_case(&case);
    }
}

/// The kernels of `asm/`, assembled once: what crafted bytecode starts from.
static CRAFTED_SEEDS: std::sync::LazyLock<Vec<simt_isa::Module>> =
    std::sync::LazyLock::new(|| crafted::seeds(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))));

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Crafted bytecode that loads runs to a result or a fault under both models and
    /// through the stepping API, never a panic.
    #[test]
    fn crafted_bytecode_runs_or_faults(choices in proptest::collection::vec(any::<u32>(), 0..400)) {
        crafted::check(&mut program::FromSlice(&choices), &CRAFTED_SEEDS);
    }
}

/// The PTX corpus: clang's and nvcc's fixtures, and the ML compilers' kernels (Triton's and
/// tinygrad's, whose literal registers, copies and spilled predicates the translator treats
/// apart).
fn ptx_corpus() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
    let mut files = Vec::new();
    for folder in ["ptx/fixtures", "ml/triton", "ml/tinygrad"] {
        files.extend(std::fs::read_dir(root.join(folder)).expect("a PTX corpus").filter_map(|e| e.ok().map(|e| e.path())));
    }
    files.sort();
    files.iter().filter(|p| p.extension().is_some_and(|e| e == "ptx")).map(|p| std::fs::read_to_string(p).expect("a PTX file")).collect()
}

static PTX_CORPUS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(ptx_corpus);

/// Translates; what translates must write, load back and reassemble (the `translate_ptx`
/// fuzz target's check).
fn check_ptx(text: &str) {
    match simt_ptx::translate("fuzz.ptx", text, None) {
        Ok(module) => {
            let back = simt_isa::read_module(&simt_isa::write_module(&module)).expect("translated bytecode loads back");
            simt_asm::assemble("fuzz.s", &simt_isa::disassemble_with_source(&back)).expect("simt ptx output assembles");
        }
        Err(d) => assert!(!d.is_empty()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Mutated PTX (pieces deleted, repeated, bytes flipped) translates or is refused, within
    /// the limits of `docs/ptx.md`, never a panic or a stack overflow.
    #[test]
    fn the_ptx_front_end_takes_mutated_files(which in any::<usize>(), edits in proptest::collection::vec(edit(), 1..8)) {
        let corpus = &*PTX_CORPUS;
        let text = apply(corpus[which % corpus.len()].clone().into_bytes(), &edits);
        check_ptx(&String::from_utf8_lossy(&text));
    }

    /// Machine files with hostile values load with a located error, or time a saxpy to its
    /// end within its deadline.
    #[test]
    fn machine_files_load_or_say_where_and_time_within_the_deadline(choices in proptest::collection::vec(any::<u32>(), 0..40)) {
        machine::check(&mut program::FromSlice(&choices));
    }
}

/// The machine-file generator makes files that load as well as files that do not: guard
/// against it silently making only broken ones.
#[test]
fn the_machine_generator_makes_loadable_files_too() {
    let loaded = (0..200u32).filter(|&i| machine::check(&mut program::FromSlice(&[i, i * 7, i * 13, i * 31, i * 101, i * 257]))).count();
    assert!((10..190).contains(&loaded), "{loaded} of 200 generated machine files loaded");
}

/// The generator makes varied kernels, not just NOPs: guard against it silently degrading.
#[test]
fn the_generator_covers_the_table() {
    let mut seen = std::collections::HashSet::new();
    let mut state = 0x1234_5678u32;
    for _ in 0..300 {
        let choices: Vec<u32> = (0..600)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                state
            })
            .collect();
        let case = program::case(&mut program::FromSlice(&choices), 40);
        seen.extend(case.kernel.code.iter().map(|i| i.opcode()));
    }
    assert!(seen.len() * 10 >= simt_isa::TABLE.len() * 9, "only {} of {} opcodes generated", seen.len(), simt_isa::TABLE.len());
}

// ---------------------------------------------------------------------------
// Regression tests: what the fuzzers found (one panic, named below), and the unbounded work
// and allocation that review of the same inputs found.
// ---------------------------------------------------------------------------

/// The `interp` fuzzer's crash-64d67ac06eec: a `WGMMA` of `n` = 1 named no accumulator
/// registers, and validation subtracted past 0 (a panic with overflow checks) before it came to
/// `n`'s own error.
#[test]
fn a_wgmma_of_too_few_columns_is_refused_for_its_n() {
    use simt_isa::{Instruction, Opcode, Operand, PT, Src};
    for n in 0..8 {
        let mut inst = Instruction::new(Opcode::Wgmma);
        inst.operands[..5].copy_from_slice(&[
            Operand::Reg(16),
            Operand::Src(Src::reg(0)),
            Operand::Src(Src::reg(2)),
            Operand::Imm(n),
            Operand::PredSrc { pred: PT, negated: false },
        ]);
        assert!(inst.reg_count(0) >= 1, "n = {n}");
        let e = inst.validate().unwrap_err().to_string();
        assert!(e.contains(&format!("n = {n}: a warpgroup MMA is 8 to 256 columns wide")), "{e}");
    }
}

/// `simt run /dev/zero` or `--arg x=@/dev/zero` used to read forever (metadata says 0 bytes).
#[test]
fn endless_files_are_cut_off_at_the_limit() {
    let err = simt_io::read_bounded(std::path::Path::new("/dev/zero"), 1 << 16).unwrap_err().to_string();
    assert!(err.contains("holds 65537 bytes or more"), "{err}");
    let dir = std::env::temp_dir();
    let err = simt_io::read_bounded(&dir, 1 << 16).unwrap_err().to_string();
    assert!(err.contains("is a directory"), "{err}");
}

fn two_buffer_kernel() -> simt_isa::Kernel {
    let source = ".kernel k\n.param .ptr.f32 x\n.param .ptr.f32 y\n.launch grid(1) block(32)\n    EXIT\n";
    simt_asm::assemble("k.s", source).expect("assembles").kernels.remove(0)
}

/// Buffers that each fit but not together were materialised one by one before the
/// total was checked: gigabytes allocated for nothing. Now the sum is checked first.
#[test]
fn buffers_over_the_total_are_rejected_before_any_is_made() {
    use simt_host::{Arg, LaunchRequest, prepare};
    use simt_isa::ArgInit;
    let request =
        LaunchRequest { args: vec![Arg::new("x", ArgInit::Zeros(600_000_000)), Arg::new("y", ArgInit::Rand(600_000_000, 1))], ..LaunchRequest::default() };
    let started = std::time::Instant::now();
    let err = prepare(&two_buffer_kernel(), &request).unwrap_err().to_string();
    assert!(err.contains("buffer `y` of 2400000000 bytes does not fit"), "{err}");
    assert!(started.elapsed().as_secs() < 2, "the check came after materialising the buffers");
    let huge = LaunchRequest { args: vec![Arg::new("x", ArgInit::Zeros(1 << 40)), Arg::new("y", ArgInit::Zeros(1))], ..LaunchRequest::default() };
    let err = prepare(&two_buffer_kernel(), &huge).unwrap_err().to_string();
    assert!(err.contains("buffer `x` of 4398046511104 bytes"), "{err}");
}

/// A grid of 4294967295 blocks was accepted and would have run for hours; local memory
/// of 512 KiB times 1024 threads (512 MiB per block) was allocated per block.
#[test]
fn launch_shapes_beyond_the_limits_are_rejected() {
    use simt_interp::launch::check_shape;
    let k = two_buffer_kernel();
    assert!(check_shape(&k, [u32::MAX, 1, 1], [1, 1, 1]).unwrap_err().to_string().contains("the most is 2147483647"));
    assert!(check_shape(&k, [1, 65536, 1], [1, 1, 1]).unwrap_err().to_string().contains("blocks in y; the most is 65535"));
    assert!(check_shape(&k, [1, 1, 65536], [1, 1, 1]).unwrap_err().to_string().contains("blocks in z"));
    assert!(check_shape(&k, [i32::MAX as u32, 1, 1], [1024, 1, 1]).is_ok());
    assert!(check_shape(&k, [65535, 65535, 1], [1024, 1, 1]).is_ok());
    assert!(check_shape(&k, [65535, 65535, 2], [1, 1, 1]).unwrap_err().to_string().contains("blocks; the most is 4294967296"));
    let mut local = k.clone();
    local.local_size = 512 * 1024;
    assert!(check_shape(&local, [1, 1, 1], [128, 1, 1]).is_ok());
    assert!(check_shape(&local, [1, 1, 1], [1024, 1, 1]).unwrap_err().to_string().contains("a block may have at most 67108864"));
    let prepared = simt_host::prepare(&local, &simt_host::LaunchRequest { block: Some([1024, 1, 1]), ..Default::default() });
    assert!(prepared.unwrap_err().to_string().starts_with("cannot launch:"));
}

// ---------------------------------------------------------------------------
// Limits in the assembler's output: hostile sources give bounded diagnostics.
// ---------------------------------------------------------------------------

/// 100k duplicate labels gave 100k diagnostics, about 900k lines (19 MB) of stderr.
#[test]
fn asm_caps_the_number_of_diagnostics() {
    let source = format!(".kernel k\n{}    EXIT\n", "L:\n".repeat(100_000));
    let rendered = simt_asm::assemble("k.s", &source).unwrap_err().render(false);
    assert!(rendered.len() < 1 << 20, "{} bytes of diagnostics", rendered.len());
}

/// A 10 MB literal was quoted whole in the message and again in the snippet (31 MB).
#[test]
fn asm_shortens_huge_literals_in_messages() {
    let source = format!(".kernel k\n    MOV R0, {}\n    EXIT\n", "9".repeat(10 << 20));
    let rendered = simt_asm::assemble("k.s", &source).unwrap_err().render(false);
    assert!(rendered.len() < 1 << 20, "{} bytes of diagnostics", rendered.len());
}

/// `.shared` up to 4 GiB and `.local` up to 4 GiB - 1 assembled; only the launch rejected
/// them (228 KiB per block, 512 KiB per thread). Assembly now says so at the directive.
#[test]
fn asm_rejects_shared_and_local_beyond_the_launch_limits() {
    let shared = ".kernel k\n.shared .f32 x[1000000000]\n    EXIT\n";
    assert!(simt_asm::assemble("k.s", shared).is_err(), "4 GB of shared memory assembled");
    let local = ".kernel k\n.local 4000000000\n    EXIT\n";
    assert!(simt_asm::assemble("k.s", local).is_err(), "4 GB of local memory per thread assembled");
}

/// Found by `the_ptx_front_end_takes_mutated_files`: a kernel with two parameters of one name
/// translated to a module that bound one argument to both (and did not reassemble).
#[test]
fn ptx_parameters_of_one_name_are_refused() {
    let text = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 p, .param .u32 n, .param .u64 p)\n{\nret;\n}\n";
    let error = simt_ptx::translate("dup.ptx", text, None).expect_err("refused");
    let shown = format!("{error:?}");
    assert!(shown.contains("`p` is already a parameter of this list"), "{shown}");
    // A call prototype names all its parameters `_`.
    let text = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\nproto: .callprototype ()_ (.param .b64 _, .param .b32 _);\nret;\n}\n";
    simt_ptx::translate("proto.ptx", text, None).expect("a prototype of `_` parameters translates");
}

/// Found by `the_ptx_front_end_takes_mutated_files`: a shared array declared twice became two
/// variables of one name in the module.
#[test]
fn ptx_variables_declared_twice_are_refused() {
    let text = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n.shared .align 4 .b8 buf[64];\n.shared .align 4 .b8 buf[64];\nret;\n}\n";
    let shown = format!("{:?}", simt_ptx::translate("dup.ptx", text, None).expect_err("refused"));
    assert!(shown.contains("`buf` is declared a second time here"), "{shown}");
}
