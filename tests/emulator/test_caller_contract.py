"""How tilewise runs an operator the way an aclnn caller would, each pinned on a small operator written for this test:
outputs allocated with the golden's shape when InferShape copies x's shape to a reduction's y (with a note at the
InferShape function, and the sanitizer's GM bounds at the allocated size); in-place operators, an output named like
its input sharing that input's memory and an OpDef with no output whose golden answers with the updated input (the
kernel entry still gets inputs, workspace, tiling in that order); and the chips an OpDef registers with AddConfig."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilewise.analysis.chip import chip_in_soc
from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.binding import output_names
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator.target import registered_socs
from tilewise.device.protocol import RunRequest


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def run(root: Path, emu_cache: Path, case: Case, golden: str | None = None, chip: str | None = None):
    if golden is not None:
        (root / "golden.py").write_text("import numpy as np\n" + golden)
    device = EmulatorDevice(chip=chip, cache_dir=emu_cache, timeout_s=60)
    return device.run(load_operator(root), RunRequest(case, golden=str(root / "golden.py:golden") if golden else None))


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def project(name: str, tiling_fields: str, tiling_body: str, opdef: str, kernel: str, infer: str = "") -> dict:
    """An operator project: a tiling struct, a host tiling function (blockDim 1 unless `tiling_body` says), an OpDef
    and a kernel; `infer` is an InferShape function the OpDef may name."""
    snake = name.lower()
    return {
        f"op_host/{snake}_tiling.h": f"""\
#include "register/tilingdata_base.h"
namespace optiling {{
BEGIN_TILING_DATA_DEF({name}TilingData)
{tiling_fields}
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS({name}, {name}TilingData)
}}
""",
        f"op_host/{snake}.cpp": f"""\
