//! Tensor-core generations: the targets a kernel may name with `.target` or `--arch`.
//!
//! Each generation added instruction forms (contract section 9). The table
//! records the first target of every row and of every modifier value that
//! needs a later one ([`crate::Form::since`]); a kernel may only use forms its
//! target has.

use std::fmt;

/// A target architecture, oldest first: the derived order is "has at least the forms of".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Target {
    /// Volta: f16 tensor cores.
    Sm70,
    /// Turing: 8- and 4-bit integer MMA.
    Sm75,
    /// Ampere: BF16, TF32, FP64 MMA, the PTX m16n8k16 shape, 2:4 sparsity.
    Sm80,
    /// Ada: FP8 (E4M3, E5M2).
    Sm89,
    /// Hopper: FP8 as Ada.
    Sm90,
    /// Blackwell: FP4 (E2M1).
    Sm100,
}

impl Target {
    /// Every target, oldest first (also the bytecode encoding order).
    pub const ALL: [Target; 6] = [Target::Sm70, Target::Sm75, Target::Sm80, Target::Sm89, Target::Sm90, Target::Sm100];

    /// The target of a kernel that names none: everything is allowed.
    pub const DEFAULT: Target = Target::Sm100;

    /// The oldest target, which has every form that names no later one.
    pub const OLDEST: Target = Target::Sm70;

    /// The spelling in `.target` and `--arch` (`sm_80`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Sm70 => "sm_70",
            Target::Sm75 => "sm_75",
            Target::Sm80 => "sm_80",
            Target::Sm89 => "sm_89",
            Target::Sm90 => "sm_90",
            Target::Sm100 => "sm_100",
        }
    }

    /// The architecture generation (`Ampere`).
    pub fn generation(self) -> &'static str {
        match self {
            Target::Sm70 => "Volta",
            Target::Sm75 => "Turing",
            Target::Sm80 => "Ampere",
            Target::Sm89 => "Ada",
            Target::Sm90 => "Hopper",
            Target::Sm100 => "Blackwell",
        }
    }

    /// Looks a spelling up, ignoring case.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name().eq_ignore_ascii_case(name))
    }

    /// The valid spellings, for messages: `sm_70, sm_75, ..., sm_100`.
    pub fn names() -> String {
        Target::ALL.map(Target::name).join(", ")
    }

    /// The target with bytecode encoding `code`.
    pub fn from_code(code: u8) -> Option<Target> {
        Target::ALL.get(usize::from(code)).copied()
    }

    /// The bytecode encoding.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The later of two targets.
    pub const fn max(self, other: Target) -> Target {
        if (self as u8) < (other as u8) { other } else { self }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Target {
    type Err = crate::UnknownName;

    fn from_str(text: &str) -> Result<Target, crate::UnknownName> {
        Target::from_name(text.trim()).ok_or_else(|| crate::UnknownName {
            what: "a target",
            given: text.to_string(),
            choices: Target::ALL.map(Target::name).to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip() {
        for t in Target::ALL {
            assert_eq!(Target::from_name(t.name()), Some(t));
            assert_eq!(Target::from_code(t.code()), Some(t));
            assert_eq!(t.name().parse::<Target>(), Ok(t));
        }
        assert_eq!(Target::from_name("SM_89"), Some(Target::Sm89));
        assert_eq!(Target::from_code(6), None);
        let err = "sm_61".parse::<Target>().unwrap_err();
        assert_eq!(err.to_string(), "`sm_61` is not a target: use one of sm_70, sm_75, sm_80, sm_89, sm_90, sm_100");
    }

    #[test]
    fn later_targets_have_more() {
        assert!(Target::ALL.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Target::Sm75.max(Target::Sm89), Target::Sm89);
        assert_eq!(Target::Sm100.max(Target::Sm70), Target::Sm100);
        assert_eq!(Target::DEFAULT, *Target::ALL.last().unwrap());
    }
}
