"""The emulator does what the Ascend C API reference documents, on small kernels written for these tests
(semantics_driver.cpp): Cast's overflow, round-mode table and DEQSCALE path, counter mode with isSetMask = false,
DataCopyPad's padding and filler, Brcb's dstBlkStride 0, DataCopy's and Compare's unaligned lengths (the tail is
dropped, with a warning), the ReduceMax / ReduceSum work-buffer size formula and the event-id range.

The reference is the official Ascend C API guide (the docs/zh/api tree of the public asc-devkit repository); each test
names the page its expected values come from.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from kernel_drivers import build_driver

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "src" / "tilewise" / "device" / "emulator" / "include"
DRIVER = Path(__file__).resolve().parent / "semantics_driver.cpp"
CXX = shutil.which("g++")

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_documented_semantics"),
]

MAX_HALF, MIN_HALF, INF, NINF = 0x7BFF, 0xFBFF, 0x7C00, 0xFC00


@dataclass
class Res:
    ok: bool
    out: list[str]
    kind: str = ""
    line: int = 0
    message: str = ""
    warnings: list[tuple[str, int, str]] = field(default_factory=list)  # (kind, line, message)


def marker_line(name: str) -> int:
    """The driver line that carries `// @name`."""
    return next(i for i, ln in enumerate(DRIVER.read_text().splitlines(), 1) if ln.rstrip().endswith(f"// @{name}"))


@pytest.fixture(scope="session")
def drv(tmp_path_factory: pytest.TempPathFactory):
    exe = build_driver(tmp_path_factory, DRIVER, error_lines=60)
    out = exe.parent

    def run(case: str, **kw) -> Res:
        d = Path(tempfile.mkdtemp(dir=out))
        p = subprocess.run(
            [str(exe), str(d), case, *(f"{k}={v}" for k, v in kw.items())], capture_output=True, text=True, timeout=60
        )
        assert p.returncode == 0, p.stderr
        result = (d / "result.txt").read_text().splitlines()
        head = result[0].split()
        res = Res(ok=head[0] == "ok", out=(d / "out.txt").read_text().split())
        if not res.ok:
            res.kind, res.line, res.message = head[1], int(head[2]), "\n".join(result[1:])
        lines = (d / "warnings.txt").read_text().splitlines()
        for i in range(0, len(lines), 2):
            kind, line, _count = lines[i].split()
            res.warnings.append((kind, int(line), lines[i + 1]))
        shutil.rmtree(d)
        return res

    return run


def halves(res: Res) -> list[int]:
    return [int(v, 16) for v in res.out]


def h(x: float) -> int:
    return int(np.float16(x).view(np.uint16))


# ---------------------------------------------------------------------------------------------------------------
# Cast


def test_cast_float_to_half_saturates_finite_overflow_in_every_mode(drv):
    """precision_conversion.md ("precision conversion rules"): "when the source value is beyond the destination's
    range it overflows, and overflow is handled in saturation mode by default", so 70000, 65520 and 3.4e38 give
    65504 (0x7BFF) and their negatives -65504 in every round mode the float -> half row of Cast.md lists (CAST_RINT,
    FLOOR, CEIL, ROUND, TRUNC, ODD, NONE). Infinite and nan inputs keep their value: the boundary-value appendix
    (Memory矢量计算接口边界值汇总.md, table 32, float/half) gives +inf -> +inf, -inf -> -inf, nan -> nan in the default
    INF/NAN mode. 65519 is below the rounding midpoint and rounds to 65504 like any in-range value; 1.5 is exact."""
    res = drv("cast_f2h")
    assert res.ok, res.message
    got = halves(res)
    assert len(got) == 7 * 10
    for m in range(7):
        row = got[m * 10 : (m + 1) * 10]
        assert row[:6] == [MAX_HALF, MIN_HALF, MAX_HALF, MAX_HALF, MAX_HALF, MIN_HALF], (m, [hex(v) for v in row])
        assert row[6:8] == [INF, NINF], m
        assert row[8] & 0x7C00 == 0x7C00 and row[8] & 0x3FF, "nan stays nan"
        assert row[9] == h(1.5)


def test_cast_int32_to_half_uses_the_deq_scale_and_ignores_the_round_mode(drv):
    """Cast.md, A2 table: int32_t -> half "roundMode does not take effect; used with SetDeqScale(half scale)".
    precision_conversion.md, int32_t -> half: "output src / 2^17 * scale * 2^17", i.e. src * scale. With scale 0.5
    and CAST_FLOOR given (ignored): 1 -> 0.5, -3 -> -1.5, 1000 -> 500, 70000 -> 35000 (nearest half 35008), 3 -> 1.5;
    int32 MAX / MIN overflow half and saturate to +-65504 (overflow saturates by default, precision_conversion.md)."""
    res = drv("deq", set=1, scale_x4=2)
    assert res.ok and not res.warnings, (res.message, res.warnings)
    assert halves(res) == [h(0), h(0.5), h(-1.5), h(500), h(35008), MAX_HALF, MIN_HALF, h(1.5)]


def test_cast_int32_to_half_without_set_deq_scale_warns_at_the_cast(drv):
    """SetDeqScale.md: the s322fp16 Cast reads its scale from the DEQSCALE register that SetDeqScale(half) sets; a
    Cast without it is reported (the emulator's register holds 0, so the output is zeros and the check fails)."""
    res = drv("deq")
    assert res.ok
    assert [(k, ln) for k, ln, _ in res.warnings] == [("deq_scale_unset", marker_line("deqcast"))]
    assert "SetDeqScale" in res.warnings[0][2]


@pytest.mark.parametrize(
    "pair,words",
    [("h2f", ["half -> float", "CAST_RINT", "CAST_NONE"]), ("f2i", ["float -> int32_t", "CAST_NONE", "CAST_TRUNC"])],
)
def test_cast_with_a_mode_the_table_does_not_list_is_an_error_at_the_call(drv, pair, words):
    """Cast.md, Atlas A2 table: half -> float supports only CAST_NONE; float -> int32_t supports CAST_RINT / FLOOR /
    CEIL / ROUND / TRUNC (not CAST_NONE). Another mode is no instruction of the device: a sanitizer error."""
    res = drv("bad_mode", pair=pair)
    assert not res.ok and res.kind == "unsupported_cast" and res.line == marker_line(pair), res
    for w in words:
        assert w in res.message


@pytest.mark.parametrize("pair", ["f2h_odd", "h2f_none"])
def test_cast_modes_the_table_lists_run(drv, pair):
    """Cast.md, Atlas A2 table: float -> half lists CAST_ODD; half -> float lists CAST_NONE."""
    res = drv("bad_mode", pair=pair)
    assert res.ok and not res.warnings, (res.message, res.warnings)


# ---------------------------------------------------------------------------------------------------------------
# Masks


@pytest.mark.parametrize(
    "mode,want",
    [
        ("external", ["200", "200", "10", "32"]),
        ("nomaskcount", ["200", "200", "10", "32"]),
        ("internal", ["10", "128", "10", "32"]),
    ],
)
def test_counter_mode_follows_the_mask_sections_three_set_ups(drv, mode, want):
    """掩码.md. "接口外设置Mask, Counter模式": after SetMaskCount() and SetVectorMask<half, MaskMode::COUNTER>(n),
    `Adds<half, false>(dst, src, v, 1)` (count form) and `Muls<half, false>(..., MASK_PLACEHOLDER, 1, ...)` (mask
    form) compute the register's n elements, not the count or repeat given. The count forms run in counter mode
    themselves, so the count alone (SetVectorMask<half, MaskMode::COUNTER>(n), no SetMaskCount) gives n too, and
    normal mode is still on afterwards. "接口内设置Mask, Counter模式, 前n个数据计算": a count form with isSetMask = true
    sets counter mode and the mask to its own count, computes, then calls ResetMask and SetMaskNorm: inside counter
    mode it computes its 10, and the mask-form call after it is a normal-mode repeat of every lane (128 halves).
    After each set-up, a count form of 10 changes 10 elements and a mask form (mask 16, 2 repeats) 32."""
    res = drv("counter", n=200, mode=mode)
    assert res.ok, res.message
    assert res.out == [*want, "values-ok"]


@pytest.mark.parametrize(
    "by,want",
    [
        # int16_t, uint16_t, int32_t, uint32_t: two count-form results (0b1010... and 3), the mask form's last, >> by
        (
            1,
            ["d554", "6", "d554", "d555", "5554", "6", "5554", "5555"]
            + ["d5555554", "6", "d5555554", "d5555555", "55555554", "6", "55555554", "55555555"],
        ),
        (
            3,
            ["d550", "18", "d550", "f555", "5550", "18", "5550", "1555"]
            + ["d5555550", "18", "d5555550", "f5555555", "55555550", "18", "55555550", "15555555"],
        ),
    ],
)
def test_shift_left_keeps_the_sign_of_signed_types(drv, by, want):
    """ShiftLeft.md: unsigned types shift logically ("the highest bit is dropped, the lowest filled with 0":
    uint16_t 1010101010101010 << 1 = 0101010101010100); signed types arithmetically ("the second-highest bit is
    dropped": int16_t 1010101010101010 << 1 = 1101010101010100, << 3 = 1101010101010000), i.e. the sign stays. The
    same holds at 32 bits, in the count and the mask forms. ShiftRight.md: signed right shifts are arithmetic (the
    sign fills), unsigned ones logical."""
    res = drv("shift", by=by)
    assert res.ok, res.message
    assert res.out == want


def test_cast_float_to_bfloat16_saturates_finite_overflow(drv):
    """precision_conversion.md: "when the source value is beyond the destination's range it overflows, and overflow is
    handled in saturation mode by default", as for half: float MAX (3.4028235e38) and 3.3961e38, which round beyond
    bfloat16_t's largest finite value 3.3895314e38 (0x7F7F) with CAST_RINT, CAST_CEIL and CAST_ROUND, give 0x7F7F
    (0xFF7F negative) in every mode; FLOOR and TRUNC round down to it anyway. 0x7F7F itself is exact. Infinities and
    nan stay (the boundary-value appendix's INF/NAN column, Memory矢量计算接口边界值汇总.md table 32); 1.5 is exact."""
    res = drv("cast_f2bf")
    assert res.ok, res.message
    got = [int(v, 16) for v in res.out]
    for m in range(5):
        row = got[m * 8 : (m + 1) * 8]
        assert row[:6] == [0x7F7F, 0xFF7F, 0x7F7F, 0x7F7F, 0x7F80, 0xFF80], (m, [hex(v) for v in row])
        assert row[6] & 0x7F80 == 0x7F80 and row[6] & 0x7F, "nan stays nan"
        assert row[7] == 0x3FC0


def test_rsqrt_is_correctly_rounded_and_warns_of_the_devices_precision(drv):
    """Rsqrt.md, constraints: "with Rsqrt, half results do not meet the double-thousandth requirement and float
    results not the double-ten-thousandth one; for high precision use Div and Sqrt". The reference gives no bound or
    algorithm to model, so the emulator computes 1 / sqrt(x) correctly rounded (the value a golden computes) and
    says at each call site that the device differs (API_COVERAGE.md, "Rsqrt's precision")."""
    res = drv("rsqrt")
    assert res.ok, res.message
    floats = [float.fromhex(v) for v in res.out[:64]]
    assert floats == [float(np.float32(1.0 / np.sqrt(np.float64(i + 1)))) for i in range(64)]
    assert halves(Res(True, res.out[64:])) == [h(float(1.0 / np.sqrt(np.float64(i + 1)))) for i in range(128)]
    assert [(k, ln) for k, ln, _ in res.warnings] == [
        ("device_precision", marker_line("rsqrt_count")),
        ("device_precision", marker_line("rsqrt_mask")),
    ]
    assert "double-thousandth" in res.warnings[0][2] and "Sqrt then Div" in res.warnings[0][2]


# ---------------------------------------------------------------------------------------------------------------
# Data movement


def pad_rows(res: Res) -> list[list[int]]:
    """The three 32-byte UB rows (16 halves) and the gaps after them (dstStride 1 block)."""
    got = halves(res)
    return [got[32 * r : 32 * r + 32] for r in range(3)]


ROWS = [[1, 2, 3, 4, 5], [8, 9, 10, 11, 12], [15, 16, 17, 18, 19]]  # GM rows of 5 halves, 2 halves apart


@pytest.mark.parametrize("ispad", [0, 1])
def test_datacopypad_filler_is_the_rows_first_element_without_padding(drv, ispad):
    """GMToUB DataCopyPad, parameter notes: when blockLen + leftPadding + rightPadding is not 32-byte aligned the
    hardware fills dummy data up to the 32-byte boundary, and "if leftPadding and rightPadding are both 0, the dummy
    is the first element of the block being moved" (whatever isPad says). blockLen = 10 bytes, so each UB row is
    5 data halves then 11 copies of that row's first element; the dstStride block after each row is untouched."""
    res = drv("pad", ispad=ispad, value=9)
    assert res.ok, res.message
    for r, row in enumerate(pad_rows(res)):
        data = [h(v) for v in ROWS[r]]
        assert row[:16] == data + [data[0]] * 11, r
        assert row[16:] == [0x1111] * 16, r


def test_datacopypad_padding_and_filler_are_padding_value_with_is_pad(drv):
    """Same page: with leftPadding / rightPadding not 0 and isPad true, "the left and right padding and the dummy
    are paddingValue". leftPadding 2, rightPadding 3, paddingValue 9: each row is 9, 9, five data halves, then 9 up
    to the 32-byte boundary (10 + 5 * 2 = 20 bytes, padded to 32)."""
    res = drv("pad", ispad=1, left=2, right=3, value=9)
    assert res.ok, res.message
    for r, row in enumerate(pad_rows(res)):
        assert row[:16] == [h(9)] * 2 + [h(v) for v in ROWS[r]] + [h(9)] * 9, r
        assert row[16:] == [0x1111] * 16


def test_datacopypad_padding_without_is_pad_is_unspecified_and_poisoned(drv):
    """Same page: with padding counts and isPad false (no SetPadValue), "the padding and dummy values are random".
    The emulator writes a poison pattern (all bits set, a nan for floats) there, and still honours the counts: the
    data starts after leftPadding elements."""
    res = drv("pad", ispad=0, left=1, right=1)
    assert res.ok, res.message
    for r, row in enumerate(pad_rows(res)):
        assert row[:16] == [0xFFFF] + [h(v) for v in ROWS[r]] + [0xFFFF] * 10, r


def test_brcb_dst_blk_stride_zero_is_treated_as_one(drv):
    """Brcb.md, the reference's computation: "if repeatParams.dstBlkStride == 0: repeatParams.dstBlkStride = 1".
    Two repeats with dstRepStride 8: element k of repeat r fills the 16 halves of block 8r + k."""
    res = drv("brcb0")
    assert res.ok, res.message
    got = halves(res)
    for blk in range(16):
        assert got[16 * blk : 16 * blk + 16] == [h(blk + 1)] * 16, blk


def test_datacopy_of_an_unaligned_length_copies_whole_blocks_and_warns(drv):
    """GM与UB连续数据搬运(DataCopy) requires the length to be a multiple of 32 bytes; the device moves whole 32-byte
    blocks, so 20 halves (40 bytes) move 16 and the last 4 are not copied, in both directions. The run goes on with
    a `misaligned` warning at each call's line."""
    res = drv("datacopy_tail")
    assert res.ok, res.message
    got = halves(res)
    first16 = [h(i + 1) for i in range(16)]
    assert got[:32] == first16 + [0x1111] * 16
    assert got[32:] == first16 + [0x2222] * 16
    assert [(k, ln) for k, ln, _ in res.warnings] == [
        ("misaligned", marker_line("copyin")),
        ("misaligned", marker_line("copyout")),
    ]
    assert "40 bytes" in res.warnings[0][2] and "DataCopyPad" in res.warnings[0][2]


def test_compare_of_a_count_not_a_multiple_of_256_bytes_compares_whole_repeats_and_warns(drv):
    """Compare.md, parameter count: "the count elements must occupy a multiple of 256 bytes; the unaligned elements
    do not take part, only whole aligned blocks are valid". 80 floats (320 bytes): the first 64 are compared (all
    2 > 1, bytes 0xFF), the result bytes of the other 16 stay as they were (0). 128 floats compare all."""
    res = drv("compare_tail", count=80)
    assert res.ok, res.message
    assert res.out == ["255"] * 8 + ["0"] * 8
    assert [(k, ln) for k, ln, _ in res.warnings] == [("misaligned", marker_line("compare"))]
    res = drv("compare_tail", count=128)
    assert res.out == ["255"] * 16 and not res.warnings


# ---------------------------------------------------------------------------------------------------------------
# Work buffers and events


@pytest.mark.parametrize("api,work,index,need", [("max", 8, 0, 16), ("max", 16, 1, 24), ("sum_mask", 16, 0, 24)])
def test_an_undersized_reduce_work_buffer_is_an_error(drv, api, work, index, need):
    """ReduceMax.md, "sharedTmpBuffer space": without the index, DivCeil(firstMaxRepeat * 2, elementsPerBlock) *
    elementsPerBlock elements; with it, iter2AlignStart + iter2AlignEnd (firstMaxRepeat * 2 rounded up to a block,
    plus DivCeil(firstMaxRepeat * 2, elementsPerRepeat) * 2 rounded up to a block). 512 floats: 8 repeats, so 16
    elements, or 16 + 8 = 24 with the index. ReduceSum.md: the A2 mask form ("method 2") needs
    DivCeil(repeatTime, elementsPerBlock) * elementsPerBlock, 24 for 20 repeats of float."""
    res = drv("reduce_work", api=api, work=work, index=index)
    marker = {"max": "reducemax", "sum_mask": "reducesum_mask"}[api]
    assert not res.ok and res.kind == "work_buffer_too_small" and res.line == marker_line(marker), res
    assert f"at least {need} elements" in res.message
    res = drv("reduce_work", api=api, work=need, index=index)
    assert res.ok, res.message
    if api == "max":
        assert res.out == ["96"]  # the largest of i % 97


def test_reduce_sum_count_form_does_not_use_its_work_buffer(drv):
    """ReduceSum.md: on Atlas A2 the count form accumulates by "method 1", for which "a sharedTmpBuffer of any size
    may be passed; it is not used"."""
    res = drv("reduce_work", api="sum", work=1)
    assert res.ok, res.message


def test_event_ids_above_seven_are_an_error(drv):
    """SetFlag/WaitFlag take a TEventID; the hardware has EVENT_ID0 to EVENT_ID7 per pipe pair (the event_t enum),
    so id 8 names no flag."""
    res = drv("event", id=8)
    assert not res.ok and res.kind == "invalid_event_id" and res.line == marker_line("setflag"), res
    assert drv("event", id=7).ok