#include "{snake}_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
namespace optiling {{
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{{
    {name}TilingData tiling;
    const auto& shape = context->GetInputShape(0)->GetStorageShape();
    context->SetBlockDim(1);
{tiling_body}
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}}
}}
namespace ge {{
{infer}
}}
namespace ops {{
class {name} : public OpDef {{
public:
    explicit {name}(const char* name) : OpDef(name)
    {{
{opdef}
    }}
}};
OP_ADD({name});
}}
""",
        f"op_kernel/{snake}.cpp": kernel,
    }


F32 = ".ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});"

# ---------------------------------------------------------------------------------------------------------------
# A row sum whose InferShape copies x's shape to y, as many public reductions do. The kernel writes y at
# row * stride (the `stride` attribute, 1 by default): with a larger stride it writes as if y had x's shape.

ROW_SUM_INFER = """\
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}"""

ROW_SUM = project(
    "RowSum",
    "TILING_DATA_FIELD_DEF(uint32_t, rows);\nTILING_DATA_FIELD_DEF(uint32_t, cols);\n"
    "TILING_DATA_FIELD_DEF(uint32_t, stride);",
    "    tiling.set_rows(shape.GetDim(0));\n    tiling.set_cols(shape.GetDim(1));\n"
    "    tiling.set_stride(*context->GetAttrs()->GetAttrPointer<int64_t>(0));",
    f'        this->Input("x"){F32}\n        this->Output("y"){F32}\n'
    '        this->Attr("stride").AttrType(OPTIONAL).Int(1);\n'
    "        this->SetInferShape(ge::InferShape);\n"
    '        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");',
    """\
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void row_sum(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.rows * t.cols);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.rows * t.stride);
    for (uint32_t r = 0; r < t.rows; ++r) {
        float acc = 0.0f;
        for (uint32_t c = 0; c < t.cols; ++c) {
            acc += xGm.GetValue(r * t.cols + c);
        }
        yGm.SetValue(r * t.stride, acc);
    }
}
""",
    ROW_SUM_INFER,
)
ROW_SUM_GOLDEN = "def golden(x, stride=1):\n    return x.sum(axis=1)\n"


def row_sum_case(stride: int = 1) -> Case:
    return Case(name="rows", inputs={"x": InputSpec(shape=[8, 16], dtype="float32")}, attrs={"stride": stride})


def test_a_reduction_whose_infer_shape_copies_x_runs_with_the_goldens_shape(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "row_sum", ROW_SUM)
    m = run(root, emu_cache, row_sum_case(), ROW_SUM_GOLDEN)
    assert m.error is None and m.ok and m.correct, m
    assert m.outputs[0].shape == [8]
    notes = [w for w in m.warnings if w.kind == "infer_shape"]
    assert len(notes) == 1
    host = (root / "op_host/rowsum.cpp").read_text()
    assert notes[0].file.endswith("op_host/rowsum.cpp")
    assert notes[0].line == line_of(host, "static ge::graphStatus InferShape(")
    assert notes[0].message == (
        "InferShape gives y [8, 16] but the golden returns [8]; the output was allocated as the golden's shape (as an "
        "aclnn caller does). Fix InferShape if the operator is used in graph mode."
    )
    # The note travels in the JSON result with the run's other warnings.
    assert any(w["kind"] == "infer_shape" for w in m.model_dump(mode="json")["warnings"])


def test_a_kernel_writing_past_the_goldens_shape_is_out_of_bounds(tmp_path, emu_cache, needs_gxx):
    # The buffer is what the caller allocated (8 floats), so writing y as if it had x's shape is an overrun. It
    # reaches 448 bytes past y, inside the guard a device would write without stopping: a warning at the write, and
    # the output (y's first element right, the rest never written) fails the golden.
    root = write(tmp_path / "row_sum", ROW_SUM)
    m = run(root, emu_cache, row_sum_case(stride=16), ROW_SUM_GOLDEN)
    assert m.ok and m.error is None and m.correct is False, m
    [w] = [w for w in m.warnings if w.kind == "gm_out_of_bounds"]
    assert "output y (shape [8] taken from the golden, as InferShape gives [8, 16])" in w.message
    assert any(w.kind == "infer_shape" for w in m.warnings)


def test_a_scalar_golden_is_a_shape_too(tmp_path, emu_cache, needs_gxx):
    # A loss reduced to a 0-d tensor: the caller allocates one element, not x's shape that InferShape copies.
    root = write(tmp_path / "row_sum", ROW_SUM)
    case = Case(name="total", inputs={"x": InputSpec(shape=[1, 16], dtype="float32")}, attrs={"stride": 1})
    m = run(root, emu_cache, case, "def golden(x, stride=1):\n    return np.float32(x.sum())\n")
    assert m.error is None and m.ok and m.correct, m
    assert m.outputs[0].shape == []
    [note] = [w for w in m.warnings if w.kind == "infer_shape"]
    assert "InferShape gives y [1, 16] but the golden returns []" in note.message


def test_without_a_golden_infer_shapes_shape_stands(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "row_sum", ROW_SUM)
    m = run(root, emu_cache, row_sum_case())
    assert m.ok and m.correct is None and m.outputs[0].shape == [8, 16]
    assert not [w for w in m.warnings if w.kind == "infer_shape"]


# ---------------------------------------------------------------------------------------------------------------
# In place, ScatterElements-style: Input("var") and Output("var"); the kernel adds `updates` into every other
# element of var through the *input's* pointer and never touches var_ref, so the result is only right when the
# output is read back from var's memory (the untouched elements keep var's values).

ADD_EVEN = project(
    "AddEven",
    "TILING_DATA_FIELD_DEF(uint32_t, n);",
    "    tiling.set_n(shape.GetShapeSize());",
    f'        this->Input("var"){F32}\n        this->Input("updates"){F32}\n        this->Output("var"){F32}\n'
    "        this->SetInferShape(ge::InferShape);\n"
    '        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");',
    """\
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void add_even(GM_ADDR var, GM_ADDR updates, GM_ADDR var_ref, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> vGm, uGm;
    vGm.SetGlobalBuffer((__gm__ float*)var, t.n);
    uGm.SetGlobalBuffer((__gm__ float*)updates, t.n);
    for (uint32_t i = 0; i < t.n; i += 2) {
        vGm.SetValue(i, vGm.GetValue(i) + uGm.GetValue(i));
    }
}
""",
    ROW_SUM_INFER,
)


def test_an_output_named_like_an_input_shares_its_memory(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "add_even", ADD_EVEN)
    case = Case(
        name="in_place",
        inputs={"var": InputSpec(shape=[4, 10], dtype="float32"), "updates": InputSpec(shape=[4, 10], dtype="float32")},
    )
    golden = (
        "def golden(var, updates):\n    out = var.copy().reshape(-1)\n"
        "    out[::2] += updates.reshape(-1)[::2]\n    return out.reshape(var.shape)\n"
    )
    m = run(root, emu_cache, case, golden)
    assert m.error is None and m.ok and m.correct, m
    assert [(o.name, o.shape) for o in m.outputs] == [("var", [4, 10])]


# ---------------------------------------------------------------------------------------------------------------
# In place with no OpDef output at all, Eye-style: `y` is an input and the result; `diag` gives the diagonal. The
# entry is (y, diag, workspace, tiling): reading the tiling at the wrong position would read no sensible `n`.

SET_DIAG = project(
    "SetDiag",
    "TILING_DATA_FIELD_DEF(uint32_t, n);",
    "    tiling.set_n(shape.GetDim(0));",
    f'        this->Input("y"){F32}\n        this->Input("diag"){F32}\n'
    '        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");',
    """\
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void set_diag(GM_ADDR y, GM_ADDR diag, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> yGm, dGm;
    yGm.SetGlobalBuffer((__gm__ float*)y, t.n * t.n);
    dGm.SetGlobalBuffer((__gm__ float*)diag, t.n);
    for (uint32_t i = 0; i < t.n; ++i) {
        for (uint32_t j = 0; j < t.n; ++j) {
            yGm.SetValue(i * t.n + j, i == j ? dGm.GetValue(i) : 0.0f);
        }
    }
}
""",
)


def set_diag_case() -> Case:
    return Case(
        name="diag",
        inputs={"y": InputSpec(shape=[6, 6], dtype="float32"), "diag": InputSpec(shape=[6], dtype="float32")},
    )


def test_an_opdef_without_outputs_binds_inputs_workspace_tiling_and_reads_back_its_first_input(
    tmp_path, emu_cache, needs_gxx
):
    root = write(tmp_path / "set_diag", SET_DIAG)
    m = run(root, emu_cache, set_diag_case(), "def golden(y, diag):\n    return np.diag(diag).astype(y.dtype)\n")
    assert m.error is None and m.ok and m.correct, m
    assert [(o.name, o.shape) for o in m.outputs] == [("y", [6, 6])]
    # Without a golden the run still reads back the first input, the operator's result.
    m = run(root, emu_cache, set_diag_case())
    assert m.ok and m.correct is None and [o.name for o in m.outputs] == ["y"]


def test_an_opdef_without_outputs_names_its_read_backs_in_opdef_order(tmp_path):
    op = load_operator(write(tmp_path / "set_diag", SET_DIAG))
    assert output_names(op, 0) == ["y"]
    assert output_names(op, 2) == ["y", "diag"]
    with pytest.raises(ValueError, match="declares no output.*returned 3 arrays"):
        output_names(op, 3)


# ---------------------------------------------------------------------------------------------------------------
# A single-core operator for a 310B: blockDim is the platform's vector core count and every block copies all of x.

COPY_310B = project(
    "CopyAll",
    "TILING_DATA_FIELD_DEF(uint32_t, n);",
    "    tiling.set_n(shape.GetShapeSize());\n"
    "    context->SetBlockDim(platform_ascendc::PlatformAscendC(context->GetPlatformInfo()).GetCoreNumAiv());",
    f'        this->Input("x"){F32}\n        this->Output("y"){F32}\n'
    '        this->AICore().SetTiling(optiling::TilingFunc);\n        this->AICore().AddConfig("ascend310b");',
    """\
