//! Library use of simt: assemble a kernel from a string, create its buffers,
//! launch it and read a buffer back.
//!
//! Run with `cargo run --release --example saxpy`.

use simt_host::{self as host, Arg, LaunchRequest};
use simt_interp::RunOptions;
use simt_isa::{ArgInit, Literal};

const SOURCE: &str = "
.kernel saxpy
.param .u32 n
.param .f32 a
.param .ptr.f32 x
.param .ptr.f32 y
    S2R     R0, SR_TID.X
    S2R     R1, SR_CTAID.X
    S2R     R2, SR_NTID.X
    IMAD    R0, R1, R2, R0
    LD.PARAM.U32 R3, [n]
    ISETP.GE.U32 P0, R0, R3
@P0 EXIT
    LD.PARAM.U32 R4, [x]
    LD.PARAM.U32 R5, [y]
    LEA     R4, R0, R4, 2
    LEA     R5, R0, R5, 2
    LD.GLOBAL.F32 R6, [R4]
    LD.GLOBAL.F32 R7, [R5]
    LD.PARAM.F32 R8, [a]
    FFMA    R7, R8, R6, R7
    ST.GLOBAL.F32 [R5], R7
    EXIT
";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let module = simt_asm::assemble("saxpy.s", SOURCE).map_err(|d| d.render(false))?;
    let kernel = module.kernel("saxpy").ok_or("no kernel `saxpy`")?;

    // Arguments take the same forms as `--arg`; here they are built directly.
    let n = 1000;
    let request = LaunchRequest {
        grid: Some([(n as u32).div_ceil(256), 1, 1]),
        block: Some([256, 1, 1]),
        args: vec![
            Arg::new("n", ArgInit::Scalar(Literal::Int(n))),
            Arg::new("a", ArgInit::Scalar(Literal::Float(0.5))),
            Arg::new("x", ArgInit::Iota(n as u64)),
            Arg::new("y", ArgInit::Fill(n as u64, Literal::Int(1))),
        ],
        module_dir: None,
    };
    let launch = host::prepare(kernel, &request)?;
    let stats = simt_interp::run(kernel, &launch.config, &launch.memory, &RunOptions::default(), None).map_err(|fault| fault.render(&module, false))?;

    let (elem, bytes) = launch.buffer("y").ok_or("no buffer `y`")?;
    let y: Vec<String> = simt_io::elements(elem, &bytes).take(4).map(|e| e.to_string()).collect();
    println!("y[0..4] = {}  ({} warp instructions)", y.join(", "), stats.warp_instructions);
    Ok(())
}
