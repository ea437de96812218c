//! `import simt`: assemble, load and run simt kernels from Python, numpy arrays in and out.
//!
//! A thin layer over the libraries the `simt` command uses: `simt_asm` assembles,
//! `simt_host::prepare` turns arguments into a launch, `simt_interp` (or
//! `simt_timing`) runs it with the GIL released, and buffers come back as numpy
//! arrays of their element type (the `.npy` dtypes `simt run --dump` writes).
//! Errors are exceptions with attributes (see `python/simt/__init__.pyi`).

#![warn(missing_docs)]

mod sim;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use numpy::{PyArray1, PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use simt_host::{Arg, HostError, LaunchRequest, PreparedLaunch};
use simt_interp::launch::{DEFAULT_ITS_YIELD, DEFAULT_MAX_STEPS, DEFAULT_RUNAWAY_STEPS};
use simt_interp::memory::GlobalMemory;
use simt_interp::trace::{Filter, Trace};
use simt_interp::{Checks, Contents, FaultKind, Lent, Progress, RunOptions, SimtModel, Stats, WordBytes};
use simt_io::lowp;
use simt_io::npy::Dtype;
use simt_isa::{ArgInit, ElemType, Kernel as IsaKernel, Literal, Module, Param, ParamType};
use simt_timing::{Machine, TimingError, TimingOptions};

create_exception!(simt, SimtError, PyException, "Base class of every error simt raises.");
create_exception!(simt, AssemblyError, SimtError, "Source that does not assemble: `file`, `line`, `column`; the message is the rendered diagnostic.");
create_exception!(simt, LoadError, SimtError, "A file that is neither simt source nor bytecode this version reads.");
create_exception!(simt, LaunchError, SimtError, "A launch rejected before it ran: dimensions, arguments, resources.");
create_exception!(simt, Fault, SimtError, "A kernel fault: `kernel`, `kind`, `block`, `thread`, `warp`, `lane`, `pc`, `line`, `notes`.");
create_exception!(simt, Deadlock, Fault, "Threads that wait for each other forever.");
create_exception!(simt, StepLimit, Fault, "A launch that issued more warp instructions than `max_steps` allows.");
create_exception!(
    simt,
    LintWarning,
    PyUserWarning,
    "Findings of the divergence lints at the `warn` level (`simt asm`'s warnings), one warning per source.\n\n\
     ```python\n\
     import warnings\n\
     with warnings.catch_warnings(record=True) as caught:\n\
     \x20   warnings.simplefilter(\"always\")\n\
     \x20   simt.load(\"asm/divergence/collatz.s\")\n\
     assert caught[0].category is simt.LintWarning and \"loop_divergence\" in str(caught[0].message)\n\
     ```"
);

/// The most issues a trace records; the launch still runs to the end (as `simt run --trace`).
const MAX_TRACE_ISSUES: usize = 1_000_000;
/// How often a running launch checks for Ctrl-C.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(20);
/// How long the calling thread spins, waiting for a launch, before it sleeps.
const SPIN: std::time::Duration = std::time::Duration::from_micros(200);
/// Steps per warp the divergence picture draws.
const SVG_STEPS: usize = 400;

/// An assembled or loaded module: its kernels, by name.
///
/// ```python
/// program = simt.load("asm/saxpy.s")
/// [k.name for k in program.kernels], len(program), program["saxpy"]   # (['saxpy'], 1, <simt.Kernel saxpy(...)>)
/// ```
#[pyclass(frozen, module = "simt")]
struct Program {
    module: Arc<Module>,
}

#[pymethods]
impl Program {
    /// The kernels, in source order.
    #[getter]
    fn kernels(&self) -> Vec<Kernel> {
        (0..self.module.kernels.len()).map(|index| Kernel { module: self.module.clone(), index }).collect()
    }

    /// The name of the source the program came from.
    #[getter]
    fn source_name(&self) -> &str {
        &self.module.source_name
    }

