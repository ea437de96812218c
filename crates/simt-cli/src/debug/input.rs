//! Where `simt debug` reads its commands: a commands file or a pipe, read a capped line at
//! a time and echoed into the transcript, or a terminal with line editing.

use std::io::BufRead;

use super::{COMMANDS, Flow, Session};
use crate::Failure;
use crate::run::Prepared;
use simt_isa::MAX_COMMAND_LINE_BYTES;

/// Where the commands come from.
pub(super) enum Input {
    /// A commands file or a pipe: each command is echoed after the prompt, making a transcript.
    Lines { reader: Box<dyn BufRead>, name: String, read: u64, line: u64 },
    /// A terminal: line editing, history, completion; an empty line repeats a command that runs the kernel.
    Terminal { editor: Box<rustyline::Editor<Completion, rustyline::history::DefaultHistory>>, last: String },
}

impl Input {
    pub(super) fn lines(reader: Box<dyn BufRead>, name: String) -> Input {
        Input::Lines { reader, name, read: 0, line: 0 }
    }

    pub(super) fn terminal(prepared: &Prepared) -> Result<Input, Failure> {
        let config = rustyline::Config::builder().auto_add_history(true).completion_type(rustyline::CompletionType::List).build();
        let mut editor = rustyline::Editor::with_config(config).map_err(|e| Failure::input(format!("cannot start the line editor: {e}")))?;
        editor.set_helper(Some(Completion { buffers: prepared.launch.buffers.iter().map(|(name, _)| name.clone()).collect() }));
        Ok(Input::Terminal { editor: Box::new(editor), last: String::new() })
    }

    /// Runs commands until `quit`, the end of the input, or `restart`.
    pub(super) fn drive(&mut self, session: &mut Session<'_>) -> Result<Flow, Failure> {
        while let Some(command) = self.next(session)? {
            let flow = session.execute(&command);
            session.flush()?;
            if flow != Flow::Go {
                return Ok(flow);
            }
        }
        Ok(Flow::Quit)
    }

    /// The next command; `None` at the end of the input.
    fn next(&mut self, session: &mut Session<'_>) -> Result<Option<String>, Failure> {
        match self {
            Input::Lines { reader, name, read, line } => loop {
                *line += 1;
                let Some(text) = read_line(reader.as_mut(), name, read, *line)? else { return Ok(None) };
                let command = text.split('#').next().unwrap_or("").trim();
                if !command.is_empty() {
                    session.say(format!("(simt) {command}"));
                    return Ok(Some(command.to_string()));
                }
            },
            Input::Terminal { editor, last } => loop {
                use rustyline::error::ReadlineError;
                match editor.readline("(simt) ") {
                    Ok(line) => {
                        let repeats = matches!(last.split_whitespace().next(), Some("step" | "s" | "stepi" | "si" | "next" | "n" | "continue" | "c"));
                        let line = if line.trim().is_empty() && repeats { last.clone() } else { line };
                        last.clone_from(&line);
                        return Ok(Some(line));
                    }
                    Err(ReadlineError::Interrupted) => {}
                    Err(ReadlineError::Eof) => return Ok(None),
                    Err(e) => return Err(Failure::input(format!("cannot read a command: {e}"))),
                }
            },
        }
    }
}

/// Reads line `number` of `name`, at most [`MAX_COMMAND_LINE_BYTES`] long, counting the bytes read
/// against the limit on every input simt reads.
fn read_line(reader: &mut dyn BufRead, name: &str, read: &mut u64, number: u64) -> Result<Option<String>, Failure> {
    let mut bytes = Vec::new();
    let n = std::io::Read::take(reader, MAX_COMMAND_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut bytes)
        .map_err(|e| Failure::input(format!("cannot read the commands from {name}: {e}")))?;
    if n == 0 {
        return Ok(None);
    }
    if bytes.len() > MAX_COMMAND_LINE_BYTES && bytes.last() != Some(&b'\n') {
        return Err(Failure::input(format!("{name}: line {number} is longer than {MAX_COMMAND_LINE_BYTES} bytes; commands are one short line each")));
    }
    *read += n as u64;
    if *read > simt_isa::MAX_INPUT_BYTES {
        return Err(Failure::input(format!("{name}: the commands pass {} bytes, the most simt reads; split the session", simt_isa::MAX_INPUT_BYTES)));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| Failure::input(format!("{name}: line {number} is not UTF-8 text")))
}

/// Completes command names, and buffer names after `mem` and `watch`.
pub(super) struct Completion {
    buffers: Vec<String>,
}

impl rustyline::completion::Completer for Completion {
    type Candidate = String;

    fn complete(&self, line: &str, pos: usize, _: &rustyline::Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let word = &before[start..];
        let words: Vec<&str> = before[..start].split_whitespace().collect();
        let candidates: Vec<String> = match words.as_slice() {
            [] => COMMANDS.iter().map(|c| c.0).filter(|c| c.starts_with(word)).map(String::from).collect(),
            ["mem" | "watch"] => self.buffers.iter().filter(|b| b.starts_with(word)).cloned().collect(),
            _ => Vec::new(),
        };
        Ok((start, candidates))
    }
}

impl rustyline::hint::Hinter for Completion {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for Completion {}
impl rustyline::validate::Validator for Completion {}
impl rustyline::Helper for Completion {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_offers_commands_then_buffers() {
        use rustyline::completion::Completer;
        let history = rustyline::history::MemHistory::new();
        let context = rustyline::Context::new(&history);
        let completion = Completion { buffers: vec!["out".into(), "offsets".into(), "in".into()] };
        let complete = |line: &str| completion.complete(line, line.len(), &context).expect("completes");
        assert_eq!(complete("st"), (0, vec!["step".to_string(), "stack".to_string()]));
        assert_eq!(complete("mem o"), (4, vec!["out".to_string(), "offsets".to_string()]));
        assert_eq!(complete("mem "), (4, vec!["out".to_string(), "offsets".to_string(), "in".to_string()]));
        assert_eq!(complete("regs R"), (5, vec![]));
    }

    #[test]
    fn command_lines_are_capped() {
        let read = |bytes: Vec<u8>| {
            let mut reader = std::io::Cursor::new(bytes);
            let (mut total, mut lines) = (0, Vec::new());
            loop {
                match read_line(&mut reader, "stdin", &mut total, lines.len() as u64 + 1) {
                    Ok(Some(line)) => lines.push(line),
                    Ok(None) => return Ok(lines),
                    Err(Failure::Rejected(e)) => return Err(e),
                    Err(_) => return Err("another failure".into()),
                }
            }
        };
        assert_eq!(read(b"step\nregs R1\n".to_vec()), Ok(vec!["step\n".to_string(), "regs R1\n".to_string()]));
        let mut longest = vec![b'x'; MAX_COMMAND_LINE_BYTES];
        longest.push(b'\n');
        assert!(read(longest).is_ok());
        let error = read(vec![0; MAX_COMMAND_LINE_BYTES + 1]).unwrap_err();
        assert!(error.contains("stdin: line 1 is longer than 65536 bytes"), "{error}");
        assert!(read(b"step\n\xff\n".to_vec()).unwrap_err().contains("line 2 is not UTF-8"));
    }
}
