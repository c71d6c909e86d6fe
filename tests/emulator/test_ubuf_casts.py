"""`(__ubuf__ T*)` casts of UB addresses: LocalTensor::GetPhyAddr() is the buffer's UB byte address (0 for the first
buffer a TPipe hands out), and a kernel may cast it to a `__ubuf__` pointer and read or write through it, as the
device allows. The build rewrites such casts (device/emulator/ubuf_arrays.py) so that the address lands in the
emulated UB instead of being a wild (here: null) host pointer: in an operator project's kernel, and in a shared
header an ATB kernel includes by a repository-rooted path."""

from __future__ import annotations

import numpy as np
from opgen import KERNEL, replace_once, write_operator
from test_atb import KERNEL as ATB_KERNEL
from test_atb import case, write_repo

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator.ubuf_arrays import rewrite_ubuf_casts
from tilewise.device.protocol import RunRequest


def test_the_rewrite_inserts_a_second_cast_and_leaves_declarations():
    src = (
        "p = (__ubuf__ uint8_t *)t.GetPhyAddr();\n"
        "v = *(__ubuf__ const uint32_t*)(p + 4);\n"
        "void f(__ubuf__ half *);\n"
        "// (__ubuf__ float*)x in a comment\n"
    )
    out = rewrite_ubuf_casts(src)
    assert out.splitlines() == [
        "p = (__ubuf__ uint8_t *)(::tw::UbAddress)t.GetPhyAddr();",
        "v = *(__ubuf__ const uint32_t*)(::tw::UbAddress)(p + 4);",
        "void f(__ubuf__ half *);",
        "// (__ubuf__ float*)x in a comment",
    ]


def test_a_project_kernel_scales_through_ubuf_pointers(emu_cache, needs_gxx):
    # The first tile's x buffer is at UB address 0: a plain cast would give a null pointer.
    k = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        __ubuf__ half* px = (__ubuf__ half*)xLocal.GetPhyAddr();\n"
        "        __ubuf__ half* py = (__ubuf__ half*)yLocal.GetPhyAddr();\n"
        "        for (uint32_t j = 0; j < tileLength; ++j) {\n"
        "            py[j] = (half)((float)px[j] * 2.0f);\n"
        "        }\n",
    )
    root = write_operator(emu_cache.parent / "ubuf-cast-operator" / "scale", kernel=k)
    (root / "golden.py").write_text(
        "def golden(x, scale=2.0):\n    return (x.astype('float32') * 2).astype('float16')\n"
    )
    case = Case(name="c", inputs={"x": InputSpec(shape=[48 * 8192], dtype="float16")})
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        load_operator(root), RunRequest(case, golden=str(root / "golden.py:golden"))
    )
    assert m.ok and m.correct, m.error


SHARED = """\
#pragma once
#include "kernel_operator.h"
// Copies the first 32 bytes at `gm` into a TBuf (the pipe's first buffer: UB address 0) and returns its words
// through a __ubuf__ pointer made from the buffer's address.
inline __aicore__ uint32_t *TwTilingWords(GM_ADDR gm, AscendC::TPipe *pipe)
{
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe->InitBuffer(buf, 32);
    AscendC::LocalTensor<uint32_t> ub = buf.Get<uint32_t>();
    AscendC::GlobalTensor<uint32_t> g;
    g.SetGlobalBuffer((__gm__ uint32_t *)gm);
    AscendC::DataCopy(ub, g, 8);
    AscendC::PipeBarrier<PIPE_ALL>();
    return (__ubuf__ uint32_t *)ub.GetPhyAddr();
}
"""


def test_an_atb_kernel_reads_its_tiling_through_a_shared_header_cast(tmp_path, emu_cache):
    root = write_repo(tmp_path)
    (tmp_path / "kernels" / "utils").mkdir(parents=True)
    (tmp_path / "kernels" / "utils" / "ub_words.h").write_text(SHARED)
    kernel = replace_once(
        ATB_KERNEL,
        '#include "../tiling/scale_tiling_data.h"\n',
        '#include "../tiling/scale_tiling_data.h"\n#include "kernels/utils/ub_words.h"\n',
    )
    kernel = replace_once(
        kernel,
        "    auto *words = reinterpret_cast<__gm__ uint32_t *>(tiling);\n",
        "    TPipe tilingPipe;\n    uint32_t *words = TwTilingWords(tiling, &tilingPipe);\n",
    )
    (root / "op_kernel" / "scale.cpp").write_text(kernel)
    (root / "tilewise.toml").write_text(
        '[operator]\nname = "scale"\n[[cases]]\nname = "c"\n[cases.inputs.x]\nshape = [6, 64]\ndtype = "float32"\n'
    )
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        load_operator(root),
        RunRequest(case({"alpha": 2.5, "add_one": 1, "mode": "MODE_SCALE_ADD"}), golden=str(root / "golden.py:golden")),
    )
    assert m.ok and m.correct, m.error
    assert np.isclose(m.max_abs_err or 0.0, 0.0)
