"""Lay out the public corpus (issue 12) from git copies of its public repositories.

The corpus is public code, so the project commits only the list (`benchmarks/corpus/sources.toml`: repository,
commit, operator folders) and the manifests and numpy goldens written for it (`benchmarks/corpus/manifests/`).
This script reads each repository's listed commit straight from its git directory (no work tree needed) and
writes every listed operator, plus the repository's `support` folders, to DIR/<repo id>/<path>. A manifest written
for an operator is copied beside it as `tilewise.toml` (and its golden beside that).

    python benchmarks/corpus_fetch.py MIRRORS DIR [--partition development|test|all]

Every repository in the list belongs to one partition (issue 32): "development", what tilewise has been tuned
against, or "test", held out to measure it honestly. `--partition` lays out only one of them (default: all); either
way every operator goes to DIR/<repo id>/<path>, so the two partitions share one layout.

MIRRORS is a folder holding one git copy per repository, named `owner+name` (a bare repository, a `repo/`
subfolder holding one, or an ordinary clone). Any clone works: `git clone https://…/owner/name MIRRORS/owner+name`.
Re-running replaces what an earlier run wrote, one operator at a time (written to a temporary folder, then moved).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "corpus" / "sources.toml"
MANIFESTS = HERE / "corpus" / "manifests"
# Build outputs and tests are not the operator; large files are data, not sources.
_SKIP_PARTS = {"build_out", "build", "output", ".git", "__pycache__"}
_MAX_FILE_BYTES = 2 * 1024 * 1024
# The corpus's partitions (issue 32), in the order reports show them.
PARTITIONS = ("development", "test")


@dataclass
class Repo:
    """One listed repository: where its operators are, at which commit, and which partition it belongs to."""

    id: str
    name: str
    commit: str
    operators: list[str]
    support: list[str] = field(default_factory=list)
    partition: str = "development"


def load_sources(path: Path = SOURCES, partition: str = "all") -> list[Repo]:
    """The listed repositories, all of them or those of one partition ("development", "test" or "all").

    A repository without a known partition is an error naming it, so a new entry cannot slip into either side
    unnoticed."""
    if partition != "all" and partition not in PARTITIONS:
        raise ValueError(f"partition {partition!r}: expected one of {', '.join(PARTITIONS)} or all")
    data = tomllib.loads(path.read_text())
    repos = []
    for r in data["repo"]:
        part = r.get("partition")
        if part not in PARTITIONS:
            raise ValueError(
                f"{path}: repository {r.get('id', '?')}: partition = {part!r}; write one of {', '.join(PARTITIONS)}"
            )
        repos.append(
            Repo(
                id=r["id"],
                name=r["name"],
                commit=r["commit"],
                operators=list(r["operators"]),
                support=list(r.get("support", [])),
                partition=part,
            )
        )
    return [r for r in repos if partition in ("all", r.partition)]


def operator_ids(repos: list[Repo]) -> list[str]:
    """Every operator's id, `<repo id>/<path>`: its folder under DIR and under `corpus/manifests/`."""
    return [f"{r.id}/{op}" for r in repos for op in r.operators]


def operator_partitions(repos: list[Repo] | None = None) -> dict[str, str]:
    """Each operator id's partition, for the benchmarks that report the two partitions side by side."""
    return {f"{r.id}/{op}": r.partition for r in (load_sources() if repos is None else repos) for op in r.operators}


