//! Helpers shared by the integration tests: running an MMA on row-major
//! matrices, an independent plain-Rust reference of contract sections 8 and 9, and
//! the files of the shared conformance cases.

#![allow(dead_code)] // each test crate uses its own subset

use half::{bf16, f16};
use simt_isa::{MmaAcc, MmaIn, Opcode};
use simt_tensor::layout::{Operand, Shape, dims, elements_per_lane, pack, pack64, unpack, unpack64};
use std::path::PathBuf;

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

/// The section 9 forms, `MMA.M8N8K4.F64.F64` last.
pub const LOWP_FORMS: [Form; 7] = [
    Form { opcode: Opcode::Mma, acc: MmaAcc::F32, input: MmaIn::TF32 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::F32, input: MmaIn::E4M3 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::F32, input: MmaIn::E5M2 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::F32, input: MmaIn::E2M1 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::S32, input: MmaIn::S4 },
    Form { opcode: Opcode::Mma, acc: MmaAcc::S32, input: MmaIn::U4 },
    Form { opcode: Opcode::MmaM8n8k4, acc: MmaAcc::F64, input: MmaIn::F64 },
];

impl Form {
    pub fn shape(self) -> Shape {
        Shape::of(self.opcode).expect("an MMA opcode")
    }
    /// Input elements per register (0 for f64, whose elements take two).
    pub fn in_per_reg(self) -> usize {
        match self.input {
            MmaIn::TF32 => 1,
            MmaIn::F16 | MmaIn::BF16 => 2,
            MmaIn::S8 | MmaIn::U8 | MmaIn::E4M3 | MmaIn::E5M2 => 4,
            MmaIn::E2M1 | MmaIn::S4 | MmaIn::U4 => 8,
            MmaIn::F64 => 0,
            MmaIn::E2M3 | MmaIn::E3M2 => unreachable!("6-bit elements come only in MMA.SCALED's bytes"),
        }
    }
    pub fn acc_per_reg(self) -> usize {
        match self.acc {
            MmaAcc::F16 => 2,
            MmaAcc::F32 | MmaAcc::S32 => 1,
            MmaAcc::F64 => 0,
        }
    }
    /// Registers of an operand's fragment.
    pub fn regs(self, operand: Operand) -> usize {
        let elements = elements_per_lane(self.shape(), operand);
        match if operand == Operand::C { self.acc_per_reg() } else { self.in_per_reg() } {
            0 => 2 * elements,
            per => elements / per,
        }
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
        simt_tensor::mma(self.opcode, self.acc, self.input, false, &fa, &fb, &fc, e, &mut fd)?;
        Ok(unpack(shape, Operand::C, self.acc_per_reg(), &fd))
    }

    /// The exact value of an input element, decoded here from the format's
    /// definition (independently of `simt_tensor::formats`).
    pub fn input_f32(self, bits: u32) -> f32 {
        match self.input {
            MmaIn::BF16 => bf16::from_bits(bits as u16).to_f32(),
            MmaIn::TF32 => f32::from_bits(bits & !0x1FFF),
            MmaIn::E4M3 if bits & 0x7F == 0x7F => f32::NAN,
            MmaIn::E4M3 => minifloat(bits, 4, 3),
            MmaIn::E5M2 if bits & 0x7F == 0x7C => {
                if bits & 0x80 == 0 {
                    f32::INFINITY
                } else {
                    f32::NEG_INFINITY
                }
            }
            MmaIn::E5M2 if bits & 0x7C == 0x7C => f32::NAN,
            MmaIn::E5M2 => minifloat(bits, 5, 2),
            MmaIn::E2M1 => minifloat(bits, 2, 1),
            _ => f16::from_bits(bits as u16).to_f32(),
        }
    }

    /// The value of an integer input element.
    pub fn input_i32(self, bits: u32) -> i32 {
        match self.input {
            MmaIn::S8 => bits as u8 as i8 as i32,
            MmaIn::S4 => {
                if bits & 8 != 0 {
                    (bits & 15) as i32 - 16
                } else {
                    (bits & 15) as i32
                }
            }
            _ => bits as i32,
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
                        let mut acc = c[i * n + j] as i32;
                        for kk in 0..k {
                            acc = acc.wrapping_add(self.input_i32(a[i * k + kk]).wrapping_mul(self.input_i32(b[kk * n + j])));
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
                    MmaAcc::F64 => panic!("f64 forms use reference_f64"),
                };
                d.push(bits);
            }
        }
        d
    }
}

/// The value of a sign / `exp`-bit exponent / `man`-bit mantissa code, from
/// the textbook formula (bias `2^(exp-1) - 1`, subnormals at the bottom exponent).
fn minifloat(bits: u32, exp: u32, man: u32) -> f32 {
    let sign = if bits >> (exp + man) & 1 == 1 { -1.0 } else { 1.0 };
    let bias = (1 << (exp - 1)) - 1;
    let field = (bits >> man) & ((1 << exp) - 1);
    let fraction = f64::from(bits & ((1 << man) - 1)) / f64::from(1 << man);
    let magnitude = if field == 0 { fraction * 2f64.powi(1 - bias) } else { (1.0 + fraction) * 2f64.powi(field as i32 - bias) };
    (sign * magnitude) as f32
}

