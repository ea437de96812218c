//! Tensor copies (`TMA.LOAD`, `TMA.STORE`) against a reference that lays boxes out as
//! docs/tensor.md, "Tensor maps", says: elements in order, innermost first, each dimension's
//! count the box over its element stride; out-of-tensor elements zero (loads) or left alone
//! (stores); 16-byte chunks swizzled by the address's row bits. Also `asm/tma.s`, and the
//! faults that misused tensor maps and mbarriers raise.

mod common;

use common::*;
use simt_asm::parse_arg_init;
use simt_host::{Arg, LaunchRequest, prepare};
use simt_interp::{FaultKind, RunOptions, SimtModel, run};
use simt_isa::tensormap::swizzle;

/// A box to copy: the tensor's shape (innermost first), the box, element strides, swizzle span
/// (16: none) and the box's coordinates.
struct BoxCase {
    dims: [u32; 3],
    boxes: [u32; 3],
    strides: [u32; 3],
    span: u32,
    at: [i32; 3],
}

impl BoxCase {
    fn counts(&self) -> [u32; 3] {
        std::array::from_fn(|d| self.boxes[d].div_ceil(self.strides[d]))
    }

    fn bytes(&self) -> u32 {
        self.counts().iter().product::<u32>() * 2
    }

    /// The tensor map argument over `iota` u16 elements (element i holds i).
    fn map(&self) -> String {
        let [d0, d1, d2] = self.dims;
        let [b0, b1, b2] = self.boxes;
        let swizzle = if self.span == 16 { 0 } else { self.span };
        let [s0, s1, s2] = self.strides;
        format!(
            "tensormap(iota({}), box=[{b2}, {b1}, {b0}], shape=[{d2}, {d1}, {d0}], element_strides=[{s2}, {s1}, {s0}], swizzle={swizzle}, type=u16)",
            d0 * d1 * d2
        )
    }

    /// Each box element's tensor index (`None` outside the tensor), in box order.
    fn elements(&self) -> Vec<Option<u32>> {
        let [n0, n1, n2] = self.counts();
        let mut out = Vec::new();
        for i2 in 0..n2 {
            for i1 in 0..n1 {
                for i0 in 0..n0 {
                    let x: [i64; 3] = std::array::from_fn(|d| i64::from(self.at[d]) + i64::from([i0, i1, i2][d] * self.strides[d]));
                    let inside = (0..3).all(|d| (0..i64::from(self.dims[d])).contains(&x[d]));
                    out.push(inside.then(|| (x[0] + i64::from(self.dims[0]) * (x[1] + i64::from(self.dims[1]) * x[2])) as u32));
                }
            }
        }
        out
    }

    /// Shared memory after a load into address 0: each element's u16 where the swizzle puts it.
    fn loaded(&self) -> Vec<u8> {
        let mut shared = vec![0u8; self.bytes() as usize];
        for (i, e) in self.elements().into_iter().enumerate() {
            let at = swizzle(2 * i as u32, self.span) as usize;
            shared[at..at + 2].copy_from_slice(&(e.unwrap_or(0) as u16).to_le_bytes());
        }
        shared
    }
}

/// Loads the box into shared memory with thread 0 and copies shared memory out word by word.
fn load_kernel(case: &BoxCase) -> String {
    let words = case.bytes() / 4;
    let [c0, c1, c2] = case.at;
    format!(
        ".target sm_90
.kernel k
.param .raw.u16 src
.param .ptr.u32 out
.shared .align 1024 .u32 tile[{words}]
.shared .align 8 .u32 bar[2]
.launch grid(1) block(32)
.arg src = {map}
.arg out = zeros({words})
    S2R R0, SR_TID.X
    LD.PARAM.U32 R2, [src]
    MOV R3, 0
    MOV R4, {c0}
    MOV R5, {c1}
    MOV R6, {c2}
    ISETP.EQ.U32 P0, R0, 0
@P0 MBAR.INIT [bar], 1
@P0 MBAR.ARRIVE RZ, [bar], 1, {bytes}
@P0 TMA.LOAD.3D tile, R2, R4, bar
WAIT:
    MBAR.TEST P1, [bar], 0
@!P1 BRA WAIT
    LD.PARAM.U32 R8, [out]
    MOV R9, R0
COPY:
    SHL R10, R9, 2
    LD.SHARED.U32 R11, [R10+tile]
    IADD R12, R10, R8
    ST.GLOBAL.U32 [R12], R11
    IADD R9, R9, 32
    ISETP.LT.U32 P2, R9, {words}
@P2 BRA COPY
    EXIT
",
        map = case.map(),
        bytes = case.bytes(),
    )
}