    /// The kernel called `name`.
    fn __getitem__(&self, name: &str) -> PyResult<Kernel> {
        match self.module.kernels.iter().position(|k| k.name == name) {
            Some(index) => Ok(Kernel { module: self.module.clone(), index }),
            None => Err(pyo3::exceptions::PyKeyError::new_err(format!(
                "the program has no kernel `{name}`; its kernels are: {}",
                self.module.kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    fn __len__(&self) -> usize {
        self.module.kernels.len()
    }

    /// The disassembly of every kernel, as `simt disasm` prints it.
    ///
    /// ```python
    /// print(simt.load("asm/saxpy.s").disasm())
    /// ```
    fn disasm(&self) -> String {
        simt_isa::disassemble(&self.module)
    }

    /// The bytecode (what `simt asm` writes), to save and `simt.load` later.
    ///
    /// ```python
    /// import pathlib, tempfile
    /// path = pathlib.Path(tempfile.mkdtemp()) / "saxpy.simtb"
    /// path.write_bytes(simt.load("asm/saxpy.s").to_bytes())
    /// assert simt.load(path)["saxpy"].disasm() == simt.load("asm/saxpy.s")["saxpy"].disasm()
    /// ```
    fn to_bytes(&self) -> Vec<u8> {
        simt_isa::write_module(&self.module)
    }

    fn __repr__(&self) -> String {
        let names: Vec<&str> = self.module.kernels.iter().map(|k| k.name.as_str()).collect();
        format!("<simt.Program {} kernels=[{}]>", self.module.source_name, names.join(", "))
    }
}

/// One kernel of a program: its parameters, launch defaults, and `run`.
///
/// ```python
/// k = simt.load("asm/saxpy.s")["saxpy"]
/// k.params, k.launch_dims, k.regs, k.shared_bytes
/// ```
#[pyclass(frozen, module = "simt")]
#[derive(Clone)]
struct Kernel {
    module: Arc<Module>,
    index: usize,
}

impl Kernel {
    fn kernel(&self) -> &IsaKernel {
        &self.module.kernels[self.index]
    }

    /// This kernel with `bytes` of dynamic shared memory (`shared=`), in a copy of its module.
    fn with_dynamic_shared(&self, bytes: u32) -> Kernel {
        let mut module = (*self.module).clone();
        module.kernels[self.index].add_dynamic_shared(bytes);
        Kernel { module: Arc::new(module), index: self.index }
    }
}

/// What `run` and `launch` share: the launch request and the run's options.
struct Launch {
    prepared: PreparedLaunch,
    options: RunOptions,
    machine: Option<Machine>,
    /// Writeable arrays that could not be lent: their buffers are written back when the launch ends.
    copied: Vec<Copied>,
}

/// A writeable argument array whose elements were copied into its buffer.
pub(crate) struct Copied {
    name: String,
    elem: ElemType,
    array: Py<PyAny>,
}

#[pymethods]
impl Kernel {
    /// The kernel's name.
    #[getter]
    fn name(&self) -> &str {
        &self.kernel().name
    }

    /// The parameters as `(name, type)` pairs, type as in `.param` (`u32`, `ptr.f32`, ...).
    #[getter]
    fn params(&self) -> Vec<(String, String)> {
        self.kernel().params.iter().map(|p| (p.name.clone(), p.ty.name())).collect()
    }

    /// `.launch`'s `(grid, block)`, or None.
    #[getter]
    fn launch_dims(&self) -> Option<(Dims3, Dims3)> {
        self.kernel().launch.map(|l| (tuple3(l.grid), tuple3(l.block)))
    }

    /// `.arg` defaults, parameter name to the value's text (`iota(1024)`, `2.5`).
    #[getter]
    fn defaults<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for a in &self.kernel().args {
            dict.set_item(&a.name, a.init.to_string())?;
        }
        Ok(dict)
    }

    /// Registers per thread.
    #[getter]
    fn regs(&self) -> u32 {
        self.kernel().regs
    }

    /// Static shared memory per block, in bytes.
    #[getter]
    fn shared_bytes(&self) -> u32 {
        self.kernel().shared_size
    }

    /// This kernel's disassembly.
    ///
    /// ```python
    /// print(simt.load("asm/saxpy.s")["saxpy"].disasm())
    /// ```
    fn disasm(&self) -> String {
        let only = Module { source_name: self.module.source_name.clone(), source: None, kernels: vec![self.kernel().clone()] };
        simt_isa::disassemble(&only)
    }

    /// Runs the kernel once and returns its `Result`.
    ///
    /// `grid`/`block`: an int or a tuple of up to 3 ints, overriding `.launch`.
    /// `args`: parameter name to a numpy array (pointer parameters; the dtype of the
    /// element type, any shape, C-contiguous; a PTX pointer or `.u64` takes any dtype), a
    /// generator text such as `"iota(1024)"`, or a Python int/float (scalars; an address
    /// for a PTX pointer or `.u64`); or those values in a list or tuple, in parameter
    /// order (a PTX kernel's parameters have long names). Anything left out takes its
    /// `.arg` default.
    /// Arrays are passed by reference: the kernel's stores land in a writeable array
    /// (lent without a copy where its layout allows), which comes back as itself; a
    /// read-only array is copied in and left as it is.
    /// `shared`: bytes of dynamic shared memory per block (what a PTX `.extern .shared`
    /// array addresses, Triton's `global_smem`). `model`: `"its"` or `"stack"`. `its_yield`: under
    /// `"its"`, backward branches a thread group may take in a row while another group of its warp
    /// waits (`--its-yield`, default 16). `timing`: None, a built-in machine (`"h100"`) or a
    /// `.toml` path. `sanitize`: any of `"racecheck"`, `"initcheck"`, `"synccheck"`
    /// (`"memcheck"` is always on). `trace`: record every issued warp instruction
    /// (`Result.trace`, `Result._repr_svg_()`, `Result.report(path)`), optionally only block `trace_block`
    /// and warp `trace_warp`; with `timing`, the trace is of a functional run of the same launch. `raw`: buffers as bytes. `memory_report`: the per-instruction
    /// memory-efficiency report in `stats` (what `simt run --stats`/`--json` add). `printf_limit`:
    /// the bytes of records the kernel's `printf`s may make (`simt run --printf-limit`).
    ///
    /// ```python
    /// import numpy as np, simt
    /// k = simt.assemble(open("asm/saxpy.s").read())["saxpy"]
    /// r = k.run(grid=4, block=256, args={"n": 1000, "a": 2.0, "x": np.arange(1000, dtype=np.float32), "y": np.ones(1000, np.float32)})
    /// r["y"][:3]   # array([1., 3., 5.], dtype=float32)
    /// ```
    #[pyo3(signature = (*, grid=None, block=None, args=None, model="its", timing=None, sanitize=None, max_steps=None, threads=None, trace=false, trace_block=None, trace_warp=None, raw=false, memory_report=false, shared=0, its_yield=DEFAULT_ITS_YIELD, printf_limit=simt_isa::DEFAULT_PRINTF_LIMIT))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        py: Python<'_>,
        grid: Option<&Bound<'_, PyAny>>,
        block: Option<&Bound<'_, PyAny>>,
        args: Option<&Bound<'_, PyAny>>,
        model: &str,
        timing: Option<&str>,
        sanitize: Option<Vec<String>>,
        max_steps: Option<u64>,
        threads: Option<usize>,
        trace: bool,
        trace_block: Option<u64>,
        trace_warp: Option<u32>,
        raw: bool,
        memory_report: bool,
        shared: u32,
        its_yield: u32,
        printf_limit: u64,
    ) -> PyResult<RunResult> {
        if shared > 0 {
            let sized = self.with_dynamic_shared(shared);
            return sized.run(
                py,
                grid,
                block,
                args,
                model,
                timing,
                sanitize,
                max_steps,
                threads,
                trace,
                trace_block,
                trace_warp,
                raw,
                memory_report,
                0,
                its_yield,
                printf_limit,
            );
        }
        let kernel = self.kernel();
        let mut launch = self.prepare(grid, block, args, model, timing, sanitize, max_steps, threads, its_yield)?;
        // A trace's report shows per-line memory efficiency.
        launch.options.memory_report = memory_report || trace;
        launch.options.printf_limit = printf_limit;
        let Launch { prepared, options, machine, copied } = launch;
        // A traced run keeps what its first issues wrote, for `Result.report`.
        let filter = Filter { block: trace_block, warp: trace_warp, max_issues: MAX_TRACE_ISSUES, values: simt_report::VALUE_ISSUES };
        let progress = Progress::default();
        let work = || -> Result<(Stats, Option<simt_timing::Report>, Option<Trace>), Box<simt_interp::Fault>> {
            if let Some(machine) = &machine {
                // A timed run changes the buffers: its trace runs first, on a copy of them.
                let traced = match trace {
                    true => Some(simt_interp::trace::trace(kernel, &prepared.config, &prepared.memory.duplicate(), &options, filter, None).map_err(Box::new)?),
                    false => None,
                };
                let timing = TimingOptions { progress: Some(&progress), timeline: trace, ..TimingOptions::default() };
                return match simt_timing::run(kernel, &prepared.config, &prepared.memory, &options, machine, &timing) {
                    Ok(report) => Ok((report.functional.clone(), Some(report), traced)),
                    Err(TimingError::Fault(fault)) => Err(fault),
                    Err(TimingError::Unsupported(why)) => Err(Box::new(simt_interp::Fault::new(FaultKind::InvalidLaunch, &kernel.name, why.to_string()))),
                };
            }
            if trace {
                let t = simt_interp::trace::trace(kernel, &prepared.config, &prepared.memory, &options, filter, Some(&progress)).map_err(Box::new)?;
                return Ok((t.stats.clone(), None, Some(t)));
            }
            Ok((simt_interp::run(kernel, &prepared.config, &prepared.memory, &options, Some(&progress)).map_err(Box::new)?, None, None))
        };
        let (outcome, interrupted) = run_interruptibly(py, &progress, work);
        // However the launch ended, every writeable array holds what the kernel stored.
        write_back(py, &prepared.memory, &copied)?;
        if let Some(interrupt) = interrupted {
            return Err(interrupt);
        }
        let (stats, report, trace) = outcome.map_err(|fault| fault_error(py, &self.module, *fault))?;
        let config = prepared.config.clone();
        let timed = report.as_ref().zip(machine.as_ref());
        let traced = trace.map(|t| Traced { module: &self.module, simt: options.simt, trace: t });
        result_of(py, kernel, &config, returned(prepared, copied, raw), &stats, timed, traced, raw)
    }

    /// Prepares a launch to step one warp instruction at a time (`Sim`); takes `run`'s
    /// `grid`, `block`, `args`, `model`, `its_yield`, `sanitize`, `max_steps` and `shared`.
    ///
    /// ```python
    /// sim = simt.load("asm/divergence/if_else.s")["if_else"].launch(model="stack")
    /// while (issue := sim.step()) is not None:
    ///     print(issue["line"], f"{issue['active']:032b}")
    /// ```
    #[pyo3(signature = (*, grid=None, block=None, args=None, model="its", sanitize=None, max_steps=None, shared=0, its_yield=DEFAULT_ITS_YIELD))]
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        grid: Option<&Bound<'_, PyAny>>,
        block: Option<&Bound<'_, PyAny>>,
        args: Option<&Bound<'_, PyAny>>,
        model: &str,
        sanitize: Option<Vec<String>>,
        max_steps: Option<u64>,
        shared: u32,
        its_yield: u32,
    ) -> PyResult<sim::Sim> {
        if shared > 0 {
            return self.with_dynamic_shared(shared).launch(grid, block, args, model, sanitize, max_steps, 0, its_yield);
        }
        let Launch { prepared, options, copied, .. } = self.prepare(grid, block, args, model, None, sanitize, max_steps, None, its_yield)?;
        sim::Sim::new(self.module.clone(), self.index, prepared, options, copied)
    }

    fn __repr__(&self) -> String {
        let k = self.kernel();
        let params: Vec<String> = k.params.iter().map(|p| format!(".{} {}", p.ty.name(), p.name)).collect();
        format!("<simt.Kernel {}({})>", k.name, params.join(", "))
    }
}

impl Kernel {
    /// Checks the arguments and makes the launch's buffers: the shared part of `run` and
    /// `launch`. Pointer arguments are numpy arrays (the `.npy` dtypes `--dump` writes) or
    /// generator text; scalars are Python numbers or literal text.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &self,
        grid: Option<&Bound<'_, PyAny>>,
        block: Option<&Bound<'_, PyAny>>,
        args: Option<&Bound<'_, PyAny>>,
        model: &str,
        timing: Option<&str>,
        sanitize: Option<Vec<String>>,
        max_steps: Option<u64>,
        threads: Option<usize>,
        its_yield: u32,
    ) -> PyResult<Launch> {
        let kernel = self.kernel();
        let simt: SimtModel = model.parse().map_err(|e: simt_isa::UnknownName| PyValueError::new_err(format!("model {e}")))?;
        let mut checks = Checks::default();
        for check in sanitize.unwrap_or_default() {
            checks.enable(&check).map_err(|e| PyValueError::new_err(format!("sanitize: {e}")))?;
        }
        if max_steps == Some(0) {
            return Err(PyValueError::new_err("max_steps must be at least 1"));
        }
        if its_yield == 0 {
            return Err(PyValueError::new_err("its_yield must be at least 1"));
        }
        if threads == Some(0) || threads.is_some_and(|t| t as u64 > simt_isa::MAX_THREADS) {
            return Err(PyValueError::new_err(format!("threads must be from 1 to {}", simt_isa::MAX_THREADS)));
        }
        let machine = timing.map(|name| Machine::load(name).map_err(|e| LaunchError::new_err(e.to_string()))).transpose()?;
        let mut request = LaunchRequest {
            grid: grid.map(|g| dims(g, "grid")).transpose()?,
            block: block.map(|b| dims(b, "block")).transpose()?,
            args: Vec::new(),
            module_dir: module_dir(&self.module),
        };
        // Arrays go in as zero buffers of their length, checked and sized by `prepare`
        // like any argument, then lent to the launch (or copied in) once memory exists.
        let mut arrays: Vec<(String, ElemType, Bound<'_, PyUntypedArray>)> = Vec::new();
        for (name, value) in named_args(kernel, args)? {
            let Some(param) = kernel.param(&name) else {
                return Err(LaunchError::new_err(HostError::unknown_param(kernel, &name).to_string()));
            };
            // Which parameters an array binds to as a buffer, and of which element type, is
            // `buffer_for`'s rule, as for the command line's `zeros(N)`; a 0-d array is a
            // number wherever a number is taken.
            let array = value.cast::<PyUntypedArray>().ok().filter(|a| a.ndim() > 0 || !takes_a_number(param.ty));
            let listed = value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>();
            let init = match (array, param.ty.buffer_for(&ArgInit::Zeros(0))) {
                // A list of arrays is `pointers(...)`: each array a buffer, lent or copied as one
                // is, and the parameter the address of their table.
                (None, Some(_)) if listed && param.ty.takes_any_dtype() => {
                    let mut buffers = Vec::new();
                    for (k, item) in value.try_iter()?.enumerate() {
                        let item = item?;
                        let array = item.cast::<PyUntypedArray>().map_err(|_| {
                            PyTypeError::new_err(format!(
                                "argument `{name}`: a list for a pointer is a table of pointers to arrays, and item {k} is {}, not an array",
                                type_name(&item)
                            ))
                        })?;
                        let (own, zeros) = raw_array(param, ElemType::U32, array)?;
                        arrays.push((format!("{name}.{k}"), own, array.clone()));
                        buffers.push(ArgInit::Zeros(zeros));
                    }
                    ArgInit::Pointers(Box::new(simt_isa::PointersInit { buffers, elem: None }))
                }
                // A PTX pointer or a `.u64` takes any array as its bytes, and gives it back in its dtype.
                (Some(array), Some(elem)) if param.ty.takes_any_dtype() => {
                    let (own, zeros) = raw_array(param, elem, array)?;
                    arrays.push((name.clone(), own, array.clone()));
                    ArgInit::Zeros(zeros)
                }
                (Some(array), Some(elem)) => {
                    let count = check_array(&name, elem, array)?;
                    arrays.push((name.clone(), elem, array.clone()));
                    ArgInit::Zeros(count)
                }
                _ => scalar_or_text(&name, param.ty, &value)?,
            };
            simt_asm::check_arg(param, &init)
                .map_err(|mismatch| PyTypeError::new_err(format!("argument `{name}` (.param .{} {name}): {}", param.ty.name(), mismatch.problem)))?;
            request.args.push(Arg::new(name, init));
        }
        let mut prepared = simt_host::prepare(kernel, &request).map_err(|e| LaunchError::new_err(e.explain(&PythonSpelling)))?;
        for (name, elem, _) in &arrays {
            if let Some(buffer) = prepared.buffers.iter_mut().find(|(n, _)| n == name) {
                buffer.1 = *elem;
            }
        }
        let mut copied = Vec::new();
        for (name, elem, array) in arrays {
            if !lend_or_fill(&mut prepared, &name, elem, &array)? && is_writeable(&array) {
                copied.push(Copied { name, elem, array: array.into_any().unbind() });
            }
        }
        let options = RunOptions {
            simt,
            max_steps: max_steps.unwrap_or(DEFAULT_MAX_STEPS),
            threads,
            checks,
            its_yield,
            runaway_steps: DEFAULT_RUNAWAY_STEPS,
            ..RunOptions::default()
        };
        Ok(Launch { prepared, options, machine, copied })
    }
}

/// Runs `work` on rayon's pool (no thread is started per launch) with the GIL released,
/// checking for Ctrl-C every [`SIGNAL_POLL`]; on a signal it cancels the launch through
/// `progress` (the interpreter stops within a few hundred instructions) and returns the
/// signal's error.
///
/// Python runs signal handlers on the main thread only, so the launch runs elsewhere and
/// this thread watches. It spins for [`SPIN`] before sleeping: a small launch is over in
/// microseconds, and waking a sleeping thread costs more than the launch.
fn run_interruptibly<T: Send>(py: Python<'_>, progress: &Progress, work: impl FnOnce() -> T + Send) -> (T, Option<PyErr>) {
    py.detach(|| {
        let outcome = std::sync::Mutex::new(None);
        let done = std::sync::atomic::AtomicBool::new(false);
        let watcher = std::thread::current();
        let mut interrupted = None;
        rayon::in_place_scope(|scope| {
            scope.spawn(|_| {
                /// Says the task is over however it ends: a panic is resumed when the scope ends.
                struct Done<'a>(&'a std::sync::atomic::AtomicBool, std::thread::Thread);
                impl Drop for Done<'_> {
                    fn drop(&mut self) {
                        self.0.store(true, Ordering::Release);
                        self.1.unpark();
                    }
                }
                let _done = Done(&done, watcher);
                *outcome.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(work());
            });
            let spin_until = std::time::Instant::now() + SPIN;
            while !done.load(Ordering::Acquire) && std::time::Instant::now() < spin_until {
                std::hint::spin_loop();
            }
            let mut next_check = std::time::Instant::now();
            while !done.load(Ordering::Acquire) {
                if std::time::Instant::now() >= next_check {
                    next_check += SIGNAL_POLL;
                    if interrupted.is_none()
                        && let Err(e) = Python::attach(|py| py.check_signals())
                    {
                        progress.cancel.store(true, Ordering::Relaxed);
                        interrupted = Some(e);
                    }
                }
                std::thread::park_timeout(SIGNAL_POLL);
            }
        });
        let result = outcome.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        (result.expect("the task stored its outcome, or its panic was resumed when the scope ended"), interrupted)
    })
}

/// The directory of the program's file, which relative `.arg` files are read from.
fn module_dir(module: &Module) -> Option<PathBuf> {
    let path = Path::new(&module.source_name);
    path.parent().filter(|p| p.is_dir()).map(Path::to_path_buf)
}

/// `X`, `(X,)`, `(X, Y)` or `(X, Y, Z)`, each from 0 to 2^32 - 1 (0 is rejected by `prepare`, which says why).
fn dims(value: &Bound<'_, PyAny>, what: &str) -> PyResult<[u32; 3]> {
    let extents: Vec<i128> = if let Ok(v) = value.extract::<i128>() {
        vec![v]
    } else if let Ok(v) = value.extract::<Vec<i128>>() {
        v
    } else {
        return Err(PyTypeError::new_err(format!("{what} takes an int or a tuple of 1 to 3 ints, not {}", type_name(value))));
    };
    if extents.is_empty() || extents.len() > 3 {
        return Err(PyValueError::new_err(format!("{what} has {} extents; give X, (X, Y) or (X, Y, Z)", extents.len())));
    }
    let mut out = [1u32; 3];
    for (d, &e) in out.iter_mut().zip(&extents) {
        *d = u32::try_from(e).map_err(|_| PyValueError::new_err(format!("{what} {extents:?}: every extent must be a whole number from 1 to {}", u32::MAX)))?;
    }
    Ok(out)
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "that".into())
}

