"""Where an mki (ATB) operator keeps its host tiling: `tiling/` or a `<name>_tiling/` folder beside its registering
`<name>_kernel.cpp` (as ATB's quant and dynamic_quant operators do); both are host sources, other folders are not.
And where the kernel's tensors stop being inputs: CanSupport's `GetInTensorCount() == N`, N a number or a constant
the host sources define. Checked on a folder laid out for this test and on source texts written for it."""

from __future__ import annotations

from pathlib import Path

from tilewise.analysis.atb import atb_files, split_io
from tilewise.analysis.project import _sources_under


def _layout(root: Path, tiling_folder: str) -> None:
    (root / "op_kernel").mkdir(parents=True)
    (root / "op_kernel" / "scale.cpp").write_text('extern "C" __global__ __aicore__ void scale() {}\n')
    (root / "scale_kernel.cpp").write_text("class ScaleKernel : public KernelBase {};\nREG_KERNEL_BASE(ScaleKernel);\n")
    (root / tiling_folder).mkdir()
    (root / tiling_folder / "scale_tiling.cpp").write_text("Status ScaleTiling(const LaunchParam &, KernelInfo &);\n")
    (root / "docs").mkdir()
    (root / "docs" / "notes.cpp").write_text("// not a host source\n")


def test_a_named_tiling_folder_holds_host_sources(tmp_path: Path):
    _layout(tmp_path / "scale", "scale_tiling")
    host, kernel, _ = atb_files(tmp_path / "scale", _sources_under)
    names = sorted(p.relative_to(tmp_path / "scale").as_posix() for p in host)
    assert names == ["scale_kernel.cpp", "scale_tiling/scale_tiling.cpp"]
    assert [p.name for p in kernel] == ["scale.cpp"]


def test_the_plain_tiling_folder_still_does(tmp_path: Path):
    _layout(tmp_path / "scale", "tiling")
    host, _, _ = atb_files(tmp_path / "scale", _sources_under)
    assert sorted(p.relative_to(tmp_path / "scale").as_posix() for p in host) == [
        "scale_kernel.cpp",
        "tiling/scale_tiling.cpp",
    ]


def test_the_input_count_may_be_a_named_constant():
    tensors = ["x", "gamma", "y", "rstd"]
    named = [
        "static constexpr uint32_t TENSOR_INPUT_NUM = 2;\n"
        'MKI_CHECK(launchParam.GetInTensorCount() == TENSOR_INPUT_NUM, "n", return false);'
    ]
    assert split_io(tensors, None, named) == 2
    defined = ["#define IN_NUM 3\nif (launchParam.GetInTensorCount() == IN_NUM) {}"]
    assert split_io(tensors, None, defined) == 3
    assert split_io(tensors, None, ["if (launchParam.GetInTensorCount() == 1) {}"]) == 1
    # a name no host source defines with a number says nothing
    assert split_io(tensors, None, ["if (launchParam.GetInTensorCount() == GetCount()) {}"]) is None
