//! Every command a user is shown runs as written: the `sh` blocks of `README.md` and
//! `docs/` (the labs and their answers included), and the `simt` lines of the header
//! comments of the kernels in `asm/` (their `Try it:` lines).
//!
//! Commands run with bash, one document at a time and in order, in a scratch copy of
//! `asm/`, `examples/` and the ML corpus, with `simt` on the PATH, so a command may use what an earlier
//! one of the same document wrote. Each must exit 0, unless its comment says `exit N`.
//! An `output` block right after an `sh` block quotes what its last command prints: each
//! of its lines must appear in that command's stdout or stderr (runs of blanks count as one
//! space), so the numbers a page quotes are the numbers the tool gives.
//! `cargo` commands are the project's own build, test and bench commands; `cargo run
//! --release --` runs the built binary, the others are skipped (CI runs them itself).
//! `clang` commands (compiling the CUDA examples) are skipped, with a printed reason, where
//! clang is not installed: their outputs are shipped beside their sources.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One command as shown, with where it came from, the exit status it promises and the
/// lines of output a page quotes from it.
struct Shown {
    place: String,
    command: String,
    exit: i32,
    quoted: Vec<String>,
}

/// Splits `line` into the command and its trailing `# comment` (a `#` outside quotes).
fn split_comment(line: &str) -> (&str, &str) {
    let (mut single, mut double) = (false, false);
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && (i == 0 || line[..i].ends_with(' ')) => return (line[..i].trim_end(), &line[i + 1..]),
            _ => {}
        }
    }
    (line.trim_end(), "")
}

/// The exit status a comment promises (`exit 2`), 0 by default.
fn promised_exit(comment: &str) -> i32 {
    comment.split("exit ").nth(1).and_then(|rest| rest.chars().next()).and_then(|c| c.to_digit(10)).map_or(0, |d| d as i32)
}

/// Commands of the lines `lines` (continuations joined), numbered from `first_line`.
fn commands(file: &str, first_line: usize, lines: &[&str], out: &mut Vec<Shown>) {
    let mut pending = String::new();
    let mut start = first_line;
    for (i, raw) in lines.iter().enumerate() {
        if pending.is_empty() {
            start = first_line + i;
        }
        let (command, comment) = split_comment(raw);
        if let Some(head) = command.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(command);
        let command = std::mem::take(&mut pending).trim().to_string();
        if !command.is_empty() {
            out.push(Shown { place: format!("{file}:{start}"), command, exit: promised_exit(comment), quoted: Vec::new() });
        }
    }
}

/// The `sh` blocks of a markdown file, each `output` block quoted from the command before it.
fn markdown_text(text: &str, name: &str) -> Vec<Shown> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Shown> = Vec::new();
    let mut after_sh = false;
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim();
        if fence.starts_with("```") {
            let end = (i + 1..lines.len()).find(|&j| lines[j].trim_start().starts_with("```")).unwrap_or(lines.len());
            let body = &lines[i + 1..end];
            match fence {
                "```sh" => commands(name, i + 2, body, &mut out),
                "```output" => {
                    let last = out.last_mut().filter(|_| after_sh);
                    let last = last.unwrap_or_else(|| panic!("{name}:{}: an output block must follow an sh block", i + 1));
                    last.quoted.extend(body.iter().map(|l| normalize(l)).filter(|l| !l.is_empty()));
                }
                _ => {}
            }
            after_sh = fence == "```sh";
            i = end;
        }
        i += 1;
    }
    out
}

fn markdown(path: &Path, name: &str) -> Vec<Shown> {
    markdown_text(&std::fs::read_to_string(path).unwrap(), name)
}

/// A line with its runs of blanks as one space, trimmed.
fn normalize(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `simt` command lines of a kernel's header comment (its `Try it:` lines), with their continuations.
fn try_it(path: &Path, name: &str) -> Vec<Shown> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut group: Vec<&str> = Vec::new();
    let mut start = 0;
    for (i, line) in text.lines().map_while(|l| l.strip_prefix("//")).map(str::trim).enumerate() {
        if group.is_empty() && line.starts_with("simt ") {
            start = i + 1;
        }
        if !group.is_empty() || line.starts_with("simt ") {
            group.push(line);
            if !split_comment(line).0.ends_with('\\') {
                commands(name, start, &std::mem::take(&mut group), &mut out);
            }
        }
    }
    out
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let dest = to.join(p.file_name().unwrap());
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).unwrap();
        }
    }
}

