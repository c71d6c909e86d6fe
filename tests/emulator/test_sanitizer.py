"""Every sanitizer check fires on a purpose-built broken kernel, at the user's file and line; timeouts, crashes,
compile errors and bad goldens come back as typed errors and the calling process lives on."""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

ONE_TILE = Case(name="one", inputs={"x": InputSpec(shape=[48 * 8192], dtype="float16")})
TWO_TILES = Case(name="two", inputs={"x": InputSpec(shape=[48 * 8192 * 2], dtype="float16")})
GOLDEN = "def golden(x, scale=2.0):\n    return (x.astype('float32') * 2.0).astype('float16')\n"


def run(
    tmp_path: Path,
    emu_cache: Path,
    kernel: str = KERNEL,
    host: str = HOST,
    case: Case = TWO_TILES,
    timeout: float = 30.0,
    golden: str | None = GOLDEN,
):
    # A stable path for every variant: host objects are keyed by content and path, so they are built once.
    root = write_operator(emu_cache.parent / "sanitizer-operator" / "scale", kernel=kernel, host=host)
    if golden is not None:
        (root / "golden.py").write_text(golden)
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=timeout)
    return device.run(
        load_operator(root), RunRequest(case, golden=str(root / "golden.py:golden") if golden else None)
    ), root


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_good_operator_runs_and_matches(tmp_path, emu_cache, needs_gxx):
    m, _ = run(tmp_path, emu_cache)
    assert m.error is None and m.ok and m.correct, m
    assert m.block_dim == 48 and m.max_abs_err == 0.0


def check_error(m, root: Path, kind: str, kernel: str, needle: str, *words: str):
    assert not m.ok and m.error is not None, m
    assert m.error.kind == kind, m.error
    assert m.error.file == str(root / "op_kernel" / "scale.cpp"), m.error
    assert m.error.line == line_of(kernel, needle), (m.error, needle)
    for w in words:
        assert w in m.error.message, m.error.message


def test_gm_out_of_bounds(tmp_path, emu_cache, needs_gxx):
    k = replace_once(
        KERNEL,
        "DataCopy(xLocal, xGm[progress * tileLength], tileLength);",
        "DataCopy(xLocal, xGm[progress * tileLength + 4 * blockLength], tileLength);",
    )
    m, root = run(tmp_path, emu_cache, k)
    check_error(m, root, "gm_out_of_bounds", k, "4 * blockLength", "input x", "past its end")


def test_ub_capacity_exceeded_is_a_warning_saying_by_how_much_and_an_access_past_the_ub_an_error(
    tmp_path, emu_cache, needs_gxx
):
    # The device's InitBuffer does not check the total: 2 x 128 KiB blocks after the 32 KiB in queue end 96 KiB past
    # the 192 KiB UB, yet each tile uses only the first 16 KiB of its block, inside the UB, and the result is right.
    k = replace_once(
        KERNEL,
        "pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));",
        "pipe.InitBuffer(outQueueY, BUFFER_NUM, 65536 * sizeof(half));",
    )
    m, root = run(tmp_path, emu_cache, k)
    assert m.ok and m.correct, m.error
    over = [w for w in m.warnings if w.kind == "ub_overflow"]
    assert [w.line for w in over] == [line_of(k, "65536 * sizeof(half)")], m.warnings
    assert "294912 bytes needed" in over[0].message and "98304 bytes over" in over[0].message
    # Blocks of 180000 bytes: the second starts past the UB's end, so the second tile's first use of it fails.
    k = replace_once(
        KERNEL,
        "pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));",
        "pipe.InitBuffer(outQueueY, BUFFER_NUM, 90000 * sizeof(half));",
    )
    m, root = run(tmp_path / "b", emu_cache, k)
    check_error(m, root, "ub_out_of_bounds", k, "Muls(yLocal", "196608-byte Unified Buffer")


def test_misaligned_ub_address(tmp_path, emu_cache, needs_gxx):
    k = replace_once(
        KERNEL,
        "DataCopy(xLocal, xGm[progress * tileLength], tileLength);",
        "DataCopy(xLocal[3], xGm[progress * tileLength], 16);",
    )
    m, root = run(tmp_path, emu_cache, k)
    check_error(m, root, "misaligned", k, "xLocal[3]", "byte offset 6")


def test_deque_on_empty_queue_is_a_deadlock_naming_the_queue(tmp_path, emu_cache, needs_gxx):
    k = replace_once(KERNEL, "        inQueueX.EnQue(xLocal);\n", "")
    m, root = run(tmp_path, emu_cache, k)
    check_error(
        m,
        root,
        "deadlock",
        k,
        "LocalTensor<half> xLocal = inQueueX.DeQue<half>();",
        "empty queue",
        f"scale.cpp:{line_of(k, 'pipe.InitBuffer(inQueueX')}",
    )


