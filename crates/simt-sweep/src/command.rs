//! A `simt run` command line, read just far enough to know its kernel and its options.

use crate::flags::FlagSet;

/// The arguments of one `simt run` (what follows `simt run`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunCommand {
    /// The kernel file, as written (relative paths are relative to where the run starts).
    pub kernel: String,
    /// The options in command-line order; a switch has no value.
    pub options: Vec<(String, Option<String>)>,
}

/// A `simt run` command line the sweep's reader cannot take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// Two positional arguments: the first and the second.
    #[error("`simt run` takes one kernel file, and both `{0}` and `{1}` were given")]
    TwoKernels(String, String),
    /// No flag of that spelling (`--nope`, `-z`).
    #[error("`simt run` has no option {0}")]
    NoOption(String),
    /// A flag that takes a value ended the line.
    #[error("--{0} needs a value")]
    NoValue(String),
    /// A switch written with a value (`--json=yes`).
    #[error("--{0} is a switch and takes no value")]
    SwitchValue(String),
    /// No positional argument.
    #[error("`simt run` needs a kernel file")]
    NoKernel,
}

impl RunCommand {
    /// Reads `argv` (without `simt run`) the way `simt run`'s parser does: `--name value`,
    /// `--name=value`, `-c value`, `-cvalue`, switches, one positional kernel, and `--`.
    ///
    /// # Errors
    /// An unknown flag, a missing value, or not exactly one kernel file.
    pub fn parse(argv: &[String], flags: &FlagSet) -> Result<RunCommand, CommandError> {
        let mut kernel = None;
        let mut options = Vec::new();
        let mut rest = argv.iter();
        let mut positional = |arg: &String| match kernel.replace(arg.clone()) {
            None => Ok(()),
            Some(first) => Err(CommandError::TwoKernels(first, arg.clone())),
        };
        while let Some(arg) = rest.next() {
            if arg == "--" {
                rest.by_ref().try_for_each(&mut positional)?;
                break;
            }
            let (flag, inline) = if let Some(long) = arg.strip_prefix("--") {
                let (name, inline) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v.to_string())));
                (flags.get(name).ok_or_else(|| CommandError::NoOption(format!("--{name}")))?, inline)
            } else if let Some(short) = arg.strip_prefix('-').filter(|s| !s.is_empty()) {
                let c = short.chars().next().expect("not empty");
                let flag = flags.short(c).ok_or_else(|| CommandError::NoOption(format!("-{c}")))?;
                (flag, Some(short[c.len_utf8()..].to_string()).filter(|v| !v.is_empty()))
            } else {
                positional(arg)?;
                continue;
            };
            let value = match (flag.takes_value, inline) {
                (true, Some(v)) => Some(v),
                (true, None) => Some(rest.next().ok_or_else(|| CommandError::NoValue(flag.name.clone()))?.clone()),
                (false, None) => None,
                (false, Some(_)) => return Err(CommandError::SwitchValue(flag.name.clone())),
            };
            options.push((flag.name.clone(), value));
        }
        let kernel = kernel.ok_or(CommandError::NoKernel)?;
        Ok(RunCommand { kernel, options })
    }

    /// The command line again, as `simt run` takes it.
    pub fn to_argv(&self) -> Vec<String> {
        let mut argv = vec![self.kernel.clone()];
        for (name, value) in &self.options {
            argv.push(format!("--{name}"));
            argv.extend(value.clone());
        }
        argv
    }

    /// The values given to `--name`, in order.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.options.iter().filter(move |(n, _)| n == name).filter_map(|(_, v)| v.as_deref())
    }

    /// The command as a user would type it, quoted for a POSIX shell.
    pub fn display(&self) -> String {
        std::iter::once("simt run".to_string()).chain(self.to_argv().iter().map(|a| shell_quote(a))).collect::<Vec<_>>().join(" ")
    }
}

/// `text` as one word of a POSIX shell: bare when that is safe, else in single quotes.
pub fn shell_quote(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./=,:@+%".contains(c);
    if !text.is_empty() && text.chars().all(safe) { text.to_string() } else { format!("'{}'", text.replace('\'', r"'\''")) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::test_flags;

    fn argv(text: &str) -> Vec<String> {
        text.split(' ').map(String::from).collect()
    }

    #[test]
    fn reads_every_spelling_of_an_option() {
        let cmd = RunCommand::parse(&argv("--simt stack k.s --arg=n=4 -otrace.txt --json -o t --its-yield 2"), &test_flags()).unwrap();
        assert_eq!(cmd.kernel, "k.s");
        let opt = |n: &str, v: Option<&str>| (n.to_string(), v.map(String::from));
        assert_eq!(
            cmd.options,
            [
                opt("simt", Some("stack")),
                opt("arg", Some("n=4")),
                opt("output", Some("trace.txt")),
                opt("json", None),
                opt("output", Some("t")),
                opt("its-yield", Some("2"))
            ]
        );
        assert_eq!(RunCommand::parse(&cmd.to_argv(), &test_flags()).unwrap(), cmd);
    }

    #[test]
    fn values_that_look_like_flags_are_values() {
        let cmd = RunCommand::parse(&argv("k.s -- -weird.s"), &test_flags());
        assert_eq!(cmd.unwrap_err().to_string(), "`simt run` takes one kernel file, and both `k.s` and `-weird.s` were given");
        let cmd = RunCommand::parse(&argv("--arg -1 -- -weird.s"), &test_flags()).unwrap();
        assert_eq!((cmd.kernel.as_str(), cmd.values("arg").collect::<Vec<_>>()), ("-weird.s", vec!["-1"]));
    }

    #[test]
    fn mistakes_are_named() {
        let flags = test_flags();
        for (line, error) in [
            ("k.s --nope 1", "`simt run` has no option --nope"),
            ("k.s -z", "`simt run` has no option -z"),
            ("k.s --simt", "--simt needs a value"),
            ("k.s --json=yes", "--json is a switch and takes no value"),
            ("--json", "`simt run` needs a kernel file"),
        ] {
            assert_eq!(RunCommand::parse(&argv(line), &flags).unwrap_err().to_string(), error, "{line}");
        }
    }

    #[test]
    fn display_quotes_for_a_shell() {
        let cmd = RunCommand { kernel: "my kernels/k.s".into(), options: vec![("arg".into(), Some("x=[1, 2]".into())), ("json".into(), None)] };
        assert_eq!(cmd.display(), "simt run 'my kernels/k.s' --arg 'x=[1, 2]' --json");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
