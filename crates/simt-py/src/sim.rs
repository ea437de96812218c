//! `kernel.launch(...)`: a launch stepped one warp instruction at a time, for
//! notebooks that show divergence as it happens.
//!
//! Blocks are made resident one at a time, in linear order, on the SM `run`
//! would give them; inside a block, `step()` issues warps round-robin, opens
//! a complete barrier and applies the `its` forced release when nothing can
//! issue, as the stepping driver of `simt-interp`'s tests does. Results of
//! race-free kernels are those of `run` (the stepping API's invariant).

use std::collections::BTreeSet;
use std::sync::Arc;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use simt_host::PreparedLaunch;
use simt_interp::launch::sm_of_block;
use simt_interp::{BlockSim, Counters, Peek, RunOptions, StepResult, WordBytes};
use simt_isa::{Kernel as IsaKernel, Module};

use crate::{Copied, LaunchError, Returned, RunResult, fault_error, json_to_py, result_of, to_value_error, write_back};

/// What the launch borrows; boxed, so its address stays put while `Sim` moves.
struct Owned {
    kernel: IsaKernel,
    prepared: PreparedLaunch,
    options: RunOptions,
}

/// A launch being stepped. Fields drop in declaration order: the block borrows the
/// launch, which borrows `owned`, so both go before what they point into.
///
/// ```python
/// sim = simt.load("asm/divergence/if_else.s")["if_else"].launch(model="stack")
/// sim.step()["opcode"], sim.block, sim.steps   # ('S2R', 0, 1)
/// ```
#[pyclass(unsendable, module = "simt")]
pub(crate) struct Sim {
    block: Option<BlockSim<'static>>,
    launch: Box<simt_interp::Launch<'static>>,
    owned: Box<Owned>,
    module: Arc<Module>,
    /// Writeable arrays copied in, written back when the launch ends.
    copied: Vec<Copied>,
    /// The resident block's linear index.
    current: u64,
    /// The warp the round-robin tries first.
    next_warp: usize,
    counters: Counters,
    /// Set once every block has run; the launch's result.
    result: Option<Py<RunResult>>,
    /// Issues so far.
    steps: u64,
    /// The line a breakpoint stopped at, so the next `run` goes past it.
    stopped_at: Option<u32>,
}

impl Sim {
    pub(crate) fn new(module: Arc<Module>, index: usize, prepared: PreparedLaunch, options: RunOptions, copied: Vec<Copied>) -> PyResult<Sim> {
        let owned = Box::new(Owned { kernel: module.kernels[index].clone(), prepared, options });
        // SAFETY: `owned` is boxed and never moved out of or mutated while `launch` lives;
        // `launch` is dropped before it (field order), so the references never dangle.
        let (kernel, config, memory, options): (&'static IsaKernel, _, _, &'static RunOptions) = unsafe {
            let o: &'static Owned = &*(owned.as_ref() as *const Owned);
            (&o.kernel, &o.prepared.config, &o.prepared.memory, &o.options)
        };
        let launch = simt_interp::Launch::new(kernel, config, memory, options).map_err(|e| LaunchError::new_err(format!("cannot launch: {e}")))?;
        let launch = Box::new(launch);
        let counters = Counters::new(kernel.code.len());
        let mut sim = Sim { block: None, launch, owned, module, copied, current: 0, next_warp: 0, counters, result: None, steps: 0, stopped_at: None };
        sim.make_resident(0);
        Ok(sim)
    }

