//! The accumulation loop shared by every MMA form.
//!
//! Each output element is one sequential multiply-accumulate chain over k, but
//! the 256 outputs are independent, so the innermost loop runs across the 16
//! columns of an output row and vectorises. `f32::mul_add` is only an
//! instruction when the `fma` target feature is on (otherwise a libm call per
//! element), hence the run-time dispatch to a copy compiled with AVX2 and FMA.
//! Both copies round every step exactly once, so they agree bit for bit.

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
}

impl<T: Mac> Work<T> {
    pub fn new() -> Self {
        Work { a: [[T::default(); 16]; 16], k_of: [[0; 16]; 16], b: [[T::default(); 16]; 32], acc: [[T::default(); 16]; 16] }
    }

    /// `acc[i][j] += a[i][t] * b[k_of[i][t]][j]` for t = 0, 1, ..., 15 in order.
    pub fn accumulate(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has both features the function is compiled for.
            unsafe { self.accumulate_avx2_fma() };
            return;
        }
        self.accumulate_portable();
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn accumulate_avx2_fma(&mut self) {
        self.accumulate_portable();
    }

    #[inline(always)]
    fn accumulate_portable(&mut self) {
        for ((acc, a), k_of) in self.acc.iter_mut().zip(&self.a).zip(&self.k_of) {
            let mut row = *acc;
            for (&av, &k) in a.iter().zip(k_of) {
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

    fn filled(seed: u32) -> Work<f32> {
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            // Small exponents so that products and sums round in interesting ways.
            f32::from_bits((state >> 9) | if state & 1 == 0 { 0x3F00_0000 } else { 0xBF80_0000 })
        };
        let mut w = Work::<f32>::new();
        w.a.iter_mut().chain(w.b.iter_mut()).chain(w.acc.iter_mut()).flatten().for_each(|x| *x = next());
        for (t, k) in w.k_of.iter_mut().flatten().enumerate() {
            *k = (t * 7 % 32) as u8;
        }
        w
    }

    #[test]
    fn dispatched_and_portable_paths_agree_bit_for_bit() {
        for seed in 0..20 {
            let mut fast = filled(seed);
            let mut portable = filled(seed);
            fast.accumulate();
            portable.accumulate_portable();
            assert_eq!(fast.acc.map(|r| r.map(f32::to_bits)), portable.acc.map(|r| r.map(f32::to_bits)));
        }
    }

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
