//! The page: a template with the stylesheet, the script and the run's data inlined.

use base64::Engine as _;
use serde::Serialize;

use crate::{RunMeta, RunView, TimingView};

const TEMPLATE: &str = include_str!("../assets/report.html");
const STYLE: &str = include_str!("../assets/report.css");
const SCRIPT: &str = include_str!("../assets/report.js");

/// Words per packed issue: warp row, pc and events, active, executed, gone lanes.
const ISSUE_WORDS: usize = 5;

/// What the page's script reads.
#[derive(Serialize)]
struct Embedded<'a> {
    #[serde(flatten)]
    meta: &'a RunMeta,
    /// `[block, warp]` per warp that issued, in order of first issue.
    warps: Vec<[u64; 2]>,
    /// Issues as little-endian words, base64: the index into `warps`, `pc << 3 | events`
    /// (bit 0 split, 1 rejoin, 2 switch), then the active, executed and gone lane masks.
    issues: String,
    /// Issues in `issues`.
    issue_count: usize,
    /// The kept written values as little-endian words, base64.
    values: String,
    timing: Option<&'a TimingView>,
}

fn pack(words: &[u32]) -> String {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The report as one HTML page.
pub fn render(run: &RunView, timing: Option<&TimingView>) -> String {
    let mut warps: Vec<[u64; 2]> = Vec::new();
    let mut row_of = std::collections::HashMap::new();
    let mut words = Vec::with_capacity(run.issues.len() * ISSUE_WORDS);
    for issue in &run.issues {
        let row = *row_of.entry((issue.block, issue.warp)).or_insert_with(|| {
            warps.push([issue.block, u64::from(issue.warp)]);
            warps.len() as u32 - 1
        });
        let events = issue.events.iter().fold(0u32, |bits, e| {
            bits | match e {
                simt_interp::trace::Event::Split => 1,
                simt_interp::trace::Event::Rejoin => 2,
                simt_interp::trace::Event::Switch => 4,
            }
        });
        words.extend_from_slice(&[row, issue.pc << 3 | events, issue.active, issue.executed, issue.gone]);
    }
    let data = Embedded { meta: &run.meta, warps, issues: pack(&words), issue_count: run.issues.len(), values: pack(&run.written_values), timing };
    // Inside <script>, `</` could end the element: JSON may escape the slash.
    let json = serde_json::to_string(&data).unwrap_or_else(|_| "null".to_string()).replace("</", "<\\/");
    let title = html_escape(&format!("{} — simt report", run.meta.kernel));
    // Filled in template order, each marker in the template only: the data may contain
    // anything, markers included.
    let mut page = String::with_capacity(TEMPLATE.len() + STYLE.len() + SCRIPT.len() + json.len());
    let mut rest = TEMPLATE;
    for (marker, value) in [("{{title}}", title.as_str()), ("{{style}}", STYLE), ("{{data}}", json.as_str()), ("{{script}}", SCRIPT)] {
        if let Some((before, after)) = rest.split_once(marker) {
            page.push_str(before);
            page.push_str(value);
            rest = after;
        }
    }
    page.push_str(rest);
    page
}

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}
