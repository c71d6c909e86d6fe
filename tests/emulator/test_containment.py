"""User code is contained (device/process.py): a program may write no file past the size limit, hold no more
than OPEN_FILES files, fill no more than a tail of our memory with what it prints, and reaches no network where the
machine can make a network namespace; the golden runs in a child under the same limits (device/golden_process.py).

The network tests listen on a loopback port themselves and check that the contained program could not connect
(and that nothing knocked); they are skipped, with the reason, where `unshare --net` does not work. (A timeout that
kills what a program forked is tests/emulator/test_run_timeout.py.)"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import numpy as np
import pytest

from tilewise.analysis.operator import load_operator
from tilewise.device import process as bounded
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.golden import GoldenError
from tilewise.device.golden_process import run_golden_bounded
from tilewise.device.process import OUTPUT_TAIL_BYTES, crash_error, network_isolation, run_bounded
from tilewise.device.protocol import RunRequest

GIB = 1024**3

needs_netns = pytest.mark.skipif(
    network_isolation() is None,
    reason="`unshare --net` does not work on this machine (not root, no user namespaces): user code has the network",
)


@pytest.fixture
def listener():
    """A loopback TCP port that accepts connections; yields (port, a function that says whether anyone connected)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(4)
    sock.setblocking(False)

    def knocked() -> bool:
        try:
            conn, _ = sock.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    yield sock.getsockname()[1], knocked
    sock.close()


CONNECT = """\
import socket, sys
s = socket.socket()
s.settimeout(5)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
    print("connected")
except OSError as exc:
    print("refused", exc.errno)
"""


def run_py(code: str, tmp_path: Path, *args: str, **kw):
    script = tmp_path / "prog.py"
    script.write_text(code)
    return run_bounded(
        [sys.executable, str(script), *args], cwd=tmp_path, env=None, timeout_s=60, memory_bytes=4 * GIB, **kw
    )


@needs_netns
def test_a_program_run_without_network_cannot_reach_even_this_machine(tmp_path, listener):
    port, knocked = listener
    free = run_py(CONNECT, tmp_path, str(port))  # the control: the same program, the network left on
    assert free is not None and free.stdout.strip() == "connected" and knocked()
    contained = run_py(CONNECT, tmp_path, str(port), no_network=True)
    assert contained is not None and contained.stdout.startswith("refused"), contained
    assert not knocked()


def test_a_file_past_the_size_limit_stops_the_program_with_its_own_error(tmp_path):
    # `exec`: the shell becomes head, which SIGXFSZ kills (Python itself ignores the signal; a C++ program does not)
    proc = run_bounded(
        ["sh", "-c", "exec head -c 4194304 /dev/zero > big.bin"],
        cwd=tmp_path,
        env=None,
        timeout_s=60,
        memory_bytes=4 * GIB,
        file_bytes=1024**2,
    )
    assert proc is not None and proc.returncode < 0
    error = crash_error(proc.returncode, proc.stderr, 1024**2)
    assert error.kind == "file_too_large" and "1 MiB limit" in error.message, error
    assert (tmp_path / "big.bin").stat().st_size <= 1024**2


def test_only_the_tail_of_what_a_program_prints_is_kept_and_its_files_are_limited(tmp_path):
    code = (
        "import resource, sys\n"
        "sys.stdout.write('x' * 3 * 1024**2 + 'END\\n')\n"
        "limits = resource.getrlimit(resource.RLIMIT_NOFILE), resource.getrlimit(resource.RLIMIT_FSIZE)\n"
        "print(*limits, file=sys.stderr)\n"
    )
    proc = run_py(code, tmp_path, file_bytes=123 * 1024**2)
    assert proc is not None and proc.returncode == 0
    assert len(proc.stdout) == OUTPUT_TAIL_BYTES and proc.stdout.endswith("xEND\n")
    assert proc.stderr.strip() == f"(1024, 1024) ({123 * 1024**2}, {123 * 1024**2})"


def test_a_compilers_first_error_is_kept_with_the_tail_of_a_flood_of_output(tmp_path):
    # a compiler's output is read for its first error (tools.run_tool keeps the head too): the middle is dropped
    code = "import sys\nsys.stderr.write('first: error\\n' + 'y' * 3 * 1024**2 + 'END\\n')\n"
    proc = run_bounded(
        [sys.executable, "-c", code], cwd=tmp_path, env=None, timeout_s=60, memory_bytes=4 * GIB, head_bytes=1024
    )
    assert proc is not None and proc.returncode == 0
    assert proc.stderr.startswith("first: error\n") and proc.stderr.endswith("yEND\n")
    assert f"[... {3 * 1024**2 + 17 - 1024 - OUTPUT_TAIL_BYTES} bytes of output not kept ...]" in proc.stderr
    assert len(proc.stderr) < 1024 + OUTPUT_TAIL_BYTES + 100