/// Runs `MMA.M8N8K4.F64.F64` on row-major f64 bits (A 8x4, B 4x8, C 8x8).
pub fn run_f64(a: &[u64], b: &[u64], c: &[u64]) -> Result<Vec<u64>, simt_tensor::MmaError> {
    let shape = Shape::M8N8K4;
    let (fa, fb, fc) = (pack64(shape, Operand::A, a), pack64(shape, Operand::B, b), pack64(shape, Operand::C, c));
    let mut fd = vec![[0xDEAD_BEEF; 32]; 4];
    simt_tensor::mma(Opcode::MmaM8n8k4, MmaAcc::F64, MmaIn::F64, false, &fa, &fb, &fc, None, &mut fd)?;
    Ok(unpack64(shape, Operand::C, &fd))
}

/// The f64 reference: a DFMA chain per element from C in increasing k.
pub fn reference_f64(a: &[u64], b: &[u64], c: &[u64]) -> Vec<u64> {
    let f = f64::from_bits;
    (0..64)
        .map(|ij| {
            let (i, j) = (ij / 8, ij % 8);
            let acc = (0..4).fold(f(c[ij]), |acc, k| f(a[i * 4 + k]).mul_add(f(b[k * 8 + j]), acc));
            if acc.is_nan() { 0x7FFF_FFFF_FFFF_FFFF } else { acc.to_bits() }
        })
        .collect()
}

/// A small deterministic generator for tests that need many values.
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }
}

/// The directory of a conformance case: the copy committed under
/// `tests/fixtures/conformance/NAME` (CI checks it matches the shared suite).
pub fn case_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance").join(name)
}

/// The bytes of a file of a case.
pub fn case_file(name: &str, file: &str) -> Vec<u8> {
    std::fs::read(case_dir(name).join(file)).unwrap_or_else(|e| panic!("{name}/{file}: {e}"))
}

/// The raw little-endian data of a 1-D `.npy` file and its `descr`.
pub fn npy(name: &str, file: &str) -> (String, Vec<u8>) {
    let bytes = case_file(name, file);
    assert_eq!(&bytes[..6], b"\x93NUMPY", "{file}: not an .npy file");
    let (header_len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        _ => (u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize, 12),
    };
    let header = std::str::from_utf8(&bytes[start..start + header_len]).unwrap();
    assert!(header.contains("'fortran_order': False"), "{file}: {header}");
    let descr = header.split("'descr': '").nth(1).and_then(|rest| rest.split('\'').next()).unwrap().to_string();
    (descr, bytes[start + header_len..].to_vec())
}

/// Little-endian 32-bit words.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// A file of 32-bit values (f32, u32 or i32) as raw bits.
pub fn npy_u32(name: &str, file: &str) -> Vec<u32> {
    let (descr, data) = npy(name, file);
    assert!(matches!(descr.as_str(), "<f4" | "<u4" | "<i4"), "{file}: {descr}");
    words(&data)
}

/// The runs of a case's `case.json` whose command runs `kernel`.
pub fn runs(name: &str, kernel: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(case_dir(name).join("case.json")).unwrap();
    let runs: serde_json::Value = serde_json::from_str(&text).unwrap();
    let runs: Vec<_> = runs.as_array().unwrap().iter().filter(|run| run["cmd"][1] == kernel).cloned().collect();
    assert!(!runs.is_empty(), "{name}: no run of {kernel}");
    runs
}

/// The contents of dump `bin` expected by one run, as raw bits: `f32` values
/// as their bits, `u32` and `u8` as they are; `None` if the run has no such dump.
pub fn bin_of(run: &serde_json::Value, bin: &str) -> Option<Vec<u32>> {
    let dump = run["bins"].get(bin)?;
    let values = dump[1].as_array().unwrap().iter();
    Some(match dump[0].as_str().unwrap() {
        "f32" => values.map(|v| (v.as_f64().unwrap() as f32).to_bits()).collect(),
        "u32" | "u8" => values.map(|v| u32::try_from(v.as_u64().unwrap()).unwrap()).collect(),
        other => panic!("{bin}: dump type {other}"),
    })
}

/// The expected contents of dump `bin` of every run of `kernel` that has it
/// (all must agree).
pub fn expected_bin(name: &str, kernel: &str, bin: &str) -> Vec<u32> {
    let mut expected: Option<Vec<u32>> = None;
    for values in runs(name, kernel).iter().filter_map(|run| bin_of(run, bin)) {
        if let Some(earlier) = &expected {
            assert_eq!(&values, earlier, "{name}: runs disagree on {bin}");
        }
        expected = Some(values);
    }
    expected.unwrap_or_else(|| panic!("{name}: no run of {kernel} dumps {bin}"))
}
