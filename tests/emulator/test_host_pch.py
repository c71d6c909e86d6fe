"""The host prelude (include/tw_host/prelude.h) and its precompiled header, the fourth per-installation artefact
(device/emulator/prebuilt.py), and the rule that says which op_host sources take it (device/emulator/host_prelude.py).

What is checked: the rule on small sources (no compiler); that the artefact is built once and is what the host
compile build.py runs takes (`-H` marks a used precompiled header with `!`); that a truncated one is put away, the
build goes on and the next build makes it again; that a host helper declaring the API's names compiles, whether the
rule keeps the prelude from it or the fallback does; and that a run reports the same with the prelude precompiled,
parsed, or not pre-included at all."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from opgen import write_operator

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import build
from tilewise.device.emulator import host_prelude as hp
from tilewise.device.emulator import prebuilt as pb
from tilewise.device.emulator.build import HOST_BASE_INCLUDES, HOST_FLAGS, INCLUDE_DIR, Builder, BuildError
from tilewise.device.emulator.prebuilt import HOST_PCH_STUB, RUNTIME_EXTERN, Prebuilt, shadow_names

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GCH = f"{HOST_PCH_STUB}.gch"
# A helper of the operator's own that includes none of our headers and declares names the host API declares too:
# ge::DataType is the API's enum, and <cmath> (which the API includes) declares ::y1.
CLASHING_HELPER = """\
#include <cstdint>
namespace ge {
struct DataType {
    int v;
};
}  // namespace ge
double y1 = 2.0;
int32_t helper_value() { return static_cast<int32_t>(y1) + ge::DataType{3}.v; }
"""
# A tiling function and nothing else: a host source that takes the prelude.
TILING_ONLY = """\
#include "register/op_def_registry.h"
namespace optiling {
ge::graphStatus TwTiling(gert::TilingContext*) { return ge::GRAPH_SUCCESS; }
}  // namespace optiling
"""


def _prebuilt(root: Path) -> Prebuilt:
    """The real headers and flags, as Builder makes them, in a folder of the test's own."""
    host = [*HOST_FLAGS, *HOST_BASE_INCLUDES]
    return Prebuilt(
        INCLUDE_DIR,
        build.headers_hash(),
        build.CXX,
        build.KERNEL_FLAGS,
        build.RUNNER_FLAGS,
        build.RUNNER_SOURCE,
        300.0,
        root=root,
        host_flags=host,
    )


def _no_compiler(argv, timeout_s):  # a build that should find everything there must not compile
    raise AssertionError(f"compiled although the artefact was there: {argv}")


@pytest.fixture(scope="module")
def host_pch(tmp_path_factory, needs_gxx) -> Path:
    """A host prelude precompiled once for this module, in a folder of its own; tests copy it to change it."""
    root = tmp_path_factory.mktemp("host-pch")
    p = _prebuilt(root)
    assert p.host_pch_flags([]) == [p.host_pch_include()]
    return p.host_pch_folder


def _private_root(tmp_path: Path, host_pch: Path) -> Path:
    """A prebuilt folder holding a copy of the module's host prelude and, linked, the session's kernel artefacts
    (built now if this is the first test to need them): a build there compiles only the operator."""
    shared = Builder().prebuilt
    assert shared.build_all()
    root = tmp_path / "pb"
    root.mkdir()
    for folder in (
        shared.runtime_folder,
        shared.runner_folder,
        shared.pch_folder([*build.KERNEL_FLAGS, RUNTIME_EXTERN]),
    ):
        (root / folder.name).symlink_to(folder)
    shutil.copytree(host_pch, root / host_pch.name)
    return root


def _recording(monkeypatch) -> list[list[str]]:
    """Every compile and link build.py runs from now on, in order."""
    calls: list[list[str]] = []
    real = build.run_tool

    def record(argv, timeout_s):
        calls.append(list(argv))
        return real(argv, timeout_s)

    monkeypatch.setattr(build, "run_tool", record)
    return calls


def _host_compiles(calls: list[list[str]], name: str = "") -> list[list[str]]:
    return [a for a in calls if "-c" in a and "/host-" in a[a.index("-c") + 1] and name in Path(a[-3]).read_text()]


