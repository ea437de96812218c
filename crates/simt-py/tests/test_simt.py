"""The simt package: assembling, running, and every bad input as an exception."""

import warnings

import numpy as np
import pytest

import simt

SAXPY_ARGS = dict(grid=4, block=256)


def saxpy(asm):
    return simt.load(asm / "saxpy.s")["saxpy"]


def test_program_lists_kernels_params_and_defaults(asm):
    program = simt.load(asm / "saxpy.s")
    assert [k.name for k in program.kernels] == ["saxpy"]
    k = program["saxpy"]
    assert k.params == [("n", "u32"), ("a", "f32"), ("x", "ptr.f32"), ("y", "ptr.f32")]
    assert k.launch_dims == ((4, 1, 1), (256, 1, 1))
    assert k.defaults["x"] == "rand(1000, 1)"
    assert "FFMA" in k.disasm()
    assert "FFMA" in program.disasm()


def test_saxpy_from_numpy_matches_numpy(asm):
    n = 1000
    x = np.arange(n, dtype=np.float32)
    y = np.linspace(0, 1, n, dtype=np.float32)
    expected = np.float32(2.5) * x + y
    r = saxpy(asm).run(args={"n": n, "a": 2.5, "x": x.copy(), "y": y}, **SAXPY_ARGS)
    assert r["y"].dtype == np.float32
    np.testing.assert_array_equal(r["y"], expected)
    np.testing.assert_array_equal(r["x"], x)
    assert r.grid == (4, 1, 1) and r.block == (256, 1, 1)
    assert isinstance(r.stats, dict) and r.stats
    assert r.timing is None and r.trace is None and r._repr_svg_() is None


def test_arrays_are_passed_by_reference(asm):
    x = np.ones(1000, np.float32)
    y = np.zeros(1000, dtype=np.float32)
    r = saxpy(asm).run(args={"y": y, "a": 2.0, "x": x}, **SAXPY_ARGS)
    assert r["y"] is y and r["x"] is x
    assert (y == 2.0).all() and (x == 1.0).all()


def test_a_stepped_launch_stores_into_the_arrays_it_was_given(asm):
    y = np.zeros(1000, dtype=np.float32)
    sim = saxpy(asm).launch(args={"y": y, "a": 2.0, "x": np.ones(1000, np.float32)}, **SAXPY_ARGS)
    assert sim.run()["y"] is y and (y == 2.0).all()


def test_read_only_arrays_are_copied_and_left_alone(asm):
    y = np.zeros(1000, np.float32)
    y.setflags(write=False)
    r = saxpy(asm).run(args={"y": y, "a": 1.0, "x": np.ones(1000, np.float32)}, **SAXPY_ARGS)
    assert not y.any() and r["y"] is not y and (r["y"] == 1.0).all()


def test_arrays_that_cannot_be_lent_are_copied_in_and_written_back(asm):
    # float32 elements one byte past an aligned address: not whole aligned words.
    y = np.frombuffer(bytearray(4001), dtype=np.float32, offset=1)
    assert y.flags.writeable and y.ctypes.data % 4 != 0
    r = saxpy(asm).run(args={"y": y, "a": 1.0, "x": np.ones(1000, np.float32)}, **SAXPY_ARGS)
    assert r["y"] is y and (y == 1.0).all()


def test_a_converted_array_is_written_back_as_its_element_type_holds_it():
    k = simt.assemble(".kernel k\n.param .ptr.e4m3 v\n.launch grid(1) block(32)\nEXIT\n")["k"]
    v = np.array([0.3, 1.0], np.float32)
    r = k.run(args={"v": v})
    assert r["v"] is v and v.tolist() == [0.3125, 1.0]
    assert k.run(args={"v": v}, raw=True)["v"].tolist() == [0x2A, 0x38]


def test_two_dimensional_arrays_are_taken_in_c_order(asm):
    x = np.arange(1000, dtype=np.float32).reshape(10, 100)
    r = saxpy(asm).run(args={"a": 1.0, "x": x, "y": np.zeros(1000, np.float32)})
    np.testing.assert_array_equal(r["y"], x.ravel())


