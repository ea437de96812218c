//! Machine configurations: every built-in loads; mistakes are errors with file:line:col.

use simt_timing::{ConfigError, Machine};

fn error(text: &str) -> String {
    match Machine::parse("m.toml", text) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted:\n{text}"),
    }
}

fn h100() -> String {
    simt_timing::config::BUILTIN.iter().find(|(n, _)| *n == "h100").map(|(_, t)| t.to_string()).unwrap()
}

#[test]
fn every_builtin_loads_and_matches_the_contract_table() {
    for (name, _) in simt_timing::config::BUILTIN {
        Machine::load(name).unwrap_or_else(|e| panic!("{e}"));
    }
    let h = Machine::builtin("h100");
    assert_eq!((h.sm.count, h.sm.partitions, h.lanes.fp32, h.lanes.int, h.lanes.fp64), (132, 4, 128, 64, 64));
    assert_eq!((h.sm.max_warps, h.sm.max_blocks, h.sm.max_threads, h.sm.registers), (64, 32, 2048, 65536));
    assert_eq!((h.sm.shared_bytes, h.sm.max_shared_per_block), (228 * 1024, 227 * 1024));
    assert_eq!((h.memory.shared.latency, h.l2_hit_latency(), h.memory.l2.partitions), (29, 265, 2));
    let v = Machine::builtin("v100");
    assert_eq!((v.sm.count, v.lanes.fp32, v.memory.shared.latency, v.memory.l1.hit_latency), (80, 64, 19, 28));
    assert!(!v.tensor.contains_key("m16n16k16.f32.bf16"), "Volta has no BF16 tensor cores");
}

#[test]
fn unknown_keys_say_where_and_suggest_the_closest() {
    let e = error(&h100().replacen("ways = 64", "wyas = 64", 1));
    assert!(e.starts_with("m.toml:"), "{e}");
    assert!(e.contains("unknown key `wyas`") && e.contains("did you mean `ways`?"), "{e}");
    let line: usize = e.split(':').nth(1).unwrap().parse().unwrap();
    assert_eq!(h100().lines().nth(line - 1).map(|l| l.contains("wyas") || l.contains("l1 =")), Some(true), "{e}");
}

#[test]
fn missing_values_are_errors() {
    let e = error(&h100().replacen("max_blocks = 32", "", 1));
    assert!(e.contains("missing key `max_blocks`"), "{e}");
}

#[test]
fn bad_values_are_located() {
    let e = error(&h100().replacen("scheduler = \"gto\"", "scheduler = \"fifo\"", 1));
    assert!(e.starts_with("m.toml:"), "{e}");
    let e = error(&h100().replacen("fp32 = 128", "fp32 = 100", 1));
    assert!(e.contains("lanes.fp32"), "{e}");
    let e = error(&h100().replacen("fp32 = 4 ", "fp32 = 1 ", 1));
    assert!(e.contains("latency.fp32"), "{e}");
    let e = error(&h100().replacen("\"m16n8k16.f32.f16\"", "\"m16n8k16.f32.f61\"", 1));
    assert!(e.contains("no MMA form `m16n8k16.f32.f61`") && e.contains("did you mean"), "{e}");
}

#[test]
fn sequences_name_an_instruction_timed_by_a_latency_class() {
    let e = error(&h100().replacen("ddiv = {", "ddvi = {", 1));
    assert!(e.contains("sequence.ddvi: no instruction `ddvi`") && e.ends_with("did you mean `ddiv`?"), "{e}");
    let line: usize = e.split(':').nth(1).unwrap().parse().unwrap();
    assert!(h100().lines().nth(line - 1).is_some_and(|l| l.starts_with("ddiv = ")), "{e}");
    for (from, to, says) in [
        ("ddiv = {", "ld = {", "`ld` is timed by the memory model"),
        ("ops = 8, blocking", "ops = 0, blocking", "ops must be from 1 to 1000"),
        ("ops = 8, blocking = false }", "ops = 8 }", "missing key `blocking`"),
        ("ddiv = {", "DDIV = {", "lowercase mnemonics"),
    ] {
        let e = error(&h100().replacen(from, to, 1));
        assert!(e.contains(says), "{from} -> {to}: {e}");
    }
}

#[test]
fn unknown_machine_names_list_the_builtins() {
    let Err(ConfigError::Unknown { .. }) = Machine::load("h10") else { panic!("h10 is no machine") };
    let e = Machine::load("h10").unwrap_err().to_string();
    assert!(e.contains("teaching, v100, a100, h100") && e.contains("did you mean `h100`?"), "{e}");
}
