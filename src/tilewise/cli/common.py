"""What every `tilewise` command shares: the two consoles, paths relative to where the user stands, one-line
problems, and the session (device, operator, cases) the flags describe."""

from __future__ import annotations

import argparse
import os
import sys

from rich.console import Console

from tilewise.analysis.model import Problem
from tilewise.device.protocol import Device
from tilewise.session.builder import DeviceChoice, Session, SessionRequest, build_session

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


def device_choice(args: argparse.Namespace) -> DeviceChoice:
    """The device the flags name: --device, --chip, --timeout, and for an NPU --cann, --npu-warm-up, --npu-launches."""
    return DeviceChoice(
        args.device,
        chip=args.chip,
        timeout_s=args.timeout,
        cann=getattr(args, "cann", None),
        warm_up=getattr(args, "npu_warm_up", 5),
        launches=getattr(args, "npu_launches", 1),
    )


def device_from_args(args: argparse.Namespace) -> Device:
    """The --device the command names (the emulator today); an unknown name is a one-line error naming the flag."""
    return device_choice(args).open()


def session_request(args: argparse.Namespace, *, one_case: bool = False) -> SessionRequest:
    """What the command line says about the operator, its cases and the device (session/builder.py). `one_case`:
    `tilewise run`, whose --case names one case (the manifest's first by default)."""
    names = args.case if isinstance(args.case, list) else ([args.case] if args.case else [])
    return SessionRequest(
        args.path,
        cases=tuple(names),
        shape=tuple(args.shape or ()),
        dtype=tuple(args.dtype or ()),
        attr=tuple(args.attr or ()),
        inputs=tuple(args.input or ()),
        one_case=one_case,
        device=device_choice(args),
    )


def session_from_args(args: argparse.Namespace, *, one_case: bool = False) -> Session:
    """The session the command line describes: the device, the operator (its problems printed as soon as it is
    loaded, before any later error), the cases the flags choose and the --input arrays. TilewiseError otherwise."""

    def say(problems: list[Problem]) -> None:
        for p in problems:
            err.print(problem_line(p), markup=False)

    return build_session(session_request(args, one_case=one_case), on_problems=say)