def test_generator_text_and_defaults_match_the_cli_generators(asm):
    r = saxpy(asm).run(args={"a": 0.0, "y": "iota(1000)"})
    np.testing.assert_array_equal(r["y"], np.arange(1000, dtype=np.float32))


def test_tensor_maps_take_their_text_and_give_back_their_tensors(asm, tmp_path):
    k = simt.load(asm / "tma.s")["tma"]
    r = k.run()
    np.testing.assert_array_equal(r["dst"].reshape(64, 64), r["src"].reshape(64, 64).T)
    x = np.arange(4096, dtype=np.float32).reshape(64, 64)
    np.save(tmp_path / "x.npy", x)
    r = k.run(args={"src": f"tensormap(@{tmp_path / 'x.npy'}, box=[32, 32], swizzle=128)"})
    np.testing.assert_array_equal(r["dst"].reshape(64, 64), x.T)
    with pytest.raises(ValueError, match="the box is missing"):
        k.run(args={"src": f"tensormap(@{tmp_path / 'x.npy'})"})


def test_both_models_give_the_same_if_else_result(asm):
    k = simt.load(asm / "divergence" / "if_else.s")["if_else"]
    tid = np.arange(64, dtype=np.uint32)
    want = np.where(tid % 2 == 0, 2 * tid, 3 * tid).astype(np.uint32)
    for model in ("its", "stack"):
        np.testing.assert_array_equal(k.run(model=model)["out"], want)


def test_trace_gives_records_and_an_svg(asm):
    k = simt.load(asm / "divergence" / "if_else.s")["if_else"]
    r = k.run(trace=True, trace_warp=0)
    assert r.trace and {"pc", "line", "opcode", "active", "warp", "block"} <= set(r.trace[0])
    assert all(issue["warp"] == 0 for issue in r.trace)
    assert r._repr_svg_().lstrip().startswith("<svg")
    table = r.trace_table()
    assert len(table["pc"]) == len(table["opcode"]) == len(r.trace)
    assert table["active"].dtype == np.uint32 and table["active"][0] == r.trace[0]["active"]


def test_raw_buffers_are_bytes(asm):
    x = np.arange(1000, dtype=np.float32)
    r = saxpy(asm).run(args={"x": x}, raw=True)
    assert r["x"].dtype == np.uint8 and r["x"].tobytes() == x.tobytes()


def test_timing_returns_timing_statistics(asm):
    r = saxpy(asm).run(timing="h100")
    assert isinstance(r.timing, dict) and r.timing
    assert "h100" in simt.machines()


def test_assembly_error_has_file_line_column_and_the_rendered_diagnostic():
    with pytest.raises(simt.AssemblyError) as e:
        simt.assemble(".kernel k\n.launch grid(1) block(32)\n    FROB R0, R1\nEXIT\n", name="bad.s")
    assert (e.value.file, e.value.line, e.value.column) == ("bad.s", 3, 5)
    assert "bad.s:3:5" in str(e.value)


def test_bytecode_round_trips_and_a_foreign_version_is_refused(tmp_path, asm):
    program = simt.load(asm / "saxpy.s")
    path = tmp_path / "saxpy.simtb"
    path.write_bytes(program.to_bytes())
    assert simt.load(path)["saxpy"].disasm() == program["saxpy"].disasm()
    data = bytearray(program.to_bytes())
    data[4] ^= 0xFF  # the version field follows the magic
    path.write_bytes(bytes(data))
    with pytest.raises(simt.LoadError, match="version"):
        simt.load(path)


@pytest.mark.parametrize(
    "x, expected",
    [
        (np.zeros(1000, np.float64), "expects a C-contiguous numpy array of dtype float32"),
        (np.zeros(1000, ">f4"), "expects a C-contiguous numpy array of dtype float32"),
        (np.zeros(2000, np.float32)[::2], "not contiguous"),
        (np.float32(1.0), "expects"),
        (np.array(1.0, np.float32), "0-d array"),
        (3, "generator"),
        ([1.0, 2.0], "generator"),
    ],
)
def test_a_wrong_array_is_a_type_error_naming_the_parameter(asm, x, expected):
    with pytest.raises(TypeError, match=expected) as e:
        saxpy(asm).run(args={"x": x})
    assert "`x`" in str(e.value)


