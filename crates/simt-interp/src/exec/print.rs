//! `PRINTF` and `VPRINTF`: each executing lane renders a format with its arguments into one
//! record of the launch's output. Records are kept per block in the order they are made,
//! and ordered once the launch ends (`stats::in_print_order`).

use simt_isa::printf::{Format, RenderError};
use simt_isa::{MAX_PRINTF_ARGS, MAX_PRINTF_FIELD, MAX_PRINTF_STRING, PRINTF_RECORD_BYTES};

use super::memory::{Loc, generic_place};
use super::{Executor, write};
use crate::decode::Reg;
use crate::fault::{Fault, FaultKind, Remedy};
use crate::stats::Printed;
use crate::warp::lanes;

/// A print: where its format and arguments are.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PrintOp {
    /// `PRINTF`: one of the kernel's formats, the arguments in registers from `a` on.
    Registers { format: u16, a: Reg },
    /// `VPRINTF`: the format and the argument buffer at the generic addresses in pairs
    /// `format` and `args`; `d` gets the number of arguments.
    Memory { d: Reg, format: Reg, args: Reg },
}

impl Executor<'_> {
    /// Makes one record for each `exec` lane of warp `w`, in lane order.
    pub(crate) fn print(&mut self, w: usize, pc: u32, op: PrintOp, exec: u32, printed: &mut Vec<Printed>) -> Result<(), Fault> {
        let launch = self.launch;
        let line = launch.kernel.line(pc).unwrap_or(0);
        let mut arguments = [0u32; 32];
        for l in lanes(exec) {
            let mut args = [0u32; 2 * MAX_PRINTF_ARGS];
            let read;
            let format = match op {
                PrintOp::Registers { format, a } => {
                    let format = &launch.program.formats[usize::from(format)];
                    for (i, arg) in args.iter_mut().take(usize::from(format.words())).enumerate() {
                        *arg = self.warps[w].row(a + i as Reg)[l];
                    }
                    format
                }
                PrintOp::Memory { format, args: buffer, .. } => {
                    let address = self.pair(w, format, l);
                    if address == 0 {
                        // CUDA's printf returns -1 for a null format and prints nothing.
                        arguments[l] = u32::MAX;
                        continue;
                    }
                    let text = self.read_text(w, l, pc, address)?;
                    read = Format::parse(&text).map_err(|e| {
                        let message = format!("{}'s format at {address:#x}, {}: {e}", self.mnemonic(pc), simt_isa::printf::quote(&text));
                        self.fault(FaultKind::Printf, w, Some(l), Some(pc), message)
                    })?;
                    let buffer = self.pair(w, buffer, l);
                    for (i, arg) in args.iter_mut().take(usize::from(read.words())).enumerate() {
                        *arg = self.read(w, l, pc, buffer.wrapping_add(4 * i as u64), 4)?;
                    }
                    arguments[l] = u32::from(read.arguments());
                    &read
                }
            };
            let mut text = Vec::new();
            format.render(|i| args[usize::from(i)], |addr, most| self.read_string(w, l, pc, addr, most), &mut text).map_err(|e| match e {
                RenderError::String(fault) => fault,
                RenderError::Field(value) => {
                    let message = format!("{}'s `*` argument is {value}; a width or precision is at most {MAX_PRINTF_FIELD}", self.mnemonic(pc));
                    self.fault(FaultKind::Printf, w, Some(l), Some(pc), message)
                }
            })?;
            if !launch.print(text.len() as u64 + PRINTF_RECORD_BYTES) {
                let limit = launch.options.printf_limit;
                let mut fault = self.fault(FaultKind::Printf, w, Some(l), Some(pc), format!("the launch printed more than {limit} bytes, its limit"));
                fault.remedy = Some(Remedy::MorePrintf);
                return Err(fault);
            }
            printed.push(Printed {
                block: self.linear,
                interval: self.barriers_opened,
                warp: w as u32,
                thread: self.thread_of(w, l),
                line,
                text: String::from_utf8(text).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            });
        }
        if let PrintOp::Memory { d, .. } = op {
            write(&mut self.warps[w], d, &arguments, exec);
        }
        Ok(())
    }

    /// Lane `l`'s value of the register pair starting at `r`.
    pub(crate) fn pair(&self, w: usize, r: Reg, l: usize) -> u64 {
        let warp = &self.warps[w];
        u64::from(warp.row(r)[l]) | u64::from(warp.row(r + 1)[l]) << 32
    }

    /// `size` (1 or 4) bytes at generic address `addr`, as lane `l`'s load of them would
    /// read them (the same faults).
    fn read(&mut self, w: usize, l: usize, pc: u32, addr: u64, size: u32) -> Result<u32, Fault> {
        let Some((space, offset)) = generic_place(self.launch.memory, addr) else {
            let message = format!("{} reads address {addr:#018x}, which no region contains", self.mnemonic(pc));
            return Err(self.fault(FaultKind::Unmapped, w, Some(l), Some(pc), message));
        };
        Ok(match self.resolve(w, l, pc, space, offset, size, false)? {
            Loc::Global(i, off) => self.launch.memory.read(i, off, size),
            Loc::Bytes(at) if size == 4 => self.words(space)[at / 4],
            Loc::Bytes(at) => (self.words(space)[at / 4] >> (8 * (at % 4))) & 0xFF,
        })
    }

    /// The string at generic address `addr`, up to its NUL (bytes that are not UTF-8 as U+FFFD).
    pub(crate) fn read_text(&mut self, w: usize, l: usize, pc: u32, addr: u64) -> Result<String, Fault> {
        Ok(String::from_utf8_lossy(&self.read_string(w, l, pc, addr, usize::MAX)?).into_owned())
    }

    /// The bytes of the string at generic address `addr` before its NUL, at most `most` of
    /// them; one longer than [`MAX_PRINTF_STRING`] is a fault.
    fn read_string(&mut self, w: usize, l: usize, pc: u32, addr: u64, most: usize) -> Result<Vec<u8>, Fault> {
        let mut bytes = Vec::new();
        while bytes.len() < most {
            if bytes.len() == MAX_PRINTF_STRING {
                let message = format!("{} reads a string at {addr:#x} with no NUL in its first {MAX_PRINTF_STRING} bytes", self.mnemonic(pc));
                return Err(self.fault(FaultKind::Printf, w, Some(l), Some(pc), message));
            }
            match self.read(w, l, pc, addr.wrapping_add(bytes.len() as u64), 1)? {
                0 => break,
                byte => bytes.push(byte as u8),
            }
        }
        Ok(bytes)
    }
}