#[test]
fn loads_lay_boxes_out_zero_filled_and_swizzled() {
    let cases = [
        // Inside the tensor, unswizzled, every element.
        BoxCase { dims: [64, 8, 2], boxes: [16, 4, 2], strides: [1, 1, 1], span: 16, at: [8, 2, 0] },
        // Hanging over every edge: negative coordinates and past the ends read zeros.
        BoxCase { dims: [40, 5, 3], boxes: [32, 8, 2], strides: [1, 1, 1], span: 64, at: [-8, -2, 2] },
        // 128-byte rows, 128-byte swizzle; every second row and plane.
        BoxCase { dims: [128, 32, 4], boxes: [64, 16, 4], strides: [1, 2, 2], span: 128, at: [64, 3, 1] },
        // 32-byte swizzle, rows of 32 bytes.
        BoxCase { dims: [16, 16, 1], boxes: [16, 16, 1], strides: [1, 1, 1], span: 32, at: [0, 0, 0] },
    ];
    for case in &cases {
        let module = assemble_text(&load_kernel(case));
        for simt in MODELS {
            let l = launch(&module, &LaunchRequest::default(), simt);
            assert_eq!(l.output("out"), case.loaded().as_slice(), "box {:?} at {:?}, swizzle {}", case.boxes, case.at, case.span);
        }
    }
}

/// Fills shared memory with words 0x1000.. , stores it as the box at `at`, and dumps the tensor.
fn store_kernel(case: &BoxCase) -> String {
    let words = case.bytes() / 4;
    let [c0, c1, c2] = case.at;
    format!(
        ".target sm_90
.kernel k
.param .raw.u16 dst
.shared .align 1024 .u32 tile[{words}]
.launch grid(1) block(32)
.arg dst = {map}
    S2R R0, SR_TID.X
    MOV R9, R0
FILL:
    SHL R10, R9, 1
    IADD R11, R10, 0x1000
    IADD R12, R10, 0x1001
    BFI R11, R12, R11, 16, 16
    SHL R10, R9, 2
    ST.SHARED.U32 [R10+tile], R11
    IADD R9, R9, 32
    ISETP.LT.U32 P2, R9, {words}
@P2 BRA FILL
    BAR.SYNC
    LD.PARAM.U32 R2, [dst]
    MOV R3, 0
    MOV R4, {c0}
    MOV R5, {c1}
    MOV R6, {c2}
    ISETP.EQ.U32 P0, R0, 0
@P0 TMA.STORE.3D R2, R4, tile
    EXIT
",
        map = case.map(),
    )
}

#[test]
fn stores_write_the_box_but_not_past_the_tensor() {
    let cases = [
        BoxCase { dims: [40, 6, 2], boxes: [16, 4, 2], strides: [1, 1, 1], span: 32, at: [32, 4, 1] },
        BoxCase { dims: [64, 8, 2], boxes: [64, 4, 1], strides: [1, 1, 1], span: 128, at: [0, -2, 1] },
    ];
    for case in &cases {
        let module = assemble_text(&store_kernel(case));
        for simt in MODELS {
            let l = launch(&module, &LaunchRequest::default(), simt);
            // The tensor started as iota; where the box lands, element i of the box (at shared
            // byte 2i, swizzled) holds 0x1000 + its unswizzled position there.
            let mut want: Vec<u16> = (0..case.dims.iter().product::<u32>()).map(|i| i as u16).collect();
            for (i, e) in case.elements().into_iter().enumerate() {
                if let Some(e) = e {
                    want[e as usize] = 0x1000 + (swizzle(2 * i as u32, case.span) / 2) as u16;
                }
            }
            let got: Vec<u16> = l.output("dst").chunks_exact(2).map(|b| u16::from_le_bytes([b[0], b[1]])).collect();
            assert_eq!(got, want, "box {:?} at {:?}", case.boxes, case.at);
        }
    }
}

#[test]
fn asm_tma_transposes_through_tensor_maps() {
    let module = load("tma.s");
    for simt in MODELS {
        let l = launch(&module, &LaunchRequest::default(), simt);
        let (src, dst) = (f32s(l.output("src")), f32s(l.output("dst")));
        for r in 0..64 {
            for c in 0..64 {
                assert_eq!(dst[r * 64 + c].to_bits(), src[c * 64 + r].to_bits(), "dst[{r}][{c}]");
            }
        }
    }
}

/// A phase that waits for more bytes than come never completes: once every warp has tested it
/// in a loop for 2^20 instructions without progress (testing an mbarrier changes nothing), the
/// launch stops with a deadlock at the test that says what the mbarrier still waits for.
#[test]
fn a_wait_for_bytes_that_never_come_is_a_deadlock() {
    let text = std::fs::read_to_string(asm_dir().join("tma.s")).unwrap().replace("MBAR.ARRIVE RZ, [bar], 1, 4096", "MBAR.ARRIVE RZ, [bar], 1, 8192");
    let module = assemble_text(&text);
    let prepared = prepared(&module, &LaunchRequest::default());
    for simt in MODELS {
        let options = RunOptions { simt, ..RunOptions::default() };
        let f = run(&module.kernels[0], &prepared.config, &prepared.memory, &options, None).expect_err("a deadlock");
        assert_eq!(f.kind, FaultKind::Deadlock, "{}", f.message);
        assert!(f.message.contains("waits for an mbarrier phase that cannot complete"), "{}", f.message);
        let notes = f.notes.join("\n");
        assert!(notes.contains("warps 0, 1, 2, 3 test the mbarrier at shared address 0x2000 for its phase of parity 0"), "{notes}");
        assert!(notes.contains("waiting for 0 of its 1 arrivals and 4096 transaction bytes"), "{notes}");
        assert!(f.render(&module, false).contains("MBAR.TEST P1, [bar], 0"), "{}", f.render(&module, false));
    }
}