#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void copy_all(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.n);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.n);
    for (uint32_t i = 0; i < t.n; ++i) {
        yGm.SetValue(i, xGm.GetValue(i));
    }
}
""",
)


def test_an_operator_for_one_chip_runs_there_when_no_chip_is_given(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "copy_all", COPY_310B)
    case = Case(name="flat", inputs={"x": InputSpec(shape=[64], dtype="float32")})
    m = run(root, emu_cache, case, "def golden(x):\n    return x\n")
    assert m.ok and m.correct, m
    assert (m.chip, m.block_dim) == ("310B", 1)  # the tiling asked the platform: one core
    note = m.warnings[0]
    assert note.kind == "target_chip" and "ascend310b" in note.message and "--chip" in note.message
    assert note.line == line_of((root / "op_host/copyall.cpp").read_text(), 'AddConfig("ascend310b")')


def test_an_explicit_chip_the_opdef_does_not_register_is_kept_with_a_warning(tmp_path, emu_cache, needs_gxx):
    root = write(tmp_path / "copy_all", COPY_310B)
    case = Case(name="flat", inputs={"x": InputSpec(shape=[64], dtype="float32")})
    m = run(root, emu_cache, case, chip="910B2")
    assert (m.chip, m.block_dim) == ("910B2", 48)
    note = m.warnings[0]
    assert note.kind == "target_chip"
    assert "registers only ascend310b" in note.message and "910B2" in note.message and "--chip" in note.message


def test_a_registered_chip_family_gives_no_warning(tmp_path):
    op = load_operator(write(tmp_path / "row_sum", ROW_SUM))
    assert registered_socs(op) == ["ascend910b"]
    assert chip_in_soc("910B2", "ascend910b") and chip_in_soc("310B", "ascend310b")
    assert not chip_in_soc("910B2", "ascend910") and not chip_in_soc("910B2", "ascend910_93")