@pytest.mark.parametrize("a", ["two", np.zeros(3, np.float32), True, None])
def test_a_wrong_scalar_names_the_parameter(asm, a):
    with pytest.raises((TypeError, ValueError), match="`a`"):
        saxpy(asm).run(args={"a": a})


def test_a_too_short_buffer_faults_at_the_first_access_past_its_end(asm):
    with pytest.raises(simt.Fault) as e:
        saxpy(asm).run(args={"n": 1000, "x": np.zeros(10, np.float32)})
    fault = e.value
    assert fault.kernel == "saxpy" and fault.kind == "OutOfBounds"
    assert fault.pc is not None and fault.line is not None and fault.lane is not None
    assert fault.thread is not None and fault.block == (0, 0, 0)


def test_unknown_argument_suggests_the_closest(asm):
    with pytest.raises(simt.LaunchError, match="no parameter `xx`.*did you mean `x`"):
        saxpy(asm).run(args={"xx": np.zeros(4, np.float32)})


def test_missing_argument_is_a_launch_error():
    k = simt.assemble(".kernel k\n.param .u32 n\n.launch grid(1) block(32)\nEXIT\n")["k"]
    with pytest.raises(simt.LaunchError, match="missing argument.*n"):
        k.run()


@pytest.mark.parametrize("grid, error", [(-1, ValueError), ((1, -2), ValueError), (0, simt.LaunchError), ((1, 1, 1, 1), ValueError), ("4", TypeError)])
def test_bad_grid(asm, grid, error):
    with pytest.raises(error, match="grid"):
        saxpy(asm).run(grid=grid)


def test_bad_model_and_sanitizer(asm):
    with pytest.raises(ValueError, match="its"):
        saxpy(asm).run(model="simd")
    with pytest.raises(ValueError, match="racecheck"):
        saxpy(asm).run(sanitize=["speedcheck"])


def test_fault_out_of_bounds_has_attributes(asm):
    with pytest.raises(simt.Fault) as e:
        simt.load(asm / "bugs" / "oob.s")["oob"].run()
    assert e.value.lane == 28 and e.value.thread == (60, 0, 0)
    assert "oob.s" in str(e.value)


def test_sanitizer_findings_are_records(asm):
    r = simt.load(asm / "bugs" / "race.s").kernels[0].run(sanitize=["racecheck", "initcheck"])
    assert [(f["kind"], f["line"], f["count"]) for f in r.findings] == [("racecheck", 19, 63), ("initcheck", 19, 1), ("racecheck", 14, 1)]
    assert r.findings[0]["related"][0][0] == 14
    assert saxpy(asm).run(sanitize=["racecheck"]).findings == []


def test_a_fault_carries_the_findings_before_it(asm):
    k = simt.assemble(
        ".kernel k\n.param .ptr.u32 out\n.shared .u32 s[2]\n.launch grid(1) block(2)\n.arg out = zeros(1)\n"
        "S2R R0, SR_TID.X\nST.SHARED.U32 [s], R0\nLD.PARAM.U32 R1, [out]\nLEA R1, R0, R1, 10\nST.GLOBAL.U32 [R1], R0\nEXIT\n"
    ).kernels[0]
    with pytest.raises(simt.Fault) as e:
        k.run(sanitize=["racecheck"])
    assert [(f["kind"], f["count"]) for f in e.value.findings] == [("racecheck", None)]


def test_stack_model_spinlock_hits_the_step_limit(asm):
    k = simt.load(asm / "divergence" / "spinlock.s")["spinlock"]
    with pytest.raises(simt.StepLimit) as e:
        k.run(model="stack", max_steps=100_000)
    assert isinstance(e.value, simt.Fault)
    assert k.run()["counter"][0] == 128


