"""The emulator's per-installation artefacts (device/emulator/prebuilt.py): the runtime object, the precompiled
kernel API header and the runner object, built once and shared by every build cache.

Most tests use a tiny stand-in for the emulator's headers (one `kernel_operator.h`) so that each artefact compiles
in a fraction of a second: what is checked is the sharing, keying, atomic publishing and fallback, which do not
depend on what the headers hold. The last test builds a real operator with and without the artefacts and compares
everything the run reports."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tilewise.device.emulator import build
from tilewise.device.emulator import prebuilt as pb
from tilewise.device.emulator.build import Builder, BuildError
from tilewise.device.emulator.prebuilt import PCH_HEADER, RUNTIME_EXTERN, Prebuilt, artefact_key

SRC = Path(pb.__file__).resolve().parents[3]  # the tilewise these tests import, for their subprocesses
RUNNER = "int main() { return 0; }\n"


def _runtime_fn(name: str, value: int) -> str:
    """A function written as the runtime's out-of-line functions are (tw/runtime/out_of_line.h)."""
    return f"TW_RUNTIME_FN int {name}()\n#ifdef TW_RUNTIME_EXTERN\n;\n#else\n{{ return {value}; }}\n#endif\n"


HEADER = '#pragma once\n#include "tw/runtime/out_of_line.h"\n' + _runtime_fn("answer", 42)


def _include(tmp_path: Path, text: str = HEADER) -> Path:
    """A stand-in for the emulator's include folder: a kernel_operator.h, and the real out_of_line.h it uses."""
    inc = tmp_path / "include"
    (inc / "tw" / "runtime").mkdir(parents=True, exist_ok=True)
    real = build.INCLUDE_DIR / "tw" / "runtime" / "out_of_line.h"
    (inc / "tw" / "runtime" / "out_of_line.h").write_text(real.read_text())
    (inc / PCH_HEADER).write_text(text)
    return inc


def _prebuilt(root: Path, inc: Path, digest: str = "d1", cxx: str = "g++", opt: str = "-O0") -> Prebuilt:
    return Prebuilt(inc, digest, cxx, ["-std=c++17", opt], ["-std=c++17", "-O0"], RUNNER, 120.0, root=root)


def _folders(root: Path) -> list[str]:
    """The artefact and temporary folders under `root` (not `.locks/`, the builders' lock files)."""
    return sorted(p.name for p in root.iterdir() if p.name != ".locks") if root.exists() else []


def _no_compiler(argv, timeout_s):  # a build that should find everything there must not compile
    raise AssertionError(f"compiled although the artefact was there: {argv}")


def test_built_once_then_reused_by_another_builder(tmp_path, needs_gxx, monkeypatch):
    inc = _include(tmp_path)
    first = _prebuilt(tmp_path / "pb", inc)
    assert not first.ready()
    assert first.build_all() and first.ready()
    assert sorted(n.split("-")[0] for n in _folders(tmp_path / "pb")) == ["pch", "runner", "runtime"]
    # another process's builder (another build cache): everything is found, nothing compiles
    monkeypatch.setattr(pb, "run_tool", _no_compiler)
    second = _prebuilt(tmp_path / "pb", inc)
    assert second.ready()
    assert second.kernel_defines() == [RUNTIME_EXTERN]
    flags = [*second.kernel_flags, RUNTIME_EXTERN]
    assert second.pch_flags(flags) == [f"-I{second.pch_folder(flags)}"]
    assert second.runner_object() == first.runner_folder / "runner.o"
    assert second.runtime_object() == first.runtime_folder / "runtime.o"


