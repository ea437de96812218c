//! `simt run --report`, `simt report`: one self-contained HTML page per run, and the
//! JSON trace it can be drawn from. What the page does in a browser is checked by
//! `tests/browser/run.sh` (Playwright and headless Chromium, from `.ci/run`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn simt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_simt")).current_dir(root()).args(args).env("NO_COLOR", "1").output().expect("simt runs")
}

fn ok(args: &[&str]) -> String {
    let out = simt(args);
    assert!(out.status.success(), "simt {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simt-report-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// The data a page carries, parsed back.
fn embedded(html: &str) -> serde_json::Value {
    let start = html.find(r#"<script id="simt-data" type="application/json">"#).expect("the data element") + 47;
    let end = start + html[start..].find("</script>").expect("the data element ends");
    serde_json::from_str(&html[start..end]).expect("the embedded data is JSON")
}

#[test]
fn a_report_is_one_self_contained_page_carrying_every_issue() {
    let dir = scratch("self-contained");
    let page = dir.join("nested.html");
    ok(&["run", "asm/divergence/nested.s", "--report", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.starts_with("<!DOCTYPE html>"));
    // No server, no network: nothing is fetched from anywhere.
    for fetch in ["src=\"http", "href=\"http", "src=\"//", "@import", "fetch("] {
        assert!(!html.contains(fetch), "the page fetches something: {fetch}");
    }
    assert!(!html.contains("{{"), "a template marker was left in the page");
    let data = embedded(&html);
    let trace: serde_json::Value = serde_json::from_str(&ok(&["run", "asm/divergence/nested.s", "--trace", "--format", "json"])).expect("JSON");
    assert_eq!(data["issue_count"], trace["issues"].as_array().expect("issues").len());
    assert_eq!(data["kernel"], "nested");
    assert_eq!(data["source"][4], ".kernel nested");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn simt_report_draws_the_json_trace_as_run_report_does() {
    let dir = scratch("round-trip");
    let (json, from_trace, direct) = (dir.join("t.json"), dir.join("a.html"), dir.join("b.html"));
    ok(&["run", "asm/divergence/data_loop.s", "--trace", "--format", "json", "-o", json.to_str().unwrap()]);
    ok(&["report", json.to_str().unwrap(), "-o", from_trace.to_str().unwrap()]);
    ok(&["run", "asm/divergence/data_loop.s", "--report", direct.to_str().unwrap()]);
    assert_eq!(std::fs::read(&from_trace).expect("a.html"), std::fs::read(&direct).expect("b.html"));
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn source_text_cannot_break_out_of_the_page() {
    let dir = scratch("escape");
    let kernel = dir.join("k.s");
    std::fs::write(&kernel, ".kernel k\n.launch grid(1) block(32)\n// </script><script>alert(1)</script> {{script}} {{data}}\n    EXIT\n").expect("a kernel");
    let page = dir.join("k.html");
    ok(&["run", kernel.to_str().unwrap(), "--report", page.to_str().unwrap()]);
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(!html.contains("</script><script>alert"));
    assert_eq!(embedded(&html)["source"][2], "// </script><script>alert(1)</script> {{script}} {{data}}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn per_line_counters_of_a_strided_sweep() {
    let trace: serde_json::Value = serde_json::from_str(&ok(&["run", "asm/transpose_naive.s", "--trace", "--format", "json"])).expect("JSON");
    insta::assert_snapshot!(serde_json::to_string_pretty(&trace["lines"]).expect("JSON"));
}

#[test]
fn sanitizer_findings_are_counted_at_their_line() {
    let out = simt(&["run", "asm/bugs/race.s", "--check", "racecheck", "--trace", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "findings fail the run after the outputs are written");
    let trace: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let findings = trace["findings"].as_array().expect("findings");
    assert!(!findings.is_empty());
    for f in findings {
        let line = f["line"].as_u64().expect("a line");
        let counted = trace["lines"].as_array().expect("lines").iter().find(|l| l["line"] == line).expect("the line has counters");
        assert!(counted["findings"].as_u64().expect("a count") >= 1);
    }
}

#[test]
fn a_timed_report_accounts_every_issue_slot() {
    let dir = scratch("timed");
    let page = dir.join("saxpy.html");
    ok(&["run", "asm/saxpy.s", "--timing", "h100", "--report", page.to_str().unwrap()]);
    let data = embedded(&std::fs::read_to_string(&page).expect("the page"));
    let t = &data["timing"];
    let (bins, bin) = (t["bins"].as_u64().unwrap(), t["bin_cycles"].as_u64().unwrap());
    let cycles = t["cycles"].as_u64().unwrap();
    assert!(bins <= 400 && bins * bin >= cycles);
    // Every cycle of every partition of the SMs that ran is accounted to exactly one reason.
    let partitions = u64::from(t["sms_used"].as_u64().unwrap() as u32) * t["partitions_per_sm"].as_u64().unwrap();
    let slots = t["slot_cycles"].as_array().unwrap();
    for b in 0..bins as usize {
        let width = bin.min(cycles - b as u64 * bin);
        let total: u64 = slots.iter().map(|r| r[b].as_u64().unwrap()).sum();
        assert_eq!(total, partitions * width, "column {b}");
    }
    // saxpy's 4 blocks of 8 warps: each warp has a row, and at most 32 are resident at once.
    assert_eq!(t["warps"].as_array().unwrap().len(), 32);
    for b in 0..bins as usize {
        let resident: f64 = t["warp_average"].as_array().unwrap().iter().map(|s| s[b].as_f64().unwrap()).sum();
        assert!(resident <= 32.0 + 1e-9, "column {b}: {resident} warps");
    }
    // The functional side is the same launch: one column per warp instruction.
    assert_eq!(data["issue_count"], 544);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn simt_report_refuses_what_it_cannot_draw() {
    let dir = scratch("refusals");
    let text = dir.join("not.json");
    std::fs::write(&text, "{\"kernel\": 1}").unwrap();
    let out = simt(&["report", text.to_str().unwrap(), "-o", dir.join("x.html").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr).replace(text.to_str().unwrap(), "not.json");
    insta::assert_snapshot!(message);
    std::fs::remove_dir_all(dir).ok();
}

/// What a kernel printed travels with its trace and its page, in print order, each record at
/// the line that printed it; the page keeps the first `PRINTED_RECORDS` and counts them all.
#[test]
fn printed_records_are_in_the_trace_and_the_page() {
    let dir = scratch("printed");
    let (json, page) = (dir.join("t.json"), dir.join("p.html"));
    let stdout = ok(&["run", "asm/divergence/printed.s", "--trace", "--format", "json", "-o", json.to_str().unwrap(), "--report", page.to_str().unwrap()]);
    let trace: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("the trace")).expect("JSON");
    let records = trace["printed"].as_array().expect("printed records");
    let texts: String = records.iter().map(|r| r["text"].as_str().expect("a text")).collect();
    assert_eq!(texts, stdout, "the records are what the run printed, in its order");
    assert_eq!(trace["printed_total"], records.len());
    let source = std::fs::read_to_string(root().join("asm/divergence/printed.s")).expect("the source");
    for r in records {
        let line = source.lines().nth(r["line"].as_u64().expect("a line") as usize - 1).expect("a source line");
        assert!(line.trim_start().starts_with("PRINTF"), "{r}: line {line:?}");
    }
    assert_eq!(embedded(&std::fs::read_to_string(&page).expect("the page"))["printed"], trace["printed"]);
    // 8192 records: the page keeps the first 4096 and counts them all.
    let many = dir.join("many.s");
    std::fs::write(&many, ".kernel k\n.launch grid(64) block(128)\n    S2R R0, SR_TID.X\n    PRINTF \"%d\\n\", R0\n    EXIT\n").expect("write");
    ok(&["run", many.to_str().unwrap(), "--report", page.to_str().unwrap()]);
    let data = embedded(&std::fs::read_to_string(&page).expect("the page"));
    assert_eq!((data["printed"].as_array().expect("records").len(), data["printed_total"].as_u64()), (simt_report::PRINTED_RECORDS, Some(8192)));
    std::fs::remove_dir_all(dir).ok();
}