def test_a_divergent_barrier_deadlocks_under_stack_only(asm):
    k = simt.load(asm / "bugs" / "divergent_barrier.s").kernels[0]
    np.testing.assert_array_equal(k.run()["out"], np.arange(64, dtype=np.uint32) ^ 1)
    with pytest.raises(simt.Deadlock) as e:
        k.run(model="stack")
    assert e.value.kind == "Deadlock" and "wait at the block barrier" in str(e.value)


def test_long_runs_release_the_gil(asm):
    import threading

    k = simt.load(asm / "divergence" / "spinlock.s")["spinlock"]
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    t = threading.Thread(target=tick)
    t.start()
    with pytest.raises(simt.StepLimit):
        k.run(model="stack", max_steps=2_000_000, threads=1)
    done.set()
    t.join()
    assert len(ticks) > 5, "another Python thread ran while the kernel did"


def if_else(asm):
    return simt.load(asm / "divergence" / "if_else.s")["if_else"]


def test_stepping_shows_the_divergent_branch_one_instruction_at_a_time(asm):
    sim = if_else(asm).launch(model="stack")
    issues = []
    while (issue := sim.step(warp=0)) is not None:
        issues.append(issue)
        if issue["opcode"] == "BRA" and "branch" in issue:
            break
    bra = issues[-1]
    assert bra["branch"]["diverged"] and bra["executed"] == 0x55555555
    after = sim.step(warp=0)
    assert after["active"] in (0x55555555, 0xAAAAAAAA)
    state = sim.warp(0, 0)
    assert state["regs"].shape == (32, if_else(asm).regs) and state["regs"].dtype == np.uint32
    np.testing.assert_array_equal(state["regs"][:, 0], np.arange(32))
    assert state["preds"].shape == (32, 7) and state["preds"][0, 0] and not state["preds"][1, 0]


def test_stepped_run_matches_run_under_both_models(asm):
    for model in ("its", "stack"):
        sim = if_else(asm).launch(model=model)
        for _ in range(5):
            sim.step()
        result = sim.run()
        np.testing.assert_array_equal(result["out"], if_else(asm).run(model=model)["out"])
        assert result.stats == if_else(asm).run(model=model).stats
        assert sim.step() is None and sim.block is None


def test_breakpoints_stop_before_their_line(asm):
    source = (asm / "divergence" / "if_else.s").read_text().splitlines()
    line = next(i for i, text in enumerate(source, 1) if text.strip().startswith("SHL"))
    sim = if_else(asm).launch()
    assert sim.run(breakpoints=[line]) is None
    assert sim.warp(0, 0)["line"] == line or sim.step()["line"] == line
    assert sim.run() is not None


def test_warp_of_another_block_is_refused(asm):
    sim = saxpy(asm).launch()
    with pytest.raises(ValueError, match="block 2 is not resident"):
        sim.warp(2, 0)
    with pytest.raises(ValueError, match="warp 99 does not exist"):
        sim.warp(0, 99)


def test_a_stepped_fault_is_raised_from_step(asm):
    sim = simt.load(asm / "bugs" / "oob.s")["oob"].launch()
    with pytest.raises(simt.Fault):
        sim.run()


@pytest.mark.parametrize("timing", [None, "h100"])
def test_ctrl_c_interrupts_a_long_run(asm, timing):
    import _thread
    import threading

    # Stores every iteration, so only the step limit (out of reach) would end it.
    k = simt.assemble(
        ".kernel spin\n.param .ptr.u32 out\n.launch grid(1) block(32)\n.arg out = zeros(32)\n"
        "S2R R0, SR_TID.X\nLD.PARAM.U32 R1, [out]\nLEA R1, R0, R1, 2\nLOOP:\nST.GLOBAL.U32 [R1], R0\nBRA LOOP\n"
    )["spin"]
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            k.run(max_steps=10**15, timing=timing)
    finally:
        timer.cancel()