/// A warp that tests an mbarrier in a loop while another works for longer than the deadlock
/// bound without progress (a register loop) and then arrives is no deadlock: the wait ends.
#[test]
fn a_long_wait_that_another_warp_ends_is_no_deadlock() {
    let text = "
.target sm_90
.kernel k
.param .ptr.u32 out
.shared .align 8 .u32 bar[2]
.launch grid(1) block(64)
.arg out = zeros(1)
    S2R R0, SR_TID.X
    ISETP.EQ.U32 P0, R0, 0
@P0 MBAR.INIT [bar], 1
    BAR.SYNC
    ISETP.GE.U32 P1, R0, 32
@P1 BRA WORK
WAIT:
    MBAR.TEST P2, [bar], 0
@!P2 BRA WAIT
    EXIT
WORK:
    MOV R1, 0
SPIN:
    IADD R1, R1, 1
    ISETP.LT.U32 P3, R1, 0x80000    // 2^19 turns, three instructions each
@P3 BRA SPIN
    ISETP.EQ.U32 P4, R0, 32
@P4 MBAR.ARRIVE RZ, [bar], 1, 0
@P4 LD.PARAM.U32 R2, [out]
@P4 ST.GLOBAL.U32 [R2], R1
    EXIT
";
    let l = launch(&assemble_text(text), &LaunchRequest::default(), SimtModel::Its);
    assert_eq!(u32s(l.output("out")), [0x8_0000]);
}

/// The fault a one-warp kernel raises, rendered, given its body and the `src` argument.
fn fault(body: &str, src: &str) -> (FaultKind, String) {
    let text = format!(
        ".target sm_90\n.kernel k\n.param .raw.u16 src\n.shared .align 1024 .u32 tile[256]\n.shared .align 8 .u32 bar[2]\n.launch grid(1) block(32)\n    LD.PARAM.U32 R2, [src]\n    MOV R3, 0\n    MOV R4, 0\n    MOV R5, 0\n{body}\n    EXIT\n"
    );
    let module = assemble_text(&text);
    let request = LaunchRequest { args: vec![Arg::new("src", parse_arg_init(src).unwrap())], ..LaunchRequest::default() };
    let prepared = prepare(&module.kernels[0], &request).unwrap();
    let options = RunOptions { simt: SimtModel::Its, ..RunOptions::default() };
    let f = run(&module.kernels[0], &prepared.config, &prepared.memory, &options, None).expect_err("a fault");
    (f.kind, f.message)
}

#[test]
fn misuse_faults_and_says_why() {
    let map = "tensormap(zeros(4096), box=[16, 32], shape=[64, 64], type=u16)";
    let cases = [
        ("MBAR.INIT [bar], 1\nTMA.LOAD.2D tile, R2, R4, bar", "fill(64, 7)", FaultKind::Async, "not a tensor map"),
        ("MBAR.INIT [bar], 1\nTMA.LOAD.2D tile, R2, R4, bar", "[1, 2, 3, 4]", FaultKind::OutOfBounds, "reads 128 bytes at 0x100, past the end of buffer `src`"),
        ("MBAR.INIT [bar], 1\nTMA.LOAD.1D tile, R2, R4, bar", map, FaultKind::Async, "rank 1, but the tensor map"),
        ("MBAR.INIT [bar], 1\nTMA.LOAD.2D 64, R2, R4, bar", map, FaultKind::Misaligned, "not 128-byte aligned"),
        ("MBAR.INIT [bar], 1\nTMA.LOAD.2D 0x400, R2, R4, bar", map, FaultKind::OutOfBounds, "past the block's"),
        // 2^32 bytes: counted in 64 bits, not wrapped to an empty box.
        (
            "MBAR.INIT [bar], 1\nTMA.LOAD.5D tile, R2, R4, bar",
            "tensormap(zeros(16), box=[16, 256, 256, 256, 16], shape=[1, 1, 1, 1, 16], type=u8)",
            FaultKind::OutOfBounds,
            "a box of 4294967296 bytes",
        ),
        ("MBAR.ARRIVE RZ, [bar], 1, 0", map, FaultKind::Async, "is it initialised"),
        ("MBAR.INIT [bar], 1\nMBAR.ARRIVE RZ, [bar], 2, 0", map, FaultKind::Async, "arrives 2 times where its phase waits for 1"),
        ("MBAR.INIT [bar], 0", map, FaultKind::Async, "a count of 0"),
        ("MBAR.INIT [bar], 1\nMBAR.TX.EXPECT [bar], 0x100000", map, FaultKind::Async, "outside PTX's"),
        ("MBAR.INIT [bar+4], 1", map, FaultKind::Misaligned, "8-byte aligned"),
    ];
    for (body, src, kind, words) in cases {
        let (got, message) = fault(body, src);
        assert_eq!(got, kind, "{body}: {message}");
        assert!(message.contains(words), "{body}: `{message}` does not say `{words}`");
    }
}
