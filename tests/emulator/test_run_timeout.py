"""A run that times out is killed with everything it started: the program runs as the leader of its own process
group (device/process.py) and the timeout kills the group, so a child it forked does not outlive it. The
emulator's compiler runs the same way (device/emulator/tools.py run_tool): a compile that never ends is killed with
its children at the build's timeout, says so in one line naming the file, and leaves nothing that passes for a build.

Each test starts a program that forks a child which writes its pid and sleeps far past the timeout, then checks
that the child is gone. "Gone" is polled with a generous bound (a killed orphan is reaped by init whenever init
gets to it), never a fixed sleep."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.emulator import build as emulator_build
from tilewise.device.emulator.tools import BUILD_TIMEOUT_S, build_timeout
from tilewise.device.process import run_bounded
from tilewise.device.protocol import RunRequest

# A parent that forks a child; both sleep a minute. The child's pid goes to the file named by argv[1].
FORKER = """\
import os, sys, time
pid = os.fork()
if pid == 0:
    time.sleep(60)
    os._exit(0)
with open(sys.argv[1], "w") as f:
    f.write(str(pid))
time.sleep(60)
"""


def alive(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting for init to reap it counts as dead: it runs nothing)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = next((line.split()[1] for line in status.splitlines() if line.startswith("State:")), "Z")
    return state not in ("Z", "X")


def wait_for(path: Path, bound_s: float = 30.0) -> int:
    end = time.monotonic() + bound_s
    while time.monotonic() < end:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return int(text)
        time.sleep(0.05)
    raise AssertionError(f"{path} was never written")


def gone_within(pid: int, bound_s: float = 30.0) -> bool:
    end = time.monotonic() + bound_s
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_a_timeout_kills_the_children_the_program_forked(tmp_path):
    script = tmp_path / "forker.py"
    script.write_text(FORKER)
    pid_file = tmp_path / "child.pid"
    start = time.monotonic()
    proc = run_bounded(
        [sys.executable, str(script), str(pid_file)], cwd=tmp_path, env=None, timeout_s=2.0, memory_bytes=2 * 1024**3
    )
    assert proc is None, "the program should have timed out"
    assert time.monotonic() - start < 30, "waited for the forked child instead of killing it"
    child = wait_for(pid_file)
    assert gone_within(child), f"the forked child {child} outlived the timeout"


def test_a_program_that_finishes_gives_its_output_and_status(tmp_path):
    proc = run_bounded(
        [sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
        cwd=tmp_path,
        env=None,
        timeout_s=60.0,
        memory_bytes=2 * 1024**3,
    )
    assert proc is not None and (proc.returncode, proc.stdout, proc.stderr) == (3, "out\n", "err\n")


# A kernel-invocation program (its own main) whose host code forks a child that writes its pid and sleeps, then
# sleeps itself instead of launching its kernel: the device's timeout must take the child down too.
INVOCATION = """\
#include <cstdint>
#include <cstdio>
#include <unistd.h>
#include "acl/acl.h"
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void noop(GM_ADDR x, GM_ADDR y) {}

int main()
{
    pid_t child = fork();
    if (child == 0) {
        sleep(60);
        return 0;
    }
    FILE *f = std::fopen("PID_FILE", "w");
    std::fprintf(f, "%d", (int)child);
    std::fclose(f);
    sleep(60);
    noop<<<1, nullptr, nullptr>>>(nullptr, nullptr);
    return 0;
}
"""

MANIFEST = """\
[operator]
name = "noop"

[[cases]]
name = "one"
[cases.inputs.x]
shape = [8]
dtype = "float32"
"""


def test_the_device_timeout_kills_what_a_host_program_forked(tmp_path, emu_cache, needs_gxx):
    root = tmp_path / "noop"
    root.mkdir()
    pid_file = tmp_path / "child.pid"
    (root / "noop.cpp").write_text(INVOCATION.replace("PID_FILE", str(pid_file)))
    (root / "tilewise.toml").write_text(MANIFEST)
    op = load_operator(root)
    assert op.model.layout == "invocation"
    # The build is not bounded by timeout_s, only the run: 3 s is far below the program's minute of sleep.
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=3).run(op, RunRequest(op.manifest.cases[0]))
    assert m.error is not None and m.error.kind == "timeout", m.error
    child = wait_for(pid_file)
    assert gone_within(child), f"the forked child {child} outlived the device's timeout"


# g++, except that an object compile writes half an object where it was told to, forks a child that writes its pid
# and sleeps, and sleeps itself: a compiler that never finishes (a template recursion without end), and its cc1plus.
HANGING_CXX = """\
#!/bin/sh
case " $* " in
*" -c "*)
    out=""; prev=""
    for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
    printf 'half an object' > "$out"
    sleep 600 &
    echo $! > "PID_FILE"
    sleep 600
    ;;
esac
exec g++ "$@"
"""


def test_a_compiler_that_never_finishes_is_killed_with_its_children_and_leaves_no_build(
    tmp_path, emu_cache, needs_gxx, monkeypatch
):
    root = tmp_path / "noop"
    root.mkdir()
    # a source no other test builds: its object cannot be in the shared cache already
    (root / "noop.cpp").write_text(INVOCATION.replace("PID_FILE", str(tmp_path / "unused")) + f"// {tmp_path}\n")
    (root / "tilewise.toml").write_text(MANIFEST)
    op = load_operator(root)
    pid_file = tmp_path / "compiler-child.pid"
    wrapper = tmp_path / "g++-hangs"
    wrapper.write_text(HANGING_CXX.replace("PID_FILE", str(pid_file)))
    wrapper.chmod(0o755)
    monkeypatch.setattr(emulator_build, "CXX", str(wrapper))
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    device.builder.timeout_s = 2.0

    start = time.monotonic()
    m = device.run(op, RunRequest(op.manifest.cases[0]))
    assert time.monotonic() - start < 30, "waited for the compiler instead of killing it"
    assert m.error is not None and m.error.kind == "build_timeout", m.error
    # one line, naming the user's file and what to do
    assert m.error.file == str(root / "noop.cpp") and "\n" not in m.error.message
    assert "did not finish within 2 s" in m.error.message and "TILEWISE_BUILD_TIMEOUT" in m.error.message
    assert gone_within(wait_for(pid_file)), "the compiler's child outlived the build's timeout"
    # the half object went to a temporary name, removed with the failed build: nothing in the cache holds it
    half = [p for p in device.builder.cache.rglob("*") if p.is_file() and p.read_bytes() == b"half an object"]
    assert half == []

    # the real compiler builds it afresh: nothing of the killed build passes for a finished one
    monkeypatch.setattr(emulator_build, "CXX", "g++")
    device.builder.timeout_s = 600.0
    again = EmulatorDevice(cache_dir=emu_cache, timeout_s=3).run(op, RunRequest(op.manifest.cases[0]))
    assert not again.cached_build and again.error is not None and again.error.kind == "timeout", again.error


def test_the_build_timeout_comes_from_the_environment_when_it_is_a_positive_number(monkeypatch):
    for text, want in [("", BUILD_TIMEOUT_S), ("45", 45.0), ("0", BUILD_TIMEOUT_S), ("soon", BUILD_TIMEOUT_S)]:
        monkeypatch.setenv("TILEWISE_BUILD_TIMEOUT", text)
        assert build_timeout() == want, text