/// Checks that `array` can fill a buffer of `elem`; returns its element count.
fn check_array(name: &str, elem: ElemType, array: &Bound<'_, PyUntypedArray>) -> PyResult<u64> {
    let py = array.py();
    let want = Dtype::of_elem(elem);
    let expected = PyArrayDescr::new(py, want.descr())?;
    let expects = format!("parameter `{name}` (.ptr.{elem}) expects a C-contiguous numpy array of dtype {}", expected.str()?);
    if !array.dtype().is_equiv_to(&expected) {
        let converted = if lowp::lowp_type(elem).is_some() { " (simt converts it to the element type)" } else { "" };
        let hint = simt_io::npy::conversion_hint(array.dtype().kind() as char, array.dtype().itemsize(), elem);
        return Err(PyTypeError::new_err(format!("{expects}{converted}, not dtype {}; {hint}", array.dtype().str()?)));
    }
    if array.ndim() == 0 {
        return Err(PyTypeError::new_err(format!("{expects}, not a 0-d array; pass an array of at least one dimension")));
    }
    if !array.is_c_contiguous() {
        return Err(PyTypeError::new_err(format!("{expects}; this one is not contiguous: pass np.ascontiguousarray(x)")));
    }
    if elem.is_packed() && array.len() % 2 == 1 {
        return Err(PyValueError::new_err(format!(
            "parameter `{name}` (.ptr.{elem}): {elem} packs two elements a byte, so give an even number of elements, not {}",
            array.len()
        )));
    }
    let count: usize = array.shape().iter().product();
    Ok(count as u64)
}

