"""single-buffer takes its UB evidence only from the host code that sizes THIS kernel's buffers (ops-nn hold-out).

An operator's host often has several tiling paths (one per tiling key or chip, each sizing another kernel class).
The rule used to read "the host leaves room for a second buffer" from any host division of the UB by a buffer
count of 2 (rms_norm_grad, batch_norm_v3: another path's `ubSize / (BUFFER_NUM * ...)`), and the count's value from
any file defining a constant of that name (layer_norm_grad_v3: two tiling files each define their own
LNG_MAX_BUFFER_NUM, 4 and 6, and the 6 hid that the 4 fills the UB with four single buffers). Now a division counts
only when its value flows into the tiling field the InitBuffer's size reads, and a count is read in that division's
file. The kernels are tests/opgen.py's scale operator and variants written for these tests.
"""

from __future__ import annotations

from pathlib import Path

from opgen import replace_once, write_operator

from tests.lint.test_single_buffer import RUNTIME_HOST, SINGLE, SINGLE3, _counted_host, run

# A second tiling path in its own host file: it sizes another kernel's field (wideLength) from the UB and leaves
# room for two buffers there. It says nothing about tileLength, which the scale kernel's buffers read.
OTHER_PATH = """\
#include "scale_tiling.h"

constexpr uint32_t WIDE_BUFFER_NUM = 2;

namespace optiling {
static ge::graphStatus WideTiling(gert::TilingContext* context, ScaleTilingData& tiling)
{
    uint64_t ubSize = 0;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t wideTile = ubSize / (WIDE_BUFFER_NUM * 2 * sizeof(float));
    tiling.set_wideLength(wideTile);
    return ge::GRAPH_SUCCESS;
}
}
"""


def _with_other_path(root: Path, text: str) -> Path:
    (root / "op_host" / "scale_wide_tiling.cpp").write_text(text)
    return root


def test_room_left_by_another_tiling_path_is_no_evidence(tmp_path: Path):
    root = _with_other_path(write_operator(tmp_path / "op", kernel=SINGLE, host=RUNTIME_HOST), OTHER_PATH)
    (f,) = run(root)
    assert f.severity == "info" and "Unproven" in f.message
    assert "holds two buffers per queue" not in f.message


def test_room_left_by_another_function_of_the_same_file_is_no_evidence(tmp_path: Path):
    body = OTHER_PATH.split("namespace optiling {\n", 1)[1].rsplit("}\n", 1)[0]
    host = replace_once(
        RUNTIME_HOST,
        "namespace optiling {\n",
        "constexpr uint32_t WIDE_BUFFER_NUM = 2;\n\nnamespace optiling {\n" + body,
    )
    (f,) = run(write_operator(tmp_path / "op", kernel=SINGLE, host=host))
    assert f.severity == "info" and "holds two buffers per queue" not in f.message


def test_room_left_by_the_path_that_computes_the_tile_still_fires(tmp_path: Path):
    # The same other path present, but the scale path's own division (count 6 over three single queues) leaves
    # room: that is this kernel's evidence.
    root = _with_other_path(write_operator(tmp_path / "op", kernel=SINGLE3, host=_counted_host(6)), OTHER_PATH)
    found = run(root)
    assert found and all("holds two buffers per queue" in f.message for f in found)


def test_a_count_is_read_in_the_dividing_file_not_a_namesake_elsewhere(tmp_path: Path):
    # scale.cpp divides the UB by its MAX_BUFFER_NUM = 3 over three single-buffered queues: the UB is full. Another
    # tiling file defines its own MAX_BUFFER_NUM = 6 for another field; that value must not speak for scale.cpp.
    other = replace_once(OTHER_PATH, "WIDE_BUFFER_NUM = 2;", "MAX_BUFFER_NUM = 6;")
    other = replace_once(other, "(WIDE_BUFFER_NUM * 2 * sizeof(float))", "MAX_BUFFER_NUM / sizeof(float)")
    root = _with_other_path(write_operator(tmp_path / "op", kernel=SINGLE3, host=_counted_host(3)), other)
    assert run(root) == []
