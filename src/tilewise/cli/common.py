"""What every `tilewise` command shares: the two consoles, paths relative to where the user stands, one-line
problems, and the device the flags name."""

from __future__ import annotations

import argparse
import os
import sys

from rich.console import Console

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.model import Problem
from tilewise.device.protocol import Device

out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def rel(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def problem_line(p: Problem) -> str:
    where = f"{rel(p.file)}:{p.line}" if p.line else rel(p.file)
    return f"{where}: error: {p.message}"


def escape(text: str) -> str:
    """`text` with rich's markup brackets escaped, for messages that quote code."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


def device_from_args(args: argparse.Namespace) -> Device:
    """The --device the command names (the emulator today); an unknown name is a one-line error naming the flag."""
    from tilewise.device.registry import make_device

    try:
        return make_device(
            args.device,
            chip=args.chip,
            timeout_s=args.timeout,
            cann=getattr(args, "cann", None),
            warm_up=getattr(args, "npu_warm_up", 5),
            launches=getattr(args, "npu_launches", 1),
        )
    except ValueError as exc:
        raise TilewiseError("--device", 0, str(exc)) from None


def selected_cases(op, args: argparse.Namespace, arrays) -> list:
    """The cases the flags choose: the manifest's (`--case` picks some; all by default), or, with any of
    --shape/--dtype/--attr/--input, the one case they describe."""
    from tilewise.session.cases import build_case

    names = args.case if isinstance(args.case, list) else ([args.case] if args.case else [])
    if op.manifest and op.manifest.cases and not (args.shape or args.dtype or args.attr or arrays):
        return [op.manifest.case(name) for name in names] if names else list(op.manifest.cases)
    if len(names) > 1:
        raise TilewiseError(
            "--case",
            0,
            "give one --case with --shape/--dtype/--attr/--input (they describe "
            "one case), or drop those flags to use several cases",
        )
    args.case = names[0] if names else None
    return [build_case(op, args, arrays)]