/// Whether a parameter of type `ty` takes a number (a scalar, or an address for a PTX pointer or `.u64`).
fn takes_a_number(ty: ParamType) -> bool {
    ty.buffer_for(&ArgInit::Scalar(Literal::Int(0))).is_none()
}

/// For a parameter that takes a buffer of any dtype (a PTX pointer `.raw.T`, a `.u64`): the
/// element type of `array`'s dtype, and how many zero elements of `elem` (the buffer's
/// element type) make a buffer of the array's bytes.
fn raw_array(param: &Param, elem: ElemType, array: &Bound<'_, PyUntypedArray>) -> PyResult<(ElemType, u64)> {
    let py = array.py();
    let name = &param.name;
    let decl = format!(".param .{} {name}", param.ty.name());
    let own = Dtype::ALL.into_iter().find(|d| PyArrayDescr::new(py, d.descr()).is_ok_and(|descr| array.dtype().is_equiv_to(&descr))).map(Dtype::elem);
    let Some(own) = own else {
        let names: Vec<&str> = Dtype::ALL.iter().map(|d| d.descr()).collect();
        return Err(PyTypeError::new_err(format!(
            "parameter `{name}` ({decl}) takes an array of any of the dtypes {}, not {}",
            names.join(" "),
            array.dtype().str()?
        )));
    };
    let count = check_array(name, own, array)?;
    let bytes = count * u64::from(own.size());
    if !bytes.is_multiple_of(u64::from(elem.size())) {
        return Err(PyValueError::new_err(format!(
            "parameter `{name}` ({decl}) makes a buffer of {elem} elements, so give it a whole number of {}-byte elements, not {bytes} bytes",
            elem.size()
        )));
    }
    Ok((own, bytes / u64::from(elem.size())))
}

/// The bytes of a C-contiguous array checked by [`check_array`], without a copy.
fn array_bytes<'a>(array: &'a Bound<'_, PyUntypedArray>) -> &'a [u8] {
    let count: usize = array.shape().iter().product();
    let len = count * array.dtype().itemsize();
    if len == 0 {
        return &[];
    }
    // SAFETY: the array is C-contiguous (checked) and holds `count` elements of `itemsize`
    // bytes from its data pointer; the GIL is held and the borrow lives no longer than `array`.
    unsafe { std::slice::from_raw_parts((*array.as_array_ptr()).fields.data as *const u8, len) }
}

fn is_writeable(array: &Bound<'_, PyUntypedArray>) -> bool {
    // SAFETY: a live array's flags are readable with the GIL held.
    unsafe { (*array.as_array_ptr()).fields.flags & numpy::npyffi::NPY_ARRAY_WRITEABLE != 0 }
}

/// `args` of `Kernel.run`/`launch` as (parameter name, value): a dict by name, or a list or
/// tuple in parameter order (parameters past its end keep their `.arg` defaults).
fn named_args<'py>(kernel: &IsaKernel, args: Option<&Bound<'py, PyAny>>) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let Some(args) = args else { return Ok(Vec::new()) };
    if let Ok(dict) = args.cast::<PyDict>() {
        return dict
            .iter()
            .map(|(key, value)| Ok((key.extract::<String>().map_err(|_| PyTypeError::new_err(format!("argument names are strings, not {key}")))?, value)))
            .collect();
    }
    if args.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("args takes a dict by parameter name, or a list or tuple in parameter order, not a str"));
    }
    let values: Vec<Bound<'py, PyAny>> = args
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("args takes a dict by parameter name, or a list or tuple in parameter order, not {}", type_name(args))))?;
    if values.len() > kernel.params.len() {
        return Err(LaunchError::new_err(simt_host::argument_count_message(kernel, values.len())));
    }
    Ok(kernel.params.iter().map(|p| p.name.clone()).zip(values).collect())
}

