//! A small writer of Chrome trace-event JSON (the format Perfetto and
//! chrome://tracing open): process and thread names, complete slices and
//! counters, streamed to any `Write` so a large trace never sits in memory whole.

use std::io::{self, Write};

/// Streams one trace-event file: `{"traceEvents":[ ... ], "displayTimeUnit": ...}`.
pub struct TraceWriter<W: Write> {
    out: W,
    first: bool,
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

impl<W: Write> TraceWriter<W> {
    /// Starts the file.
    ///
    /// # Errors
    /// What writing failed with.
    pub fn new(mut out: W) -> io::Result<TraceWriter<W>> {
        out.write_all(b"{\"traceEvents\":[\n")?;
        Ok(TraceWriter { out, first: true })
    }

    fn event(&mut self, json: &str) -> io::Result<()> {
        if !self.first {
            self.out.write_all(b",\n")?;
        }
        self.first = false;
        self.out.write_all(json.as_bytes())
    }

    /// Names process `pid` (a track group).
    ///
    /// # Errors
    /// What writing failed with.
    pub fn process_name(&mut self, pid: u64, name: &str) -> io::Result<()> {
        self.event(&format!("{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{pid},\"args\":{{\"name\":{}}}}}", quote(name)))
    }

    /// Names thread `tid` of process `pid` (one track).
    ///
    /// # Errors
    /// What writing failed with.
    pub fn thread_name(&mut self, pid: u64, tid: u64, name: &str) -> io::Result<()> {
        self.event(&format!("{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":{}}}}}", quote(name)))
    }

    /// A slice on track (`pid`, `tid`) from `ts` lasting `dur` (microseconds in the viewer),
    /// with string arguments.
    ///
    /// # Errors
    /// What writing failed with.
    #[allow(clippy::too_many_arguments)]
    pub fn complete(&mut self, pid: u64, tid: u64, name: &str, category: &str, ts: f64, dur: f64, args: &[(&str, String)]) -> io::Result<()> {
        let args: Vec<String> = args.iter().map(|(k, v)| format!("{}:{}", quote(k), quote(v))).collect();
        self.event(&format!(
            "{{\"ph\":\"X\",\"pid\":{pid},\"tid\":{tid},\"name\":{},\"cat\":{},\"ts\":{ts},\"dur\":{dur},\"args\":{{{}}}}}",
            quote(name),
            quote(category),
            args.join(",")
        ))
    }

    /// A counter sample on process `pid`: each series named with its value from `ts` on.
    ///
    /// # Errors
    /// What writing failed with.
    pub fn counter(&mut self, pid: u64, name: &str, ts: f64, series: &[(&str, f64)]) -> io::Result<()> {
        let values: Vec<String> = series.iter().map(|(k, v)| format!("{}:{v}", quote(k))).collect();
        self.event(&format!("{{\"ph\":\"C\",\"pid\":{pid},\"name\":{},\"ts\":{ts},\"args\":{{{}}}}}", quote(name), values.join(",")))
    }

    /// Ends the file and hands the writer back.
    ///
    /// # Errors
    /// What writing failed with.
    pub fn finish(mut self, display_time_unit: &str) -> io::Result<W> {
        write!(self.out, "\n],\"displayTimeUnit\":{}}}\n", quote(display_time_unit))?;
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_valid_json() {
        let mut w = TraceWriter::new(Vec::new()).unwrap();
        w.process_name(1, "SM \"0\"").unwrap();
        w.thread_name(1, 2, "partition 0").unwrap();
        w.complete(1, 2, "FFMA", "issue", 3.0, 1.0, &[("line", "7".into())]).unwrap();
        w.counter(1, "stalls", 4.0, &[("scoreboard", 1.0)]).unwrap();
        let bytes = w.finish("ns").unwrap();
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(v["traceEvents"].as_array().unwrap().len(), 4);
        assert_eq!(v["traceEvents"][2]["name"], "FFMA");
    }
}
