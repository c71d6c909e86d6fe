"""The wheel's build hook (build_hook.py at the repository's root): when the charts bundle is built again, what a
build without npm says, and which example files go into the package. scripts/check_wheel.sh (tests/
test_check_wheel.py, slow) builds a real wheel; these check the logic on small folders, with a fake npm_ci.sh."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from setuptools.errors import ExecError  # noqa: E402

import build_hook  # noqa: E402


def _touch(path: Path, mtime: float, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))
    return path


def _client(root: Path, mtime: float = 1_000_000.0) -> list[Path]:
    """A vscode-client with the bundle's sources, all at `mtime`, and one file the bundle is not built from."""
    client = root / "vscode-client"
    sources = [
        _touch(client / "webview" / "main.ts", mtime),
        _touch(client / "webview" / "charts" / "deep.ts", mtime),
        _touch(client / "esbuild.mjs", mtime),
        _touch(client / "package.json", mtime),
        _touch(client / "package-lock.json", mtime),
    ]
    _touch(client / "src" / "extension.ts", mtime + 500)  # the extension's code: not a source of the charts
    return sources


def _fake_npm_ci(root: Path, fails: bool = False) -> Path:
    """scripts/npm_ci.sh that writes the bundle (or fails) and counts its runs in calls.txt."""
    script = root / "scripts" / "npm_ci.sh"
    script.parent.mkdir(parents=True, exist_ok=True)
    body = (
        'echo "npm ERR! could not resolve esbuild" >&2; exit 3'
        if fails
        else 'mkdir -p "$here/../vscode-client/media" && echo "window.tilewiseCharts = 1;" '
        '> "$here/../vscode-client/media/charts.js"'
    )
    script.write_text(f'here="$(dirname "$0")"\necho run >> "$here/calls.txt"\n{body}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script.parent / "calls.txt"


def _calls(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


@pytest.fixture
def npm_present(monkeypatch):
    monkeypatch.setattr(build_hook, "_which", lambda name: f"/usr/bin/{name}")


@pytest.fixture
def npm_absent(monkeypatch):
    monkeypatch.setattr(build_hook, "_which", lambda name: None)


def test_the_bundles_sources_are_the_webview_the_build_script_and_the_packages(tmp_path):
    sources = _client(tmp_path)
    assert sorted(build_hook.bundle_sources(tmp_path / "vscode-client")) == sorted(sources)


def test_a_bundle_is_stale_when_missing_or_older_than_any_source(tmp_path):
    sources = _client(tmp_path, mtime=1_000_000.0)
    bundle = tmp_path / "charts.js"
    assert build_hook.bundle_is_stale(bundle, sources)  # missing
    _touch(bundle, 1_000_010.0)
    assert not build_hook.bundle_is_stale(bundle, sources)  # newer than every source
    os.utime(sources[1], (1_000_020.0, 1_000_020.0))  # one webview file, deep in a folder, edited after the build
    assert build_hook.bundle_is_stale(bundle, sources)
    assert not build_hook.bundle_is_stale(bundle, [])  # nothing to build from: a bundle that is there is fresh


def test_the_bundle_is_built_when_missing_or_stale_and_only_then(tmp_path, npm_present):
    sources = _client(tmp_path, mtime=1_000_000.0)
    calls = _fake_npm_ci(tmp_path)
    bundle = build_hook.ensure_bundle(tmp_path, log=lambda line: None)
    assert bundle == tmp_path / "vscode-client" / "media" / "charts.js"
    assert bundle.read_text().strip() == "window.tilewiseCharts = 1;" and _calls(calls) == 1
    build_hook.ensure_bundle(tmp_path, log=lambda line: None)
    assert _calls(calls) == 1  # fresh: not built again
    later = bundle.stat().st_mtime + 60
    os.utime(sources[0], (later, later))
    build_hook.ensure_bundle(tmp_path, log=lambda line: None)
    assert _calls(calls) == 2  # a source changed after the bundle: built again


def test_without_npm_and_without_a_bundle_the_build_stops_with_one_line_saying_what_to_install(tmp_path, npm_absent):
    _client(tmp_path)
    calls = _fake_npm_ci(tmp_path)
    with pytest.raises(ExecError) as exc:
        build_hook.ensure_bundle(tmp_path, log=lambda line: None)
    message = str(exc.value)
    assert "\n" not in message
    assert "vscode-client/media/charts.js" in message and "install Node.js" in message and "npm" in message
    assert _calls(calls) == 0


def test_without_npm_a_stale_bundle_is_taken_with_a_warning(tmp_path, npm_absent):
    _client(tmp_path, mtime=1_000_000.0)
    bundle = _touch(tmp_path / "vscode-client" / "media" / "charts.js", 999_000.0, "old();")
    lines: list[str] = []
    assert build_hook.ensure_bundle(tmp_path, log=lines.append) == bundle
    assert bundle.read_text() == "old();"
    assert len(lines) == 1 and lines[0].startswith("warning:") and "npm is not on PATH" in lines[0]


def test_a_failing_npm_ci_stops_the_build_with_npms_last_lines(tmp_path, npm_present):
    _client(tmp_path)
    _fake_npm_ci(tmp_path, fails=True)
    with pytest.raises(ExecError) as exc:
        build_hook.ensure_bundle(tmp_path, log=lambda line: None)
    assert "scripts/npm_ci.sh failed (exit 3)" in str(exc.value) and "could not resolve esbuild" in str(exc.value)


def test_the_examples_go_into_the_package_without_what_runs_leave_behind(tmp_path):
    source = tmp_path / "examples"
    _touch(source / "README.md", 1.0)
    _touch(source / "op" / "tilewise.toml", 1.0)
    _touch(source / "op" / "op_kernel" / "op.cpp", 1.0)
    _touch(source / "op" / "__pycache__" / "golden.cpython-311.pyc", 1.0)
    _touch(source / "op" / ".tilewise-cache" / "x", 1.0)
    target = tmp_path / "build" / "tilewise" / "examples"
    _touch(target / "removed_since" / "tilewise.toml", 1.0)  # left by an earlier build
    written = build_hook.copy_examples(source, target)
    assert [p.relative_to(target).as_posix() for p in written] == [
        "README.md",
        "op/op_kernel/op.cpp",
        "op/tilewise.toml",
    ]
    assert not (target / "removed_since").exists()


def test_the_sdist_carries_what_the_hook_reads():
    manifest = (ROOT / "MANIFEST.in").read_text().splitlines()
    rules = [line.split() for line in manifest if line.strip() and not line.startswith("#")]
    included = {path for rule in rules if rule[0] == "include" for path in rule[1:]}
    grafted = {rule[1] for rule in rules if rule[0] == "graft"}
    pruned = {rule[1] for rule in rules if rule[0] == "prune"}
    assert {"build_hook.py", "scripts/npm_ci.sh"} <= included and "examples" in grafted
    for name in build_hook.BUNDLE_SOURCES:
        assert f"vscode-client/{name}" in included | grafted, f"MANIFEST.in does not carry vscode-client/{name}"
    assert "vscode-client/src" in grafted  # npm run bundle builds the extension too
    assert "vscode-client/node_modules" in pruned and "vscode-client/media" in pruned