# ---- the rule -------------------------------------------------------------------------------------------------
def _takes(tmp_path: Path, source: str, **headers: str) -> bool:
    host = tmp_path / "op_host"
    host.mkdir(exist_ok=True)
    for name, text in headers.items():
        (host / f"{name}.h").write_text(text)
    (host / "x.cpp").write_text(source)
    return hp.takes_prelude(host / "x.cpp", [INCLUDE_DIR, INCLUDE_DIR / "op_common", host], INCLUDE_DIR)


API = '#include "register/op_def_registry.h"\n'
TILING_H = (
    '#ifndef T_H\n#define T_H\n#include "register/tilingdata_base.h"\nnamespace optiling {\nstruct T {};\n}\n#endif\n'
)


def test_a_classic_source_takes_the_prelude(tmp_path):
    """The tiling header first (include guard, structs in namespace optiling), comments, #pragma once, a mirror's
    #line, standard headers: nothing there changes how the API reads."""
    source = '#line 1 "x.cpp"\n// the host\n#pragma once\n#include <vector>\n#include "t.h"\n/* a\n#define X */\n' + API
    assert _takes(tmp_path, source, t=TILING_H)
    assert _takes(tmp_path, '#include "t.h"\n', t=f"#pragma once\n{API}")  # through an operator header


@pytest.mark.parametrize(
    "before",
    [
        "#define OPTIONAL 1\n",  # a macro our headers' names would expand
        "#undef EOK\n",
        "#ifdef X\n#endif\n",  # a conditional
        "#pragma pack(push, 1)\n",  # would change our structs' layout
        "using namespace std;\n",  # changes our headers' name lookup
        "namespace optiling {\n",  # the API would be declared inside it
        'extern "C" {\n',
        "#include HEADER\n",
        '_Pragma("pack(1)")\n',
    ],
)
def test_anything_that_changes_how_the_api_reads_keeps_the_prelude_off(tmp_path, before):
    assert not _takes(tmp_path, before + API + ("}\n" if before.endswith("{\n") else ""))


def test_a_source_without_the_api_or_with_it_only_in_a_conditional_keeps_the_prelude_off(tmp_path):
    assert not _takes(tmp_path, CLASHING_HELPER)
    assert not _takes(tmp_path, '#include "register/tilingdata_base.h"\nint f();\n')
    assert not _takes(tmp_path, "#if 1\n" + API + "#endif\n")
    # an operator header that defines a macro on the way (a guard of another name is no guard)
    assert not _takes(tmp_path, '#include "t.h"\n' + API, t="#ifndef A\n#define B\n#endif\n")


def test_the_fallback_drops_whichever_prelude_the_compile_took():
    pch, prelude, knobs = "-include/pb/prelude.h", "-include/inc/tw_host/prelude.h", "-include/inc/tw_host/knobs.h"
    assert hp.fallback([pch, "-I/a"], pch, prelude, knobs) == [knobs, "-I/a"]
    assert hp.fallback([prelude, "-I/a"], pch, prelude, knobs) == [knobs, "-I/a"]
    assert hp.fallback([knobs, "-I/a"], pch, prelude, knobs) is None  # compiled without it: its failure stands


# ---- the artefact ---------------------------------------------------------------------------------------------
def test_the_host_prelude_is_built_once_then_found_by_another_builder(host_pch, monkeypatch):
    assert (host_pch / GCH).stat().st_size > 1_000_000 and (host_pch / pb.HOST_PCH_SHADOWS).is_file()
    monkeypatch.setattr(pb, "run_tool", _no_compiler)
    other = _prebuilt(host_pch.parent)
    assert other.host_pch_folder == host_pch  # the same key
    assert other.host_pch_flags([]) == [f"-include{host_pch / HOST_PCH_STUB}"]


