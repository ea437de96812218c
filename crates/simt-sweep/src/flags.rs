//! The flags of `simt run`, and what each does to a run's result (and so to its key).
//!
//! The command line is the source of truth for which flags exist: the `simt` binary
//! builds a [`FlagSet`] from its own argument parser, so a flag added to `simt run`
//! is at once a possible plan axis. What a flag *does* is decided here, by name: a
//! flag this module does not know is taken to change results, the safe default (a
//! needless rerun, never a stale record).

use std::collections::BTreeMap;

/// What a flag of `simt run` does to the run's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Changes the result: the flag and its value are part of the key.
    Result,
    /// `--arg NAME=VALUE`: the value is part of the key, and where it is `@FILE`, the file's bytes.
    Argument,
    /// `--expect NAME=FILE`: the dump's name and the reference file's bytes are part of the key.
    Expectation,
    /// `--dump NAME[=FILE]`: which buffer is dumped is part of the result, where it goes is not.
    Dump,
    /// `--timing NAME|FILE`: a machine configuration, by name or by a file whose contents count.
    MachineConfig,
    /// Changes how a run is carried out or reported, never what it computes.
    Neutral,
}

impl Effect {
    /// What the flag `--name` does.
    pub fn of(name: &str) -> Effect {
        match name {
            "arg" => Effect::Argument,
            "expect" => Effect::Expectation,
            "dump" => Effect::Dump,
            "timing" => Effect::MachineConfig,
            // Results do not depend on the thread count (an invariant of the interpreter).
            // A wall-clock timeout is a resource limit like memory: a run it stops is recorded
            // as failed, and `--retry-failed` runs it again with a new limit.
            "threads" | "timeout" | "json" | "stats" | "record" | "output" | "trace-svg" | "help" => Effect::Neutral,
            _ => Effect::Result,
        }
    }

    /// Whether a plan may set the flag: outputs would be written by every job to the same
    /// place, and the sweep sets `--record` and `--expect` itself.
    pub fn plan_refusal(name: &str) -> Option<&'static str> {
        match name {
            "record" => Some("the sweep records every run itself"),
            "dump" | "output" | "trace-svg" => Some(
                "every job would write the same file; to compare a dump with a reference, give the kernel `check = [{ dump = \"NAME\", reference = \"FILE.npy\" }]`",
            ),
            "expect" | "tolerance" => Some("give the kernel `check = [{ dump = \"NAME\", reference = \"FILE.npy\", tolerance = T }]` instead"),
            "help" | "version" => Some("it prints help instead of running"),
            _ => None,
        }
    }
}

/// One flag of `simt run`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flag {
    /// The long name, without `--`.
    pub name: String,
    /// A one-letter alias (`-o`), if any.
    pub short: Option<char>,
    /// Whether the flag takes a value (`--simt its`) or is a switch (`--json`).
    pub takes_value: bool,
    /// What it does to the result.
    pub effect: Effect,
}

/// Checks one flag's value the way `simt run` would (the binary passes its own parser, whose
/// error the plan shows after the flag and value).
pub type ValueCheck = dyn Fn(&str, Option<&str>) -> Result<(), ValueRejected> + Send + Sync;

/// Why the binary's parser refused a value: its own error, whatever type its parser has.
pub type ValueRejected = Box<dyn std::error::Error + Send + Sync>;

/// The resolved values of a `--timing` machine (a built-in name or a file relative to the
/// folder given), as text to hash; `None` when it does not load (the run says why).
pub type MachineResolver = dyn Fn(&str, &std::path::Path) -> Option<String> + Send + Sync;

/// The flags of `simt run`.
pub struct FlagSet {
    flags: BTreeMap<String, Flag>,
    check: Option<Box<ValueCheck>>,
    machine: Option<Box<MachineResolver>>,
}

impl FlagSet {
    /// The flags `(long name, short alias, takes a value)` of `simt run`.
    pub fn new(flags: impl IntoIterator<Item = (String, Option<char>, bool)>) -> FlagSet {
        let flags = flags.into_iter().map(|(name, short, takes_value)| (name.clone(), Flag { effect: Effect::of(&name), name, short, takes_value })).collect();
        FlagSet { flags, check: None, machine: None }
    }

    /// Adds a check of values (`simt = "vliw"`), run once per distinct value a plan gives.
    pub fn with_value_check(mut self, check: Box<ValueCheck>) -> FlagSet {
        self.check = Some(check);
        self
    }

    /// Adds the reader of `--timing` machines, so keys hash a machine's resolved values
    /// (a comment-only edit of its file changes no key).
    pub fn with_machine_resolver(mut self, resolve: Box<MachineResolver>) -> FlagSet {
        self.machine = Some(resolve);
        self
    }

    /// The resolved values of machine `value` seen from `cwd`, where a resolver was given.
    pub fn resolve_machine(&self, value: &str, cwd: &std::path::Path) -> Option<String> {
        self.machine.as_ref().and_then(|resolve| resolve(value, cwd))
    }

    /// The flag `--name`.
    pub fn get(&self, name: &str) -> Option<&Flag> {
        self.flags.get(name)
    }

    /// The flag `-c`.
    pub fn short(&self, c: char) -> Option<&Flag> {
        self.flags.values().find(|f| f.short == Some(c))
    }

    /// Every flag, by name.
    pub fn iter(&self) -> impl Iterator<Item = &Flag> {
        self.flags.values()
    }

    /// Checks `--name value` with the binary's own parser, where one was given.
    pub fn check_value(&self, name: &str, value: Option<&str>) -> Result<(), ValueRejected> {
        self.check.as_ref().map_or(Ok(()), |check| check(name, value))
    }

    /// The known flag closest to a misspelt `name`, for a "did you mean" hint.
    pub fn closest(&self, name: &str) -> Option<&str> {
        self.flags
            .keys()
            .map(|k| (strsim::jaro_winkler(name, k), k))
            .filter(|(score, _)| *score > 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, k)| k.as_str())
    }
}

#[cfg(test)]
pub(crate) fn test_flags() -> FlagSet {
    // The flags of `simt run` when this was written; the CLI's tests check the real set.
    let switches = ["json", "stats", "trace"];
    let values = [
        "kernel",
        "grid",
        "block",
        "arg",
        "dump",
        "simt",
        "max-steps",
        "its-yield",
        "runaway-steps",
        "timeout",
        "sms",
        "threads",
        "check",
        "record",
        "expect",
        "tolerance",
        "output",
        "timing",
        "arch",
    ];
    FlagSet::new(switches.iter().map(|s| (s.to_string(), None, false)).chain(values.iter().map(|s| (s.to_string(), (*s == "output").then_some('o'), true))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_flags_change_results() {
        for (name, effect) in [
            ("simt", Effect::Result),
            ("arch", Effect::Result),
            ("some-future-flag", Effect::Result),
            ("arg", Effect::Argument),
            ("dump", Effect::Dump),
            ("timing", Effect::MachineConfig),
            ("threads", Effect::Neutral),
            ("json", Effect::Neutral),
        ] {
            assert_eq!(Effect::of(name), effect, "{name}");
        }
    }

    #[test]
    fn misspelt_flags_get_a_suggestion() {
        let flags = test_flags();
        assert_eq!(flags.closest("its-yeild"), Some("its-yield"));
        assert_eq!(flags.closest("max-step"), Some("max-steps"));
        assert_eq!(flags.closest("zzzzzz"), None);
    }
}
