//! A table of hostile inputs for the `simt` command: source, bytecode, command-line
//! arguments, `.npy` files and runtime behaviour.
//!
//! Every case names the files it creates, the arguments and the exit status the
//! contract asks for (0 ok, 1 rejected input, 2 kernel fault). No case may end in
//! a panic (101) or a signal. Every message is checked: the whole table (exit
//! status, stdout when there is one, stderr with the scratch folder replaced by
//! `[DIR]` and very long lines cut) is one insta snapshot, `hostile__table.snap`.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use simt_isa::{Guard, Instruction, Kernel, Module, Opcode, Operand};
use tempfile::TempDir;

const SAXPY: &str = "\
.kernel saxpy
.param .u32 n
.param .f32 a
.param .ptr.f32 x
.param .ptr.f32 y
.launch grid(1) block(32)
.arg n = 4
.arg a = 2
.arg x = iota(4)
.arg y = zeros(4)
    S2R     R0, SR_TID.X
    LD.PARAM.U32 R3, [n]
    ISETP.GE.U32 P0, R0, R3
@P0 EXIT
    LD.PARAM.U32 R4, [x]
    LD.PARAM.U32 R5, [y]
    LEA     R4, R0, R4, 2
    LEA     R5, R0, R5, 2
    LD.GLOBAL.F32 R6, [R4]
    LD.GLOBAL.F32 R7, [R5]
    LD.PARAM.F32 R8, [a]
    FFMA    R7, R8, R6, R7
    ST.GLOBAL.F32 [R5], R7
    EXIT
";

/// The built-in teaching machine, edited by the machine-file cases.
const TEACHING: &str = include_str!("../configs/teaching.toml");

/// A one-parameter kernel around `body`, launched as `grid(1) block(32)` unless `launch` says otherwise.
fn kernel(directives: &str, body: &str) -> String {
    let launch = if directives.contains(".launch") { "" } else { ".launch grid(1) block(32)\n" };
    let arg = if directives.contains(".arg out") { "" } else { ".arg out = zeros(64)\n" };
    format!(".kernel k\n.param .ptr.u32 out\n{launch}{arg}{directives}\n{body}\n    EXIT\n")
}

struct Case {
    name: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    args: Vec<String>,
    code: i32,
}

fn case(name: &'static str, files: Vec<(&'static str, Vec<u8>)>, args: &[&str], code: i32) -> Case {
    Case { name, files, args: args.iter().map(|s| s.to_string()).collect(), code }
}

fn src(text: impl Into<String>) -> Vec<(&'static str, Vec<u8>)> {
    vec![("k.s", text.into().into_bytes())]
}

