"""`--executor ray` on a real Ray cluster on this machine: a head and a second node, each a separate `ray start` on
127.0.0.1 with one CPU and a custom `NPU` resource, both in this module's own temporary folder.

An emulator tune of examples/add_custom through Ray takes the very path the local executor takes for the same seed
(same trials, same times, same best), with every result in the driver's cache. The second node is killed while it
runs one of the tune's measurements: the tune completes on the head, every result that had arrived is kept, and the
best is the same. An NPU task gets the card Ray gave it with ASCEND_RT_VISIBLE_DEVICES gone from its environment.

Each node's `ray start` begins a session of its own, and every process of that node stays in it: that is how the
test finds the second node's processes to kill, and how it stops exactly what it started at the end.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from npu.fake_cann import make_fake_cann, make_project
from paths import EXAMPLES

from tilewise.analysis.operator import load_operator
from tilewise.cli import main
from tilewise.device.registry import make_device
from tilewise.search.cache import ResultsCache, source_hash
from tilewise.search.executors import (
    RAY_MISSING,
    DeviceSpec,
    ExecutorError,
    LocalExecutor,
    RayExecutor,
    make_executor,
    npu_card,
    task_options,
)
from tilewise.search.space import config_texts
from tilewise.search.tuner import Tuner, TuneResult

ray = pytest.importorskip("ray")

OPERATOR = EXAMPLES / "add_custom"
CASE = "fp16_base"
SEED, BUDGET, WORKERS = 3, 6, 2
RAY_CLI = str(Path(sys.executable).parent / "ray")
# Nodes are declared dead after 4 missed health checks 0.5 s apart, not Ray's default 5 of 3 s each.
FAST_HEALTH = {
    "RAY_health_check_initial_delay_ms": "0",
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_timeout_ms": "500",
    "RAY_health_check_failure_threshold": "4",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_processes(*sessions: int) -> dict[int, bytes]:
    """pid -> command line (a Ray process's title) of every live process in these sessions: a node's `ray start`
    began its own, and the node's processes (GCS, raylet, agents, workers) stay in it even once orphaned."""
    found: dict[int, bytes] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()  # (after the command name, which may hold spaces)
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:  # gone meanwhile
            continue
        if int(fields[3]) in sessions and fields[0] != b"Z":
            found[int(entry)] = cmdline
    return found


def kill_all(pids: list[int], sig: int = signal.SIGKILL) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # (ended meanwhile)
            os.kill(pid, sig)


def wait_for(what: str, ready, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.2)


def start_node(node: str, args: list[str], logs: Path) -> subprocess.Popen:
    """`ray start --block` for `node`, in a session of its own: one CPU, one NPU, and a resource named after the
    node (`tw_head`, `tw_second`) by which a test finds it or pins a task to it."""
    env = {**os.environ, **FAST_HEALTH}
    resources = json.dumps({"NPU": 1, f"tw_{node}": 1})
    log = open(logs / f"{node}.log", "wb")  # noqa: SIM115 - the process keeps it; the folder goes at teardown
    return subprocess.Popen(
        [RAY_CLI, "start", "--block", "--node-ip-address=127.0.0.1", "--num-cpus=1", f"--resources={resources}", *args],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def ray_cluster(test):
    """A test on the two-node cluster below: slow (the nodes take tens of seconds to start), and on one xdist worker
    with every other such test (`--dist loadgroup`), so that the cluster starts once."""
    return pytest.mark.slow(pytest.mark.xdist_group("ray")(test))


@pytest.fixture(scope="module")
def cluster(needs_gxx) -> Iterator[dict]:
    """A head and a second node on 127.0.0.1, and this process connected to them: {address, folder, executor,
    sessions (node -> the session its processes are in)}."""
    folder = Path(tempfile.mkdtemp(prefix="twray-", dir="/tmp"))  # short: Ray's socket paths live under it
    env = pytest.MonkeyPatch()
    env.setenv("TILEWISE_CACHE", str(folder / "tilewise"))  # the driver's; forwarded to the tasks
    # Whatever this machine's ~/.ray holds: a Ray 2.5x that finds a token there turns token authentication on for
    # `ray start`, and a local `ray.init()` writes one. Off for every process here, so none is read or written.
    env.setenv("RAY_AUTH_MODE", "disabled")
    env.setenv("RAY_USAGE_STATS_ENABLED", "0")
    port = free_port()
    address = f"127.0.0.1:{port}"
    nodes = [
        start_node(
            "head",
            [
                "--head",
                f"--port={port}",
                f"--temp-dir={folder / 'ray'}",
                "--include-dashboard=false",
                "--disable-usage-stats",
            ],
            folder,
        )
    ]
    try:
        wait_for("the Ray head", lambda: _accepts(port) or _exited(nodes, folder), 90)
        # Connected before the second node exists, so this process hangs off the head's raylet, not the node the
        # kill test takes down.
        executor = RayExecutor(DeviceSpec("emulator"), address=address)
        nodes.append(start_node("second", [f"--address={address}"], folder))
        wait_for(
            "two Ray nodes", lambda: len([n for n in ray.nodes() if n["Alive"]]) == 2 or _exited(nodes, folder), 90
        )
        sessions = {"head": nodes[0].pid, "second": nodes[1].pid}
        yield {"address": address, "folder": folder, "executor": executor, "sessions": sessions}
        executor.close()
    finally:
        if ray.is_initialized():
            ray.shutdown()
        ours = [p.pid for p in nodes]
        deadline = time.monotonic() + 10
        while (left := node_processes(*ours)) and time.monotonic() < deadline:  # (nothing of it needs a clean exit)
            kill_all(list(left))
            time.sleep(0.1)
        for p in nodes:
            p.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)
        env.undo()


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _exited(nodes: list[subprocess.Popen], folder: Path) -> bool:
    for p in nodes:
        if p.poll() is not None:
            log = (folder / ("head.log" if p is nodes[0] else "second.log")).read_text(errors="replace")
            raise AssertionError(f"`ray start` exited with {p.returncode}:\n{log[-3000:]}")
    return False


def tune(executor, results: Path, budget: int = BUDGET, on_event=None) -> tuple[Tuner, TuneResult]:
    op = load_operator(OPERATOR)
    assert op.manifest is not None
    device = make_device("emulator")
    cases = [op.manifest.case(CASE)]
    cache = ResultsCache(results)
    tuner = Tuner(
        op,
        device,
        cases,
        budget=budget,
        seed=SEED,
        cache=cache,
        workers=WORKERS,
        executor=executor or LocalExecutor(device),
    )
    for event in tuner.events():
        if on_event is not None:
            on_event(event)
    return tuner, tuner.result()


def in_cache(tuner: Tuner, results: Path, config: dict[str, int]) -> bool:
    src = source_hash({**tuner.base_texts, **config_texts(tuner.op, config)})
    cache = ResultsCache(results)
    try:
        return all(
            cache.get(src, config, tuner._case_key(c), tuner.device.name, tuner.device.chip.name) is not None
            for c in tuner.cases
        )
    finally:
        cache.close()


def summary(result: TuneResult) -> list[tuple]:
    return [(t.config, t.ok, t.time_us) for t in result.trials]


@pytest.fixture(scope="module")
def local(cluster) -> TuneResult:
    started = time.perf_counter()
    _, result = tune(None, cluster["folder"] / "local.sqlite")
    print(f"local tune: {time.perf_counter() - started:.1f} s")
    return result


@ray_cluster
def test_a_ray_tune_takes_the_local_tunes_path_and_fills_the_same_cache(cluster, local):
    started = time.perf_counter()
    results = cluster["folder"] / "ray.sqlite"
    tuner, remote = tune(cluster["executor"], results)
    print(f"ray tune: {time.perf_counter() - started:.1f} s")
    assert remote.executor == "ray" and local.executor == "local"
    assert local.best is not None and local.speedup and local.evaluations == BUDGET
    assert remote.best == local.best and remote.best_us == local.best_us
    assert summary(remote) == summary(local) and remote.cached == 0
    assert all(in_cache(tuner, results, t.config) for t in remote.trials)


@ray_cluster
def test_the_cli_tunes_through_ray_and_says_so(cluster, local, capsys):
    code = main(
        [
            "tune",
            str(OPERATOR),
            "--case",
            CASE,
            "--budget",
            str(BUDGET),
            "--seed",
            str(SEED),
            "--workers",
            str(WORKERS),
            "--executor",
            "ray",
            "--ray-address",
            cluster["address"],
            "--format",
            "json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["executor"] == "ray" and data["best"] == local.best


@ray_cluster
def test_without_an_address_the_cli_starts_a_local_ray_and_stops_it(cluster):
    """The default: a Ray of its own over this machine's CPUs, gone when the tune ends (a separate process, so that
    this one stays connected to the cluster)."""
    env = {**os.environ, "RAY_TMPDIR": str(cluster["folder"] / "local-ray")}
    env.pop("RAY_ADDRESS", None)
    argv = ["tune", str(OPERATOR), "--case", CASE, "--budget", "2", "--executor", "ray", "--format", "json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tilewise", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, errors = proc.communicate(timeout=150)
        deadline = time.monotonic() + 15  # Ray's own processes may take a moment to follow the driver out
        while (left := node_processes(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        kill_all(list(node_processes(proc.pid)))  # (whatever a failed run left behind)
    assert proc.returncode == 0, errors.decode(errors="replace")[-3000:]
    data = json.loads(out)
    assert data["executor"] == "ray" and data["evaluations"] == 2 and not data["failed"]
    assert not left  # the local Ray stopped with the tune


@ray_cluster
def test_an_npu_task_gets_its_card_without_the_visible_devices_variable(cluster):
    def probe():
        given = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
        return given, npu_card(), os.environ.get("ASCEND_RT_VISIBLE_DEVICES")

    options = task_options(DeviceSpec("npu"))
    assert options["resources"] == {"NPU": 1} and "num_cpus" not in options
    given, card, left = ray.get(ray.remote(probe).options(num_cpus=0, resources={"NPU": 1}).remote(), timeout=60)
    assert given == str(card) and card in (0,) and left is None


@ray_cluster
def test_an_npu_tune_profiles_on_the_cards_ray_hands_out(cluster, tmp_path, capsys):
    """An NPU tune through Ray on the fake CANN (tests/npu/fake_cann.py), whose msprof fails when
    ASCEND_RT_VISIBLE_DEVICES is set, as msprof op is documented not to support it: each task asks for an NPU, Ray
    sets the variable for the worker, and the measurement still profiles."""
    cann = make_fake_cann(tmp_path / "ascend-toolkit" / "latest")
    root = make_project(OPERATOR, tmp_path / "add_custom")
    argv = ["tune", str(root), "--device", "npu", "--cann", str(cann), "--case", CASE, "--budget", "3"]
    code = main([*argv, "--executor", "ray", "--ray-address", cluster["address"], "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["executor"] == "ray" and data["evaluations"] == 3 and not data["failed"]
    assert data["baseline_us"] == pytest.approx(12.5)  # the fake msprof's figure
    assert main([*argv, "--device", "npu:0", "--executor", "ray", "--ray-address", cluster["address"]]) == 2
    assert "Ray picks each task's card: use --device npu" in capsys.readouterr().err


@ray_cluster
def test_a_node_killed_mid_tune_loses_no_finished_result(cluster, local):
    """The second node dies (every process of it, SIGKILL) while it runs a measurement of the tune: Ray runs that
    measurement again on the head, and the tune ends with the local executor's best and every result kept.

    Until the kill, a task holds the head's only CPU, so the tune's measurements can run only on the second node:
    the kill finds one running there whatever the timing. The hold ends right after the kill."""
    second, folder = cluster["sessions"]["second"], cluster["folder"]
    results, holding, release = folder / "killed.sqlite", folder / "holding", folder / "release"
    head = next(n for n in ray.nodes() if n["Alive"] and n["Resources"].get("tw_head"))
    assert ray.get_runtime_context().get_node_id() == head["NodeID"]  # killing the other node leaves us alone

    def hold(holding: str, release: str) -> None:
        open(holding, "w").close()
        end = time.monotonic() + 150
        while not os.path.exists(release) and time.monotonic() < end:
            time.sleep(0.05)

    held = ray.remote(hold).options(num_cpus=1, resources={"tw_head": 1}).remote(str(holding), str(release))
    wait_for("the head's CPU to be held", holding.exists, 60)
    seen: list = []  # trials whose results had arrived when the node was killed
    arrived: list = []
    killed = threading.Event()
    started = threading.Event()
    failure: list[str] = []

    def killer():
        try:
            started.wait(120)
            end = time.monotonic() + 120
            while time.monotonic() < end:
                processes = node_processes(second)
                if any(cmd.startswith(b"ray::") and b"measure_task" in cmd for cmd in processes.values()):
                    kill_all(list(processes))
                    seen.extend(arrived)
                    killed.set()
                    return
                time.sleep(0.01)
            failure.append("no measurement ran on the second node")
        finally:
            release.touch()

    def on_event(event):
        if event.trial is not None:
            arrived.append(event.trial)
        started.set()  # the shipped configuration is in: the pool's measurements start now

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        tuner, result = tune(cluster["executor"], results, on_event=on_event)
    finally:
        release.touch()
    thread.join(timeout=5)
    ray.get(held, timeout=30)
    assert not failure and killed.is_set()
    assert not [t for t in result.trials if t.failure == "internal"] and result.evaluations == BUDGET
    assert result.best == local.best and summary(result) == summary(local)
    assert seen and all(in_cache(tuner, results, t.config) for t in seen)
    assert all(in_cache(tuner, results, t.config) for t in result.trials)


def test_without_ray_the_cli_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    code = main(["tune", str(OPERATOR), "--case", CASE, "--executor", "ray", "--no-cache"])
    assert code == 2 and capsys.readouterr().err.strip() == f"error: {RAY_MISSING}"
    with pytest.raises(ExecutorError, match="needs Ray"):
        make_executor("ray", make_device("emulator"))
