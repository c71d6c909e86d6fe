"""Dump every operator's model, problems and lint findings to one JSON file each, to prove a refactor kept behaviour.

A refactor of the parser, extractor or rules should change no byte of what they produce. Run this before and after
on the examples and the public corpus, then compare the two folders:

    python benchmarks/model_dump.py /tmp/before            # examples/ only
    python benchmarks/model_dump.py /tmp/before --corpus /work/corpus
    ... change the code ...
    python benchmarks/model_dump.py /tmp/after --corpus /work/corpus
    python benchmarks/model_dump.py --compare /tmp/before /tmp/after

Unlike `tilewise inspect --format json`, the dump includes the fields the JSON output leaves out (byte offsets) and
every finding's fixes, so an edit that moves one byte shows. Paths are written relative to the operator's folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from pydantic import BaseModel

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def plain(value: object, root: str) -> object:
    """`value` as JSON data: every pydantic or dataclass field (excluded ones too), paths under `root` relative."""
    if isinstance(value, BaseModel):
        # A field never set (a model built without validation) reads as its default, as pydantic would fill it.
        fields = type(value).model_fields
        return {
            name: plain(
                value.__dict__[name] if name in value.__dict__ else f.get_default(call_default_factory=True), root
            )
            for name, f in fields.items()
        }
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # the same record as a dataclass dumps alike
        return {
            f.name: plain(getattr(value, f.name), root) for f in dataclasses.fields(value) if not f.name.startswith("_")
        }
    if isinstance(value, dict):
        return {str(k): plain(v, root) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [plain(v, root) for v in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    if isinstance(value, str) and root and value.startswith(root):
        return value[len(root) :].lstrip("/") or "."
    return value


def dump_operator(op_dir: Path) -> dict:
    """Model, problems and findings of the operator in `op_dir`; a load failure is recorded, not raised."""
    from tilewise.analysis.lint import lint
    from tilewise.analysis.operator import load_operator

    root = str(op_dir.resolve())
    try:
        op = load_operator(op_dir)
        findings = lint(op)
    except Exception as exc:  # noqa: BLE001 - a failing operator is part of the behaviour being compared
        return {"error": f"{type(exc).__name__}: {exc}".replace(root, ".")}
    return {
        "model": plain(op.model, root),
        "problems": plain(list(op.problems), root),
        "findings": plain(list(findings), root),
    }


def operator_dirs(corpus: Path | None) -> dict[str, Path]:
    """name -> folder: every example, and every corpus operator listed in benchmarks/corpus/sources.toml."""
    dirs = {
        f"examples/{p.name}": p
        for p in sorted((HERE.parent / "examples").iterdir())
        if p.is_dir() and not p.name.startswith(".")
    }
    if corpus is not None:
        from benchmarks.corpus_fetch import load_sources, operator_ids

        for op_id in operator_ids(load_sources()):
            if (corpus / op_id).is_dir():
                dirs[f"corpus/{op_id}"] = corpus / op_id
    return dirs


def write_dumps(out: Path, corpus: Path | None) -> int:
    out.mkdir(parents=True, exist_ok=True)
    dirs = operator_dirs(corpus)
    for name, op_dir in dirs.items():
        target = out / (name.replace("/", "__") + ".json")
        target.write_text(json.dumps(dump_operator(op_dir), indent=1, sort_keys=True) + "\n")
    print(f"{len(dirs)} operators dumped to {out}")
    return 0


def compare(before: Path, after: Path) -> int:
    """Print each operator whose dump differs (first differing line), and a total; exit 1 on any difference."""
    names = sorted({p.name for p in before.glob("*.json")} | {p.name for p in after.glob("*.json")})
    differ = 0
    for name in names:
        a, b = before / name, after / name
        if not a.exists() or not b.exists():
            differ += 1
            print(f"{name}: only in {before if a.exists() else after}")
            continue
        la, lb = a.read_text().splitlines(), b.read_text().splitlines()
        if la != lb:
            differ += 1
            i = next((i for i, (x, y) in enumerate(zip(la, lb, strict=False)) if x != y), min(len(la), len(lb)))
            print(
                f"{name}:{i + 1}: {la[i].strip() if i < len(la) else '<end>'} -> "
                f"{lb[i].strip() if i < len(lb) else '<end>'}"
            )
    print(f"{len(names)} operators compared, {differ} differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, help="folder to write the dumps to")
    parser.add_argument("--corpus", type=Path, help="also dump the public corpus at this folder")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give an output folder, or --compare BEFORE AFTER")
    return write_dumps(args.out, args.corpus)


if __name__ == "__main__":
    sys.exit(main())
