//! The accumulation loop shared by every MMA form.
//!
//! Each output element is one sequential multiply-accumulate chain over k, but
//! the 256 outputs are independent, so the innermost loop runs across the 16
//! columns of an output row and vectorises. `f32::mul_add` is only an
//! instruction when the `fma` target feature is on (otherwise a libm call per
//! element), hence the caller inlines this loop into a copy compiled with AVX2
//! and FMA and one without; both round every step exactly once.

/// One multiply-accumulate step in the arithmetic of the accumulator.
pub(crate) trait Mac: Copy + Default {
    /// `self + a * b`.
    fn mac(self, a: Self, b: Self) -> Self;
}

impl Mac for f32 {
    #[inline(always)]
    fn mac(self, a: f32, b: f32) -> f32 {
        a.mul_add(b, self)
    }
}

impl Mac for i32 {
    #[inline(always)]
    fn mac(self, a: i32, b: i32) -> i32 {
        self.wrapping_add(a.wrapping_mul(b))
    }
}

/// The operands of one MMA in plain matrices, every one 16 columns wide.
pub(crate) struct Work<T> {
    /// A, 16 rows of 16 values in chain order (for the sparse shape: the kept values).
    pub a: [[T; 16]; 16],
    /// `k_of[i][t]`: the row of B that `a[i][t]` multiplies.
    pub k_of: [[u8; 16]; 16],
    /// B, K rows (16 dense, 32 sparse; the rest unused).
    pub b: [[T; 16]; 32],
    /// C on entry, D on return.
    pub acc: [[T; 16]; 16],
    /// Steps of each chain: K (16, or 8 for `M16N8K8`); steps past K would add `0 * 0`,
    /// which turns a -0 accumulator into +0.
    pub steps: usize,
}

impl<T: Mac> Work<T> {
    pub fn new() -> Self {
        Work { a: [[T::default(); 16]; 16], k_of: [[0; 16]; 16], b: [[T::default(); 16]; 32], acc: [[T::default(); 16]; 16], steps: 16 }
    }

    /// `acc[i][j] += a[i][t] * b[k_of[i][t]][j]` for t = 0, 1, ..., steps - 1 in order.
    ///
    /// Always inlined, so that it takes the target features of its caller.
    #[inline(always)]
    pub fn accumulate(&mut self) {
        for ((acc, a), k_of) in self.acc.iter_mut().zip(&self.a).zip(&self.k_of) {
            let mut row = *acc;
            for (&av, &k) in a.iter().zip(k_of).take(self.steps) {
                let brow = &self.b[usize::from(k) & 31];
                for (x, &bv) in row.iter_mut().zip(brow) {
                    *x = x.mac(av, bv);
                }
            }
            *acc = row;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_step_rounds_once() {
        // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11 on its own, so
        // only a fused step leaves the 2^-24 behind.
        let mut w = Work::<f32>::new();
        w.acc[0][0] = -(1.0 + 2f32.powi(-11));
        w.a[0][0] = 1.0 + 2f32.powi(-12);
        w.b[0][0] = 1.0 + 2f32.powi(-12);
        w.accumulate();
        assert_eq!(w.acc[0][0], 2f32.powi(-24));
    }
}
