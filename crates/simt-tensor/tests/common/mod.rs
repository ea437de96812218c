//! Helpers shared by the integration tests: running an MMA on row-major
//! matrices, and an independent plain-Rust reference of contract section 8.

#![allow(dead_code)] // each test crate uses its own subset

use half::{bf16, f16};
use simt_isa::{MmaAcc, MmaIn, Opcode};
use simt_tensor::layout::{Operand, Shape, dims, pack, unpack};

/// One instruction form.
#[derive(Clone, Copy, Debug)]
pub struct Form {
    pub opcode: Opcode,
    pub acc: MmaAcc,
    pub input: MmaIn,
}

pub const FORMS: [Form; 9] = [
    Form { opcode: Opcode::Mma, acc: MmaAcc::F32, input: MmaIn::F16 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::F32, input: MmaIn::BF16 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::F16, input: MmaIn::F16 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::S32, input: MmaIn::S8 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::S32, input: MmaIn::U8 },
    Form { opcode: Opcode::MmaM16n8k16, acc: MmaAcc::F32, input: MmaIn::F16 },
    Form { opcode: Opcode::MmaM16n8k16, acc: MmaAcc::F32, input: MmaIn::BF16 },
    Form { opcode: Opcode::MmaSp, acc: MmaAcc::F32, input: MmaIn::F16 },
    Form { opcode: Opcode::MmaSp, acc: MmaAcc::F32, input: MmaIn::BF16 },
];

impl Form {
    pub fn shape(self) -> Shape {
        Shape::of(self.opcode).expect("an MMA opcode")
    }
    pub fn in_per_reg(self) -> usize {
        if matches!(self.input, MmaIn::S8 | MmaIn::U8) { 4 } else { 2 }
    }
    pub fn acc_per_reg(self) -> usize {
        if self.acc == MmaAcc::F16 { 2 } else { 1 }
    }
    pub fn len(self, operand: Operand) -> usize {
        let (rows, cols) = dims(self.shape(), operand);
        rows * cols
    }

    /// Runs the MMA on row-major raw element bits and returns D the same way.
    pub fn run(self, a: &[u32], b: &[u32], c: &[u32], e: Option<&[u32; 32]>) -> Result<Vec<u32>, simt_tensor::MmaError> {
        let shape = self.shape();
        let fa = pack(shape, Operand::A, self.in_per_reg(), a);
        let fb = pack(shape, Operand::B, self.in_per_reg(), b);
        let fc = pack(shape, Operand::C, self.acc_per_reg(), c);
        let mut fd = vec![[0xDEAD_BEEF; 32]; fc.len()];
        simt_tensor::mma(self.opcode, self.acc, self.input, &fa, &fb, &fc, e, &mut fd)?;
        Ok(unpack(shape, Operand::C, self.acc_per_reg(), &fd))
    }

    /// The exact value of an input element.
    pub fn input_f32(self, bits: u32) -> f32 {
        match self.input {
            MmaIn::BF16 => bf16::from_bits(bits as u16).to_f32(),
            _ => f16::from_bits(bits as u16).to_f32(),
        }
    }

    /// The reference result: `c` plus the products of row-major `a` (M x K) and
    /// `b` (K x N), all as raw bits, with a dense K.
    pub fn reference(self, a: &[u32], b: &[u32], c: &[u32], m: usize, k: usize, n: usize) -> Vec<u32> {
        let mut d = Vec::with_capacity(m * n);
        for i in 0..m {
            for j in 0..n {
                let bits = match self.acc {
                    MmaAcc::S32 => {
                        let widen = |x: u32| if self.input == MmaIn::S8 { x as u8 as i8 as i32 } else { x as u8 as i32 };
                        let mut acc = c[i * n + j] as i32;
                        for kk in 0..k {
                            acc = acc.wrapping_add(widen(a[i * k + kk]).wrapping_mul(widen(b[kk * n + j])));
                        }
                        acc as u32
                    }
                    MmaAcc::F32 | MmaAcc::F16 => {
                        let mut acc = match self.acc {
                            MmaAcc::F16 => f16::from_bits(c[i * n + j] as u16).to_f32(),
                            _ => f32::from_bits(c[i * n + j]),
                        };
                        for kk in 0..k {
                            acc = self.input_f32(a[i * k + kk]).mul_add(self.input_f32(b[kk * n + j]), acc);
                        }
                        match (self.acc, acc.is_nan()) {
                            (MmaAcc::F16, true) => 0x7FFF,
                            (MmaAcc::F16, false) => u32::from(f16::from_f32(acc).to_bits()),
                            (_, true) => 0x7FFF_FFFF,
                            (_, false) => acc.to_bits(),
                        }
                    }
                };
                d.push(bits);
            }
        }
        d
    }
}

/// A small deterministic generator for tests that need many values.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }
}