def test_a_thread_pool_sweep_gives_the_sequential_results(asm):
    from concurrent.futures import ThreadPoolExecutor

    k = simt.load(asm / "precision.s")["precision"]
    points = [(16, 1.0), (64, 1.0), (16, 4.0), (64, 4.0)]

    def error_at(point):
        return k.run(args={"k": point[0], "scale": point[1]}, threads=1)["err"]

    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(error_at, points))
    for point, err in zip(points, parallel):
        np.testing.assert_array_equal(err, error_at(point))


def test_ptx_from_clang_runs_like_the_cli(asm):
    saxpy = simt.load(asm.parent / "examples" / "cuda" / "saxpy.ptx")["saxpy"]
    assert [ty for _, ty in saxpy.params] == ["u32", "f32", "raw.f32", "raw.f32"]
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    names = [name for name, _ in saxpy.params]
    expected = np.float32(2.5) * x + y
    r = saxpy.run(grid=4, block=256, args=dict(zip(names, [1000, 2.5, x, y])))
    assert (r[names[3]] == expected).all()


def test_ptx_pointers_take_int64_and_bool_arrays_and_give_them_back(asm):
    corpus = asm.parent / "tests" / "ml" / "tinygrad"
    mul = simt.load(corpus / "int64_mul.ptx")["E_8_32_4"]
    a = np.load(corpus / "data" / "int64_mul.data1.in.npy")
    b = np.load(corpus / "data" / "int64_mul.data2.in.npy")
    out = np.zeros(1024, dtype=np.int64)
    r = mul.run(grid=8, block=32, args=[out, a, b])
    assert r["data0"].dtype == np.int64
    np.testing.assert_array_equal(r["data0"], np.load(corpus / "data" / "int64_mul.data0.expected.npy"))
    less = simt.load(corpus / "compare_bool_out.ptx")["E_8_32_4"]
    x = np.load(corpus / "data" / "add.data2.in.npy")
    y = np.load(corpus / "data" / "add.data1.in.npy")
    r = less.run(grid=8, block=32, args=[np.zeros(1024, dtype=np.bool_), x, y])
    assert r["data0"].dtype == np.bool_
    np.testing.assert_array_equal(r["data0"], np.load(corpus / "data" / "compare_bool_out.data0.expected.npy"))


def test_ptx_run_launches_over_arrays_and_addresses(asm):
    text = (asm.parent / "examples" / "cuda" / "saxpy.ptx").read_text()
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    assert simt.ptx_run(text, [1000, 2.0, x, y], grid=4, block=256) is None
    np.testing.assert_array_equal(y, np.float32(2.0) * x + 1)
    # A raw address reaches the array's memory; an int for a float parameter is its bits.
    z = np.zeros(1000, dtype=np.float32)
    simt.ptx_run(text, [1000, int(np.float32(1.0).view(np.uint32)), x.ctypes.data, z.ctypes.data], grid=(4,), block=(256,))
    np.testing.assert_array_equal(z, x)
    with pytest.raises(simt.Fault) as e:
        simt.ptx_run(text, [1000, 2.0, x, 0x10], grid=4, block=256)
    assert "host 0x10, not mapped in this process" in str(e.value) and e.value.kernel == "saxpy"
    with pytest.raises(simt.LaunchError, match="takes 4 arguments"):
        simt.ptx_run(text, [1000, 2.0, x], grid=4, block=256)
    with pytest.raises(ValueError, match="writeable"):
        simt.ptx_run(text, [1000, 2.0, x, y[::2]], grid=4, block=256)
    with pytest.raises(simt.AssemblyError):
        simt.ptx_run(".version 7.0\n.target sm_80\n.address_size 64\n", [], grid=1, block=1)