    fn make_resident(&mut self, linear: u64) {
        // SAFETY: `launch` is boxed and outlives `block` (dropped first, and replaced
        // only here, before any new borrow is made).
        let launch: &'static simt_interp::Launch<'static> = unsafe { &*(self.launch.as_ref() as *const simt_interp::Launch<'static>) };
        self.block = None;
        self.current = linear;
        self.next_warp = 0;
        self.block = Some(launch.block(linear, sm_of_block(linear, self.owned.options.sms)));
    }

    fn kernel(&self) -> &IsaKernel {
        &self.owned.kernel
    }

    /// Issues one warp instruction (of `only` when given); `None` once the launch has ended.
    fn issue(&mut self, only: Option<usize>) -> Result<Option<Issued>, Box<simt_interp::Fault>> {
        loop {
            let Some(block) = self.block.as_mut() else { return Ok(None) };
            let warps = block.warp_count();
            let order: Vec<usize> = match only {
                Some(w) => vec![w],
                None => (0..warps).map(|i| (self.next_warp + i) % warps).collect(),
            };
            for w in order {
                if let StepResult::Issued(step) = block.step(w).map_err(Box::new)? {
                    self.next_warp = (w + 1) % warps;
                    self.steps += 1;
                    return Ok(Some(Issued { block: self.current, warp: w, step }));
                }
            }
            if block.is_done() {
                let done = self.block.take().expect("a resident block").into_counters();
                self.counters.add(&done);
                if self.current + 1 < self.launch.blocks() {
                    self.make_resident(self.current + 1);
                }
                continue;
            }
            if block.release_barrier() || block.force_progress().map_err(Box::new)? {
                continue;
            }
            // Only `only` was asked for and it cannot issue while others can.
            return Ok(None);
        }
    }

    /// The line the next issue would be at, if the round-robin's next warp can issue.
    fn next_line(&mut self) -> Option<u32> {
        let block = self.block.as_mut()?;
        let warps = block.warp_count();
        let next = (0..warps).map(|i| (self.next_warp + i) % warps).find_map(|w| match block.peek(w) {
            Peek::Issue(p) => Some(p.pc),
            _ => None,
        })?;
        self.owned.kernel.line(next)
    }

    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<RunResult>> {
        if let Some(result) = &self.result {
            return Ok(result.clone_ref(py));
        }
        let stats = self.launch.stats(&self.counters);
        // The launch still borrows the memory, so simt's own buffers are copied out; the
        // caller's arrays come back as themselves.
        let prepared = &self.owned.prepared;
        write_back(py, &prepared.memory, &self.copied)?;
        let buffers = prepared
            .buffers
            .iter()
            .filter_map(|(name, elem)| {
                let buffer = prepared.memory.buffer(name)?;
                let lent = buffer.lender().and_then(|l| l.downcast_ref::<Py<PyAny>>());
                let out = match lent.or_else(|| self.copied.iter().find(|c| c.name == *name).map(|c| &c.array)) {
                    Some(array) => Returned::Array(array.clone_ref(py)),
                    None => Returned::Bytes(WordBytes::from_bytes(&buffer.bytes())),
                };
                Some((name.clone(), *elem, out))
            })
            .collect();
        let result = result_of(py, self.kernel(), &prepared.config, buffers, &stats, None, None, false)?;
        let result = Py::new(py, result)?;
        self.result = Some(result.clone_ref(py));
        Ok(result)
    }
}

/// One issued warp instruction.
struct Issued {
    block: u64,
    warp: usize,
    step: simt_interp::Step,
}

#[pymethods]
impl Sim {
    /// Issues one warp instruction (round-robin over the resident block's warps, or
    /// warp `warp` only) and returns what it did as a dict (block, warp, pc, line,
    /// opcode, active, executed, and the branch taken when there is one); None once the
    /// launch has ended, or when `warp` cannot issue now.
    ///
    /// ```python
    /// sim = simt.load("asm/divergence/if_else.s")["if_else"].launch()
    /// sim.step()["opcode"]   # 'S2R'
    /// ```
    #[pyo3(signature = (warp=None))]
    fn step<'py>(&mut self, py: Python<'py>, warp: Option<usize>) -> PyResult<Option<Bound<'py, PyDict>>> {
        if let Some(w) = warp
            && let Some(block) = &self.block
            && w >= block.warp_count()
        {
            return Err(PyValueError::new_err(format!("warp {w} does not exist: the block has {} warps", block.warp_count())));
        }
        self.stopped_at = None;
        let issued = self.issue(warp).map_err(|f| fault_error(py, &self.module, *f))?;
        let Some(Issued { block, warp, step }) = issued else { return Ok(None) };
        let record = PyDict::new(py);
        record.set_item("block", block)?;
        record.set_item("warp", warp)?;
        record.set_item("pc", step.issued.pc)?;
        record.set_item("line", self.kernel().line(step.issued.pc))?;
        record.set_item("opcode", format!("{:?}", step.issued.opcode).to_uppercase())?;
        record.set_item("active", step.issued.active)?;
        record.set_item("executed", step.issued.executed)?;
        if let Some(b) = step.branch {
            let branch = PyDict::new(py);
            branch.set_item("taken", b.taken)?;
            branch.set_item("target", b.target)?;
            branch.set_item("reconv", b.reconv)?;
            branch.set_item("diverged", b.diverged)?;
            record.set_item("branch", branch)?;
        }
        Ok(Some(record))
    }