def test_the_host_compile_build_py_runs_takes_the_precompiled_prelude(tmp_path, host_pch, monkeypatch, needs_gxx):
    monkeypatch.setenv("TILEWISE_PREBUILT", str(_private_root(tmp_path, host_pch)))
    calls = _recording(monkeypatch)
    root = write_operator(tmp_path / "scale")
    Builder().build(load_operator(root), {})
    [argv] = _host_compiles(calls)
    assert f"-include{tmp_path / 'pb' / host_pch.name / HOST_PCH_STUB}" in argv
    # the same command with -H (and without its depfile and output): GCC reads the .gch, not the headers
    i = argv.index("-MMD")
    again = [*argv[:i], *argv[i + 3 : -2], "-H", "-o", str(tmp_path / "again.o")]
    proc = subprocess.run(again, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[0] == f"! {tmp_path / 'pb' / host_pch.name / GCH}", proc.stderr[:400]


def test_a_truncated_host_pch_is_put_away_the_build_goes_on_and_the_next_makes_it_again(
    tmp_path, host_pch, monkeypatch, needs_gxx
):
    root = _private_root(tmp_path, host_pch)
    gch = root / host_pch.name / GCH
    gch.write_bytes(gch.read_bytes()[:65536])
    monkeypatch.setenv("TILEWISE_PREBUILT", str(root))
    calls = _recording(monkeypatch)
    op_root = write_operator(tmp_path / "scale")
    exe = Builder().build(load_operator(op_root), {}).exe
    assert exe.is_file()
    refused, parsed = _host_compiles(calls)  # the compile that found the bad header, then the one that parsed
    assert f"-include{root / host_pch.name / HOST_PCH_STUB}" in refused
    assert f"-include{INCLUDE_DIR / hp.PRELUDE}" in parsed
    assert not (root / host_pch.name).exists()  # rejected
    # the next build that asks makes it again, and takes it
    calls.clear()
    write_operator(tmp_path / "scale2", host=(op_root / "op_host" / "scale.cpp").read_text() + "// changed\n")
    Builder().build(load_operator(tmp_path / "scale2"), {})
    assert gch.is_file() and gch.stat().st_size > 1_000_000
    [argv] = _host_compiles(calls)
    assert f"-include{root / host_pch.name / HOST_PCH_STUB}" in argv


def test_a_host_error_of_the_sources_own_stands_and_leaves_the_good_header_alone(
    tmp_path, host_pch, monkeypatch, needs_gxx
):
    root = _private_root(tmp_path, host_pch)
    monkeypatch.setenv("TILEWISE_PREBUILT", str(root))
    monkeypatch.delenv("TILEWISE_BUILD_CACHE", raising=False)
    builder = Builder(tmp_path / "cache")
    source = tmp_path / "x.cpp"
    source.write_text(TILING_ONLY + "int g() { return nope; }\n")
    includes = [builder.prebuilt.host_pch_include(), *HOST_BASE_INCLUDES]
    with pytest.raises(BuildError, match="nope") as err:
        builder._compile("host", "h1", f'#include "{source}"\n', HOST_FLAGS, includes, str(source))
    assert err.value.error.file == str(source) and err.value.error.line == 5
    assert (root / host_pch.name / GCH).is_file()


def test_a_folder_that_would_shadow_a_system_header_of_the_prelude_parses_it_instead(tmp_path, host_pch):
    p = _prebuilt(host_pch.parent)
    names = (host_pch / pb.HOST_PCH_SHADOWS).read_text().split()
    assert {"vector", "bits/c++config.h", "tbb/tbb.h"} <= set(names) and not any("register/" in n for n in names)
    user = tmp_path / "op_host"
    (user / "bits").mkdir(parents=True)
    assert p.host_pch_flags([user]) == [p.host_pch_include()]
    (user / "bits" / "c++config.h").write_text("")  # GCC would read this one, not the system's, when parsing
    assert p.host_pch_flags([user]) == []
    # a header under two system folders can be found by either name; a name a header probes counts too
    system = tmp_path / "sys"
    (system / "c++" / "backward").mkdir(parents=True)
    (system / "c++" / "backward" / "binders.h").write_text("#if __has_include(<tbb/tbb.h>)\n#endif\n")
    (system / "stdio.h").write_text("")
    roots = [str(system / "c++"), str(system / "c++" / "backward"), str(system)]
    deps = [str(system / "c++" / "backward" / "binders.h"), str(system / "stdio.h"), f"{INCLUDE_DIR}/securec.h"]
    found = ["backward/binders.h", "binders.h", "c++/backward/binders.h", "stdio.h", "tbb/tbb.h"]
    assert shadow_names(deps, roots, INCLUDE_DIR, Path("/pb/prelude.h")) == found


# ---- semantics: a clash, the key, the results ---------------------------------------------------------------------
def test_a_host_helper_that_declares_the_apis_names_compiles(tmp_path, monkeypatch, needs_gxx):
    """The rule keeps the prelude from it; and were the rule to let it through, the compile without the prelude
    that follows the failed one would stand."""
    root = write_operator(tmp_path / "scale")
    (root / "op_host" / "helper.cpp").write_text(CLASHING_HELPER)
    op = load_operator(root)
    calls = _recording(monkeypatch)
    assert Builder().build(op, {}).exe.is_file()
    [helper] = _host_compiles(calls, "helper.cpp")
    assert f"-include{INCLUDE_DIR / hp.KNOBS}" in helper
    monkeypatch.setattr(build, "takes_prelude", lambda *a: True)
    calls.clear()
    assert Builder().build(op, {}).exe.is_file()
    with_prelude, without = _host_compiles(calls, "helper.cpp")
    assert not any(a.startswith("-include") and a.endswith("knobs.h") for a in with_prelude)
    assert f"-include{INCLUDE_DIR / hp.KNOBS}" in without


def test_the_host_objects_key_changes_with_the_prelude(tmp_path, monkeypatch, needs_gxx):
    root = write_operator(tmp_path / "scale")
    op = load_operator(root)
    keys = {}
    for takes in (True, False):
        monkeypatch.setattr(build, "takes_prelude", lambda *a, takes=takes: takes)
        jobs: list[tuple] = []
        monkeypatch.setattr(Builder, "_assemble", lambda self, name, js, start, jobs=jobs: jobs.extend(js))
        Builder().build(op, {})
        keys[takes] = [j[1] for j in jobs if j[0] == "host"]
    assert keys[True] and set(keys[True]).isdisjoint(keys[False])


@pytest.mark.slow
def test_a_run_reports_the_same_with_the_prelude_precompiled_parsed_or_not_at_all(tmp_path, monkeypatch, needs_gxx):
    from tilewise.device.emulator import EmulatorDevice
    from tilewise.device.protocol import RunRequest

    shared = Builder().prebuilt.root
    monkeypatch.delenv("TILEWISE_BUILD_CACHE", raising=False)  # a fresh build cache for each run
    op = load_operator(EXAMPLES / "add_custom")
    # what each mode's host compile pre-includes: the stub beside the .gch, the prelude itself, the knobs only
    forced = {
        "pch": f"-include{shared}/hostpch-",
        "parsed": f"-include{INCLUDE_DIR / hp.PRELUDE}",
        "none": f"-include{INCLUDE_DIR / hp.KNOBS}",
    }
    calls = _recording(monkeypatch)
    runs = {}
    for mode, where, takes in (("pch", shared, None), ("parsed", "off", None), ("none", shared, False)):
        monkeypatch.setenv("TILEWISE_PREBUILT", str(where))
        if takes is not None:
            monkeypatch.setattr(build, "takes_prelude", lambda *a, takes=takes: takes)
        calls.clear()
        m = EmulatorDevice(cache_dir=tmp_path / mode).run(op, RunRequest(op.manifest.cases[0], keep_outputs=True))
        assert m.ok and m.correct, m.error
        [host] = _host_compiles(calls)
        assert next(a for a in host if a.startswith("-include")).startswith(forced[mode]), host
        runs[mode] = m
    for mode in ("parsed", "none"):
        a, b = runs["pch"], runs[mode]
        assert (a.time_us, a.cycles, a.pipes, a.warnings, a.block_dim) == (
            b.time_us,
            b.cycles,
            b.pipes,
            b.warnings,
            b.block_dim,
        ), mode
        assert all((x == y).all() for x, y in zip(a.produced_outputs(), b.produced_outputs(), strict=True))