/// Gives buffer `name` the array's memory when its layout allows (writeable, whole
/// aligned words, the element type's own dtype), so a large array goes in without a copy
/// and the kernel's stores land in it; otherwise copies its elements in (converting
/// section 9 types). Says whether it lent.
fn lend_or_fill(prepared: &mut PreparedLaunch, name: &str, elem: ElemType, array: &Bound<'_, PyUntypedArray>) -> PyResult<bool> {
    let index = prepared.memory.buffers().iter().position(|b| b.name == name).expect("prepare made a buffer for every pointer argument");
    if lowp::lowp_type(elem).is_none() && is_writeable(array) {
        let bytes = array_bytes(array);
        let lender: Box<dyn std::any::Any + Send + Sync> = Box::new(array.clone().into_any().unbind());
        // SAFETY: numpy keeps an array's data valid while the array lives, and the lender
        // holds a reference to it; `bytes` is its whole data (C-contiguous, checked).
        if let Some(lent) = unsafe { Lent::new(bytes.as_ptr().cast_mut(), bytes.len(), lender) }
            && prepared.memory.lend(index, lent).is_ok()
        {
            return Ok(true);
        }
    }
    let converted;
    let bytes = match lowp::lowp_type(elem) {
        Some(ty) => {
            converted = lowp::from_npy(ty, array_bytes(array)).map_err(|e| PyValueError::new_err(format!("parameter `{name}` (.ptr.{elem}): {e}")))?;
            converted.as_slice()
        }
        None => array_bytes(array),
    };
    for (i, chunk) in bytes.chunks(4).enumerate() {
        let mut word = [0u8; 4];
        word[..chunk.len()].copy_from_slice(chunk);
        prepared.memory.write(index, 4 * i as u32, 4, u32::from_le_bytes(word));
    }
    Ok(false)
}

/// Writes each copied array's buffer back into it (section 9 types converted as `--dump` does).
pub(crate) fn write_back(py: Python<'_>, memory: &GlobalMemory, copied: &[Copied]) -> PyResult<()> {
    for Copied { name, elem, array } in copied {
        let array = array.bind(py).cast::<PyUntypedArray>()?;
        let buffer = memory.buffer(name).expect("every copied array has a buffer");
        let target = array_bytes(array);
        // SAFETY: the array is writeable and C-contiguous (checked before it was copied in),
        // and the GIL is held, so nothing else touches it while it is filled.
        let target = unsafe { std::slice::from_raw_parts_mut(target.as_ptr().cast_mut(), target.len()) };
        match lowp::lowp_type(*elem) {
            Some(ty) => {
                let values = lowp::to_npy(ty, &buffer.bytes());
                target.copy_from_slice(&values[..target.len()]);
            }
            None => {
                let _ = buffer.for_each_piece(|at, piece| {
                    target[at..at + piece.len()].copy_from_slice(piece);
                    Ok::<(), ()>(())
                });
            }
        }
    }
    Ok(())
}

/// A buffer at the end of a launch, on its way to Python.
pub(crate) enum Returned {
    /// The caller's array, now holding the buffer's final bytes.
    Array(Py<PyAny>),
    /// simt's own bytes.
    Bytes(WordBytes),
}

/// Every pointer parameter's buffer at the end of a launch, without a copy: a lent or
/// copied array (written back) as itself, but a section 9 type's codes with `raw`.
fn returned(prepared: PreparedLaunch, copied: Vec<Copied>, raw: bool) -> Vec<(String, ElemType, Returned)> {
    let PreparedLaunch { memory, buffers, .. } = prepared;
    let mut copied: Vec<Option<Copied>> = copied.into_iter().map(Some).collect();
    memory
        .into_contents()
        .filter_map(|(name, contents)| {
            let elem = buffers.iter().find(|(n, _)| *n == name)?.1;
            let written_back = copied.iter_mut().find(|c| c.as_ref().is_some_and(|c| c.name == name)).and_then(Option::take);
            let out = match (contents, written_back) {
                (Contents::Simt(bytes), Some(_)) if raw && lowp::lowp_type(elem).is_some() => Returned::Bytes(bytes),
                (_, Some(copy)) => Returned::Array(copy.array),
                (Contents::Lent(lender), None) => Returned::Array(*lender.downcast::<Py<PyAny>>().expect("the Python package lends only numpy arrays")),
                (Contents::Simt(bytes), None) => Returned::Bytes(bytes),
            };
            Some((name, elem, out))
        })
        .collect()
}

/// A buffer as a numpy array of its `.npy` dtype (section 9 types converted as `--dump`
/// does), or of its bytes with `raw`; the caller's array comes back as itself.
fn buffer_array<'py>(py: Python<'py>, elem: ElemType, buffer: Returned, raw: bool) -> PyResult<Bound<'py, PyAny>> {
    let bytes = match buffer {
        Returned::Array(array) if raw => return array.bind(py).call_method0("ravel")?.call_method1("view", ("u1",)),
        Returned::Array(array) => return Ok(array.into_bound(py)),
        Returned::Bytes(bytes) => bytes,
    };
    let descr = Dtype::of_elem(elem).descr();
    if let (Some(ty), false) = (lowp::lowp_type(elem), raw) {
        return PyArray1::from_vec(py, lowp::to_npy(ty, bytes.as_bytes())).call_method1("view", (descr,));
    }
    let len = bytes.len() as isize;
    let array = PyArray1::from_vec(py, bytes.into_words()).call_method1("view", ("u1",))?.get_item(pyo3::types::PySlice::new(py, 0, len, 1))?;
    if raw { Ok(array) } else { array.call_method1("view", (descr,)) }
}

/// A scalar parameter's value, or a pointer parameter's generator text (`iota(N)`, `@file.npy`).
fn scalar_or_text(name: &str, ty: ParamType, value: &Bound<'_, PyAny>) -> PyResult<ArgInit> {
    let decl = format!(".param .{} {name}", ty.name());
    if value.is_instance_of::<PyString>() {
        let text: String = value.extract()?;
        return simt_asm::parse_arg_init(&text).map_err(|e| PyValueError::new_err(format!("argument `{name}` ({decl}): {e}")));
    }
    if let (false, Some(elem)) = (takes_a_number(ty), ty.buffer_elem()) {
        return Err(PyTypeError::new_err(format!(
            "parameter `{name}` (.ptr.{elem}) expects a C-contiguous numpy array of dtype {} or a generator such as \"iota(1024)\", not {}",
            Dtype::of_elem(elem).descr(),
            type_name(value)
        )));
    }
    let takes = if ty.takes_any_dtype() { "a numpy array (its buffer's address) or a Python int" } else { "a Python int or float" };
    let wrong = || PyTypeError::new_err(format!("argument `{name}` ({decl}) takes {takes}, not {}", type_name(value)));
    if value.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!("argument `{name}` ({decl}) takes a number, not a bool")));
    }
    if value.cast::<PyUntypedArray>().is_ok_and(|a| a.ndim() > 0) {
        return Err(wrong());
    }
    if value.is_instance_of::<PyInt>() || value.hasattr("__index__")? {
        let v: i128 = value.extract().map_err(|_| wrong())?;
        let v = i64::try_from(v).map_err(|_| PyValueError::new_err(format!("argument `{name}` ({decl}): {v} does not fit 64 bits")))?;
        return Ok(ArgInit::Scalar(Literal::Int(v)));
    }
    if value.is_instance_of::<PyFloat>() || value.hasattr("__float__")? {
        return Ok(ArgInit::Scalar(Literal::Float(value.extract().map_err(|_| wrong())?)));
    }
    Err(wrong())
}