def test_the_precompiled_header_is_the_one_gcc_reads(tmp_path, needs_gxx):
    """Built in a temporary folder and renamed: GCC still takes it (`-H` marks a used PCH with `!`)."""
    inc = _include(tmp_path)
    p = _prebuilt(tmp_path / "pb", inc)
    flags = p.kernel_flags
    unit = tmp_path / "k.cpp"
    unit.write_text(f'#include "{PCH_HEADER}"\nint f() {{ return answer(); }}\n')
    proc = subprocess.run(
        ["g++", *flags, *p.pch_flags(flags), f"-I{inc}", "-H", "-c", str(unit), "-o", str(tmp_path / "k.o")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"! {p.pch_folder(flags) / PCH_HEADER}.gch" in proc.stderr


def test_a_header_change_a_flag_or_another_compiler_is_another_artefact(tmp_path, needs_gxx):
    inc = _include(tmp_path)
    root = tmp_path / "pb"
    built = _prebuilt(root, inc, digest=pb.headers_digest(inc))
    assert built.build_all()
    before = _folders(root)
    # the header's content changes: its digest, so every key, changes, and the new artefacts hold the new text
    (inc / PCH_HEADER).write_text(HEADER.replace("42", "43") + _runtime_fn("more", 1))
    changed = _prebuilt(root, inc, digest=pb.headers_digest(inc))
    assert not changed.ready()
    assert changed.build_all()
    after = _folders(root)
    assert set(before) < set(after) and len(after) == 2 * len(before)
    assert "more" in subprocess.run(["nm", "-C", str(changed.runtime_object())], capture_output=True, text=True).stdout
    # another optimisation level (TILEWISE_OPT), another compiler path: other keys
    assert not _prebuilt(root, inc, digest=pb.headers_digest(inc), opt="-O1").ready()
    wrapper = tmp_path / "bin" / "g++"
    wrapper.parent.mkdir()
    wrapper.write_text('#!/bin/sh\nexec g++ "$@"\n')
    wrapper.chmod(0o755)
    assert not _prebuilt(root, inc, digest=pb.headers_digest(inc), cxx=str(wrapper)).ready()
    keys = {artefact_key("pch", c, d, f, "") for c in ("g++", str(wrapper)) for d in ("a", "b") for f in (["-O0"], [])}
    assert len(keys) == 8


_BUILD_ALL = """
import sys
sys.path.insert(0, {src!r})
from pathlib import Path
from tilewise.device.emulator.prebuilt import Prebuilt
p = Prebuilt(Path({inc!r}), "d1", {cxx!r}, ["-std=c++17", "-O0"], ["-std=c++17", "-O0"], {runner!r}, 120.0,
             root=Path({root!r}))
print("ok" if p.{call} else "failed", flush=True)
"""


def _script(tmp_path: Path, inc: Path, root: Path, cxx: str = "g++", call: str = "build_all()") -> list[str]:
    code = _BUILD_ALL.format(src=str(SRC), inc=str(inc), cxx=cxx, runner=RUNNER, root=str(root), call=call)
    return [sys.executable, "-c", code]


def _slow_compiler(tmp_path: Path, seconds: float) -> Path:
    """g++ after a pause, so that two builders started together would both be compiling at once; each compile's
    arguments go to a line of `<compiler>.log`."""
    path = tmp_path / "slow-g++"
    log = f"{path}.log"
    path.write_text(f'#!/bin/sh\n[ "$1" = "--version" ] || echo "$@" >> "{log}"\nsleep {seconds}\nexec g++ "$@"\n')
    path.chmod(0o755)
    return path


def test_two_processes_building_at_once_both_end_with_a_good_artefact(tmp_path, needs_gxx):
    inc = _include(tmp_path)
    root = tmp_path / "pb"
    cxx = str(_slow_compiler(tmp_path, 1))
    procs = [subprocess.Popen(_script(tmp_path, inc, root, cxx), stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert outs == ["ok", "ok"]
    assert [n for n in _folders(root) if n.startswith(".tmp-")] == []  # the loser's folder is gone
    # each artefact compiled once: the second process waited on the first one's lock and found it made
    made = [re.search(r"/\.tmp-(.+)-[^/]+/[^/ ]+(?: |$)", line) for line in Path(f"{cxx}.log").read_text().splitlines()]
    names = [m.group(1) for m in made if m]
    assert names and len(names) == len(set(names)), names
    p = _prebuilt(root, inc, cxx=cxx)
    assert p.ready()
    exe = tmp_path / "linked"
    unit = tmp_path / "main.cpp"
    unit.write_text("int answer(); int main() { return answer() == 42 ? 0 : 1; }\n")
    # the runtime object defines what a TW_RUNTIME_EXTERN kernel calls; here, the header's one inline function
    subprocess.run(["g++", str(unit), str(p.runtime_object()), "-o", str(exe)], check=True)
    assert subprocess.run([str(exe)]).returncode == 0


def test_a_killed_build_and_a_half_written_artefact_pass_for_nothing(tmp_path, needs_gxx):
    inc = _include(tmp_path)
    root = tmp_path / "pb"
    # a compiler that writes half an object, then hangs: the build is killed while it is "compiling"
    hang = tmp_path / "hanging-g++"
    hang.write_text(
        textwrap.dedent(
            """\
            #!/bin/sh
            [ "$1" = "--version" ] && { echo "hanging-g++ 1"; exit 0; }
            echo $$ > "$0.pid"
            while [ $# -gt 0 ]; do [ "$1" = "-o" ] && out="$2"; shift; done
            printf 'half an object' > "$out"
            exec sleep 300
            """
        )
    )
    hang.chmod(0o755)
    proc = subprocess.Popen(_script(tmp_path, inc, root, str(hang), "runner_object()"), start_new_session=True)
    pid_file = Path(f"{hang}.pid")
    deadline = time.monotonic() + 120
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid_file.exists(), "the build never started its compiler"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    with contextlib.suppress(ProcessLookupError):  # the bounded compiler runs in a process group of its own
        os.killpg(os.getpgid(int(pid_file.read_text())), signal.SIGKILL)
    left = _folders(root)
    assert left and all(n.startswith(".tmp-") for n in left), left  # only the temporary folder, with the half object
    assert not _prebuilt(root, inc, cxx=str(hang)).ready()
    # the same left behind for a working compiler's artefact: never taken, the next build makes a real one
    good = _prebuilt(root, inc)
    half = root / f".tmp-{good.runner_folder.name}-killed"
    half.mkdir()
    (half / "runner.o").write_text("half an object")
    assert not good.ready()
    obj = good.runner_object()
    assert obj is not None and obj.read_bytes()[:4] == b"\x7fELF"


def test_a_precompiled_header_the_compiler_refuses_falls_back_to_the_plain_build(tmp_path, needs_gxx, monkeypatch):
    """A truncated .gch (a disk that filled up, a copy cut short): the kernel compiles from the headers instead, the
    bad header is put away, and the next build that asks makes it again."""
    inc = _include(tmp_path)
    monkeypatch.delenv("TILEWISE_BUILD_CACHE", raising=False)
    builder = Builder(tmp_path / "cache")
    builder.prebuilt = _prebuilt(tmp_path / "pb", inc)
    flags = [*builder.prebuilt.kernel_flags]
    pch = builder.prebuilt.pch_flags(flags)
    gch = builder.prebuilt.pch_folder(flags) / f"{PCH_HEADER}.gch"
    gch.write_bytes(gch.read_bytes()[:4096])
    source = f'#include "{PCH_HEADER}"\nint f() {{ return answer(); }}\n'
    obj = builder._compile("kernel", "k1", source, flags, [*pch, f"-I{inc}"])
    assert obj.is_file()
    assert "answer" in subprocess.run(["nm", "-C", str(obj)], capture_output=True, text=True).stdout
    assert not gch.exists()  # rejected
    assert builder.prebuilt.pch_flags(flags) == pch and gch.is_file()  # and made again
    # a compile error of the kernel's own is still the kernel's, and leaves the good header alone
    with pytest.raises(BuildError, match="nope"):
        builder._compile("kernel", "k2", source + "int g() { return nope; }\n", flags, [*pch, f"-I{inc}"])
    assert gch.is_file()


def test_off_builds_nothing_and_every_build_compiles_for_itself(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEWISE_PREBUILT", "off")
    monkeypatch.setattr(pb, "run_tool", _no_compiler)
    p = Prebuilt(_include(tmp_path), "d1", "g++", ["-O0"], ["-O0"], RUNNER, 60.0)
    assert p.kernel_defines() == [] and p.pch_flags(["-O0"]) == [] and p.runner_object() is None
    assert not p.ready() and not p.build_all()


@pytest.mark.slow
def test_a_run_reports_the_same_with_and_without_the_shared_artefacts(tmp_path, needs_gxx, monkeypatch):
    """The real headers and runner: outputs, findings and simulated time are those of the plain build."""
    from tilewise.analysis.operator import load_operator
    from tilewise.device.emulator import EmulatorDevice
    from tilewise.device.protocol import RunRequest

    monkeypatch.delenv("TILEWISE_BUILD_CACHE", raising=False)  # a fresh build cache for each run
    op = load_operator(Path(__file__).resolve().parents[2] / "examples" / "add_custom")
    runs = {}
    for mode, where in (("plain", "off"), ("shared", str(tmp_path / "pb"))):
        monkeypatch.setenv("TILEWISE_PREBUILT", where)
        m = EmulatorDevice(cache_dir=tmp_path / mode).run(op, RunRequest(op.manifest.cases[0], keep_outputs=True))
        assert m.ok and m.correct, m.error
        runs[mode] = m
    assert Builder().prebuilt.ready()
    plain, shared = runs["plain"], runs["shared"]
    assert (shared.time_us, shared.cycles, shared.pipes, shared.warnings) == (
        plain.time_us,
        plain.cycles,
        plain.pipes,
        plain.warnings,
    )
    assert all((a == b).all() for a, b in zip(plain.produced_outputs(), shared.produced_outputs(), strict=True))


def test_where_the_artefacts_live(tmp_path, monkeypatch):
    """Never in the package or in TILEWISE_CACHE: the named folder, a shared build cache's, or the user's."""
    monkeypatch.setenv("TILEWISE_CACHE", str(tmp_path / "results"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("TILEWISE_BUILD_CACHE", str(tmp_path / "builds"))
    monkeypatch.setenv("TILEWISE_PREBUILT", str(tmp_path / "named"))
    assert pb.prebuilt_dir() == tmp_path / "named"
    monkeypatch.delenv("TILEWISE_PREBUILT")
    assert pb.prebuilt_dir() == tmp_path / "builds" / "prebuilt"
    monkeypatch.delenv("TILEWISE_BUILD_CACHE")
    assert pb.prebuilt_dir() == tmp_path / "xdg" / "tilewise" / "prebuilt"
    monkeypatch.setenv("TILEWISE_PREBUILT", "off")
    assert pb.prebuilt_dir() is None