def git_dir(mirrors: Path, name: str) -> Path | None:
    base = mirrors / name.replace("/", "+", 1)
    for candidate in (base / "repo" / ".git", base / "repo", base / ".git", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def _git(gd: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", "--git-dir", str(gd), *args], input=data, capture_output=True, check=True).stdout


def _tree_files(gd: Path, commit: str, path: str) -> list[tuple[str, int]]:
    """(path, size) of the blobs under `path` at `commit`, build outputs and tests left out."""
    out = _git(gd, "ls-tree", "-r", "-l", "-z", commit, "--", path)
    files = []
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, name = entry.split(b"\t", 1)
        mode, kind, _sha, size = meta.split()
        rel = name.decode("utf-8", "replace")
        inner = Path(rel).relative_to(path).parts if path not in ("", ".") else Path(rel).parts
        if kind != b"blob" or mode == b"120000" or any(p in _SKIP_PARTS for p in inner[:-1]):
            continue
        if "tests" in inner[:-1] or int(size) > _MAX_FILE_BYTES:
            continue
        files.append((rel, int(size)))
    return files


def _write_blobs(gd: Path, commit: str, files: list[tuple[str, int]], dest_root: Path) -> None:
    """Write the blobs with one `git cat-file --batch` call (thousands of files take seconds, not minutes)."""
    if not files:
        return
    request = "".join(f"{commit}:{rel}\n" for rel, _ in files).encode()
    out = _git(gd, "cat-file", "--batch", data=request)
    pos = 0
    for rel, _ in files:
        newline = out.index(b"\n", pos)
        header = out[pos:newline].split()
        if header[-1] == b"missing":
            pos = newline + 1
            continue
        size = int(header[2])
        body = out[newline + 1 : newline + 1 + size]
        pos = newline + 1 + size + 1
        target = dest_root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)


def materialize(repo: Repo, gd: Path, out: Path) -> tuple[int, list[str]]:
    """Write the repository's operators and support folders under out/<repo id>; return (written, problems)."""
    problems: list[str] = []
    written = 0
    repo_root = out / repo.id
    for path in [*repo.support, *repo.operators]:
        try:
            files = _tree_files(gd, repo.commit, path)
        except subprocess.CalledProcessError as exc:
            problems.append(f"{repo.name}@{repo.commit[:10]}:{path}: {exc.stderr.decode(errors='replace').strip()}")
            continue
        if not files:
            problems.append(f"{repo.name}@{repo.commit[:10]}:{path}: no files at that commit; fix sources.toml")
            continue
        # Operators that sit inside another's folder are written with it; others go through a staging folder so
        # a killed run never leaves half an operator behind.
        staging = out / ".staging" / repo.id
        shutil.rmtree(staging, ignore_errors=True)
        _write_blobs(gd, repo.commit, files, staging)
        target = repo_root / path
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        (staging / path).rename(target)
        shutil.rmtree(staging, ignore_errors=True)
        if path in repo.operators:
            _copy_manifest(f"{repo.id}/{path}", target)
            written += 1
    shutil.rmtree(out / ".staging", ignore_errors=True)
    return written, problems


def _copy_manifest(op_id: str, target: Path) -> None:
    src = MANIFESTS / op_id
    if not src.is_dir():
        return
    for f in src.iterdir():
        if f.is_file():
            shutil.copy2(f, target / f.name)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mirrors", type=Path, help="folder of git copies named owner+name")
    ap.add_argument("dir", type=Path, help="where to lay out the corpus")
    ap.add_argument(
        "--manifests-only", action="store_true", help="only copy the manifests and goldens onto an existing layout"
    )
    ap.add_argument(
        "--partition",
        choices=[*PARTITIONS, "all"],
        default="all",
        help="lay out only the development or the test partition (default: all)",
    )
    args = ap.parse_args(argv)
    repos = load_sources(partition=args.partition)
    args.dir.mkdir(parents=True, exist_ok=True)
    total = 0
    failed = False
    for repo in repos:
        if args.manifests_only:
            for op in repo.operators:
                if (args.dir / repo.id / op).is_dir():
                    _copy_manifest(f"{repo.id}/{op}", args.dir / repo.id / op)
            continue
        gd = git_dir(args.mirrors, repo.name)
        if gd is None:
            print(
                f"{args.mirrors / repo.name.replace('/', '+', 1)}: no git copy of {repo.name}; clone it there",
                file=sys.stderr,
            )
            failed = True
            continue
        n, problems = materialize(repo, gd, args.dir)
        total += n
        for p in problems:
            print(p, file=sys.stderr)
        print(f"{repo.name} ({repo.partition}): {n} of {len(repo.operators)} operators")
    if not args.manifests_only:
        counts = {p: sum(len(r.operators) for r in repos if r.partition == p) for p in PARTITIONS}
        shown = ", ".join(f"{p} {n}" for p, n in counts.items() if n)
        print(f"{total} operators from {len(repos)} repositories in {args.dir} (listed: {shown})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