/// How Python callers give a launch what it lacks.
struct PythonSpelling;

impl simt_interp::Remedies for PythonSpelling {
    fn word(&self, remedy: &simt_interp::Remedy) -> String {
        use simt_interp::Remedy;
        match remedy {
            Remedy::MoreSteps => "raise the limit with max_steps= if the kernel is just long".into(),
            Remedy::MoreTime => "give the launch more time if the kernel is just long".into(),
            Remedy::MoreRunawaySteps => "a loop this long runs from the command line, with `simt run --runaway-steps N` (or 0)".into(),
            Remedy::DynamicShared(name) => format!("`{name}` is dynamic shared memory, sized by the launch: give it with `shared=N`"),
            Remedy::MorePrintf => "raise printf_limit= if that much output is expected, or print from fewer threads".into(),
        }
    }
}

impl simt_host::Spelling for PythonSpelling {
    fn shape(&self) -> String {
        "`run(grid=1, block=32)`".into()
    }

    fn argument(&self, name: &str, value: &str) -> String {
        // Numbers are Python numbers; anything else (`zeros(1024)`) is a generator text.
        if value.parse::<f64>().is_ok() { format!("`args={{\"{name}\": {value}}}`") } else { format!("`args={{\"{name}\": \"{value}\"}}`") }
    }

    fn given(&self) -> String {
        "args=".into()
    }
}

/// A traced run, with what its report needs besides the trace.
struct Traced<'a> {
    module: &'a Module,
    simt: SimtModel,
    trace: Trace,
}

/// The `Result` of a finished launch: buffers as numpy arrays, statistics, timing and trace.
/// With `raw`, buffers come back as their bytes (`uint8`), section 9 types unconverted.
#[allow(clippy::too_many_arguments)]
fn result_of(
    py: Python<'_>,
    kernel: &IsaKernel,
    config: &simt_interp::LaunchConfig,
    buffers_out: Vec<(String, ElemType, Returned)>,
    stats: &Stats,
    timed: Option<(&simt_timing::Report, &Machine)>,
    traced: Option<Traced<'_>>,
    raw: bool,
) -> PyResult<RunResult> {
    let report = timed.map(|(r, _)| r);
    write_printed(py, &stats.printed)?;
    let buffers = PyDict::new(py);
    for (name, elem, buffer) in buffers_out {
        buffers.set_item(name, buffer_array(py, elem, buffer, raw)?)?;
    }
    let timing = match report {
        Some(r) => Some(json_to_py(py, &serde_json::to_string(&r.stats).map_err(to_value_error)?)?),
        None => None,
    };
    let records = match &traced {
        Some(t) => Some(json_to_py(py, &serde_json::to_string(&t.trace.issues).map_err(to_value_error)?)?),
        None => None,
    };
    let svg = traced.as_ref().map(|t| t.trace.render_svg(kernel, SVG_STEPS));
    let warps_per_block = u64::from(config.block.iter().product::<u32>().div_ceil(32));
    let views = traced.map(|t| {
        let timing = timed.map(|(r, m)| simt_report::TimingView::new(r, &format!("{} ({})", m.name, m.description), warps_per_block));
        (simt_report::RunView::new(t.module, kernel, config, t.simt, t.trace), timing)
    });
    Ok(RunResult {
        kernel: kernel.name.clone(),
        grid: tuple3(config.grid),
        block: tuple3(config.block),
        buffers: buffers.unbind(),
        stats: stats.clone(),
        stats_py: std::sync::OnceLock::new(),
        timing,
        trace: records,
        findings_py: std::sync::OnceLock::new(),
        svg,
        views,
    })
}

/// The texts of a launch's `PRINTF` records, in print order.
fn printed_text(printed: &[simt_interp::Printed]) -> String {
    printed.iter().map(|p| p.text.as_str()).collect()
}

/// Writes what a launch printed to `sys.stdout`, where CUDA's `printf` output appears (and
/// where a notebook shows it).
fn write_printed(py: Python<'_>, printed: &[simt_interp::Printed]) -> PyResult<()> {
    if !printed.is_empty() {
        py.import("sys")?.getattr("stdout")?.call_method1("write", (printed_text(printed),))?;
    }
    Ok(())
}

