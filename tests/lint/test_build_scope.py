"""Lint stays silent in kernel files the device build for the linted chip never compiles (issue 13 hold-out).

Public operator projects keep another chip generation's kernel beside the 910B one: headers under
`op_kernel/arch35/` reached through a second entry file the OpDef selects only for the Ascend 950
(`ExtendCfgInfo("opFile.value", "<op>_apt")`), through an `#include` under `#if __CCE_AICORE__ == 310`, or by
nothing at all. Findings there (a UB budget checked against the 910B's, syntax the 910B compiler never sees) were
about code that never runs. Built on this project's scale operator (tests/opgen.py) with a header whose buffer
overflows the 910B's UB; the same header included by the 910B entry still fires.
"""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator

BIG = """\
#include "kernel_operator.h"
using namespace AscendC;

class BigScale {
public:
    __aicore__ inline void Init() { pipe.InitBuffer(bigQueue, 1, 300 * 1024); }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> bigQueue;
};
"""

APT_ENTRY = """\
#include "kernel_operator.h"
#include "arch35/scale_big.h"

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    BigScale op;
    op.Init();
}
"""

CONFIG_950 = (
    '        this->AICore().AddConfig("ascend910b");\n'
    "        OpAICoreConfig config950;\n"
    '        config950.DynamicCompileStaticFlag(true).ExtendCfgInfo("opFile.value", "scale_apt");\n'
    '        this->AICore().AddConfig("ascend950", config950);\n'
)


def overflow_files(root: Path) -> list[str]:
    (root / "op_kernel" / "arch35").mkdir(parents=True, exist_ok=True)
    (root / "op_kernel" / "arch35" / "scale_big.h").write_text(BIG)
    op = load_operator(root)
    return [Path(f.file).name for f in lint(op) if f.rule == "ub-overflow"]


def test_header_nothing_includes_is_not_linted(tmp_path: Path):
    assert overflow_files(write_operator(tmp_path / "op")) == []


def test_header_of_an_entry_selected_only_for_another_soc_is_not_linted(tmp_path: Path):
    root = write_operator(
        tmp_path / "op", host=replace_once(HOST, '        this->AICore().AddConfig("ascend910b");\n', CONFIG_950)
    )
    (root / "op_kernel" / "scale_apt.cpp").write_text(APT_ENTRY)
    assert overflow_files(root) == []


def test_header_included_under_another_chips_macro_is_not_linted(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        '#include "kernel_operator.h"\n',
        '#include "kernel_operator.h"\n#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 310\n'
        '#include "arch35/scale_big.h"\n#endif\n',
    )
    assert overflow_files(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_header_the_910b_entry_includes_is_still_linted(tmp_path: Path):
    kernel = replace_once(
        KERNEL, '#include "kernel_operator.h"\n', '#include "kernel_operator.h"\n#include "arch35/scale_big.h"\n'
    )
    assert overflow_files(write_operator(tmp_path / "op", kernel=kernel)) == ["scale_big.h"]


def test_entry_named_for_both_socs_keeps_its_headers(tmp_path: Path):
    # the _apt entry is the 950's; when the OpDef names it for the 910B too, its headers are compiled for the 910B
    host = replace_once(
        HOST,
        '        this->AICore().AddConfig("ascend910b");\n',
        '        OpAICoreConfig cfg;\n        cfg.ExtendCfgInfo("opFile.value", "scale_apt");\n'
        '        this->AICore().AddConfig("ascend910b", cfg);\n',
    )
    root = write_operator(tmp_path / "op", host=host)
    (root / "op_kernel" / "scale_apt.cpp").write_text(APT_ENTRY)
    assert overflow_files(root) == ["scale_big.h"]
