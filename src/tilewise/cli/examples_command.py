"""`tilewise examples DIR`: copy the shipped example operators out, so a user of the wheel has something to try.

The examples' source of truth is the checkout's examples/ folder (the README and the tests use it); a wheel carries a
copy as tilewise/examples/ (its build hook, build_hook.py, puts it there). `examples_root()` finds either, so
`tilewise examples` and `tilewise bank mine` with no OPDIR work from an install and an editable checkout alike.
"""

from __future__ import annotations

import argparse
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from tilewise.analysis.errors import TilewiseError
from tilewise.cli.common import err, out, rel

PACKAGE = Path(__file__).resolve().parents[1]
PACKAGED_EXAMPLES = PACKAGE / "examples"  # in a wheel
CHECKOUT_EXAMPLES = PACKAGE.parents[1] / "examples"  # in a checkout: src/tilewise/../../examples
MANIFEST = "tilewise.toml"
# What a run or an editor leaves in an example folder, never copied out.
_SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".*")


def examples_root() -> Path:
    """The folder of the shipped example operators: the package's copy (a wheel's), else the checkout's examples/."""
    for folder in (PACKAGED_EXAMPLES, CHECKOUT_EXAMPLES):
        if any(folder.glob(f"*/{MANIFEST}")):
            return folder
    raise TilewiseError(
        str(PACKAGED_EXAMPLES),
        0,
        "this tilewise install has no example operators: reinstall it from a wheel (its build adds them), "
        "or name operator folders yourself",
    )


def example_names(root: Path) -> list[str]:
    """The example operators under `root`: every folder holding a manifest, by name."""
    return sorted(m.parent.name for m in root.glob(f"*/{MANIFEST}"))


@dataclass
class Copied:
    name: str
    target: Path
    files: int
    replaced: bool  # the folder was there and --force wrote over it


def copy_examples(root: Path, dest: Path, names: list[str], force: bool = False) -> list[Copied]:
    """Copy the example operators `names` from `root` into `dest`, each to its own folder, and the examples'
    README (the manifest's schema) beside them when `dest` has none.

    Nothing is written when a target folder exists and `force` is off: the error names the first one. With `force`,
    the shipped files overwrite the folder's and any other file in it stays.
    """
    known = example_names(root)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise TilewiseError(unknown[0], 0, f"no such example; the examples are: {', '.join(known)}")
    if dest.exists() and not dest.is_dir():
        raise TilewiseError(str(dest), 0, "not a folder: name a folder to copy the examples into")
    existing = [n for n in names if (dest / n).exists()]
    if existing and not force:
        raise TilewiseError(
            str(dest / existing[0]),
            0,
            "already exists: pass --force to write the shipped files over it, or choose another folder",
        )
    copied = []
    for name in names:
        target = dest / name
        replaced = target.exists()
        shutil.copytree(root / name, target, ignore=_SKIPPED, dirs_exist_ok=True)
        copied.append(Copied(name, target, len(_shipped_files(root / name)), replaced))
    readme = root / "README.md"
    if readme.is_file() and (force or not (dest / "README.md").exists()):
        shutil.copyfile(readme, dest / "README.md")
    return copied


def _shipped_files(folder: Path) -> list[Path]:
    """The files of an example that copying it writes (what _SKIPPED leaves out, left out)."""
    return [
        p
        for p in folder.rglob("*")
        if p.is_file()
        and not p.name.endswith(".pyc")
        and not any(part == "__pycache__" or part.startswith(".") for part in p.relative_to(folder).parts)
    ]


def cmd_examples(args: argparse.Namespace) -> int:
    dest = Path(args.dir)
    try:
        root = examples_root()
        names = args.names or example_names(root)
        copied = copy_examples(root, dest, names, force=args.force)
    except TilewiseError as exc:
        err.print(f"error: {exc.one_line()}", markup=False)
        return 2
    except OSError as exc:  # a folder it cannot write: one line, not a traceback
        err.print(
            f"error: {rel(str(exc.filename or dest))}: cannot write ({exc.strerror}): choose a writable folder",
            markup=False,
        )
        return 2
    if args.format == "json":
        rows = [
            {"name": c.name, "path": str(c.target.resolve()), "files": c.files, "replaced": c.replaced} for c in copied
        ]
        out.print(json.dumps({"examples": rows}, indent=2), markup=False)
        return 0
    for c in copied:
        note = " (over the existing folder)" if c.replaced else ""
        out.print(f"wrote {rel(str(c.target))}/ ({c.files} files){note}", markup=False)
    first = rel(str(dest / ("add_custom" if "add_custom" in names else names[0])))
    plural = "" if len(copied) == 1 else "s"
    out.print(
        f"{len(copied)} example operator{plural} in {rel(str(dest))}; try `tilewise run {first} --html report.html`",
        markup=False,
    )
    return 0


def add_examples_parser(sub) -> None:
    p = sub.add_parser("examples", help="copy the shipped example operators into DIR, each to its own folder")
    p.add_argument("dir", metavar="DIR", help="the folder to copy them into (made when missing)")
    p.add_argument("names", nargs="*", metavar="NAME", help="only these examples (default: all)")
    p.add_argument("--force", action="store_true", help="write over example folders DIR already has")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_examples)
