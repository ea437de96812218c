//! Checks: a dumped buffer against a reference `.npy`, within a tolerance.
//!
//! Elements are compared as numbers (each array decoded with its own dtype, so an f32
//! dump can be checked against an f64 reference). An element passes when
//! `|got - want| <= tolerance * max(1, |want|)`: an absolute tolerance for values below
//! one and a relative one above. Tolerance 0 asks for equal values; NaN equals NaN.

use serde::{Deserialize, Serialize};
use simt_io::elements;
use simt_io::npy::Array;

/// How a dump compared with its reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckOutcome {
    /// The dumped buffer.
    pub dump: String,
    /// The reference file, as named.
    pub reference: String,
    /// The tolerance used.
    pub tolerance: f64,
    /// Whether every element passed.
    pub passed: bool,
    /// Elements compared.
    pub compared: u64,
    /// Elements outside the tolerance.
    pub mismatches: u64,
    /// The largest `|got - want|` over elements that are numbers in both (none if there are none,
    /// or if it is infinite).
    pub max_abs_error: Option<f64>,
    /// The first element outside the tolerance.
    pub first_mismatch: Option<Mismatch>,
    /// Why nothing could be compared (a size mismatch, an unreadable file).
    pub error: Option<String>,
}

/// One element outside the tolerance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Its index in C order.
    pub index: u64,
    /// The dumped value, as simt prints it.
    pub got: String,
    /// The reference value.
    pub want: String,
}

impl CheckOutcome {
    /// A check that could not compare anything, with the reason.
    pub fn failed(dump: &str, reference: &str, tolerance: f64, error: String) -> CheckOutcome {
        CheckOutcome {
            dump: dump.into(),
            reference: reference.into(),
            tolerance,
            passed: false,
            compared: 0,
            mismatches: 0,
            max_abs_error: None,
            first_mismatch: None,
            error: Some(error),
        }
    }

    /// One line for a summary: `y: 3 of 64 elements differ (first at 5: got 2, want 1.5)`.
    pub fn describe(&self) -> String {
        if let Some(error) = &self.error {
            return format!("{}: {error}", self.dump);
        }
        match &self.first_mismatch {
            None => format!("{}: all {} elements match {}", self.dump, self.compared, self.reference),
            Some(m) => format!(
                "{}: {} of {} elements differ from {} (first at index {}: got {}, want {})",
                self.dump, self.mismatches, self.compared, self.reference, m.index, m.got, m.want
            ),
        }
    }
}

/// Compares the dump `got` of buffer `dump` with the reference array `want` read from `reference`.
pub fn compare(dump: &str, got: &Array, reference: &str, want: &Array, tolerance: f64) -> CheckOutcome {
    let (got_n, want_n) = (got.data.len() / got.dtype.size(), want.data.len() / want.dtype.size());
    if got_n != want_n {
        return CheckOutcome::failed(
            dump,
            reference,
            tolerance,
            format!("the dump has {got_n} elements and {reference} has {want_n} (shape {:?})", want.shape),
        );
    }
    let mut outcome = CheckOutcome { passed: true, compared: got_n as u64, error: None, ..CheckOutcome::failed(dump, reference, tolerance, String::new()) };
    let mut max_error = 0f64;
    let pairs = elements(got.dtype.elem(), &got.data).zip(elements(want.dtype.elem(), &want.data));
    for (index, (g, w)) in pairs.enumerate() {
        let (gv, wv) = (g.value(), w.value());
        let error = (gv - wv).abs();
        if !error.is_nan() {
            max_error = max_error.max(error);
        }
        let equal = gv == wv || (gv.is_nan() && wv.is_nan());
        if equal || error <= tolerance * wv.abs().max(1.0) {
            continue;
        }
        outcome.passed = false;
        outcome.mismatches += 1;
        if outcome.first_mismatch.is_none() {
            outcome.first_mismatch = Some(Mismatch { index: index as u64, got: g.to_string(), want: w.to_string() });
        }
    }
    outcome.max_abs_error = (got_n > 0 && max_error.is_finite()).then_some(max_error);
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use simt_io::npy::Dtype;

    fn f32s(values: &[f32]) -> Array {
        Array { dtype: Dtype::F32, shape: vec![values.len()], data: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }

    fn f64s(values: &[f64]) -> Array {
        Array { dtype: Dtype::F64, shape: vec![values.len()], data: values.iter().flat_map(|v| v.to_le_bytes()).collect() }
    }

    #[test]
    fn tolerance_is_absolute_below_one_and_relative_above() {
        let want = f64s(&[0.5, 1000.0, f64::NAN]);
        for (got, tolerance, passed) in [
            ([0.5, 1000.0, f32::NAN], 0.0, true),
            ([0.5001, 1000.0, f32::NAN], 0.0, false),
            ([0.5001, 1000.0, f32::NAN], 1e-3, true),
            ([0.5, 1000.5, f32::NAN], 1e-3, true),
            ([0.5, 1002.0, f32::NAN], 1e-3, false),
            ([0.5, 1000.0, 0.0], 1.0, false),
        ] {
            let outcome = compare("y", &f32s(&got), "ref.npy", &want, tolerance);
            assert_eq!(outcome.passed, passed, "{got:?} within {tolerance}");
            assert_eq!(outcome.mismatches == 0, passed);
        }
    }

    #[test]
    fn mismatches_are_counted_and_the_first_shown() {
        let outcome = compare("y", &f32s(&[1.0, 2.0, 3.0, 5.0]), "ref.npy", &f32s(&[1.0, 2.5, 3.0, 4.0]), 0.0);
        assert_eq!((outcome.passed, outcome.compared, outcome.mismatches, outcome.max_abs_error), (false, 4, 2, Some(1.0)));
        assert_eq!(outcome.describe(), "y: 2 of 4 elements differ from ref.npy (first at index 1: got 2, want 2.5)");
        let outcome = compare("y", &f32s(&[1.0]), "ref.npy", &f32s(&[1.0, 2.0]), 0.0);
        assert_eq!(outcome.describe(), "y: the dump has 1 elements and ref.npy has 2 (shape [2])");
        assert!(!outcome.passed);
    }
}