/// The exception for a fault: its class by kind, its fields as attributes, the rendered fault as message.
/// What the launch printed before it stopped goes to `sys.stdout` first.
pub(crate) fn fault_error(py: Python<'_>, module: &Module, fault: simt_interp::Fault) -> PyErr {
    let fault = fault.worded(&PythonSpelling);
    if let Err(e) = write_printed(py, &fault.printed) {
        return e;
    }
    let message = fault.render(module, false);
    let err = match fault.kind {
        FaultKind::InvalidLaunch => return LaunchError::new_err(fault.message),
        FaultKind::Deadlock => Deadlock::new_err(message),
        FaultKind::StepLimit => StepLimit::new_err(message),
        _ => Fault::new_err(message),
    };
    let value = err.value(py);
    let kind = serde_json::to_string(&fault.kind).map(|k| k.trim_matches('"').to_string()).unwrap_or_default();
    let attrs = || -> PyResult<()> {
        value.setattr("kind", kind)?;
        value.setattr("kernel", &fault.kernel)?;
        value.setattr("block", tuple3(fault.block))?;
        value.setattr("thread", fault.thread.map(tuple3))?;
        value.setattr("warp", fault.warp)?;
        value.setattr("lane", fault.lane)?;
        value.setattr("pc", fault.pc)?;
        value.setattr("line", fault.line)?;
        value.setattr("notes", fault.notes.clone())?;
        value.setattr("reason", &fault.message)?;
        value.setattr("findings", json_to_py(py, &serde_json::to_string(&fault.findings).map_err(to_value_error)?)?)?;
        value.setattr("printed", printed_text(&fault.printed))?;
        Ok(())
    };
    match attrs() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// Grid or block extents as Python sees them.
type Dims3 = (u32, u32, u32);

fn tuple3(d: [u32; 3]) -> Dims3 {
    (d[0], d[1], d[2])
}

pub(crate) fn to_value_error(e: serde_json::Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// JSON text as Python objects (dicts, lists, numbers), through the standard library's parser.
pub(crate) fn json_to_py(py: Python<'_>, text: &str) -> PyResult<Py<PyAny>> {
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// What a run left: every pointer parameter's buffer as a numpy array, statistics, and
/// the timing statistics or trace when asked for.
///
/// ```python
/// r = simt.load("asm/saxpy.s")["saxpy"].run(timing="h100")
/// r["y"][:4], r.stats["warp_instructions"], r.timing["cycles"]
/// ```
#[pyclass(frozen, module = "simt", name = "Result")]
pub(crate) struct RunResult {
    /// The kernel's name.
    #[pyo3(get)]
    kernel: String,
    /// The grid it ran with.
    #[pyo3(get)]
    grid: (u32, u32, u32),
    /// The block it ran with.
    #[pyo3(get)]
    block: (u32, u32, u32),
    /// Parameter name to numpy array.
    #[pyo3(get)]
    buffers: Py<PyDict>,
    /// The functional statistics, turned into Python objects on first use: most runs
    /// never look, and converting them costs more than a small launch.
    stats: Stats,
    stats_py: std::sync::OnceLock<Py<PyAny>>,
    /// The timing statistics when run with `timing=`, else None.
    #[pyo3(get)]
    timing: Option<Py<PyAny>>,
    /// The issued warp instructions as a list of dicts when run with `trace=True`, else None.
    #[pyo3(get)]
    trace: Option<Py<PyAny>>,
    findings_py: std::sync::OnceLock<Py<PyAny>>,
    svg: Option<String>,
    /// What `report` draws: the trace's view and, for a timed run, the timing's.
    views: Option<(simt_report::RunView, Option<simt_report::TimingView>)>,
}

/// `cell`'s value, made from `json` the first time.
fn cached(py: Python<'_>, cell: &std::sync::OnceLock<Py<PyAny>>, json: impl FnOnce() -> serde_json::Result<String>) -> PyResult<Py<PyAny>> {
    if let Some(value) = cell.get() {
        return Ok(value.clone_ref(py));
    }
    let value = json_to_py(py, &json().map_err(to_value_error)?)?;
    Ok(cell.get_or_init(|| value).clone_ref(py))
}

#[pymethods]
impl RunResult {
    /// The functional statistics (as `simt run --json` writes them).
    #[getter]
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        cached(py, &self.stats_py, || serde_json::to_string(&self.stats))
    }

    /// What the kernel's `printf`s (`PRINTF`, `VPRINTF`) printed, in print order (block,
    /// barrier interval, warp, issue); `run` has also written it to `sys.stdout`.
    #[getter]
    fn printed(&self) -> String {
        printed_text(&self.stats.printed)
    }

    /// The sanitizers' distinct findings, as `simt run --json` lists them (empty without `sanitize`).
    #[getter]
    fn findings(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        cached(py, &self.findings_py, || serde_json::to_string(&self.stats.findings))
    }

    /// The buffer of pointer parameter `name`.
    fn __getitem__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let buffers = self.buffers.bind(py);
        match buffers.get_item(name)? {
            Some(array) => Ok(array),
            None => {
                let names: Vec<String> = buffers.keys().iter().map(|k| k.to_string()).collect();
                Err(pyo3::exceptions::PyKeyError::new_err(format!("`{name}` is not a pointer parameter; the buffers are: {}", names.join(", "))))
            }
        }
    }

    /// The trace as a dict of equal-length numpy arrays, one per field (`seq`, `block`,
    /// `warp`, `pc`, `line`, `active`, `executed`, `gone`) and a list of opcodes:
    /// `pandas.DataFrame(result.trace_table())`. None when the run was not traced.
    ///
    /// ```python
    /// r = simt.load("asm/divergence/if_else.s")["if_else"].run(trace=True)
    /// t = r.trace_table()
    /// t["opcode"][:3], t["active"][:3]
    /// ```
    fn trace_table<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some((view, _)) = &self.views else { return Ok(None) };
        let issues = &view.issues;
        let table = PyDict::new(py);
        table.set_item("seq", PyArray1::from_iter(py, issues.iter().map(|i| i.seq)))?;
        table.set_item("block", PyArray1::from_iter(py, issues.iter().map(|i| i.block)))?;
        table.set_item("warp", PyArray1::from_iter(py, issues.iter().map(|i| i.warp)))?;
        table.set_item("pc", PyArray1::from_iter(py, issues.iter().map(|i| i.pc)))?;
        table.set_item("line", PyArray1::from_iter(py, issues.iter().map(|i| i.line)))?;
        table.set_item("opcode", issues.iter().map(|i| i.opcode.as_str()).collect::<Vec<_>>())?;
        table.set_item("active", PyArray1::from_iter(py, issues.iter().map(|i| i.active)))?;
        table.set_item("executed", PyArray1::from_iter(py, issues.iter().map(|i| i.executed)))?;
        table.set_item("gone", PyArray1::from_iter(py, issues.iter().map(|i| i.gone)))?;
        Ok(Some(table))
    }

    /// Writes the run as one HTML page to open in a browser, as `simt run --report` does:
    /// the source with per-line counters beside a zoomable timeline of every issue, and for
    /// a timed run (`timing=` with `trace=True`) the warps' states and issue slots over cycles.
    ///
    /// ```python
    /// r = simt.load("asm/divergence/nested.s")["nested"].run(trace=True)
    /// r.report("nested.html")
    /// ```
    fn report(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let Some((view, timing)) = &self.views else {
            return Err(PyValueError::new_err("a report draws a trace: run with trace=True, e.g. kernel.run(trace=True).report(\"run.html\")"));
        };
        let page = py.detach(|| simt_report::render(view, timing.as_ref()));
        simt_io::write_atomically(&path, |mut f| std::io::Write::write_all(&mut f, page.as_bytes()))
            .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("cannot write {}: {e}", path.display())))
    }

    /// The divergence picture (lanes against issue steps) when the run was traced.
    fn _repr_svg_(&self) -> Option<String> {
        self.svg.clone()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let names: Vec<String> = self.buffers.bind(py).keys().iter().map(|k| k.to_string()).collect();
        format!("<simt.Result {} grid={:?} block={:?} buffers=[{}]>", self.kernel, self.grid, self.block, names.join(", "))
    }
}

/// Assembles `.s` source text; `name` is the file name diagnostics show.
///
/// The divergence lints run as `simt asm` runs them: `allow`, `warn` and `deny` take lint
/// names (`loop_divergence`, `divergent_barrier`, `unreachable_code`, `uninit_read`, or
/// `warnings` for all) as `-A`, `-W` and `-D` do. Findings of warned lints (all, by default)
/// are one `simt.LintWarning`; a denied lint's findings raise `AssemblyError`.
///
/// ```python
/// p = simt.assemble(".kernel k\n.launch grid(1) block(32)\nEXIT\n")
/// p["k"].run()
/// ```
#[pyfunction]
#[pyo3(signature = (source, name="<source>", *, allow=None, warn=None, deny=None))]
fn assemble(py: Python<'_>, source: &str, name: &str, allow: Option<Vec<String>>, warn: Option<Vec<String>>, deny: Option<Vec<String>>) -> PyResult<Program> {
    let levels = simt_asm::LintLevels::from_flags(&allow.unwrap_or_default(), &warn.unwrap_or_default(), &deny.unwrap_or_default())
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let module = py.detach(|| simt_asm::assemble(name, source)).map_err(|d| assembly_error(py, name, source, &d))?;
    let report = py.detach(|| simt_asm::lint(&module, &levels, false));
    if report.denied > 0 {
        let s = if report.denied == 1 { "" } else { "s" };
        let message = format!("{}error: {} denied lint finding{s}", report.text, report.denied);
        return Err(located_error(py, message, name, report.first_denied_line.map_or(1, |l| l as usize), 1, report.denied));
    }
    if report.warnings > 0 {
        // The message is a C string: a NUL the source line held would end it, so it becomes a space.
        let message = std::ffi::CString::new(report.text.replace('\0', " ")).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<LintWarning>(), &message, 1)?;
    }
    Ok(Program { module: Arc::new(module) })
}

/// Translates PTX text (what clang or nvcc compile CUDA to, `docs/ptx.md`); `name` is the
/// file name diagnostics show.
///
/// ```python
/// k = simt.ptx(open("examples/cuda/saxpy.ptx").read())["saxpy"]
/// ```
#[pyfunction]
#[pyo3(signature = (source, name="<source>.ptx"))]
fn ptx(py: Python<'_>, source: &str, name: &str) -> PyResult<Program> {
    let module = py.detach(|| simt_ptx::translate(name, source, None)).map_err(|d| {
        let (line, column) = d.iter().next().map_or((1, 1), |first| first.line_column(source));
        located_error(py, d.render(name, source, false), name, line, column, d.total())
    })?;
    Ok(Program { module: Arc::new(module) })
}