def test_a_worker_killed_from_outside_is_the_machines_failure_not_a_crash(tmp_path):
    proc = run_bounded(["sh", "-c", "kill -9 $$"], cwd=tmp_path, env=None, timeout_s=60, memory_bytes=4 * GIB)
    assert proc is not None
    assert crash_error(proc.returncode, proc.stderr).kind == "killed"  # not cached (TRANSIENT_ERROR_KINDS)


@needs_netns
def test_the_golden_runs_in_a_child_without_network(tmp_path, listener):
    port, knocked = listener
    (tmp_path / "golden.py").write_text(
        "import os, socket\n"
        "def golden(x, scale=1.0):\n"
        "    s = socket.socket()\n"
        "    s.settimeout(5)\n"
        f"    s.connect(('127.0.0.1', {port}))\n"
        "    return x * scale\n"
        "def pid(x):\n"
        "    return np.full(1, os.getpid())\n"
        "import numpy as np\n"
    )
    with pytest.raises(GoldenError) as caught:
        run_golden_bounded("golden.py:golden", tmp_path, [np.ones(3)], {}, None, timeout_s=60, memory_bytes=4 * GIB)
    error = caught.value.error
    assert error.kind == "golden_error" and error.message.startswith("the golden raised") and error.line == 5, error
    assert not knocked()
    (child,) = run_golden_bounded("golden.py:pid", tmp_path, [np.ones(3)], {}, None, timeout_s=60, memory_bytes=4 * GIB)
    assert int(child[0]) != __import__("os").getpid()


def test_a_golden_that_never_ends_is_killed_at_the_timeout(tmp_path):
    (tmp_path / "golden.py").write_text("import time\ndef golden(x):\n    time.sleep(600)\n")
    with pytest.raises(GoldenError) as caught:
        run_golden_bounded("golden.py:golden", tmp_path, [np.ones(3)], {}, None, timeout_s=1, memory_bytes=4 * GIB)
    assert "did not finish within 1 s" in caught.value.error.message


# A kernel-invocation program whose host code does what MODE says before it launches its kernel: `net` tries the
# test's port and writes what happened to RESULT_FILE, `big` writes an endless file.
PROGRAM = """\
#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>
#include "acl/acl.h"
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void noop(GM_ADDR x, GM_ADDR y) {}

int main()
{
    const char *mode = std::getenv("TW_TEST_MODE");
    if (mode && std::strcmp(mode, "net") == 0) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in to{};
        to.sin_family = AF_INET;
        to.sin_port = htons(std::atoi(std::getenv("TW_TEST_PORT")));
        inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
        int rc = connect(s, (sockaddr *)&to, sizeof to);
        FILE *f = std::fopen(std::getenv("TW_TEST_RESULT"), "w");
        std::fprintf(f, rc == 0 ? "connected" : "refused %d", errno);
        std::fclose(f);
    } else if (mode && std::strcmp(mode, "big") == 0) {
        static char block[1 << 16];
        FILE *f = std::fopen("output_y.bin", "wb");
        for (;;) std::fwrite(block, 1, sizeof block, f);
    }
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


@pytest.fixture
def program(tmp_path):
    root = tmp_path / "noop"
    root.mkdir()
    (root / "noop.cpp").write_text(PROGRAM)
    (root / "tilewise.toml").write_text(MANIFEST)
    op = load_operator(root)
    assert op.model.layout == "invocation"
    return op


@needs_netns
def test_a_kernels_host_program_cannot_reach_the_network(
    program, tmp_path, listener, emu_cache, needs_gxx, monkeypatch
):
    port, knocked = listener
    result = tmp_path / "connect.txt"
    monkeypatch.setenv("TW_TEST_MODE", "net")
    monkeypatch.setenv("TW_TEST_PORT", str(port))
    monkeypatch.setenv("TW_TEST_RESULT", str(result))
    EmulatorDevice(cache_dir=emu_cache).run(program, RunRequest(program.manifest.cases[0]))
    assert result.read_text().startswith("refused"), result.read_text()
    assert not knocked()


def test_a_host_program_that_writes_without_end_is_stopped_at_the_file_limit(
    program, emu_cache, needs_gxx, monkeypatch
):
    monkeypatch.setenv("TW_TEST_MODE", "big")
    monkeypatch.setattr(bounded, "FILE_BYTES", 8 * 1024**2)  # (file_limit reads it at each run)
    m = EmulatorDevice(cache_dir=emu_cache).run(program, RunRequest(program.manifest.cases[0]))
    assert m.error is not None and m.error.kind == "file_too_large", m.error
    assert "SIGXFSZ" in m.error.message


def test_doctor_says_whether_user_code_runs_without_network(capsys):
    from tilewise.cli import main

    main(["doctor"])
    line = next(x for x in capsys.readouterr().out.splitlines() if "user code without network" in x)
    assert ("without network (in a new network namespace: unshare" in line) == (network_isolation() is not None)
    assert ("runs WITH the network" in line) == (network_isolation() is None)