# `dst` reaches its store only through shared memory, so it stays a `.u64`; `src` is a
# pointer (`.raw.u32`); `unused` is a `.u64` the kernel never reads (tests/addresses.rs).
BIND_PTX = """.version 8.0
.target sm_80
.address_size 64

.visible .entry bind(.param .u64 src, .param .u64 dst, .param .u64 scale, .param .u64 unused)
{
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;
	.shared .align 8 .b64 keep[1];

	mov.u32 %r1, %tid.x;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
	ld.param.u64 %rd3, [scale];
	st.shared.u64 [keep], %rd2;
	ld.shared.u64 %rd4, [keep];
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd1, %rd5;
	ld.global.u32 %r2, [%rd6];
	cvt.u32.u64 %r3, %rd3;
	mul.lo.u32 %r4, %r2, %r3;
	add.s64 %rd7, %rd4, %rd5;
	st.global.u32 [%rd7], %r4;
	ret;
}
"""


def test_a_ptx_u64_takes_an_array_an_int_or_nothing():
    kernel = simt.ptx(BIND_PTX)["bind"]
    assert kernel.params == [("src", "raw.u32"), ("dst", "u64"), ("scale", "u64"), ("unused", "u64")]
    src = np.arange(4, dtype=np.uint32)
    # A `.u64` given an array holds its buffer's address; the stores land in the array,
    # whatever its dtype. `unused` is left out: the kernel never reads it, so it is 0.
    for dst in (np.zeros(4, dtype=np.uint32), np.zeros(2, dtype=np.int64), np.zeros(16, dtype=np.uint8)):
        r = kernel.run(grid=1, block=4, args={"src": src, "dst": dst, "scale": 3})
        assert r["dst"] is dst
        np.testing.assert_array_equal(dst.view(np.uint32), [0, 3, 6, 9])
    # The same by position, with a read-only array (copied in, given back anew), and stepped.
    dst = np.zeros(4, dtype=np.uint32)
    dst.setflags(write=False)
    r = kernel.run(grid=1, block=4, args=[src, dst, 3])
    assert r["dst"] is not dst and r["dst"].tolist() == [0, 3, 6, 9] and dst.tolist() == [0] * 4
    stepped = np.zeros(4, dtype=np.uint32)
    kernel.launch(grid=1, block=4, args=[src, stepped, 2, 0]).run()
    assert stepped.tolist() == [0, 2, 4, 6]
    # A `.u64` given an int has no buffer; a pointer given 0 faults when followed.
    r = kernel.run(grid=1, block=4, args={"src": src, "dst": np.zeros(4, dtype=np.uint32), "scale": np.uint64(1)})
    assert "scale" not in r.buffers
    with pytest.raises(simt.Fault, match="reads address 0x0: addresses below 0x100 are never mapped"):
        kernel.run(grid=1, block=4, args={"src": 0, "dst": np.zeros(4, dtype=np.uint32), "scale": 1})
    # The command line's rules and words.
    bad = [
        ({"src": 1 << 32}, TypeError, "4294967296 is no address a pointer parameter can hold: it holds a GLOBAL address, below 2\\^32"),
        ({"src": 2.5}, TypeError, "2.5 is a float, not an address: give a buffer or an integer address"),
        ({"scale": 2.5}, TypeError, "2.5 is a float but the parameter is .u64: write an integer"),
        ({"dst": np.zeros(3, dtype=np.uint8)}, ValueError, r"`dst` \(.param .u64 dst\) makes a buffer of u32 elements, so give it a whole number of 4-byte"),
        ({"dst": np.zeros(4, dtype=np.complex64)}, TypeError, r"`dst` \(.param .u64 dst\) takes an array of any of the dtypes"),
        ({"dst": [1, 2]}, TypeError, r"a list for a pointer is a table of pointers to arrays, and item 0 is int, not an array"),
    ]
    for given, error, message in bad:
        args = {"src": src, "dst": np.zeros(4, dtype=np.uint32), "scale": 1} | given
        with pytest.raises(error, match=message):
            kernel.run(grid=1, block=4, args=args)