/// Every document's commands, one list per document.
fn documents() -> Vec<Vec<Shown>> {
    let root = root();
    let mut docs = vec![markdown(&root.join("README.md"), "README.md")];
    let mut md = Vec::new();
    files(&root.join("docs"), "md", &mut md);
    docs.extend(md.iter().map(|p| markdown(p, &p.strip_prefix(&root).unwrap().display().to_string())));
    let mut kernels = Vec::new();
    files(&root.join("asm"), "s", &mut kernels);
    docs.extend(kernels.iter().map(|p| try_it(p, &p.strip_prefix(&root).unwrap().display().to_string())));
    docs.retain(|d| !d.is_empty());
    docs
}

fn clang_installed() -> bool {
    Command::new("clang").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn every_command_shown_to_users_runs_as_written() {
    let bin = TempDir::new().unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_simt"), bin.path().join("simt")).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in documents() {
        let work = TempDir::new().unwrap();
        // The kernel library, the examples, the PTX corpus's clang fixtures and the ML corpus's
        // kernels: what pages run.
        for dir in ["asm", "examples", "tests/ptx/fixtures", "tests/ml/triton", "tests/ml/tinygrad"] {
            copy_dir(&root().join(dir), &work.path().join(dir));
        }
        for shown in doc {
            let command = match shown.command.strip_prefix("cargo run --release --") {
                Some(rest) => format!("simt{rest}"),
                None if shown.command.starts_with("cargo ") => continue,
                // Compiling CUDA needs clang; what it writes is shipped too, so the commands
                // after it run either way.
                None if shown.command.starts_with("clang ") && !clang_installed() => {
                    println!("skipped (clang is not installed; apt-get install clang): {}: {}", shown.place, shown.command);
                    continue;
                }
                None => shown.command.clone(),
            };
            let out = Command::new("bash").arg("-c").arg(&command).current_dir(work.path()).env("PATH", &path).env("NO_COLOR", "1").output().unwrap();
            ran += 1;
            let code = out.status.code().unwrap_or(-1);
            if code != shown.exit {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let tail: String = stderr.lines().rev().take(6).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
                failures.push(format!("{}: `{}` exited {code}, want {}\n{tail}", shown.place, shown.command, shown.exit));
            }
            let printed: Vec<String> =
                [&out.stdout, &out.stderr].iter().flat_map(|b| String::from_utf8_lossy(b).lines().map(normalize).collect::<Vec<_>>()).collect();
            for quoted in &shown.quoted {
                if !printed.iter().any(|p| p.contains(quoted.as_str())) {
                    failures.push(format!("{}: `{}` does not print the quoted line\n  {quoted}", shown.place, shown.command));
                }
            }
        }
    }
    assert!(ran > 30, "only {ran} commands found: is the extraction broken?");
    assert!(failures.is_empty(), "{} of {ran} commands fail as written:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn output_blocks_quote_the_command_before_them() {
    let text = "```sh\nsimt a\nsimt b   # exit 2\n```\n\n```output\n  x   1.5%\n\ny\n```\n```sh\nsimt c\n```\n";
    let shown = markdown_text(text, "t.md");
    assert_eq!(shown.iter().map(|s| s.quoted.clone()).collect::<Vec<_>>(), [vec![], vec!["x 1.5%".to_string(), "y".to_string()], vec![]]);
    assert_eq!(shown[1].exit, 2);
}

#[test]
#[should_panic(expected = "t.md:1: an output block must follow an sh block")]
fn an_output_block_without_a_command_is_refused() {
    markdown_text("```output\nx\n```\n", "t.md");
}

#[test]
fn comments_and_continuations_are_read_like_a_shell() {
    let mut out = Vec::new();
    commands("t", 1, &["simt run k.s \\", "    --arg 'x=[1, 2]'   # exit 2: it faults", "echo '#not a comment'"], &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].command, "simt run k.s      --arg 'x=[1, 2]'");
    assert_eq!((out[0].exit, out[0].place.as_str()), (2, "t:1"));
    assert_eq!(out[1].command, "echo '#not a comment'");
}