def test_alloc_with_no_free_buffer_is_a_deadlock(tmp_path, emu_cache, needs_gxx):
    k = replace_once(KERNEL, "        inQueueX.FreeTensor(xLocal);\n", "")
    m, root = run(
        tmp_path, emu_cache, k, case=Case(name="many", inputs={"x": InputSpec(shape=[48 * 8192 * 3], dtype="float16")})
    )
    check_error(m, root, "deadlock", k, "inQueueX.AllocTensor<half>()", "all 2 of its buffers are in use")


def test_tensor_not_freed_at_kernel_end(tmp_path, emu_cache, needs_gxx):
    k = replace_once(KERNEL, "        outQueueY.FreeTensor(yLocal);\n", "")
    m, root = run(tmp_path, emu_cache, k, case=ONE_TILE)
    check_error(m, root, "tensor_leak", k, "pipe.InitBuffer(outQueueY", "never freed")


def test_a_tensor_enqueued_into_another_queue_is_a_warning_and_dequeues_as_that_block(tmp_path, emu_cache, needs_gxx):
    # The device's queue records buffer handles: x's block, scaled in place and EnQue'd into the out queue, comes
    # back from its DeQue, and the out queue's FreeTensor releases it in the in queue (which would otherwise run out
    # of its 2 blocks by the third tile). Only the CPU debug build asserts on it, so both calls are warnings.
    k = replace_once(
        KERNEL,
        """        LocalTensor<half> yLocal = outQueueY.AllocTensor<half>();
        Muls(yLocal, xLocal, (half)2.0, tileLength);
        outQueueY.EnQue<half>(yLocal);
        inQueueX.FreeTensor(xLocal);
""",
        """        Muls(xLocal, xLocal, (half)2.0, tileLength);
        outQueueY.EnQue<half>(xLocal);
""",
    )
    m, root = run(tmp_path, emu_cache, k)
    assert m.ok and m.correct, m
    misuse = sorted((w.line, w.message) for w in m.warnings if w.kind == "queue_misuse")
    assert [line for line, _ in misuse] == [
        line_of(k, "outQueueY.EnQue<half>(xLocal)"),
        line_of(k, "outQueueY.FreeTensor(yLocal)"),
    ], m.warnings
    assert all(f"scale.cpp:{line_of(k, 'pipe.InitBuffer(inQueueX')}" in msg for _, msg in misuse), misuse


def per_tile_pipe_kernel(scoped: bool) -> str:
    """The good kernel with its queues made per tile, each 2 x 32 KiB: two tiles of them are 256 KiB, more than a
    910B's 192 KiB UB, so it runs only if the UB goes back between tiles: by the tile's own TPipe being destroyed
    (`scoped`), or by Reset on the kernel's one TPipe."""
    k = KERNEL.replace(
        "        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(half));\n"
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n",
        "",
    )
    make = "            TPipe tilePipe;\n" if scoped else ""
    use = "tilePipe" if scoped else "pipe"
    return replace_once(
        k,
        "            CopyIn(i);\n",
        make + f"            {use}.InitBuffer(inQueueX, BUFFER_NUM, 2 * tileLength * sizeof(half));\n"
        f"            {use}.InitBuffer(outQueueY, BUFFER_NUM, 2 * tileLength * sizeof(half));\n"
        "            CopyIn(i);\n",
    ).replace(
        "            CopyOut(i);\n", "            CopyOut(i);\n" + ("" if scoped else "            pipe.Reset();\n")
    )


def test_a_destroyed_or_reset_tpipe_gives_its_ub_back(tmp_path, emu_cache, needs_gxx):
    for scoped in (True, False):
        m, _ = run(tmp_path, emu_cache, per_tile_pipe_kernel(scoped))
        assert m.ok and m.correct, (scoped, m)
        assert m.ub_peak_bytes == 4 * 2 * 8192 * 2, (scoped, m.ub_peak_bytes)  # one tile's queues, not two


def test_setflag_never_waited_and_wait_never_set(tmp_path, emu_cache, needs_gxx):
    k = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n        SetFlag<HardEvent::V_S>(EVENT_ID1);\n",
    )
    m, root = run(tmp_path, emu_cache, k)
    check_error(m, root, "unpaired_flag", k, "SetFlag<HardEvent::V_S>(EVENT_ID1)", "never waited for")
    k = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        WaitFlag<HardEvent::V_S>(EVENT_ID2);\n        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
    )
    m, root = run(tmp_path / "b", emu_cache, k)
    check_error(m, root, "unpaired_flag", k, "WaitFlag<HardEvent::V_S>(EVENT_ID2)", "would hang")


def test_syncall_without_workspace(tmp_path, emu_cache, needs_gxx):
    k = replace_once(KERNEL, "    op.Process();\n", "    op.Process();\n    SyncAll();\n")
    m, root = run(tmp_path, emu_cache, k)
    check_error(m, root, "syncall_without_workspace", k, "SyncAll();", "GetWorkspaceSizes")
    host = replace_once(HOST, "ws[0] = 0;", "ws[0] = 16 * 1024 * 1024 + 1024;")
    m, _ = run(tmp_path / "ok", emu_cache, k, host=host)
    assert m.ok and m.correct, m.error