def test_a_list_of_arrays_is_a_table_of_pointers(asm):
    kernel = simt.load(asm / "pointer_table.s")["pointer_table"]
    a, b = np.arange(5, dtype=np.float32), np.full(2, 0.25, dtype=np.float32)
    sums = np.zeros(2, dtype=np.float32)
    r = kernel.run(args={"groups": 2, "arrays": [a, b], "lens": np.array([5, 2], dtype=np.uint32), "sums": sums})
    assert sums.tolist() == [10.0, 0.5]
    # Each array is lent as a pointer's is, under NAME.K; NAME is the table of addresses.
    assert r["arrays.0"] is a and r["arrays.1"] is b
    assert r["arrays"].dtype == np.uint64 and r["arrays"].size == 2 and r["arrays"][0] != r["arrays"][1]
    # The command line's text works too.
    r = kernel.run(args={"groups": 2, "arrays": "pointers([1, 2], [3], type=f32)", "lens": "[2, 1]", "sums": "zeros(2)"})
    assert r["sums"].tolist() == [3.0, 3.0] and r["arrays.1"].tolist() == [3.0]


def test_a_dtype_mismatch_of_one_size_offers_the_bits_or_the_values(asm):
    y = np.ones(1000, dtype=np.float32)
    with pytest.raises(TypeError, match=r"a\.view\('<f4'\)`, or convert the values with `a\.astype\('<f4'\)"):
        saxpy(asm).run(args={"x": np.arange(1000, dtype=np.int32), "y": y})
    with pytest.raises(TypeError, match=r"convert the values with `a\.astype\('<f4'\)`$"):
        saxpy(asm).run(args={"x": np.arange(1000, dtype=np.float64), "y": y})


REVERSE_PTX = """.version 8.0
.target sm_80
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry rev(.param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 2;
	mov.u32 %r3, smem;
	add.s32 %r3, %r3, %r2;
	st.shared.u32 [%r3], %r1;
	bar.sync 0;
	mov.u32 %r3, smem;
	sub.s32 %r2, 124, %r2;
	add.s32 %r3, %r3, %r2;
	ld.shared.u32 %r2, [%r3];
	ld.param.u64 %rd1, [out];
	mul.wide.u32 %rd2, %r1, 4;
	add.s64 %rd1, %rd1, %rd2;
	st.global.u32 [%rd1], %r2;
	ret;
}
"""


def test_dynamic_shared_memory_comes_with_the_launch():
    kernel = simt.ptx(REVERSE_PTX)["rev"]
    out = np.zeros(32, dtype=np.uint32)
    kernel.run(grid=1, block=32, args=[out], shared=128)
    np.testing.assert_array_equal(out, np.arange(32)[::-1])
    # The fault says what to do in Python's words, not the command line's.
    with pytest.raises(simt.Fault, match="give it with `shared=N`") as fault:
        kernel.run(grid=1, block=32, args=[out])
    assert "--shared-bytes" not in str(fault.value)
    sim = kernel.launch(grid=1, block=32, args=[np.zeros(32, dtype=np.uint32)], shared=128)
    while sim.step() is not None:
        pass
    out = np.zeros(32, dtype=np.uint32)
    simt.ptx_run(REVERSE_PTX, [out], grid=1, block=32, shared=128)
    np.testing.assert_array_equal(out, np.arange(32)[::-1])


def test_arguments_may_come_in_parameter_order(asm):
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, dtype=np.float32)
    r = saxpy(asm).run(grid=1, block=128, args=[100, 2.0, x, y])
    np.testing.assert_array_equal(r["y"], 2 * x + 1)
    r = saxpy(asm).run(grid=1, block=128, args=(4,))
    assert r["y"].shape == (1000,), "x and y keep their .arg defaults"
    with pytest.raises(simt.LaunchError, match="takes 4 arguments"):
        saxpy(asm).run(args=[1, 2.0, x, y, 5])
    with pytest.raises(TypeError, match="not a str"):
        saxpy(asm).run(args="n=4")


def test_ptx_errors_name_the_line():
    with pytest.raises(simt.AssemblyError) as e:
        simt.ptx(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\ttanh.approx.f32 %f1, %f2;\n\tret;\n}\n", "k.ptx")
    assert (e.value.file, e.value.line) == ("k.ptx", 6)