    /// The state of warp `warp` of block `block` (which must be the resident one):
    /// `pc` (of the next issue, None when blocked or done), `active_mask` (the lanes that
    /// would issue), `live_mask`, `regs` (a 32 x R uint32 array, lane by register) and
    /// `preds` (a 32 x 7 bool array, lane by P0..P6).
    ///
    /// ```python
    /// sim = simt.load("asm/divergence/if_else.s")["if_else"].launch()
    /// sim.step()
    /// w = sim.warp(0, 0)
    /// f"{w['active_mask']:032b}", w["regs"][:4, 0]   # R0 of lanes 0..3: their thread index
    /// ```
    fn warp<'py>(&mut self, py: Python<'py>, block: u64, warp: usize) -> PyResult<Bound<'py, PyDict>> {
        let current = self.current;
        let Some(sim) = self.block.as_mut().filter(|_| block == current) else {
            return Err(PyValueError::new_err(match self.block {
                Some(_) => format!("block {block} is not resident: blocks run one at a time, in order, and block {current} runs now"),
                None => "the launch has ended: no block is resident".to_string(),
            }));
        };
        if warp >= sim.warp_count() {
            return Err(PyValueError::new_err(format!("warp {warp} does not exist: the block has {} warps", sim.warp_count())));
        }
        let state = PyDict::new(py);
        let (pc, active) = match sim.peek(warp) {
            Peek::Issue(p) => (Some(p.pc), p.active),
            Peek::Blocked(reason) => {
                state.set_item("blocked", format!("{reason:?}").to_lowercase())?;
                (None, 0)
            }
            Peek::Done => (None, 0),
        };
        state.set_item("pc", pc)?;
        state.set_item("line", pc.and_then(|pc| self.owned.kernel.line(pc)))?;
        state.set_item("active_mask", active)?;
        state.set_item("live_mask", sim.live_lanes(warp))?;
        let (regs, preds) = sim.registers(warp);
        let r = regs.len();
        let lanes_by_reg: Vec<u32> = (0..32).flat_map(|lane| regs.iter().map(move |row| row[lane])).collect();
        state.set_item("regs", PyArray1::from_vec(py, lanes_by_reg).reshape([32, r])?)?;
        let lanes_by_pred: Vec<bool> = (0..32).flat_map(|lane| preds.iter().map(move |m| m >> lane & 1 == 1)).collect();
        state.set_item("preds", PyArray1::from_vec(py, lanes_by_pred).reshape([32, preds.len()])?)?;
        Ok(state)
    }

    /// Runs to the end and returns the `Result`; with `breakpoints` (source lines), stops
    /// before the next issue at one of them and returns None (call `run` again to go on).
    ///
    /// ```python
    /// sim = simt.load("asm/saxpy.s")["saxpy"].launch()
    /// sim.run()["y"][:4]
    /// ```
    #[pyo3(signature = (breakpoints=None))]
    fn run(&mut self, py: Python<'_>, breakpoints: Option<Vec<u32>>) -> PyResult<Option<Py<RunResult>>> {
        let lines: BTreeSet<u32> = breakpoints.unwrap_or_default().into_iter().collect();
        loop {
            if !lines.is_empty()
                && let Some(line) = self.next_line()
                && lines.contains(&line)
                && self.stopped_at != Some(line)
            {
                self.stopped_at = Some(line);
                return Ok(None);
            }
            self.stopped_at = None;
            // Long runs check for Ctrl-C between issues rather than holding the GIL blind.
            if self.steps.is_multiple_of(4096) {
                py.check_signals()?;
            }
            match self.issue(None).map_err(|f| fault_error(py, &self.module, *f))? {
                Some(_) => continue,
                None => return self.finish(py).map(Some),
            }
        }
    }

    /// The linear index of the resident block, or None once the launch has ended.
    #[getter]
    fn block(&self) -> Option<u64> {
        self.block.as_ref().map(|_| self.current)
    }

    /// Warp instructions issued so far.
    #[getter]
    fn steps(&self) -> u64 {
        self.steps
    }

    /// The launch's statistics so far, over the blocks that have finished.
    #[getter]
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_to_py(py, &serde_json::to_string(&self.launch.stats(&self.counters)).map_err(to_value_error)?)
    }
}
