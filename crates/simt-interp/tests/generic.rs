//! Generic addresses lane by lane: whatever space each lane's 64-bit address falls in
//! (global, the shared window, the local window), `LD.GENERIC.E` reads what a load of that
//! space at that offset reads, in one instruction whose lanes split between the spaces,
//! under both SIMT models.

mod common;

use common::{assemble_text, buf, launch, request, u32s};
use proptest::prelude::*;
use simt_interp::SimtModel;
use simt_isa::{ArgInit, Literal};

/// `table[i] = i` in global memory, `s[i] = 100 + i` in shared memory and word `i` of every
/// thread's local memory `200 + i`; lane `l` reads element `index[l]` of the space
/// `kind[l]` names (0 global, 1 shared, 2 local) through a generic pointer.
const MIXED: &str = "\
.kernel mixed
.param .ptr.u32 kind
.param .ptr.u32 index
.param .ptr.u32 table
.param .ptr.u32 out
.shared .u32 s[8]
.local 32
    S2R  R0, SR_TID.X
    SHL  R1, R0, 2
    IADD R2, R0, 100
    ISETP.LT P2, R0, 8
@P2 ST.SHARED.U32 [R1+s], R2
    MOV R3, 200
    ST.LOCAL.U32 [0], R3
    MOV R3, 201
    ST.LOCAL.U32 [4], R3
    MOV R3, 202
    ST.LOCAL.U32 [8], R3
    MOV R3, 203
    ST.LOCAL.U32 [12], R3
    MOV R3, 204
    ST.LOCAL.U32 [16], R3
    MOV R3, 205
    ST.LOCAL.U32 [20], R3
    MOV R3, 206
    ST.LOCAL.U32 [24], R3
    MOV R3, 207
    ST.LOCAL.U32 [28], R3
    BAR.SYNC
    LD.PARAM.U32 R4, [kind]
    LEA  R4, R0, R4, 2
    LD.GLOBAL.U32 R5, [R4]
    LD.PARAM.U32 R4, [index]
    LEA  R4, R0, R4, 2
    LD.GLOBAL.U32 R6, [R4]
    SHL  R7, R6, 2
    LD.PARAM.U32 R8, [table]
    IADD R8, R8, R7
    MOV  R9, 0
    ISETP.EQ P0, R5, 1
@P0 IADD R8, R7, s
@P0 MOV  R9, 0x10000
    ISETP.EQ P1, R5, 2
@P1 MOV  R8, R7
@P1 MOV  R9, 0x20000
    LD.GENERIC.E.U32 R10, [R8]
    LD.PARAM.U32 R4, [out]
    LEA  R4, R0, R4, 2
    ST.GLOBAL.U32 [R4], R10
    EXIT
";

fn list(values: &[u32]) -> ArgInit {
    ArgInit::List(values.iter().map(|&v| Literal::Int(i64::from(v))).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn each_lane_reads_the_space_its_window_names(lanes in proptest::collection::vec((0u32..3, 0u32..8), 32)) {
        let module = assemble_text(MIXED);
        let (kinds, indices): (Vec<u32>, Vec<u32>) = lanes.iter().copied().unzip();
        let want: Vec<u32> = lanes.iter().map(|&(kind, i)| [0, 100, 200][kind as usize] + i).collect();
        for simt in [SimtModel::Its, SimtModel::Stack] {
            let args = vec![buf("kind", list(&kinds)), buf("index", list(&indices)), buf("table", ArgInit::Iota(8)), buf("out", ArgInit::Zeros(32))];
            let done = launch(&module, &request([1, 1, 1], [32, 1, 1], args), simt);
            prop_assert_eq!(u32s(done.output("out")), want.clone(), "{:?}", simt);
        }
    }
}