def test_endless_loop_times_out(tmp_path, emu_cache, needs_gxx):
    k = replace_once(KERNEL, "    op.Process();\n", "    op.Process();\n    while (true) {}\n")
    m, _ = run(tmp_path, emu_cache, k, timeout=3)
    assert m.error.kind == "timeout" and "killed" in m.error.message
    assert 3 <= m.run_s < 15


def test_segfault_is_a_crash_not_a_dead_caller(tmp_path, emu_cache, needs_gxx):
    k = replace_once(KERNEL, "    op.Process();\n", "    op.Process();\n    *(volatile int*)nullptr = 1;\n")
    m, _ = run(tmp_path, emu_cache, k)
    assert m.error.kind == "crash" and "SIGSEGV" in m.error.message


def test_compile_error_at_the_users_line(tmp_path, emu_cache, needs_gxx):
    k = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);",
        "        Muls(yLocal, xLocal, (half)2.0, tileLen);",
    )
    m, root = run(tmp_path, emu_cache, k)
    check_error(m, root, "compile_error", k, "tileLen);", "tileLen")


def test_golden_that_raises_or_returns_the_wrong_shape(tmp_path, emu_cache, needs_gxx):
    m, _ = run(tmp_path, emu_cache, golden="def golden(x, scale=2.0):\n    raise KeyError('boom')\n")
    assert m.ok and m.correct is False and m.error.kind == "golden_error" and "KeyError" in m.error.message
    m, _ = run(tmp_path / "b", emu_cache, golden="def golden(x, scale=2.0):\n    return x, x\n")
    assert m.correct is False and m.error.kind == "golden_shape"
    # The operator registers no InferShape, so the golden's shape is the output's (an aclnn caller allocates it):
    # a golden that is too short makes the kernel overrun the output.
    m, _ = run(tmp_path / "c", emu_cache, golden="def golden(x, scale=2.0):\n    return x[:10]\n")
    assert not m.ok and m.error.kind == "gm_out_of_bounds"


def test_case_that_does_not_match_the_opdef(tmp_path, emu_cache, needs_gxx):
    bad = Case(name="bad", inputs={"y": InputSpec(shape=[64], dtype="float16")})
    m, _ = run(tmp_path, emu_cache, case=bad)
    assert m.error.kind == "bad_case" and "missing ['x']" in m.error.message
    wrong_dtype = Case(name="bad", inputs={"x": InputSpec(shape=[64], dtype="int32")})
    m, _ = run(tmp_path / "b", emu_cache, case=wrong_dtype)
    assert m.error.kind == "bad_case" and "float16" in m.error.message


def _with_scratch(touch: int) -> str:
    """The good kernel plus a 64-byte TBuf taken as 64 halves (128 bytes) and `touch` halves of it written."""
    k = replace_once(
        KERNEL,
        "    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;\n",
        "    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;\n    TBuf<TPosition::VECCALC> scratch;\n",
    )
    k = replace_once(
        k,
        "pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));",
        "pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n"
        "        pipe.InitBuffer(scratch, 64);",
    )
    return replace_once(
        k,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n"
        "        LocalTensor<half> s = scratch.Get<half>(64);  // @get\n"
        f"        Duplicate(s, (half)0.0, {touch});  // @touch\n",
    )


def test_an_over_long_tbuf_get_is_a_warning_as_the_device_does_not_check_it(tmp_path, emu_cache, needs_gxx):
    k = _with_scratch(32)  # 64 bytes: inside the buffer
    m, root = run(tmp_path, emu_cache, k)
    assert m.ok and m.correct, m.error
    assert [(w.kind, w.line) for w in m.warnings] == [("ub_get_past_end", line_of(k, "@get"))]


def test_an_access_past_the_tbuf_inside_ub_is_a_warning_and_the_output_check_decides(tmp_path, emu_cache, needs_gxx):
    k = _with_scratch(64)  # 128 bytes into a 64-byte buffer: the device writes the UB bytes after it
    m, root = run(tmp_path, emu_cache, k)
    assert m.ok and m.correct, m.error
    assert [(w.kind, w.line) for w in m.warnings] == [
        ("ub_get_past_end", line_of(k, "@get")),
        ("ub_out_of_bounds", line_of(k, "@touch")),
    ]
    assert "neighbouring UB bytes" in m.warnings[1].message


def test_an_access_past_the_physical_ub_is_an_error(tmp_path, emu_cache, needs_gxx):
    k = _with_scratch(100000)  # 200000 bytes: past the 196608-byte UB
    m, root = run(tmp_path, emu_cache, k)
    check_error(m, root, "ub_out_of_bounds", k, "@touch", "196608-byte Unified Buffer")
