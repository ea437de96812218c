//! The error of every setting chosen by name (a target, a SIMT model, a sanitizer, a
//! lint): one wording, and the names there are, wherever the name was given.

/// A name that is none of those a setting takes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not {what}: use one of {}", .choices.join(", "))]
pub struct UnknownName {
    /// What the name should have named, with its article: "a target", "a SIMT model".
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The names there are.
    pub choices: Vec<&'static str>,
}
