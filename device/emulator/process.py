"""Running one emulator program bounded: its own session and process group, a memory limit, no core dumps, and a
timeout that kills the whole group.

A kernel-invocation program is the user's own host code; it may fork (a helper, a pool, a daemon). Killing only
the process we started would leave such children running after a timeout, holding CPU and, through the inherited
pipes, our read of its output. So the program starts as the leader of a new session (hence of a new process group
whose id is its pid), and a timeout sends SIGKILL to that whole group.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
from functools import partial
from pathlib import Path

# After the group is killed, how long to wait for the pipes to close: a process that left the group (setsid of its
# own) could keep them open forever; we stop reading rather than hang.
DRAIN_S = 10.0


def run_bounded(
    argv: list[str], *, cwd: Path, env: dict[str, str] | None, timeout_s: float, memory_bytes: int
) -> subprocess.CompletedProcess[str] | None:
    """Run `argv` to completion and return what it printed and its exit status, or None when it did not finish
    within `timeout_s` (then it and every process of its group have been killed)."""
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # setsid() in the child: its pid is the group id that kill_group signals
        preexec_fn=partial(_limits, memory_bytes),
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return None
    except BaseException:  # Ctrl-C, a cancelled thread: the kernel must not outlive the caller's wait for it
        kill_group(proc)
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


def kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL every process of `proc`'s group, then reap `proc` and close its pipes."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    try:
        proc.communicate(timeout=DRAIN_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _limits(memory_bytes: int) -> None:
    # In the child, before exec: bound its address space (a runaway allocation fails instead of swapping the
    # machine) and write no core file.
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


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