/// Loads a `.s` source, `.ptx` or bytecode file. Source is linted as `assemble` lints it,
/// with the same `allow`, `warn` and `deny`.
///
/// ```python
/// simt.load("asm/saxpy.s"), simt.load("examples/cuda/saxpy.ptx")
/// simt.load("asm/divergence/collatz.s", allow=["loop_divergence"])   # no LintWarning
/// ```
#[pyfunction]
#[pyo3(signature = (path, *, allow=None, warn=None, deny=None))]
fn load(py: Python<'_>, path: PathBuf, allow: Option<Vec<String>>, warn: Option<Vec<String>>, deny: Option<Vec<String>>) -> PyResult<Program> {
    let shown = path.display().to_string();
    let bytes = simt_io::read_bounded(&path, simt_isa::MAX_INPUT_BYTES).map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    match simt_isa::Input::of(&shown, &bytes).map_err(|e| LoadError::new_err(e.to_string()))? {
        simt_isa::Input::Bytecode(bytes) => {
            let mut module = simt_isa::read_module(bytes).map_err(|e| LoadError::new_err(format!("{shown}: {e}")))?;
            module.source_name = shown;
            Ok(Program { module: Arc::new(module) })
        }
        simt_isa::Input::Ptx(source) => ptx(py, source, &shown),
        simt_isa::Input::Assembly(source) => assemble(py, source, &shown, allow, warn, deny),
    }
}

/// An `AssemblyError` whose `file`, `line` and `column` are those of the first diagnostic.
fn assembly_error(py: Python<'_>, name: &str, source: &str, diagnostics: &simt_asm::Diagnostics) -> PyErr {
    let start = diagnostics.diagnostics().first().and_then(|d| d.labels.first()).map_or(0, |l| l.range.start).min(source.len());
    let before = &source.as_bytes()[..start];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    located_error(py, diagnostics.render(false), name, line, column, diagnostics.len())
}

/// An `AssemblyError` with the place of the first problem and how many there are.
fn located_error(py: Python<'_>, message: String, name: &str, line: usize, column: usize, count: usize) -> PyErr {
    let err = AssemblyError::new_err(message);
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("file", name)?;
        value.setattr("line", line)?;
        value.setattr("column", column)?;
        value.setattr("count", count)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// Runs the first kernel of PTX text once, as GPU Ocelot's `ptx_run` does (the C API's,
/// `docs/c-api.md`), over numpy arrays or raw host addresses: how a tool that drives
/// `ptx_run` can be tested from Python without a CUDA driver.
///
/// `args` are the kernel's parameters in order: a numpy array (C-contiguous and writeable;
/// the kernel reads and writes it in place), an int (a scalar's value, or for a pointer
/// parameter a host address such as `a.ctypes.data`, reaching to the end of its memory
/// mapping) or a float. `shared` is the dynamic shared memory per block in bytes (what a
/// PTX `.extern .shared` array addresses).
///
/// ```python
/// x, y = np.arange(1000, dtype=np.float32), np.ones(1000, np.float32)
/// simt.ptx_run(open("examples/cuda/saxpy.ptx").read(), [1000, 2.0, x, y], grid=4, block=256)
/// y[:3]   # array([1., 3., 5.], dtype=float32)
/// ```
#[pyfunction]
#[pyo3(signature = (ptx, args, grid, block, shared=0))]
fn ptx_run(py: Python<'_>, ptx: &str, args: Vec<Bound<'_, PyAny>>, grid: &Bound<'_, PyAny>, block: &Bound<'_, PyAny>, shared: u32) -> PyResult<()> {
    let shape = simt::Shape { grid: dims(grid, "grid")?, block: dims(block, "block")?, shared_bytes: shared };
    let module = py.detach(|| simt::load_cached("ptx_run.ptx", ptx)).map_err(|e| located_error(py, e.to_string(), "ptx_run.ptx", 1, 1, 1))?;
    let mut host_args = Vec::with_capacity(args.len());
    for (i, arg) in args.iter().enumerate() {
        host_args.push(if let Ok(array) = arg.cast::<PyUntypedArray>() {
            if !array.is_c_contiguous() || !is_writeable(array) {
                return Err(PyValueError::new_err(format!(
                    "argument {i}: the kernel writes arrays in place; pass a C-contiguous, writeable array (np.ascontiguousarray(a))"
                )));
            }
            let bytes = array_bytes(array);
            simt::HostArg::Memory { ptr: bytes.as_ptr().cast_mut(), len: bytes.len() }
        } else if arg.is_instance_of::<PyBool>() {
            simt::HostArg::Word(u64::from(arg.extract::<bool>()?))
        } else if let Ok(value) = arg.extract::<i128>() {
            let word = u64::try_from(value).or_else(|_| i64::try_from(value).map(|v| v as u64));
            simt::HostArg::Word(word.map_err(|_| PyValueError::new_err(format!("argument {i}: {value} does not fit 64 bits")))?)
        } else if let Ok(value) = arg.extract::<f64>() {
            simt::HostArg::Float(value)
        } else {
            return Err(PyTypeError::new_err(format!("argument {i}: a numpy array, an int or a float, not {}", type_name(arg))));
        });
    }
    // The arrays stay alive and unmoved (the list holds them) while the launch runs without the GIL;
    // nothing else in this process may write them meanwhile, as with `Kernel.run`'s lent arrays.
    let words = host_args.iter().map(|a| SendArg(*a)).collect::<Vec<_>>();
    let result = py.detach(|| {
        let host_args: Vec<simt::HostArg> = words.iter().map(|a| a.0).collect();
        // SAFETY: every Memory argument is a live, C-contiguous, writeable array's data; a bare
        // address is the caller's promise, as in the C API.
        unsafe { simt::launch(&module, 0, &host_args, shape, &RunOptions::default()) }
    });
    match result {
        Ok(stats) => write_printed(py, &stats.printed),
        Err(simt::LaunchFailure::Refused(message)) => Err(LaunchError::new_err(message)),
        Err(simt::LaunchFailure::Fault(fault)) => Err(fault_error(py, &module, *fault)),
    }
}

/// A launch argument moved to the thread that runs the launch without the GIL.
#[derive(Clone, Copy)]
struct SendArg(simt::HostArg);

// SAFETY: the memory a `HostArg` points to is an array kept alive by the caller's list (or
// an address the caller vouches for); the launch is its only user while it runs.
unsafe impl Send for SendArg {}
unsafe impl Sync for SendArg {}

/// The built-in timing machines, name to description.
///
/// ```python
/// sorted(simt.machines())   # ['a100', 'h100', ...]; run(timing="h100") uses one
/// ```
#[pyfunction]
fn machines(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let dict = PyDict::new(py);
    for (name, _) in simt_timing::config::BUILTIN {
        let machine = Machine::load(name).map_err(|e| LaunchError::new_err(e.to_string()))?;
        dict.set_item(*name, machine.description)?;
    }
    Ok(dict)
}

#[pymodule]
fn _simt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(assemble, m)?)?;
    m.add_function(wrap_pyfunction!(ptx, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(machines, m)?)?;
    m.add_function(wrap_pyfunction!(ptx_run, m)?)?;
    m.add_class::<Program>()?;
    m.add_class::<Kernel>()?;
    m.add_class::<RunResult>()?;
    m.add_class::<sim::Sim>()?;
    m.add("SimtError", py.get_type::<SimtError>())?;
    m.add("AssemblyError", py.get_type::<AssemblyError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("LaunchError", py.get_type::<LaunchError>())?;
    m.add("Fault", py.get_type::<Fault>())?;
    m.add("Deadlock", py.get_type::<Deadlock>())?;
    m.add("StepLimit", py.get_type::<StepLimit>())?;
    m.add("LintWarning", py.get_type::<LintWarning>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