def test_report_writes_one_page_of_a_traced_run(asm, tmp_path):
    k = simt.load(asm / "divergence" / "nested.s")["nested"]
    page = tmp_path / "nested.html"
    k.run(trace=True).report(page)
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>") and '"kernel":"nested"' in html
    with pytest.raises(ValueError, match="trace=True"):
        k.run().report(tmp_path / "untraced.html")


def test_a_timed_traced_run_reports_its_cycles_and_computes_what_a_run_does(asm, tmp_path):
    k = simt.load(asm / "saxpy.s")["saxpy"]
    timed = k.run(timing="h100", trace=True)
    assert timed.timing["cycles"] > 0 and len(timed.trace) == 544
    np.testing.assert_array_equal(timed["y"], k.run()["y"])
    timed.report(tmp_path / "saxpy.html")
    assert '"warp_states"' in (tmp_path / "saxpy.html").read_text()


def test_its_yield_is_the_clis_its_yield(asm):
    # `simt run asm/divergence/spinlock.s --its-yield Y --threads 1 --json` issues these many warp
    # instructions (on one thread: on several, the two blocks contend for the lock in any order).
    k = simt.load(asm / "divergence" / "spinlock.s")["spinlock"]
    assert [k.run(its_yield=y, threads=1).stats["warp_instructions"] for y in (1, 2)] == [2046, 2418]
    assert k.run(threads=1).stats["warp_instructions"] == k.run(its_yield=16, threads=1).stats["warp_instructions"] == 10182
    # data_loop's looping group loses lanes every trip, so only a yield of 1 changes its masks.
    loop = simt.load(asm / "divergence" / "data_loop.s")["data_loop"]
    assert [loop.run(its_yield=y).stats["warp_instructions"] for y in (1, 2, 16)] == [146, 90, 90]
    sim = loop.launch(its_yield=1)
    for _ in range(10):
        sim.step()
    assert sim.run().stats["warp_instructions"] == 146
    with pytest.raises(ValueError, match="its_yield must be at least 1"):
        k.run(its_yield=0)


def test_lints_warn_allow_and_deny_as_on_the_cli(asm):
    collatz = asm / "divergence" / "collatz.s"
    with pytest.warns(simt.LintWarning, match=r"warning\[loop_divergence\]"):
        simt.load(collatz)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simt.load(collatz, allow=["loop_divergence"])
        simt.load(collatz, allow=["warnings"])
        simt.load(asm / "saxpy.s")
    with pytest.raises(simt.AssemblyError, match=r"error\[loop_divergence\]") as e:
        simt.load(collatz, deny=["warnings"])
    assert (e.value.line, e.value.count) == (23, 1)
    # A single lint's level beats the group's, `-` is `_`, as with -A/-W/-D.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simt.load(collatz, deny=["warnings"], allow=["loop-divergence"])
    with pytest.raises(ValueError, match="is not a lint: use one of loop_divergence"):
        simt.assemble(".kernel k\nEXIT\n", allow=["loop_divergense"])


PRINTS = """
.kernel hello
.launch grid(2) block(3)
    S2R R4, SR_CTAID.X
    S2R R5, SR_TID.X
    PRINTF "block %d thread %d\\n", R4
    EXIT
"""


def test_printf_output_goes_to_stdout_and_the_result(capsys):
    result = simt.assemble(PRINTS)["hello"].run()
    want = "".join(f"block {b} thread {t}\n" for b in range(2) for t in range(3))
    assert result.printed == want
    assert capsys.readouterr().out == want
    assert [r["text"] for r in result.stats["printed"]][:2] == ["block 0 thread 0\n", "block 0 thread 1\n"]


def test_printing_past_the_limit_is_a_fault_that_keeps_what_came_before(capsys):
    with pytest.raises(simt.Fault, match="printed more than 200 bytes") as e:
        simt.assemble(PRINTS)["hello"].run(printf_limit=200, threads=1)
    assert "printf_limit=" in str(e.value)
    assert e.value.printed == capsys.readouterr().out == "block 0 thread 0\nblock 0 thread 1\n"
