"""List (DYNAMIC) inputs on the command line, `--device`, `tune --input` and `serve --stdio`.

The operator is a Foreach-style kernel written for this test: y[i] = x[i] * scalar over a tensor list x, read with
ListTensorDesc, tiled by a host constant that tune searches. Its golden takes the list as one argument and answers
the DYNAMIC output with a list, the convention examples/README.md documents.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tilewise.analysis.model import TensorParam
from tilewise.analysis.operator import load_operator
from tilewise.cli import main
from tilewise.device.golden import GoldenError, golden_arguments, group_outputs

HOST = """\
#include "register/op_def_registry.h"
namespace optiling {
constexpr uint32_t TILE_LEN = 128;  // tilewise: tune TILE_LEN in [64, 128, 256]
struct ForeachMulScalarTiling {
    uint32_t tileLen;
};
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto* t = context->GetTilingData<ForeachMulScalarTiling>();
    t->tileLen = TILE_LEN;
    context->SetBlockDim(1);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class ForeachMulScalar : public OpDef {
public:
    explicit ForeachMulScalar(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("scalar").ParamType(REQUIRED).DataType({ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y").ParamType(DYNAMIC).DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(ForeachMulScalar);
}
"""

KERNEL = """\
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
using namespace AscendC;
struct ForeachMulScalarTiling {
    uint32_t tileLen;
};
extern "C" __global__ __aicore__ void foreach_mul_scalar(GM_ADDR x, GM_ADDR scalar, GM_ADDR y, GM_ADDR workspace,
                                                        GM_ADDR tiling)
{
    GET_TILING_DATA_WITH_STRUCT(ForeachMulScalarTiling, t, tiling);
    using T = DTYPE_X;
    ListTensorDesc in(reinterpret_cast<__gm__ void*>(x));
    ListTensorDesc out(reinterpret_cast<__gm__ void*>(y));
    GlobalTensor<float> s;
    s.SetGlobalBuffer((__gm__ float*)scalar, 1);
    const T factor = static_cast<T>(s.GetValue(0));
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, t.tileLen * sizeof(T));
    LocalTensor<T> v = buf.Get<T>();
    for (uint32_t i = 0; i < in.GetSize(); ++i) {
        uint64_t shape[8];
        TensorDesc<T> desc;
        desc.SetShapeAddr(shape);
        in.GetDesc(desc, i);
        uint32_t n = 1;
        for (uint64_t d = 0; d < desc.GetDim(); ++d) {
            n *= desc.GetShape(d);
        }
        GlobalTensor<T> xi = desc.GetDataObj();
        GlobalTensor<T> yi;
        yi.SetGlobalBuffer(out.GetDataPtr<T>(i), n);
        for (uint32_t off = 0; off < n; off += t.tileLen) {
            uint32_t len = n - off < t.tileLen ? n - off : t.tileLen;
            DataCopy(v, xi[off], len);
            PipeBarrier<PIPE_ALL>();
            Muls(v, v, factor, len);
            PipeBarrier<PIPE_ALL>();
            DataCopy(yi[off], v, len);
            PipeBarrier<PIPE_ALL>();
        }
    }
}
"""

# The golden sees the list as one argument in its OpDef place, and answers the DYNAMIC output with a list.
GOLDEN = """\
import numpy as np


def golden(x, scalar):
    assert isinstance(x, list), type(x)
    return ([a * np.asarray(scalar[0], dtype=np.float32).astype(a.dtype) for a in x],)


def golden_of_threes(x, scalar):
    # only right when --input gave x[0] as all threes: proves the given data, not random data, was measured
    assert np.all(x[0] == 3), "x[0] is not the --input data"
    return golden(x, scalar)
"""

MANIFEST = """\
[golden]
function = "golden.py:golden"

[[cases]]
name = "two"
[cases.inputs."x[0]"]
shape = [4, 32]
dtype = "float32"
[cases.inputs."x[1]"]
shape = [40]
dtype = "float32"
[cases.inputs.scalar]
shape = [1]
dtype = "float32"
"""


def write_op(root: Path, manifest: str = MANIFEST, golden: str = GOLDEN) -> Path:
    files = {
        "op_host/foreach_mul_scalar.cpp": HOST,
        "op_kernel/foreach_mul_scalar.cpp": KERNEL,
        "golden.py": golden,
        "tilewise.toml": manifest,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def op(tmp_path, emu_cache, monkeypatch) -> Path:
    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    return write_op(tmp_path / "foreach_mul_scalar")


# ---- run ------------------------------------------------------------------------------------------------------
def test_run_takes_a_tensor_list_from_indexed_flags(op, capsys, needs_gxx):
    code, out, err = cli(
        capsys,
        "run",
        op,
        "--shape",
        "x[0]=512,3",
        "--shape",
        "x[1]=48",
        "--shape",
        "x[2]=16",
        "--shape",
        "scalar=1",
        "--dtype",
        "x=float16",
        "--format",
        "json",
    )
    assert code == 0, err
    d = json.loads(out)
    assert d["ok"] and d["correct"], d["error"]
    assert [(o["name"], o["shape"], o["dtype"]) for o in d["outputs"]] == [
        ("y[0]", [512, 3], "float16"),
        ("y[1]", [48], "float16"),
        ("y[2]", [16], "float16"),
    ]


def test_run_feeds_an_input_file_to_one_tensor_of_the_list(op, capsys, tmp_path, needs_gxx):
    threes = tmp_path / "threes.npy"
    np.save(threes, np.full((2, 64), 3.0, dtype=np.float32))
    # x[0]'s shape comes from the array; x[1] keeps the manifest's; the golden checks x[0] holds the file's data
    code, out, err = cli(
        capsys,
        "run",
        op,
        "--input",
        f"x[0]={threes}",
        "--shape",
        "x[1]=40",
        "--golden",
        f"{op / 'golden.py'}:golden_of_threes",
        "--format",
        "json",
    )
    assert code == 0, err
    d = json.loads(out)
    assert d["ok"] and d["correct"], d["error"]
    assert [o["shape"] for o in d["outputs"]] == [[2, 64], [40]]
    code, out, _ = cli(capsys, "run", op, "--golden", f"{op / 'golden.py'}:golden_of_threes", "--format", "json")
    d = json.loads(out)
    assert code == 1 and d["error"]["kind"] == "golden_error" and "--input data" in d["error"]["message"]


@pytest.mark.parametrize(
    ("flags", "flag", "words"),
    [
        (["--shape", "x[0]=64", "--shape", "x[2]=64"], "--shape", ["'x[2]' but no 'x[1]'", "no gaps"]),
        (["--shape", "x[0]=64", "--input", "x[2]=IN"], "--input", ["'x[2]' but no 'x[1]'"]),
        (["--shape", "x=64"], "--shape", ["tensor list (DYNAMIC)", "--shape x[0]="]),
        (["--shape", "scalar[0]=1"], "--shape", ["'scalar' is one tensor", "--shape scalar="]),
        (["--dtype", "x[3]=float16"], "--dtype", ["x[0] to x[1]", "--shape x[3]="]),
        (["--shape", "z=4"], "--shape", ["unknown input 'z'", "x[i], scalar"]),
        (["--dtype", "x=float17"], "--dtype", ["'x[0]'", "unknown dtype 'float17'"]),
        (["--device", "gpu"], "--device", ["unknown device 'gpu'", "use one of: emulator"]),
    ],
)
def test_bad_list_flags_are_one_line_errors_naming_the_flag(op, capsys, tmp_path, flags, flag, words):
    np.save(tmp_path / "in.npy", np.ones(64, dtype=np.float32))
    flags = [f.replace("IN", str(tmp_path / "in.npy")) for f in flags]
    for command in ("run", "tune"):
        code, out, err = cli(capsys, command, op, *flags)
        assert code == 2 and out == ""
        (line,) = err.strip().splitlines()
        assert line.startswith(f"error: {flag}: ") and all(w in line for w in words), line


def test_a_gap_in_the_manifests_list_names_the_manifest(tmp_path, capsys):
    root = write_op(tmp_path / "gap", manifest=MANIFEST.replace('"x[1]"', '"x[2]"'))
    code, _, err = cli(capsys, "run", root)
    (line,) = err.strip().splitlines()
    assert code == 2 and line.startswith(f"error: {root / 'tilewise.toml'}: 'x[2]' but no 'x[1]'"), line


def test_a_list_needs_at_least_one_tensor(tmp_path, capsys):
    root = write_op(tmp_path / "bare", manifest="")
    code, _, err = cli(capsys, "run", root, "--shape", "scalar=1")
    assert code == 2 and "no shape for input 'x', a tensor list" in err and "--shape x[0]=" in err


def test_dtype_for_one_tensor_and_for_the_whole_list(tmp_path):
    from argparse import Namespace

    from tilewise.session.cases import build_case

    op = load_operator(write_op(tmp_path / "op"))
    args = Namespace(case=None, shape=["x[0]=8", "x[1]=2,8"], dtype=["x=float16", "x[1]=float32"], attr=None)
    case = build_case(op, args)
    assert {n: (s.shape, s.dtype) for n, s in case.inputs.items()} == {
        "x[0]": ([8], "float16"),
        "x[1]": ([2, 8], "float32"),
        "scalar": ([1], "float32"),
    }
    # without --shape for x, the manifest's list stays and --dtype x reaches each of its tensors
    case = build_case(op, Namespace(case=None, shape=None, dtype=["x=float16"], attr=None))
    assert [(n, s.dtype) for n, s in case.inputs.items()] == [
        ("x[0]", "float16"),
        ("x[1]", "float16"),
        ("scalar", "float32"),
    ]


# ---- the golden's calling convention -------------------------------------------------------------------------
def params(*specs: str) -> list[TensorParam]:
    return [TensorParam(name=s.split(":")[0], param_type=s.split(":")[1]) for s in specs]


def test_golden_arguments_follow_the_opdef():
    a, b, c, k = (np.full(2, v) for v in (1.0, 2.0, 3.0, 9.0))
    ps = params("k:REQUIRED", "bias:OPTIONAL", "x:DYNAMIC")
    args = golden_arguments(ps, {"x[1]": b, "k": k, "x[0]": a, "x[2]": c})
    assert args[0] is k and args[1] is None and [v[0] for v in args[2]] == [1.0, 2.0, 3.0]
    # names the OpDef does not know (a kernel-invocation program's files): the case's order
    assert golden_arguments([], {"p": a, "q": b}) == [a, b]


def test_golden_outputs_one_entry_per_opdef_output():
    a, b = np.zeros(2), np.ones(3)
    two = params("y:DYNAMIC", "z:REQUIRED")
    got = group_outputs(([a, b], a), two)
    assert len(got) == 3 and got.counts == [2, 1]
    lone = params("y:DYNAMIC")
    assert group_outputs([a, b], lone).counts == [2] and group_outputs(([a, b],), lone).counts == [2]
    assert group_outputs(a, params("z:REQUIRED")).counts == [1]
    with pytest.raises(GoldenError, match="not a list"):
        group_outputs((a, a), two)
    with pytest.raises(GoldenError, match=r"returned 1 output\(s\) but the OpDef has 2 \(y: a list, z\)"):
        group_outputs(a, two)
    with pytest.raises(GoldenError, match="z is not DYNAMIC"):
        group_outputs(([a], [b]), two)


def test_two_list_outputs_are_named_by_the_goldens_counts(tmp_path):
    from tilewise.device.binding import output_names

    op = load_operator(write_op(tmp_path / "op"))
    op.model.outputs.append(TensorParam(name="w", param_type="DYNAMIC"))
    assert output_names(op, 3, [1, 2]) == ["y[0]", "w[0]", "w[1]"]


# ---- tune -----------------------------------------------------------------------------------------------------
def test_tune_takes_list_flags_and_feeds_input_files_to_every_evaluation(op, capsys, tmp_path, needs_gxx):
    threes = tmp_path / "threes.npy"
    np.save(threes, np.full(96, 3.0, dtype=np.float32))
    toml = (op / "tilewise.toml").read_text().replace("golden.py:golden", "golden.py:golden_of_threes")
    (op / "tilewise.toml").write_text(toml)
    code, out, err = cli(
        capsys,
        "tune",
        op,
        "--shape",
        "x[1]=40",
        "--input",
        f"x[0]={threes}",
        "--strategy",
        "grid",
        "--budget",
        "3",
        "--workers",
        "1",
        "--no-cache",
        "--format",
        "json",
    )
    assert code == 0, err
    d = json.loads(out)
    assert d["cases"] == ["two"] and d["evaluations"] == 3 and d["failed"] == [], d["failed"]
    assert {t["config"]["TILE_LEN"] for t in d["trials"]} == {64, 128, 256}
    # the same tune on random data fails every evaluation in the golden: the file really was what was measured
    code, out, _ = cli(
        capsys,
        "tune",
        op,
        "--shape",
        "x[0]=96",
        "--shape",
        "x[1]=40",
        "--strategy",
        "grid",
        "--budget",
        "2",
        "--workers",
        "1",
        "--no-cache",
        "--format",
        "json",
    )
    d = json.loads(out)
    assert code == 1 and len(d["failed"]) == d["evaluations"] and "--input data" in d["failed"][0]["error"]


def test_tune_cache_keys_tell_input_files_apart(tmp_path):
    from tilewise.search.tuner import _arrays_digest

    one, two = np.ones(4, np.float32), np.full(4, 2.0, np.float32)
    assert _arrays_digest({}) == ""
    assert _arrays_digest({"x[0]": one}) != _arrays_digest({"x[0]": two}) != _arrays_digest({"x[1]": two})
    assert _arrays_digest({"x[0]": one}) == _arrays_digest({"x[0]": one.copy()})


def test_tune_takes_one_case_only_with_case_flags(op, capsys):
    code, _, err = cli(capsys, "tune", op, "--case", "two", "--case", "two", "--shape", "x[0]=16")
    assert code == 2 and err.startswith("error: --case: give one --case") and len(err.strip().splitlines()) == 1


# ---- serve ----------------------------------------------------------------------------------------------------
class FakeServer:
    def __init__(self):
        self.started: tuple = ()

    def start_io(self):
        self.started = ("stdio",)

    def start_ws(self, host, port):
        self.started = ("ws", host, port)


@pytest.fixture
def fake_server(monkeypatch) -> FakeServer:
    import gc

    import tilewise.lsp.server as lsp_server

    fake = FakeServer()
    monkeypatch.setattr(lsp_server, "create_server", lambda: fake)
    monkeypatch.setattr(gc, "freeze", lambda: None)  # serve tunes the collector for a long-lived process
    monkeypatch.setattr(gc, "set_threshold", lambda *a: None)
    return fake


@pytest.mark.parametrize(
    ("argv", "started"),
    [
        (["serve"], ("stdio",)),
        (["serve", "--stdio"], ("stdio",)),
        (["serve", "--ws", "8765"], ("ws", "127.0.0.1", 8765)),
    ],
)
def test_serve_selects_its_transport(fake_server, capsys, argv, started):
    assert cli(capsys, *argv)[0] == 0 and fake_server.started == started


def test_serve_with_two_transports_is_an_error(fake_server, capsys):
    code, _, err = cli(capsys, "serve", "--stdio", "--ws", "8765")
    assert code == 2 and fake_server.started == ()
    (line,) = err.strip().splitlines()
    assert "--stdio and --ws" in line and "pick one transport" in line


def test_run_accepts_the_emulator_device(op, capsys, needs_gxx):
    code, out, err = cli(capsys, "run", op, "--device", "emulator", "--format", "json")
    assert code == 0 and json.loads(out)["correct"], err
