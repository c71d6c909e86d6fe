"""The host emulation headers (device/emulator/include) compile every example's op_host/ with plain g++ and
drive its InferShape and tiling: block dim, tiling size and output shapes must agree with the manifest's first case
and with the numpy golden."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
INCLUDE = ROOT / "src" / "tilewise" / "device" / "emulator" / "include"
HERE = Path(__file__).resolve().parent
CXX = shutil.which("g++")
CXXFLAGS = ["-std=c++17", "-O0", "-Wall", "-I", str(INCLUDE)]

# One worker runs this module (--dist loadgroup) and its session fixture compiles there once, whatever runs between.
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="g++ is not installed"),
    pytest.mark.xdist_group("test_host_headers"),
]

# tests/emulator/test_examples_run.py runs every example end to end through these headers; here a few operators
# that use attributes, tiling keys and workspaces exercise the host API directly, without the kernel.
HOST_EXAMPLES = ["leaky_relu", "multi_key_abs_sub", "reduce_sum_all", "rms_norm"]

DTYPES = {
    "float16": np.float16,
    "float32": np.float32,
    "bfloat16": np.float32,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "bool": np.bool_,
}


def _compile(args: list[str], what: str) -> str | None:
    """Runs g++; returns None on success, else the first lines of its diagnostics."""
    proc = subprocess.run([CXX, *args], capture_output=True, text=True, timeout=300)
    if proc.returncode == 0:
        return None
    return f"{what} failed:\n" + "\n".join(proc.stderr.splitlines()[:40])


@pytest.fixture(scope="session")
def binaries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | str]:
    """Builds one host_main binary per example (op_host/*.cpp + host_main.o), two compiler jobs at a time.
    Maps example name -> binary path, or -> the compiler's complaint."""
    out = tmp_path_factory.mktemp("host_bins")
    main_o = out / "host_main.o"
    err = _compile([*CXXFLAGS, "-c", str(HERE / "host_main.cpp"), "-o", str(main_o)], "host_main.cpp")
    assert err is None, err

    def build(name: str) -> tuple[str, Path | str]:
        objs = []
        for src in sorted((EXAMPLES / name / "op_host").glob("*.cpp")):
            obj = out / f"{name}__{src.stem}.o"
            err = _compile([*CXXFLAGS, "-c", str(src), "-o", str(obj)], f"{name}/op_host/{src.name}")
            if err:
                return name, err
            objs.append(str(obj))
        exe = out / name
        err = _compile([*objs, str(main_o), "-o", str(exe)], f"linking {name}")
        return name, err or exe

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(build, HOST_EXAMPLES))


def _attr_arg(name: str, value: object) -> str:
    if isinstance(value, bool):
        return f"{name}=b:{int(value)}"
    if isinstance(value, int):
        return f"{name}=i:{value}"
    if isinstance(value, float):
        return f"{name}=f:{value!r}"
    if isinstance(value, str):
        return f"{name}=s:{value}"
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return f"{name}=li:{','.join(map(str, value))}"
    if isinstance(value, list):
        return f"{name}=lf:{','.join(map(repr, map(float, value)))}"
    raise ValueError(f"attribute {name}: unsupported value {value!r}")


def _random_input(spec: dict, rng: np.random.Generator) -> np.ndarray:
    shape = tuple(spec["shape"])
    dtype = DTYPES[spec["dtype"]]
    if np.issubdtype(dtype, np.bool_):
        return rng.integers(0, 2, size=shape).astype(dtype)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-8 if np.issubdtype(dtype, np.signedinteger) else 0, 8, size=shape).astype(dtype)
    data = rng.standard_normal(size=shape)
    if spec.get("init") == "positive":
        data = np.abs(data) + 0.1
    return data.astype(dtype)


def _golden_outputs(example: Path, manifest: dict, case: dict) -> list[np.ndarray]:
    file, func = manifest["golden"]["function"].split(":")
    spec = importlib.util.spec_from_file_location(f"golden_{example.name}", example / file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    inputs = [_random_input(s, rng) for s in case["inputs"].values()]
    result = getattr(module, func)(*inputs, **case.get("attrs", {}))
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("name", HOST_EXAMPLES)
def test_example_host_tiling(name: str, binaries: dict[str, Path | str]):
    built = binaries[name]
    assert isinstance(built, Path), built

    example = EXAMPLES / name
    manifest = tomllib.loads((example / "tilewise.toml").read_text())
    case = manifest["cases"][0]
    args = [str(built)]
    if "operator" in manifest and "name" in manifest["operator"]:
        args += ["--op", manifest["operator"]["name"]]
    for spec in case["inputs"].values():
        args += ["-i", f"{spec['dtype']}:{','.join(map(str, spec['shape']))}"]
    for key, value in case.get("attrs", {}).items():
        args += ["-a", _attr_arg(key, value)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, f"no JSON from {name}: {proc.stdout}\n{proc.stderr}"
    got = json.loads(lines[-1])

    assert proc.returncode == 0 and got["status"] == 0, got
    assert got["error"] == ""
    assert got["block_dim"] >= 1
    assert got["tiling_struct_size"] > 0
    assert got["tiling_size"] == got["tiling_struct_size"], "tiling bytes must be exactly the registered struct"

    expected = _golden_outputs(example, manifest, case)
    assert [o["shape"] for o in got["outputs"]] == [list(np.shape(e)) for e in expected]
    # InferDataType (or the OpDef's dtype columns) must agree with the golden's output dtypes too.
    assert [o["dtype"] for o in got["outputs"]] == [np.asarray(e).dtype.name for e in expected]


def test_header_semantics(tmp_path: Path):
    """Tiling-macro layout, attribute conversion, optional/dynamic binding and template tiling keys."""
    exe = tmp_path / "selftest"
    err = _compile(
        [*CXXFLAGS, "-Wextra", "-Werror", str(HERE / "header_selftest.cpp"), "-o", str(exe)], "header_selftest.cpp"
    )
    assert err is None, err
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all checks passed" in proc.stdout
