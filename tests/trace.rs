//! `simt run --trace` and `--trace-svg`: what a user sees of a warp's divergence.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn simt(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_simt")).current_dir(root()).args(args).env("NO_COLOR", "1").output().expect("simt runs");
    assert!(out.status.success(), "simt {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

#[test]
fn if_else_text_trace_under_its() {
    insta::assert_snapshot!(simt(&["run", "asm/divergence/if_else.s", "--trace", "--trace-block", "0", "--warp", "0", "--simt", "its"]));
}

#[test]
fn if_else_text_trace_under_the_stack() {
    insta::assert_snapshot!(simt(&["run", "asm/divergence/if_else.s", "--trace", "--trace-block", "0", "--warp", "0", "--simt", "stack"]));
}

#[test]
fn nested_divergence_text_trace() {
    insta::assert_snapshot!(simt(&["run", "asm/divergence/nested.s", "--trace", "--trace-block", "0", "--warp", "0"]));
}

#[test]
fn spinlock_trace_shows_its_switching_between_groups() {
    let text = simt(&["run", "asm/divergence/spinlock.s", "--trace", "--simt", "its"]);
    assert!(text.contains(" switch"), "independent thread scheduling turns between thread groups:\n{text}");
}

#[test]
fn tracing_does_not_change_what_a_run_computes() {
    let plain = simt(&["run", "asm/divergence/data_loop.s", "--dump", "out"]);
    let dir = tempfile::TempDir::new().expect("a temporary folder");
    let trace = dir.path().join("t.txt");
    let traced = simt(&["run", "asm/divergence/data_loop.s", "--dump", "out", "--trace", "-o", trace.to_str().expect("UTF-8 path")]);
    assert_eq!(plain, traced);
    assert!(std::fs::read_to_string(trace).expect("the trace file").starts_with("trace of kernel `data_loop`"));
}

#[test]
fn json_trace_has_one_record_per_issue() {
    let text = simt(&["run", "asm/divergence/if_else.s", "--trace", "--format", "json"]);
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let issues = value["issues"].as_array().expect("an issues array");
    // 2 warps x (4 before the branch, 2 on the odd side, 1 on the even side, 4 after) = 22.
    assert_eq!(issues.len(), 22);
    let split = issues.iter().find(|i| i["events"].as_array().is_some_and(|e| e.contains(&"split".into()))).expect("a split");
    assert_eq!(split["line"], 14);
    assert_eq!(value["branches"][0]["diverged"], 2);
}

#[test]
fn chrome_trace_loads_as_trace_events() {
    let text = simt(&["run", "asm/divergence/if_else.s", "--trace", "--format", "chrome"]);
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let events = value["traceEvents"].as_array().expect("a traceEvents array");
    assert_eq!(events.iter().filter(|e| e["ph"] == "X").count(), 22, "a slice per issue");
    for event in events {
        assert!(event["ph"].is_string() && event["pid"].is_number(), "{event}");
        if event["ph"] == "X" {
            assert!(event["tid"].is_number() && event["ts"].is_number() && event["dur"].is_number(), "{event}");
        }
    }
}

#[test]
fn divergence_picture_is_well_formed_svg() {
    let dir = tempfile::TempDir::new().expect("a temporary folder");
    let path = dir.path().join("d.svg");
    simt(&["run", "asm/divergence/nested.s", "--trace-svg", path.to_str().expect("UTF-8 path")]);
    let svg = std::fs::read_to_string(&path).expect("the picture");
    let doc = roxmltree::Document::parse(&svg).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert!(doc.descendants().filter(|n| n.has_tag_name("rect")).count() > 32, "one cell per lane and step");
    // A legend for every colour and mark, and both axes labelled.
    let text: String = doc.descendants().filter(|n| n.is_text()).filter_map(|n| n.text()).collect::<Vec<_>>().join("|");
    for label in ["executed", "guarded off", "waiting", "exited", "split", "rejoin", "lane", "issue step"] {
        assert!(text.contains(label), "no `{label}` in the picture: {text}");
    }
}

/// The course shows these pictures; they must be what simt draws today.
/// `SIMT_BLESS=1 cargo test --release --test trace` redraws them.
#[test]
fn course_pictures_are_current() {
    let dir = tempfile::TempDir::new().expect("a temporary folder");
    let mut stale = Vec::new();
    for (kernel, picture) in [
        ("asm/divergence/if_else.s", "docs/course/img/if_else.svg"),
        ("asm/divergence/nested.s", "docs/course/img/nested.svg"),
        ("asm/divergence/data_loop.s", "docs/course/img/data_loop.svg"),
    ] {
        let fresh = dir.path().join("fresh.svg");
        simt(&["run", kernel, "--trace-svg", fresh.to_str().expect("UTF-8 path"), "--trace-block", "0", "--warp", "0"]);
        let fresh = std::fs::read_to_string(&fresh).expect("the picture");
        let committed = root().join(picture);
        if std::env::var_os("SIMT_BLESS").is_some() {
            std::fs::write(&committed, &fresh).expect("write the picture");
        } else if std::fs::read_to_string(&committed).ok().as_deref() != Some(fresh.as_str()) {
            stale.push(picture);
        }
    }
    assert!(stale.is_empty(), "stale pictures {stale:?}: run `SIMT_BLESS=1 cargo test --release --test trace`");
}

#[test]
fn a_lane_waiting_out_a_loop_counts_each_issue_once() {
    // Lane l of data_loop.s leaves the loop after l % 8 trips; lane 6 then waits while
    // lane 7 runs its last trip (IMUL, IADD, BRA, ISETP, BRA): five issues, although
    // seven divergences of the loop's branch are open around it.
    let text = simt(&["run", "asm/divergence/data_loop.s", "--trace", "--format", "json", "--warp", "0"]);
    let value: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let branch = &value["branches"][0];
    let waits: Vec<u64> = branch["waits"].as_array().expect("waits").iter().map(|w| w.as_u64().expect("a count")).collect();
    assert_eq!(&waits[..8], &[35, 30, 25, 20, 15, 10, 5, 0]);
    // The loop body runs 7 trips of 5 issues with some lane waiting.
    assert_eq!(branch["issues_while_diverged"], 35);
}
