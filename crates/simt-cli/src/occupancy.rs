//! `simt occupancy`: how many blocks and warps of a kernel fit on an SM, what limits
//! them, and how that changes with registers per thread and shared memory per block.

use std::path::PathBuf;

use clap::Args;

use crate::{Failure, Outcome, load_module, print};

/// Arguments of `simt occupancy`.
#[derive(Args)]
#[command(after_help = "Examples:\n  simt occupancy asm/sgemm.s\n  simt occupancy asm/sgemm.s --block 128 --timing a100")]
pub struct OccupancyArgs {
    /// A `.s` source or bytecode file.
    file: PathBuf,
    /// The kernel (needed when the file has several).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Threads per block, overriding `.launch`; missing extents are 1.
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = crate::run::parse_dims_arg)]
    block: Option<[u32; 3]>,
    /// The machine: a built-in name or a .toml file.
    #[arg(long, value_name = "NAME|FILE.toml", default_value = "h100")]
    timing: String,
    /// Print one JSON object instead of the text report.
    #[arg(long)]
    json: bool,
}

pub fn occupancy(args: OccupancyArgs) -> Outcome {
    let module = load_module(&args.file, None, None)?;
    let kernel = crate::run::select_kernel_of(&module, args.kernel.as_deref(), &args.file)?;
    let machine = crate::timing::machine(&args.timing)?;
    let block = match (args.block, kernel.launch.as_ref()) {
        (Some(b), _) => b,
        (None, Some(l)) => l.block,
        (None, None) => return Err(Failure::input(format!("kernel `{}` has no .launch: give the block size with --block X[,Y[,Z]]", kernel.name))),
    };
    let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
    if threads == 0 || threads > simt_isa::MAX_BLOCK_THREADS {
        return Err(Failure::input(format!("a block of {block:?} has {threads} threads; it needs 1 to {}", simt_isa::MAX_BLOCK_THREADS)));
    }
    let occ = simt_timing::occupancy(&machine, threads as u32, kernel.regs, kernel.shared_size);
    if args.json {
        let text = serde_json::to_string(&occ).map_err(|e| Failure::input(format!("cannot render JSON: {e}")))?;
        return print(&format!("{text}\n"));
    }
    print(&simt_timing::occupancy::render(&machine, &kernel.name, &occ))
}
