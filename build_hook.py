"""The wheel's build hook: setuptools' build_py, plus the files a wheel needs that do not live in src/tilewise.

A tilewise wheel must work with no checkout and no node beside it, so building it puts two things into the package:

- the charts bundle (vscode-client/media/charts.js, built from vscode-client/webview by esbuild), which `--html`
  reports inline, as tilewise/report/charts.js. It is built by scripts/npm_ci.sh when it is missing or older than
  any of its sources; without npm and without a bundle the build stops with one line saying what to install;
- the example operators (examples/, the source of truth that the README and the tests use) as tilewise/examples/,
  which `tilewise examples DIR` copies out.

An editable install (`pip install -e .`) gets neither: it reads both from the checkout (tilewise.report.html and
tilewise.cli.examples_command look there when the package has no copy), so it needs no npm.

`python -m build` makes the sdist first and the wheel from it, so MANIFEST.in puts into the sdist what this hook
reads: examples/, scripts/npm_ci.sh and the extension's sources with package.json and package-lock.json.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

from setuptools.command.build_py import build_py
from setuptools.errors import ExecError

ROOT = Path(__file__).resolve().parent
CLIENT = "vscode-client"
BUNDLE = Path(CLIENT) / "media" / "charts.js"  # where esbuild.mjs writes the charts bundle
# What the charts bundle is built from: the webview's code, the build script, the packages and the compiler options.
BUNDLE_SOURCES = ("webview", "esbuild.mjs", "package.json", "package-lock.json", "tsconfig.json")
PACKAGED_BUNDLE = Path("tilewise") / "report" / "charts.js"
PACKAGED_EXAMPLES = Path("tilewise") / "examples"
# Nothing a run, an editor or Python leaves in an example folder goes into the wheel.
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*", "*.json.lock")
NO_NPM = (
    "tilewise's wheel needs the charts bundle ({bundle}) and it is missing: install Node.js 20 or later with npm "
    "(e.g. `apt-get install nodejs npm`) and build again; the build runs scripts/npm_ci.sh to make it"
)


def _which(name: str) -> str | None:
    """The executable `name` on PATH (a seam for the tests, which stand in for npm being there or not)."""
    return shutil.which(name)


def bundle_sources(client: Path) -> list[Path]:
    """Every file the charts bundle is built from, below `client` (the vscode-client folder)."""
    found: list[Path] = []
    for name in BUNDLE_SOURCES:
        path = client / name
        if path.is_dir():
            found.extend(p for p in sorted(path.rglob("*")) if p.is_file())
        elif path.is_file():
            found.append(path)
    return found


def bundle_is_stale(bundle: Path, sources: Iterable[Path]) -> bool:
    """True when `bundle` is missing or older than any of `sources` (so it must be built again)."""
    if not bundle.is_file():
        return True
    built = bundle.stat().st_mtime
    return any(s.stat().st_mtime > built for s in sources)


def ensure_bundle(root: Path = ROOT, log=print) -> Path:
    """The charts bundle under `root`, built first with scripts/npm_ci.sh when it is missing or stale.

    Without npm and node on PATH, a missing bundle raises ExecError with one line saying what to install; a stale
    one is used as it is, with a warning (it still draws, if maybe not the newest charts).
    """
    bundle = root / BUNDLE
    if not bundle_is_stale(bundle, bundle_sources(root / CLIENT)):
        return bundle
    if _which("npm") is None or _which("node") is None:
        if bundle.is_file():
            log(f"warning: {BUNDLE} is older than its sources and npm is not on PATH: the wheel takes it as it is")
            return bundle
        raise ExecError(NO_NPM.format(bundle=BUNDLE))
    log(f"building the charts bundle ({BUNDLE}) with scripts/npm_ci.sh")
    result = subprocess.run(["bash", str(root / "scripts" / "npm_ci.sh")], capture_output=True, text=True)
    if result.returncode != 0 or not bundle.is_file():
        tail = (result.stderr or result.stdout).strip().splitlines()[-20:]
        raise ExecError(
            f"scripts/npm_ci.sh failed (exit {result.returncode}), so the wheel has no charts bundle:\n"
            + "\n".join(tail)
        )
    return bundle


def copy_examples(source: Path, target: Path) -> list[Path]:
    """Copy the example operators (every folder of `source` and its README) to `target`; the files written."""
    if target.exists():
        shutil.rmtree(target)  # a build folder left from an earlier build may hold an example since removed
    shutil.copytree(source, target, ignore=SKIPPED)
    return sorted(p for p in target.rglob("*") if p.is_file())


class BuildPy(build_py):
    """build_py, then the charts bundle and the examples into the build folder (not for an editable install)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # the checkout's own files serve an editable install
        build = Path(self.build_lib)
        self._extra: list[str] = []
        bundle = ensure_bundle(log=lambda line: self.announce(line, level=logging.INFO))
        (build / PACKAGED_BUNDLE).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(bundle, build / PACKAGED_BUNDLE)
        self._extra.append(str(build / PACKAGED_BUNDLE))
        self._extra += [str(p) for p in copy_examples(ROOT / "examples", build / PACKAGED_EXAMPLES)]

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), *getattr(self, "_extra", [])]
