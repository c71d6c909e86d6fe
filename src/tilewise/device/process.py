"""Running one user program bounded: its own session and process group, limits on memory, file size and open files,
no core dumps, no network where the platform allows, at most a tail of what it prints kept, and a timeout that kills
the whole group. Every device starts its children here: the emulator's compiler and runner, the NPU device's
builds, harness and msprof launches, and the goldens of both (device/golden_process.py).

A kernel-invocation program is the user's own host code; it may fork (a helper, a pool, a daemon). Killing only
the process we started would leave such children running after a timeout, holding CPU and, through the inherited
pipes, our read of its output. So the program starts as the leader of a new session (hence of a new process group
whose id is its pid), and a timeout sends SIGKILL to that whole group.

No network: where `unshare` can make a new network namespace (as root, or through a user namespace), the program
starts inside one, which has only a loopback interface that is down: it can reach nothing, not even this machine.
`network_isolation()` says whether it works here (`tilewise doctor` prints it); where it does not, programs run
with the machine's network, and that is all.
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import shutil
import signal
import subprocess
import time
from functools import lru_cache, partial
from pathlib import Path

from tilewise.device.protocol import RunError

# After the group is killed, how long to wait for the pipes to close: a process that left the group (setsid of its
# own) could keep them open forever; we stop reading rather than hang.
DRAIN_S = 10.0
# The largest file a program may write (RLIMIT_FSIZE; beyond it the write fails and the program gets SIGXFSZ), unless
# the caller gives its own, and how many files it may hold open.
FILE_BYTES = 4 * 1024**3
OPEN_FILES = 1024
# What is kept of each of stdout and stderr: the last bytes (errors are at the end); the rest is read and dropped.
OUTPUT_TAIL_BYTES = 1024**2
# The argv prefixes tried, in order, to start a program in a new network namespace.
_UNSHARE_FORMS = (["--net"], ["--user", "--map-root-user", "--net"])


@lru_cache(maxsize=1)
def network_isolation() -> list[str] | None:
    """The argv prefix that runs a program without network on this machine (`unshare --net`, or through a user
    namespace for an unprivileged user), or None where neither works. Tried once per process.
    TILEWISE_ALLOW_NETWORK=1 turns the isolation off (for a host program that needs the network)."""
    if os.environ.get("TILEWISE_ALLOW_NETWORK") == "1":
        return None
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for form in _UNSHARE_FORMS:
        try:
            proc = subprocess.run([unshare, *form, "true"], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if proc.returncode == 0:
            return [unshare, *form]
    return None


def network_note() -> str:
    """One line on whether user code (kernels, host programs, goldens) runs without network here."""
    prefix = network_isolation()
    if os.environ.get("TILEWISE_ALLOW_NETWORK") == "1":
        return "user code runs with the network: TILEWISE_ALLOW_NETWORK=1 is set"
    if prefix is None:
        return (
            "user code runs WITH the network: `unshare --net` (util-linux) is missing or not permitted here "
            "(run as root, or allow unprivileged user namespaces)"
        )
    return f"user code runs without network (in a new network namespace: {Path(prefix[0]).name} {' '.join(prefix[1:])})"


def run_bounded(
    argv: list[str],
    *,
    cwd: Path | None,
    env: dict[str, str] | None,
    timeout_s: float,
    memory_bytes: int,
    file_bytes: int = FILE_BYTES,
    no_network: bool = False,
    head_bytes: int = 0,
) -> subprocess.CompletedProcess[str] | None:
    """Run `argv` to completion and return the tail of what it printed and its exit status, or None when it did not
    finish within `timeout_s` (then it and every process of its group have been killed). With `no_network`, inside
    a new network namespace where this machine can make one (network_isolation). With `head_bytes`, the first
    `head_bytes` of each stream are kept too (a compiler's first error is the one to show), joined to the tail by
    a line saying how much between them was dropped."""
    prefix = (network_isolation() or []) if no_network else []
    proc = subprocess.Popen(
        [*prefix, *argv],  # unshare execs the program: its pid, hence its group, stays the one we started
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # setsid() in the child: its pid is the group id that kill_group signals
        preexec_fn=partial(_limits, memory_bytes, file_bytes),
    )
    tails = {proc.stdout: _Capture(head_bytes), proc.stderr: _Capture(head_bytes)}
    deadline = time.monotonic() + timeout_s
    try:
        if not _read_tails(proc, tails, deadline):
            kill_group(proc, tails)
            return None
        # the pipes are closed: it is exiting, or closed them and runs on
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        kill_group(proc, tails)
        return None
    except BaseException:  # Ctrl-C, a cancelled thread: the kernel must not outlive the caller's wait for it
        kill_group(proc, tails)
        raise
    _close(proc)
    out, err = (t.text() for t in tails.values())
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


class _Capture:
    """What is kept of one output stream: its first `head_bytes` (none unless asked) and its last
    OUTPUT_TAIL_BYTES; whatever lies between is read and dropped, so a program that prints without end costs us
    a bounded amount of memory."""

    def __init__(self, head_bytes: int = 0):
        self.head_bytes = head_bytes
        self.head, self.tail, self.dropped = bytearray(), bytearray(), 0

    def add(self, chunk: bytes) -> None:
        room = self.head_bytes - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > OUTPUT_TAIL_BYTES:
            self.dropped += len(self.tail) - OUTPUT_TAIL_BYTES
            del self.tail[: len(self.tail) - OUTPUT_TAIL_BYTES]

    def text(self) -> str:
        gap = f"\n[... {self.dropped} bytes of output not kept ...]\n".encode() if self.head and self.dropped else b""
        return (bytes(self.head) + gap + bytes(self.tail)).decode("utf-8", errors="replace")


def _read_tails(proc: subprocess.Popen, tails: dict, deadline: float) -> bool:
    """Read `proc`'s stdout and stderr until both close, into their _Capture; False when `deadline` (a
    time.monotonic) came first."""
    with selectors.DefaultSelector() as sel:
        for pipe in tails:
            sel.register(pipe, selectors.EVENT_READ)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            for key, _ in sel.select(timeout=left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                    continue
                tails[key.fileobj].add(chunk)
    return True


def kill_group(proc: subprocess.Popen, tails: dict | None = None) -> None:
    """SIGKILL every process of `proc`'s group, then reap `proc` and close its pipes (reading what is left for at
    most DRAIN_S, keeping only the tail)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    pipes = [p for p in (proc.stdout, proc.stderr) if p is not None]
    with contextlib.suppress(OSError, ValueError):
        _read_tails(proc, tails if tails is not None else {p: _Capture() for p in pipes}, time.monotonic() + DRAIN_S)
    _close(proc)
    try:
        proc.wait(timeout=DRAIN_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _close(proc: subprocess.Popen) -> None:
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _limits(memory_bytes: int, file_bytes: int) -> None:
    # In the child, before exec: bound its address space (a runaway allocation fails instead of swapping the
    # machine), the size of any file it writes and the files it holds open, and write no core file.
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    cap = OPEN_FILES if hard == resource.RLIM_INFINITY else min(OPEN_FILES, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, cap) if soft != resource.RLIM_INFINITY else cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def file_limit(data_bytes: int) -> int:
    """The file-size limit for a run over `data_bytes` of inputs: FILE_BYTES, or more for a case so large that an
    output (or a trace) could honestly exceed it."""
    return max(FILE_BYTES, 8 * data_bytes)


def crash_error(code: int, stderr: str, file_bytes: int = FILE_BYTES) -> RunError:
    """The RunError of a program that exited with `code` (negative: the signal that ended it). A file over the size
    limit and a SIGKILL from outside (the OOM killer, a user) get kinds of their own: the first is the program's
    doing, the second the machine's (not kept in the results cache, device.protocol.TRANSIENT_ERROR_KINDS)."""
    if code == -signal.SIGXFSZ:
        return RunError(
            kind="file_too_large",
            message=f"the program wrote a file larger than the {_size(file_bytes)} limit and was stopped "
            "(SIGXFSZ): an output or log that grows without end?" + _tail(stderr),
        )
    if code == -signal.SIGKILL:
        return RunError(
            kind="killed",
            message="the kernel process was killed (SIGKILL): the machine ran out of memory, or something outside "
            "killed it" + _tail(stderr),
        )
    return RunError(kind="crash", message=crash_message(code, stderr))


def _size(n: int) -> str:
    return f"{n / 1024**3:g} GiB" if n >= 1024**3 else f"{n / 1024**2:g} MiB"


def crash_message(code: int, stderr: str) -> str:
    if code < 0:
        try:
            sig = signal.Signals(-code).name
        except ValueError:
            sig = f"signal {-code}"
        hint = {
            "SIGSEGV": "a wild pointer or an access far outside a tensor",
            "SIGABRT": "an abort or a failed assertion",
            "SIGKILL": "it ran out of memory",
            "SIGFPE": "an integer division by zero",
        }.get(sig, "")
        return f"the kernel process crashed with {sig}" + (f" ({hint})" if hint else "") + _tail(stderr)
    return f"the runner exited with status {code}" + _tail(stderr)


def _tail(stderr: str) -> str:
    text = stderr.strip().splitlines()[-3:] if stderr.strip() else []
    return (": " + " | ".join(text)) if text else ""