fn saxpy_and(extra: Vec<(&'static str, Vec<u8>)>) -> Vec<(&'static str, Vec<u8>)> {
    let mut files = vec![("saxpy.s", SAXPY.as_bytes().to_vec())];
    files.extend(extra);
    files
}

fn bytecode(module: &Module) -> Vec<(&'static str, Vec<u8>)> {
    vec![("k.simtb", simt_isa::write_module(module))]
}

fn saxpy_bytecode() -> Vec<u8> {
    simt_isa::write_module(&simt_asm::assemble("saxpy.s", SAXPY).expect("saxpy assembles"))
}

/// A one-instruction kernel (`EXIT`), no parameters, no labels: its instruction word is
/// the 16 bytes that end 24 bytes before the end of its bytecode.
/// Where the tiny module's one instruction word starts, counted from the end of its bytecode:
/// its line (4 bytes), label count (4), inlined-call count (4) and format count (4) follow it.
const WORD_FROM_END: usize = 16 + 4 + 4 + 4 + 4;

fn tiny_module(edit: impl FnOnce(&mut Kernel)) -> Module {
    let mut k = Kernel {
        name: "tiny".into(),
        params: vec![],
        shared: vec![],
        shared_size: 0,
        local_size: 0,
        regs: 1,
        launch: Some(simt_isa::LaunchDims { grid: [1, 1, 1], block: [32, 1, 1] }),
        args: vec![],
        code: vec![Instruction::new(Opcode::Exit)],
        lines: vec![1],
        labels: vec![],
        target: simt_isa::Target::DEFAULT,
        frames: simt_isa::Frames::default(),
        formats: vec![],
    };
    edit(&mut k);
    Module { source_name: "tiny.s".into(), source: None, kernels: vec![k] }
}

fn npy(header: &str, data: &[u8]) -> Vec<u8> {
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((header.len() as u16).to_le_bytes());
    b.extend(header.bytes());
    b.extend(data);
    b
}

fn f32_npy(header_dict: &str, n: usize) -> Vec<(&'static str, Vec<u8>)> {
    saxpy_and(vec![("v.npy", npy(header_dict, &vec![0u8; 4 * n]))])
}

fn cases() -> Vec<Case> {
    let mut t = Vec::new();

    // ---- source ----
    t.push(case("source: unterminated block comment", src(".kernel k\n/* never closed\n    EXIT\n"), &["asm", "k.s"], 1));
    t.push(case("source: NUL bytes", src(".kernel k\n    NOP\0\0\0\n    EXIT\n"), &["asm", "k.s"], 1));
    t.push(case("source: invalid UTF-8", vec![("k.s", b".kernel k\n    \xff\xfe EXIT\n".to_vec())], &["asm", "k.s"], 1));
    t.push(case("source: a 10 MB line", src(format!(".kernel k\n    MOV R0, {}\n    EXIT\n", "9".repeat(10 << 20))), &["asm", "k.s"], 1));
    t.push(case("source: a 10 MB comment line", src(format!(".kernel k\n// {}\n    EXIT\n", "x".repeat(10 << 20))), &["asm", "k.s"], 0));
    t.push(case(
        "source: deeply nested brackets",
        src(format!(".kernel k\n    LD.GLOBAL.U32 R0, {}R1{}\n    EXIT\n", "[".repeat(100_000), "]".repeat(100_000))),
        &["asm", "k.s"],
        1,
    ));
    t.push(case(
        "source: deeply nested parentheses in .arg",
        src(kernel(&format!(".arg out = {}1{}", "(".repeat(50_000), ")".repeat(50_000)), "")),
        &["asm", "k.s"],
        1,
    ));
    let labels: String = (0..100_000).map(|i| format!("L{i}:\n")).collect();
    t.push(case("source: 100k labels", src(format!(".kernel k\n{labels}    EXIT\n")), &["asm", "k.s"], 0));
    let dup: String = (0..100_000).map(|_| "L:\n").collect();
    t.push(case("source: 100k duplicate labels", src(format!(".kernel k\n{dup}    EXIT\n")), &["asm", "k.s"], 1));
    t.push(case("source: huge integer literal", src(kernel("", "    MOV R0, 99999999999999999999999999")), &["asm", "k.s"], 1));
    t.push(case("source: huge hex literal", src(kernel("", "    MOV R0, 0x1FFFFFFFFFFFFFFFFFFFF")), &["asm", "k.s"], 1));
    t.push(case("source: integer one past 32 bits", src(kernel("", "    IADD R0, R0, 4294967296")), &["asm", "k.s"], 1));
    t.push(case("source: float literal that overflows", src(kernel("", "    FADD R0, R0, 1e999999")), &["asm", "k.s"], 1));
    t.push(case("source: shared array of 4 GB", src(kernel(".shared .f32 x[1000000000]", "")), &["run", "k.s"], 1));
    t.push(case("source: shared array of u32::MAX elements", src(kernel(".shared .f64 x[4294967295]", "")), &["asm", "k.s"], 1));
    t.push(case("source: .regs 1000", src(kernel(".regs 1000", "")), &["asm", "k.s"], 1));
    t.push(case("source: .local 4000000000", src(kernel(".local 4000000000", "")), &["run", "k.s"], 1));
    t.push(case("source: .local 99999999999", src(kernel(".local 99999999999", "")), &["asm", "k.s"], 1));
    t.push(case("source: local memory of a block over 64 MiB", src(kernel(".local 524288\n.launch grid(1) block(1024)", "")), &["run", "k.s"], 1));
    t.push(case("source: shared memory over 228 KiB", src(kernel(".shared .f32 x[100000]", "")), &["run", "k.s"], 1));
    t.push(case("source: .launch block(2048)", src(kernel(".launch grid(1) block(2048)", "")), &["run", "k.s"], 1));
    t.push(case("source: .launch grid(0)", src(kernel(".launch grid(0) block(32)", "")), &["asm", "k.s"], 1));
    t.push(case("source: unknown directive", src(kernel(".frobnicate 3", "")), &["asm", "k.s"], 1));
    t.push(case("source: .arg of 2^40 elements", src(kernel(".arg out = zeros(1099511627776)", "")), &["run", "k.s"], 1));
    t.push(case("source: empty file", src(""), &["run", "k.s"], 1));
    t.push(case("source: undefined label", src(kernel("", "    BRA nowhere")), &["asm", "k.s"], 1));
    t.push(case("source: R255", src(kernel("", "    MOV R255, 1")), &["asm", "k.s"], 1));
    t.push(case(
        "source: two kernels, no --kernel",
        src(format!("{}{}", kernel("", ""), kernel("", "").replace(".kernel k", ".kernel k2"))),
        &["run", "k.s"],
        1,
    ));

    // ---- bytecode ----
    let good = saxpy_bytecode();
    t.push(case("bytecode: empty file named .simtb", vec![("k.simtb", vec![])], &["run", "k.simtb"], 1));
    t.push(case("bytecode: wrong magic", vec![("k.simtb", b"\x7fSMX\x01\x00\x00\x00".to_vec())], &["run", "k.simtb"], 1));
    t.push(case("bytecode: an ELF executable", vec![("k.simtb", b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec())], &["run", "k.simtb"], 1));
    t.push(case("bytecode: magic only", vec![("k.simtb", b"\x7fSMT".to_vec())], &["run", "k.simtb"], 1));
    let mut future = good.clone();
    future[4..6].copy_from_slice(&(simt_isa::VERSION + 1).to_le_bytes());
    t.push(case("bytecode: the version after this simt's", vec![("k.simtb", future)], &["run", "k.simtb"], 1));
    for (name, cut) in [
        ("bytecode: truncated in the version", 5),
        ("bytecode: truncated in the flags", 7),
        ("bytecode: truncated in the source name length", 10),
        ("bytecode: truncated in the source name", 14),
        ("bytecode: truncated at a third", good.len() / 3),
        ("bytecode: truncated at a half", good.len() / 2),
        ("bytecode: truncated by one byte", good.len() - 1),
    ] {
        t.push(case(name, vec![("k.simtb", good[..cut].to_vec())], &["run", "k.simtb"], 1));
    }
    let mut huge_name = good.clone();
    huge_name[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    t.push(case("bytecode: a string length claiming 4 GB", vec![("k.simtb", huge_name)], &["disasm", "k.simtb"], 1));
    let tiny = simt_isa::write_module(&tiny_module(|_| {}));
    let count_at = 8 + 4 + "tiny.s".len() + 1;
    let mut many = tiny.clone();
    many[count_at..count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    t.push(case("bytecode: a kernel count claiming 4G kernels", vec![("k.simtb", many)], &["disasm", "k.simtb"], 1));
    let word_at = tiny.len() - WORD_FROM_END;
    let mut bad_op = tiny.clone();
    bad_op[word_at] = 0xFF;
    t.push(case("bytecode: unknown opcode byte", vec![("k.simtb", bad_op)], &["run", "k.simtb"], 1));
    let mut reserved = tiny.clone();
    reserved[word_at + 3] |= 0xF0;
    t.push(case("bytecode: reserved instruction bits set", vec![("k.simtb", reserved)], &["run", "k.simtb"], 1));
    let mut trailing = tiny.clone();
    trailing.extend_from_slice(b"junk");
    t.push(case("bytecode: bytes after the last kernel", vec![("k.simtb", trailing)], &["run", "k.simtb"], 1));
    let branch = tiny_module(|k| {
        let mut bra = Instruction::new(Opcode::Bra);
        bra.operands[0] = Operand::Label { target: 7, reconv: simt_isa::NO_RECONV };
        k.code = vec![bra, Instruction::new(Opcode::Exit)];
        k.lines = vec![1, 2];
    });
    t.push(case("bytecode: branch target out of range", bytecode(&branch), &["run", "k.simtb"], 1));
    let regs = tiny_module(|k| k.regs = 1000);
    t.push(case("bytecode: 1000 registers", bytecode(&regs), &["run", "k.simtb"], 1));
    let mut mods = tiny.clone();
    mods[word_at + 1] = 0xFF;
    t.push(case("bytecode: modifier bits on an instruction without modifiers", vec![("k.simtb", mods)], &["run", "k.simtb"], 1));
    let guard = tiny_module(|k| k.code[0].guard = Guard { pred: 6, negated: true });
    let mut guard = simt_isa::write_module(&guard);
    let at = guard.len() - WORD_FROM_END;
    guard[at + 4] = 0xFF;
    t.push(case("bytecode: operand bits on an instruction without operands", vec![("k.simtb", guard)], &["run", "k.simtb"], 1));
    let shared = tiny_module(|k| k.shared_size = u32::MAX);
    t.push(case("bytecode: 4 GB of shared memory", bytecode(&shared), &["run", "k.simtb"], 1));
    let local = tiny_module(|k| k.local_size = u32::MAX);
    t.push(case("bytecode: 4 GB of local memory per thread", bytecode(&local), &["run", "k.simtb"], 1));
    let launch = tiny_module(|k| k.launch = Some(simt_isa::LaunchDims { grid: [u32::MAX; 3], block: [1024, 1024, 1024] }));
    t.push(case("bytecode: absurd default launch", bytecode(&launch), &["run", "k.simtb"], 1));
    let no_code = tiny_module(|k| {
        k.code.clear();
        k.lines.clear();
    });
    t.push(case("bytecode: a kernel without instructions", bytecode(&no_code), &["run", "k.simtb"], 1));

    // ---- command-line arguments ----
    let run = |extra: &[&str]| -> Vec<String> { ["run", "saxpy.s"].iter().chain(extra).map(|s| s.to_string()).collect() };
    let mut arg = |name: &'static str, extra: &[&str], code: i32| {
        t.push(Case { name, files: saxpy_and(vec![]), args: run(extra), code });
    };
    arg("args: --grid 4294967295", &["--grid", "4294967295"], 1);
    arg("args: --grid 4294967296", &["--grid", "4294967296"], 1);
    arg("args: --grid 2147483647 (more warps than steps)", &["--grid", "2147483647"], 1);
    arg("args: --grid 0", &["--grid", "0"], 1);
    arg("args: --grid -1", &["--grid", "-1"], 1);
    arg("args: --grid 1,2,3,4", &["--grid", "1,2,3,4"], 1);
    arg("args: --grid 65536,65536,65536", &["--grid", "65536,65536,65536"], 1);
    arg("args: --grid 1,65536", &["--grid", "1,65536"], 1);
    arg("args: --block 1025", &["--block", "1025"], 1);
    arg("args: --block 1024,1024,1024", &["--block", "1024,1024,1024"], 1);
    arg("args: --block 0,1", &["--block", "0,1"], 1);
    arg("args: --arg x=fill(1e12, 0)", &["--arg", "x=fill(1e12, 0)"], 1);
    arg("args: --arg x=fill(1000000000000, 0)", &["--arg", "x=fill(1000000000000, 0)"], 1);
    arg("args: --arg x=zeros(4294967296)", &["--arg", "x=zeros(4294967296)"], 1);
    arg("args: --arg x=rand(18446744073709551615, 1)", &["--arg", "x=rand(18446744073709551615, 1)"], 1);
    arg("args: two buffers over 4 GiB together", &["--arg", "x=zeros(600000000)", "--arg", "y=zeros(600000000)"], 1);
    arg("args: --arg n=99999999999", &["--arg", "n=99999999999"], 1);
    arg("args: --arg n=-1", &["--arg", "n=-1"], 1);
    arg("args: --arg n=1.5", &["--arg", "n=1.5"], 1);
    arg("args: --arg x=[ unterminated", &["--arg", "x=["], 1);
    arg("args: --arg x=[1,,2]", &["--arg", "x=[1,,2]"], 1);
    arg("args: --arg without =", &["--arg", "x"], 1);
    arg("args: --arg for an unknown parameter", &["--arg", "z=1"], 1);
    arg("args: --arg x=@missing.npy", &["--arg", "x=@missing.npy"], 1);
    arg("args: --arg x=@/dev/null (an empty buffer)", &["--arg", "n=0", "--arg", "x=@/dev/null", "--dump", "x"], 0);
    arg("args: --arg x=@. (a directory)", &["--arg", "x=@."], 1);
    arg("args: --max-steps 0", &["--max-steps", "0"], 1);
    arg("args: --max-steps -1", &["--max-steps", "-1"], 1);
    arg("args: --sms 0", &["--sms", "0"], 1);
    arg("args: --its-yield 0", &["--its-yield", "0"], 1);
    arg("args: --threads 0", &["--threads", "0"], 1);
    arg("args: --threads 1000000", &["--threads", "1000000"], 1);
    arg("args: --simt bogus", &["--simt", "bogus"], 1);
    arg("args: unknown flag", &["--frobnicate"], 1);
    arg("args: --dump of a scalar", &["--dump", "n"], 1);
    arg("args: --dump of an unknown name", &["--dump", "q"], 1);
    arg("args: --dump into a missing folder", &["--dump", "y=no/such/dir/y.npy"], 1);
    arg("args: --kernel that does not exist", &["--kernel", "nope"], 1);
    arg("args: --dump to a full disk (/dev/full)", &["--dump", "y=/dev/full"], 1);
    t.push(case("args: missing file", vec![], &["run", "missing.s"], 1));
    t.push(case("args: a directory as FILE", vec![], &["run", "."], 1));
    t.push(case("args: /dev/null as FILE", vec![], &["run", "/dev/null"], 1));
    t.push(case("args: /dev/zero as FILE", vec![], &["run", "/dev/zero"], 1));
    t.push(case("args: no subcommand", vec![], &[], 1));
    t.push(case("args: asm output into a missing folder", saxpy_and(vec![]), &["asm", "saxpy.s", "-o", "no/such/dir/k.simtb"], 1));

    t.push(case(
        "args: sparsify a truncated .npy",
        vec![("m.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (16, 32), }", &[0; 100]))],
        &["sparsify", "m.npy", "-o", "out"],
        1,
    ));
    t.push(case(
        "args: sparsify a shape that is not 16x32 tiles",
        vec![("m.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 5), }", &[0; 60]))],
        &["sparsify", "m.npy", "-o", "out"],
        1,
    ));
    t.push(case(
        "args: sparsify --rows 0",
        vec![("m.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (512,), }", &[0; 2048]))],
        &["sparsify", "m.npy", "--rows", "0", "-o", "out"],
        1,
    ));
    t.push(case("args: sparsify /dev/null", vec![], &["sparsify", "/dev/null", "-o", "out"], 1));

    // ---- .npy files (for `y`, a .ptr.f32) ----
    let y = ["run", "saxpy.s", "--arg", "y=@v.npy"];
    let good_header = "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }";
    t.push(case("npy: a good file (control)", f32_npy(good_header, 4), &y, 0));
    t.push(case("npy: truncated in the magic", saxpy_and(vec![("v.npy", b"\x93NUM".to_vec())]), &y, 1));
    t.push(case("npy: truncated in the header", saxpy_and(vec![("v.npy", npy(good_header, &[])[..30].to_vec())]), &y, 1));
    t.push(case("npy: truncated data", f32_npy(good_header, 3), &y, 1));
    t.push(case("npy: wrong dtype", f32_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", 4), &y, 1));
    t.push(case("npy: complex dtype", f32_npy("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 4), &y, 1));
    t.push(case("npy: Fortran order", f32_npy("{'descr': '<f4', 'fortran_order': True, 'shape': (4,), }", 4), &y, 1));
    t.push(case("npy: big-endian", f32_npy("{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", 4), &y, 1));
    t.push(case(
        "npy: header claiming a huge shape",
        f32_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", 4),
        &y,
        1,
    ));
    t.push(case("npy: negative shape", f32_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", 4), &y, 1));
    let mut non_utf8 = npy(good_header, &[0; 16]);
    non_utf8[12] = 0xFF;
    t.push(case("npy: non-UTF-8 header", saxpy_and(vec![("v.npy", non_utf8)]), &y, 1));
    let mut v9 = npy(good_header, &[0; 16]);
    v9[6] = 9;
    t.push(case("npy: format version 9", saxpy_and(vec![("v.npy", v9)]), &y, 1));
    let mut v2_long = b"\x93NUMPY\x02\x00".to_vec();
    v2_long.extend(u32::MAX.to_le_bytes());
    t.push(case("npy: version 2 header length of 4 GB", saxpy_and(vec![("v.npy", v2_long)]), &y, 1));
    t.push(case("npy: not numpy at all", saxpy_and(vec![("v.npy", b"PK\x03\x04 a zip".to_vec())]), &y, 1));
    t.push(case("npy: raw .bin of 5 bytes for f32", saxpy_and(vec![("v.bin", vec![0; 5])]), &["run", "saxpy.s", "--arg", "y=@v.bin"], 1));
    let expect = |reference: &'static str| vec!["run", "saxpy.s", "--expect", reference];
    let f64_ref = saxpy_and(vec![("ref.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", &[0; 32]))]);
    t.push(case("--expect: a reference of another dtype (f8 for f32)", f64_ref, &expect("y=ref.npy"), 1));
    let i4_ref = saxpy_and(vec![("ref.npy", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", &[0; 16]))]);
    t.push(case("--expect: a reference of another dtype (i4 for f32)", i4_ref, &expect("y=ref.npy"), 1));
    t.push(case("--expect: a missing reference", saxpy_and(vec![]), &expect("y=missing.npy"), 1));
    t.push(case("--expect: an unreadable reference", saxpy_and(vec![("ref.npy", b"\x93NUMPY garbage".to_vec())]), &expect("y=ref.npy"), 1));

    // ---- PTX text: nesting, and costs that multiply ----
    let ptx = |name: &'static str, text: String| case(name, vec![("k.ptx", text.into_bytes())], &["ptx", "k.ptx"], 1);
    let entry =
        |body: &str| format!(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n{body}\nret;\n}}\n");
    let deep = |open: &str, inner: &str, close: &str| format!("{}{inner}{}", open.repeat(13_000), close.repeat(13_000));
    t.push(ptx("ptx: 13,000 nested blocks", entry(&deep("{", "", "}"))));
    t.push(ptx("ptx: 13,000 nested vector operands", entry(&format!("mov.b32 %r1, {};", deep("{", "%r0", "}")))));
    t.push(ptx("ptx: 13,000 nested operand lists", entry(&format!("mov.b32 %r1, {};", deep("(", "%r0", ")")))));
    t.push(ptx(
        "ptx: a 100,000-deep initializer",
        format!(".version 7.0\n.target sm_70\n.address_size 64\n.global .u32 g[1] = {}{}{};\n", "{".repeat(100_000), 1, "}".repeat(100_000)),
    ));
    let wide: Vec<String> = (0..100_000).map(|i| format!("%r{}", i % 4)).collect();
    t.push(ptx("ptx: a 100,000-element vector operand", entry(&format!("st.global.v4.u32 [%rd1], {{{}}};", wide.join(",")))));
    // 128 copies of a 40,000-line leaf: 5 million statements, refused before any copy is made.
    let mut calls =
        format!(".version 7.0\n.target sm_70\n.address_size 64\n.func f7()\n{{\n.reg .b32 %r<2>;\n{}ret;\n}}\n", "add.u32 %r1, %r1, 1;\n".repeat(40_000));
    for i in (1..7).rev() {
        calls.push_str(&format!(".func f{i}()\n{{\ncall f{0}, ();\ncall f{0}, ();\nret;\n}}\n", i + 1));
    }
    calls.push_str(".visible .entry k()\n{\ncall f1, ();\ncall f1, ();\nret;\n}\n");
    t.push(ptx("ptx: inlining that multiplies a body 128 times", calls));
    let mut live = String::from(".reg .b64 %rd<2>;\n.reg .b32 %v<12001>;\nld.param.u64 %rd1, [p];\n");
    (0..12_000).for_each(|i| live.push_str(&format!("ld.global.u32 %v{i}, [%rd1+{}];\n", 4 * i)));
    (1..12_000).for_each(|i| live.push_str(&format!("add.u32 %v0, %v0, %v{i};\n")));
    live.push_str("st.global.u32 [%rd1], %v0;");
    t.push(ptx("ptx: 12,000 values live at once", entry(&live)));

    let mut shared = String::from(".version 7.0\n.target sm_70\n.address_size 64\n");
    (0..2000).for_each(|i| shared.push_str(&format!(".shared .align 4 .b8 s{i}[64];\n")));
    (0..2000).for_each(|i| shared.push_str(&format!(".visible .entry k{i}()\n{{\nret;\n}}\n")));
    t.push(case("ptx: 2,000 kernels beside 2,000 shared arrays none of them uses", vec![("k.ptx", shared.into_bytes())], &["ptx", "k.ptx", "-o", "k.s"], 0));

    // ---- machine files: values a machine could not have ----
    let machine = |name: &'static str, edits: &[(&str, &str)]| {
        let mut text = TEACHING.to_string();
        for (from, to) in edits {
            assert!(text.contains(from), "{name}: `{from}` is in the teaching machine");
            text = text.replacen(from, to, 1);
        }
        case(name, saxpy_and(vec![("m.toml", text.into_bytes())]), &["run", "saxpy.s", "--timing", "m.toml"], 1)
    };
    t.push(machine("machine: DRAM bandwidth 1e-8 GB/s", &[("bandwidth_gbs = 16.0", "bandwidth_gbs = 1e-8")]));
    t.push(machine("machine: DRAM bandwidth 1e-20 GB/s", &[("bandwidth_gbs = 16.0", "bandwidth_gbs = 1e-20")]));
    t.push(machine("machine: L2 bandwidth 1e300 GB/s", &[("bandwidth_gbs = 64.0", "bandwidth_gbs = 1e300")]));
    t.push(machine("machine: ALU latency 4294967295", &[("\nalu = 8", "\nalu = 4294967295")]));
    t.push(machine("machine: DRAM latency 4294967295", &[("dram = { latency = 58,", "dram = { latency = 4294967295,")]));
    t.push(machine("machine: a block launch of 4294967295 cycles", &[("block_launch_latency = 0 ", "block_launch_latency = 4294967295 ")]));
    t.push(machine("machine: a 1000 GHz clock", &[("clock_ghz = 1.0", "clock_ghz = 1000.0")]));
    t.push(machine("machine: a billion outstanding misses", &[("outstanding_misses = ", "outstanding_misses = 1000000000 #")]));
    t.push(machine("machine: pipeline stages of a million cycles", &[("read_cycles = 1", "read_cycles = 1000000")]));
    t.push(machine("machine: 4,096 SMs of 64 MiB L1", &[("count = 1 ", "count = 4096 "), ("unified_bytes = 81920", "unified_bytes = 67108864")]));
    t.push(machine("machine: 256 warps on an SM", &[("max_warps = 16", "max_warps = 256"), ("max_threads = 512", "max_threads = 8192")]));
    t.push(machine("machine: a 4 GB L2", &[("bytes = 262144, ways = 8", "bytes = 4294967296, ways = 8")]));
    t.push(machine("machine: DDIV as 4294967295 operations", &[("[sequence]", "[sequence]\nddiv = { latency = 100, ops = 4294967295, blocking = false }\n#")]));

    // ---- runtime behaviour ----
    let rt = |name: &'static str, directives: &str, body: &str, extra: &[&str], code: i32| {
        let mut args = vec!["run".to_string(), "k.s".to_string()];
        args.extend(extra.iter().map(|s| s.to_string()));
        Case { name, files: src(kernel(directives, body)), args, code }
    };
    t.push(rt("runtime: load through a null pointer", "", "    LD.GLOBAL.U32 R1, [RZ]", &[], 2));
    t.push(rt("runtime: store through a null pointer", "", "    ST.GLOBAL.U32 [0x10], R1", &[], 2));
    t.push(rt("runtime: misaligned global load", "", "    LD.PARAM.U32 R0, [out]\n    LD.GLOBAL.U32 R1, [R0+2]", &[], 2));
    t.push(rt("runtime: misaligned 64-bit load", "", "    LD.PARAM.U32 R0, [out]\n    LD.GLOBAL.B64 R2, [R0+4]", &[], 2));
    t.push(rt("runtime: global store past the end", "", "    LD.PARAM.U32 R0, [out]\n    ST.GLOBAL.U32 [R0+256], R1", &[], 2));
    t.push(rt("runtime: address wraps around 4 GB", "", "    LD.PARAM.U32 R0, [out]\n    LD.GLOBAL.U32 R1, [R0-4096]", &[], 2));
    t.push(rt("runtime: shared access out of bounds", ".shared .f32 s[4]", "    LD.SHARED.F32 R1, [s+16]", &[], 2));
    t.push(rt("runtime: shared access with no shared memory", "", "    LD.SHARED.U32 R1, [RZ]", &[], 2));
    t.push(rt("runtime: local access out of bounds", ".local 16", "    ST.LOCAL.U32 [16], R1", &[], 2));
    t.push(rt("runtime: parameter read out of bounds", "", "    LD.PARAM.U32 R1, [64]", &[], 2));
    t.push(rt("runtime: misaligned atomic", "", "    LD.PARAM.U32 R0, [out]\n    ATOM.GLOBAL.ADD.U32 R1, [R0+1], 1", &[], 2));
    t.push(rt("runtime: guarded-off bad access does nothing", "", "    ISETP.EQ P0, RZ, 1\n@P0 LD.GLOBAL.U32 R1, [RZ]", &[], 0));
    t.push(rt("runtime: infinite loop with --max-steps", "", "top:\n    BRA top", &["--max-steps", "1000"], 2));
    t.push(rt(
        "runtime: divergent infinite loop under stack",
        "",
        "    S2R R0, SR_LANEID\n    ISETP.LT P0, R0, 16\nspin:\n@P0 BRA spin",
        &["--simt", "stack", "--max-steps", "5000"],
        2,
    ));
    t.push(rt(
        "runtime: barrier deadlock (half the block waits at WARPSYNC)",
        ".launch grid(1) block(64)",
        "    S2R R0, SR_TID.X\n    ISETP.LT P0, R0, 32\n@P0 BRA wait\n    BAR.SYNC\n    EXIT\nwait:\n    S2R R1, SR_LANEID\n    ISETP.LT P1, R1, 16\n@P1 BRA w2\n    WARPSYNC\n    EXIT\nw2:\n    BAR.SYNC",
        &[],
        2,
    ));
    t.push(rt(
        "runtime: WARPSYNC deadlock under its",
        "",
        "    S2R R0, SR_LANEID\n    ISETP.LT P0, R0, 16\n@P0 BRA other\n    WARPSYNC\n    EXIT\nother:\n    NOP\nspin:\n    BRA spin",
        &["--max-steps", "100000"],
        2,
    ));
    t.push(rt("runtime: MMA with a partial warp", ".launch grid(1) block(16)", "    MMA.M16N16K16.F32.F16 R0, R8, R12, R0", &[], 2));
    t.push(rt(
        "runtime: MMA with a guarded-off lane",
        "",
        "    S2R R20, SR_LANEID\n    ISETP.NE P0, R20, 3\n@P0 MMA.M16N16K16.F32.F16 R0, R8, R12, R0",
        &[],
        2,
    ));
    t.push(rt("runtime: sparse MMA with bad metadata", "", "    MOV R30, 0xFFFF\n    MMA.SP.M16N16K32.F32.F16 R0, R8, R12, R0, R30", &[], 2));
    t.push(rt(
        "runtime: WGMMA with a descriptor that differs between lanes",
        ".target sm_90\n.shared .u32 tiles[256]",
        "    S2R R0, SR_LANEID\n    MOV R1, 0\n    MOV R2, 0\n    MOV R3, 0\n    WGMMA.SS.F32.F16 R16, R0, R2, 8, !PT",
        &[],
        2,
    ));
    t.push(rt(
        "runtime: WGMMA accumulating in some lanes only",
        ".target sm_90\n.shared .u32 tiles[256]",
        "    S2R R20, SR_LANEID\n    ISETP.LT.U32 P1, R20, 5\n    MOV R0, 0\n    MOV R1, 0\n    MOV R2, 0\n    MOV R3, 0\n    MOV R16, 0\n    MOV R17, 0\n    MOV R18, 0\n    MOV R19, 0\n    WGMMA.SS.F32.F16 R16, R0, R2, 8, P1",
        &[],
        2,
    ));
    t.push(rt(
        "runtime: WGMMA reading past shared memory",
        ".target sm_90\n.shared .u32 tiles[8]",
        "    MOV R0, 0\n    MOV R1, 0x400\n    MOV R2, 0\n    MOV R3, 0\n    WGMMA.SS.F32.F16 R16, R0, R2, 8, !PT",
        &[],
        2,
    ));
    let tmem = |name, body| rt(name, ".target sm_100\n.shared .u32 slot[1]", body, &[], 2);
    t.push(tmem("runtime: TMEM.ALLOC of 48 columns", "    TMEM.ALLOC [slot], 48"));
    t.push(tmem("runtime: TMEM.ALLOC past the block's 512 columns", "    TMEM.ALLOC [slot], 256\n    TMEM.ALLOC [slot], 512"));
    t.push(tmem("runtime: TMEM.ALLOC after TMEM.RELINQUISH", "    TMEM.RELINQUISH\n    TMEM.ALLOC [slot], 32"));
    t.push(tmem("runtime: a block ends with tensor memory allocated", "    TMEM.ALLOC [slot], 64"));
    t.push(tmem("runtime: TMEM.DEALLOC of columns no TMEM.ALLOC gave", "    TMEM.ALLOC [slot], 64\n    TMEM.DEALLOC RZ, 32"));
    t.push(tmem("runtime: TMEM.LD of another warp's lanes", "    TMEM.ALLOC [slot], 32\n    MOV R1, 0x200000\n    TMEM.LD.32X32B.X1 R2, [R1]"));
    t.push(tmem("runtime: TMEM.LD of columns not allocated", "    TMEM.ALLOC [slot], 32\n    TMEM.LD.16X32BX2.X16 R2, [RZ], 24"));
    t.push(tmem("runtime: TMEM.ST whose address differs between lanes", "    TMEM.ALLOC [slot], 32\n    S2R R1, SR_LANEID\n    TMEM.ST.32X32B.X1 [R1], R1"));
    t.push(tmem(
        "runtime: TCMMA with a sparse instruction descriptor",
        "    TMEM.ALLOC [slot], 64\n    MOV R0, 0\n    MOV R1, 0x4000\n    TCMMA.F16 RZ, R0, R0, 0x04110014, !PT",
    ));
    t.push(tmem(
        "runtime: TCMMA with a Hopper descriptor",
        "    TMEM.ALLOC [slot], 64\n    MOV R0, 0\n    MOV R1, 0x40000000\n    TCMMA.F16 RZ, R0, R0, 0x04110010, !PT",
    ));
    t.push(tmem(
        "runtime: TCMMA.SCALED with its scales past lane 0",
        "    TMEM.ALLOC [slot], 256\n    MOV R0, 0\n    MOV R1, 0x4000\n    MOV R2, 0\n    MOV R3, 0x4000\n    MOV R4, 0x100080\n    MOV R5, 0x84\n    TCMMA.SCALED.MXF4 RZ, R0, 0x08A00480, R4, !PT",
    ));
    t.push(tmem(
        "runtime: TCMMA into columns not allocated",
        "    TMEM.ALLOC [slot], 32\n    MOV R0, 0\n    MOV R1, 0x4000\n    TCMMA.F16 RZ, R0, R0, 0x04110010, !PT",
    ));
    t.push(rt(
        "runtime: integer and float edge cases",
        ".arg out = zeros(9)",
        "    S2R R9, SR_TID.X\n    ISETP.NE P0, R9, 0\n@P0 EXIT\n    LD.PARAM.U32 R0, [out]\n\
             MOV R1, 0x80000000\n    IMUL.HI.S32 R2, R1, -1\n    ST.GLOBAL.U32 [R0], R2\n\
             SHR.S32 R2, R1, 40\n    ST.GLOBAL.U32 [R0+4], R2\n\
             IABS R2, R1\n    ST.GLOBAL.U32 [R0+8], R2\n\
             MUFU.RCP R2, RZ\n    ST.GLOBAL.U32 [R0+12], R2\n\
             MUFU.LG2 R2, -1.0\n    ST.GLOBAL.U32 [R0+16], R2\n\
             MOV R3, 0f7FC00000\n    CVT.S32.F32 R2, R3\n    ST.GLOBAL.U32 [R0+20], R2\n\
             CVT.U32.F32 R2, 1e20\n    ST.GLOBAL.U32 [R0+24], R2\n\
             SHL R2, R1, 32\n    ST.GLOBAL.U32 [R0+28], R2\n\
             MUFU.RSQ R2, -0.0\n    ST.GLOBAL.U32 [R0+32], R2",
        &["--dump", "out"],
        0,
    ));
    t.push(rt("runtime: falling off the end after a branch", "", "    BRA end\nend:", &[], 0));
    t.push(rt("runtime: a grid of 100000 tiny blocks", "", "    NOP", &["--grid", "100000", "--block", "1"], 0));
    t
}

/// Cuts lines longer than 200 characters and keeps at most 40 lines.
fn tidy(text: &str, dir: &str) -> String {
    let text = text.replace(dir, "[DIR]");
    let mut out = String::new();
    let lines: Vec<&str> = text.lines().collect();
    for line in lines.iter().take(40) {
        let chars = line.chars().count();
        if chars > 200 {
            let head: String = line.chars().take(200).collect();
            out.push_str(&format!("{head}... [{} more characters]\n", chars - 200));
        } else {
            out.push_str(&format!("{line}\n"));
        }
    }
    if lines.len() > 40 {
        out.push_str(&format!("... [{} more lines]\n", lines.len() - 40));
    }
    out
}

struct Outcome {
    report: String,
    problem: Option<String>,
}

fn run_case(c: &Case) -> Outcome {
    let dir = TempDir::new().expect("a temporary folder");
    for (name, bytes) in &c.files {
        std::fs::write(dir.path().join(name), bytes).expect("write a case file");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_simt"))
        .current_dir(dir.path())
        .args(&c.args)
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(120))
        .output()
        .expect("simt starts");
    let shown_dir = dir.path().canonicalize().unwrap_or(dir.path().to_path_buf());
    let clean = |b: &[u8]| {
        let text = String::from_utf8_lossy(b).replace(&shown_dir.display().to_string(), "[DIR]");
        tidy(&text, &dir.path().display().to_string())
    };
    let code = out.status.code();
    let mut report = format!("### {}\n$ simt {}\nexit: {}\n", c.name, shown_args(&c.args), code.map_or("signal".into(), |c| c.to_string()));
    if !out.stdout.is_empty() {
        report.push_str(&format!("stdout:\n{}", clean(&out.stdout)));
    }
    if !out.stderr.is_empty() {
        report.push_str(&format!("stderr:\n{}", clean(&out.stderr)));
    }
    let problem = match code {
        None => Some(format!("{}: ended by a signal (or the 120 s timeout)", c.name)),
        Some(101) => Some(format!("{}: panicked", c.name)),
        Some(k) if k != c.code => Some(format!("{}: exit {k}, expected {}", c.name, c.code)),
        _ => None,
    };
    Outcome { report, problem }
}

fn shown_args(args: &[String]) -> String {
    args.iter().map(|a| if a.is_empty() || a.contains([' ', '(', ')', '[', ']', ',']) { format!("'{a}'") } else { a.clone() }).collect::<Vec<_>>().join(" ")
}

#[test]
fn hostile_inputs_get_the_contracts_exit_codes_and_clear_messages() {
    let cases = cases();
    assert!(cases.len() >= 50, "the table has {} cases", cases.len());
    let mut names = std::collections::HashSet::new();
    for c in &cases {
        assert!(names.insert(c.name), "two cases are called {:?}", c.name);
    }
    // Two at a time: some cases (10 MB lines, 100k labels) take a moment.
    let outcomes: Vec<Outcome> = std::thread::scope(|s| {
        let chunks: Vec<_> = cases.chunks(cases.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks.into_iter().map(|chunk| s.spawn(move || chunk.iter().map(run_case).collect::<Vec<_>>())).collect();
        handles.into_iter().flat_map(|h| h.join().expect("a runner thread")).collect()
    });
    let problems: Vec<&str> = outcomes.iter().filter_map(|o| o.problem.as_deref()).collect();
    let table: String = outcomes.iter().map(|o| format!("{}\n", o.report)).collect();
    assert!(problems.is_empty(), "{} of {} cases broke the contract:\n{}\n\n{table}", problems.len(), cases.len(), problems.join("\n"));
    insta::assert_snapshot!("table", table);
}

#[test]
fn the_tiny_module_layout_assumed_above_holds() {
    // The bytecode cases patch bytes at fixed places; check those places.
    let bytes = simt_isa::write_module(&tiny_module(|_| {}));
    let word_at = bytes.len() - WORD_FROM_END;
    assert_eq!(bytes[word_at], Opcode::Exit as u8);
    let count_at = 8 + 4 + "tiny.s".len() + 1;
    assert_eq!(&bytes[count_at..count_at + 4], &1u32.to_le_bytes());
    assert!(Path::new(env!("CARGO_BIN_EXE_simt")).exists());
}

/// `--timeout` fires within a second of its limit in the timing engine too, while it waits out
/// the longest latency a machine file may give (an `alu = 4294967295` once ran 14-20 s past a
/// `--timeout 2`).
#[test]
fn the_timeout_fires_on_time_in_the_timing_engine() {
    let dir = TempDir::new().expect("a temporary folder");
    let machine = include_str!("../configs/a100.toml").replacen("\nalu = 4 ", "\nalu = 10000 ", 1);
    assert!(machine.contains("\nalu = 10000 "));
    std::fs::write(dir.path().join("slow.toml"), machine).unwrap();
    std::fs::write(dir.path().join("saxpy.s"), SAXPY).unwrap();
    // Long enough that the run cannot finish within the limit: since windows run in parallel
    // and a block's launch is served at their boundaries, 4M elements take about a second.
    let n = 1 << 24;
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_simt"))
        .current_dir(dir.path())
        .args(["run", "saxpy.s", "--grid", &(n / 256).to_string(), "--block", "256", "--arg", &format!("n={n}")])
        .args(["--arg", &format!("x=rand({n},1)"), "--arg", &format!("y=iota({n})"), "--timing", "slow.toml", "--timeout", "1"])
        .timeout(Duration::from_secs(60))
        .output()
        .expect("simt starts");
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the launch ran out of time") && stderr.contains("raise --timeout"), "{stderr}");
    assert!(took < Duration::from_millis(2500), "--timeout 1 fired after {took:?}");
}

/// A loop of a million trips, timed with `--timeline` and with `--pipeview`: both stop
/// recording at `MAX_RECORDS` and say so, instead of holding gigabytes.
#[test]
fn pipeview_and_timeline_stop_recording_at_their_limit() {
    let dir = TempDir::new().expect("a temporary folder");
    let spin = ".kernel spin\n.param .u32 n\n.param .ptr.u32 y\n.launch grid(1) block(32)\n.arg n = 1000000\n.arg y = zeros(32)\n\
        \x20   LD.PARAM.U32 R1, [n]\n    MOV R2, 0\ntop:\n    IADD R2, R2, 1\n    ISETP.LT.U32 P0, R2, R1\n@P0 BRA top\n    EXIT\n";
    std::fs::write(dir.path().join("spin.s"), spin).unwrap();
    let simt = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_simt")).current_dir(dir.path()).args(args).timeout(Duration::from_secs(60)).output().expect("simt starts");
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let out = simt(&["run", "spin.s", "--timing", "teaching", "--timeline", "t.json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the timeline stopped recording there, at 1000000 records"), "{stderr}");
    let size = std::fs::metadata(dir.path().join("t.json")).unwrap().len();
    assert!(size < 200 << 20, "the timeline holds {size} bytes");
    let out = simt(&["run", "spin.s", "--timing", "teaching", "--pipeview"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("... stopped recording at cycle"), "{}", &stdout[stdout.len().saturating_sub(2000)..]);
    // Every row before the window where the records ran out (40 cycles on `teaching`).
    let rows = stdout.lines().filter(|l| ["IADD", "ISETP", "BRA", "MOV", "LD.PARAM"].iter().any(|op| l.contains(op))).count();
    let most = simt_timing::MAX_RECORDS as usize;
    assert!((most - 100..=most).contains(&rows), "{rows} rows");
}
