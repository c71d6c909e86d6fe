"""Include resolution as a repository's own build has it (device/emulator/includes.py), on a small tree of
operators written for this test: a sibling operator's kernel headers reached by relative includes in both CANN
layouts (the source tree's and the kernel build's), the repository's common/inc and root found by rule or named in
the manifest's [build] include_dirs, and a rebuild whenever one of those outside files changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilewise.analysis.errors import ManifestError
from tilewise.analysis.manifest import Case, InputSpec, load_manifest
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator.includes import mirror_plan, parse_depfile, repo_include_dirs, resolve_include
from tilewise.device.protocol import RunRequest


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


TILING = """\
#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(ScaledCopyTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, cols);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaledCopy, ScaledCopyTilingData)
}
"""

HOST = """\
#include "scaled_copy_tiling.h"
#include "register/op_def_registry.h"
#include "op_host/rows_util.h"
#include "math/sibling/op_host/sibling_limits.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const auto& shape = context->GetInputShape(0)->GetStorageShape();
    if (shape.GetDim(1) > SIBLING_MAX_COLS) {
        return ge::GRAPH_FAILED;
    }
    ScaledCopyTilingData tiling;
    tiling.set_cols(shape.GetDim(1));
    context->SetBlockDim(TwTestBlocks(shape.GetDim(0)));
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class ScaledCopy : public OpDef {
public:
    explicit ScaledCopy(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(ScaledCopy);
}
"""

KERNEL = """\
#include "kernel_operator.h"
#include "../sibling/arch/scale_body.h"
#include "../../sibling/op_kernel/offset.h"
#include "op_kernel/bias.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void scaled_copy(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, t.cols * sizeof(float));
    LocalTensor<float> row = buf.Get<float>();
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * t.cols, t.cols);
    yGm.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * t.cols, t.cols);
    DataCopy(row, xGm, t.cols);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(row, row, SiblingScale(), t.cols);
    Adds(row, row, SIBLING_OFFSET + COMMON_BIAS, t.cols);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, row, t.cols);
}
"""

TREE = {
    "common/inc/op_host/rows_util.h": "#pragma once\n#include <cstdint>\ninline uint32_t TwTestBlocks(uint32_t rows) "
    "{ return rows; }\n",
    "common/inc/op_kernel/bias.h": "#pragma once\nconstexpr float COMMON_BIAS = 1.0f;\n",
    "math/sibling/op_host/sibling_limits.h": "#pragma once\nconstexpr uint32_t SIBLING_MAX_COLS = 4096;\n",
    # the kernel build's layout: ../sibling/arch/ from scaled_copy/op_kernel/ is sibling/op_kernel/arch/
    "math/sibling/op_kernel/arch/scale_body.h": '#pragma once\n#include "scale_const.h"\n'
    "__aicore__ inline float SiblingScale() { return SCALE_CONST; }\n",
    "math/sibling/op_kernel/arch/scale_const.h": "#pragma once\nconstexpr float SCALE_CONST = 3.0f;\n",
    "math/sibling/op_kernel/offset.h": "#pragma once\nconstexpr float SIBLING_OFFSET = 0.5f;\n",
    "math/scaled_copy/op_host/scaled_copy_tiling.h": TILING,
    "math/scaled_copy/op_host/scaled_copy.cpp": HOST,
    "math/scaled_copy/op_kernel/scaled_copy.cpp": KERNEL,
}

CASE = Case(name="c", inputs={"x": InputSpec(shape=[4, 64], dtype="float32")})


def run(op: Path, emu_cache: Path, scale: float, offset: float):
    (op / "golden.py").write_text(f"def golden(x):\n    return x * {scale} + {offset}\n")
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    return device.run(load_operator(op), RunRequest(CASE, golden=str(op / "golden.py:golden")))


def test_sibling_and_repository_headers_resolve_and_their_edits_rebuild(tmp_path, emu_cache, needs_gxx):
    repo = write(tmp_path / "repo", TREE)
    op = repo / "math" / "scaled_copy"
    m = run(op, emu_cache, 3.0, 1.5)
    assert m.ok and m.correct, m.error
    assert m.block_dim == 4
    # a sibling's header reached only through another external header: part of the mirror's content hash
    const = repo / "math/sibling/op_kernel/arch/scale_const.h"
    const.write_text("#pragma once\nconstexpr float SCALE_CONST = 2.0f;\n")
    m = run(op, emu_cache, 2.0, 1.5)
    assert m.ok and m.correct, m.error
    # a header found through the repository's common/inc: the compile recorded it, so its edit rebuilds too
    (repo / "common/inc/op_kernel/bias.h").write_text("#pragma once\nconstexpr float COMMON_BIAS = 4.0f;\n")
    m = run(op, emu_cache, 2.0, 4.5)
    assert m.ok and m.correct, m.error


def test_manifest_include_dirs_reach_a_folder_the_rule_does_not(tmp_path, emu_cache, needs_gxx):
    # no common/inc: the repository's headers live in vendor/inc, which only the manifest names
    moved = {"common/inc/": "vendor/inc/", "math/sibling/op_host/": "vendor/inc/math/sibling/op_host/"}
    tree = dict(TREE)
    for old, new in moved.items():
        tree = {k.replace(old, new): v for k, v in tree.items()}
    repo = write(tmp_path / "repo", tree)
    op = repo / "math" / "scaled_copy"
    m = run(op, emu_cache, 3.0, 1.5)
    assert m.error is not None and m.error.kind == "compile_error"
    (op / "tilewise.toml").write_text('[build]\ninclude_dirs = ["../../vendor/inc"]\n')
    m = run(op, emu_cache, 3.0, 1.5)
    assert m.ok and m.correct, m.error


def test_manifest_include_dirs_must_exist(tmp_path):
    path = tmp_path / "tilewise.toml"
    path.write_text('[operator]\nname = "X"\n\n[build]\ninclude_dirs = ["inc", "missing"]\n')
    (tmp_path / "inc").mkdir()
    with pytest.raises(ManifestError) as exc:
        load_manifest(path)
    assert exc.value.line == 5 and "include_dirs[1]" in exc.value.message and "'missing'" in exc.value.message


def test_resolve_include_both_layouts_and_plain_names(tmp_path):
    repo = write(tmp_path / "r", {k: v for k, v in TREE.items() if k.startswith("math/")})
    kernel = repo / "math/scaled_copy/op_kernel/scaled_copy.cpp"
    sib = repo / "math/sibling/op_kernel"
    assert resolve_include(kernel, "../sibling/arch/scale_body.h", set()) == sib / "arch/scale_body.h"
    assert resolve_include(kernel, "../../sibling/op_kernel/offset.h", set()) == sib / "offset.h"
    assert resolve_include(kernel, "kernel_operator.h", set()) is None  # left to the include path
    assert resolve_include(kernel, "../nowhere/x.h", set()) is None
    # an operator in another category of the repository, by the kernel build's layout
    write(repo, {"conversion/cast_like/op_kernel/c.h": "#pragma once\n"})
    assert resolve_include(kernel, "../cast_like/c.h", set()) == repo / "conversion/cast_like/op_kernel/c.h"


def test_mirror_plan_rewrites_only_what_the_mirror_cannot_reach(tmp_path):
    repo = write(tmp_path / "r", TREE)
    root = repo / "math/scaled_copy"
    kernel = str(root / "op_kernel/scaled_copy.cpp")
    plan = mirror_plan(root, {kernel: KERNEL})
    sib = repo / "math/sibling/op_kernel"
    assert set(plan) == {kernel, str(sib / "arch/scale_body.h"), str(sib / "arch/scale_const.h"), str(sib / "offset.h")}
    lines = plan[kernel].splitlines()
    assert len(lines) == len(KERNEL.splitlines()) and lines[0] == '#include "kernel_operator.h"'
    ext = ".ext" + str(sib)
    assert lines[1] == f'#include "../{ext}/arch/scale_body.h"'
    assert lines[2] == f'#include "../{ext}/offset.h"'
    assert plan[str(sib / "arch/scale_body.h")] == TREE["math/sibling/op_kernel/arch/scale_body.h"]  # beside it


def test_repo_include_dirs_rule_stops_at_the_repository_root(tmp_path):
    repo = write(tmp_path / "repo", {"common/inc/x.h": "", "math/op/op_kernel/k.cpp": ""})
    assert repo_include_dirs(repo / "math/op") == [repo / "common/inc", repo]
    (repo / "math/.git").mkdir()  # the operator's own repository ends below the folder with common/inc
    assert repo_include_dirs(repo / "math/op") == []
    deep = write(tmp_path / "deep", {"common/inc/x.h": "", "a/b/c/d/op/op_kernel/k.cpp": ""})
    assert repo_include_dirs(deep / "a/b/c/d/op") == []  # further up than MAX_LEVELS


def test_parse_depfile_continuations_and_escaped_spaces():
    text = "obj.o: /a/src.cpp /r/common/inc/x.h \\\n /r/with\\ space/y.h\n"
    assert parse_depfile(text) == ["/a/src.cpp", "/r/common/inc/x.h", "/r/with space/y.h"]
