"""A tiling function that fails says why: the last error-level line its host code logged (OP_LOGE, a failed
OP_CHECK_IF) reaches the run's error message after "the tiling function returned GRAPH_FAILED". Pinned on the
add_custom example with a size check written for this test."""

from __future__ import annotations

import shutil
from pathlib import Path

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "add_custom"

CHECKS = """\
    if (totalLength == 0) {
        return ge::GRAPH_FAILED;
    }
    OP_LOGW(context, "checking %u elements", totalLength);
    if (totalLength > 4096) {
        OP_LOGE(context, "an early complaint");
        OP_CHECK_IF(totalLength > 8192, OP_LOGE(context, "x has %u elements, at most %d", totalLength, 8192),
                    return ge::GRAPH_FAILED);
    }
    if (totalLength == 2048) {
        return ge::GRAPH_FAILED;  // no reason given
    }
"""


def case(n: int) -> Case:
    spec = InputSpec(shape=[n], dtype="float32")
    return Case(name=f"n{n}", inputs={"x": spec, "y": spec})


def test_the_last_logged_error_is_the_reason(tmp_path, emu_cache, needs_gxx):
    root = tmp_path / "add_custom"
    shutil.copytree(EXAMPLE, root)
    host = root / "op_host" / "add_custom.cpp"
    text = host.read_text()
    old = "    if (totalLength == 0) {\n        return ge::GRAPH_FAILED;\n    }\n"
    assert text.count(old) == 1
    host.write_text(
        text.replace(old, CHECKS).replace(
            '#include "register/op_def_registry.h"\n', '#include "register/op_def_registry.h"\n#include "log/log.h"\n'
        )
    )
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    op = load_operator(root)
    m = device.run(op, RunRequest(case(10000)))
    assert not m.ok and m.error.kind == "tiling_failed"
    # The check's message, with the node it names; not the earlier error, not the warning.
    assert m.error.message == (
        "the tiling function returned GRAPH_FAILED: AddCustom: x has 10000 elements, at most 8192"
    ), m.error.message
    # A failure with no error logged in this run says only that it failed.
    m = device.run(op, RunRequest(case(2048)))
    assert not m.ok and m.error.message == "the tiling function returned GRAPH_FAILED", m.error.message
    # An error logged on the way to a tiling that succeeds is no failure.
    m = device.run(op, RunRequest(case(6000)))
    assert m.ok, m.error


PARSE = """\
namespace optiling {
static int g_parsed = 0;
static ge::graphStatus TilingPrepare(gert::TilingParseContext* context)
{
    ++g_parsed;
    if (context->GetCompiledInfo<int>() != nullptr) {
        OP_LOGE(context, "a compile-info struct where the OpDef form declares none");
        return ge::GRAPH_FAILED;
    }
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling
"""


def test_opdef_tiling_parse_runs_before_the_tiling(tmp_path, emu_cache, needs_gxx):
    # OpDef::AICore().SetTilingParse(f): f runs first; here the tiling refuses to run unless it has.
    root = tmp_path / "add_custom"
    shutil.copytree(EXAMPLE, root)
    host = root / "op_host" / "add_custom.cpp"
    text = host.read_text()
    checks = (
        "    if (totalLength == 0) {\n        return ge::GRAPH_FAILED;\n    }\n",
        "namespace optiling {\nstatic ge::graphStatus TilingFunc",
        "this->AICore().SetTiling(optiling::TilingFunc);",
    )
    assert all(text.count(c) == 1 for c in checks)
    text = text.replace(
        checks[0],
        checks[0] + '    OP_CHECK_IF(g_parsed != 1, OP_LOGE(context, "parsed %d times", '
        "g_parsed), return ge::GRAPH_FAILED);\n",
    )
    text = text.replace(checks[1], PARSE + checks[1])
    text = text.replace(
        checks[2], "this->AICore().SetTiling(optiling::TilingFunc).SetTilingParse(optiling::TilingPrepare);"
    )
    host.write_text(
        text.replace(
            '#include "register/op_def_registry.h"\n', '#include "register/op_def_registry.h"\n#include "log/log.h"\n'
        )
    )
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    m = device.run(load_operator(root), RunRequest(case(4096)))
    assert m.ok, m.error
