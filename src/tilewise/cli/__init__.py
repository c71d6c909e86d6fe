"""The `tilewise` command line: thin adapters from arguments to the rooms below, and from results to text or JSON.

Bad input never ends in a traceback: each problem prints as one line naming the file, the line and what to do,
and the rest of the output still comes out.

Each command lives in its own module (`inspect_command.py`, `lint_command.py`, `run_command.py`, `tune_command.py`,
`serve_command.py`); this one holds the argument parser and the entry point.
"""

from __future__ import annotations

import argparse

from tilewise.analysis.chip import builtin_chips
from tilewise.cli.bank_command import cmd_bank_list, cmd_bank_mine, cmd_bank_show
from tilewise.cli.calibrate_command import add_calibrate_parser
from tilewise.cli.common import err
from tilewise.cli.doctor_command import cmd_doctor
from tilewise.cli.examples_command import add_examples_parser
from tilewise.cli.inspect_command import cmd_inspect
from tilewise.cli.lint_command import cmd_lint
from tilewise.cli.optimize_command import cmd_optimize, cmd_rewrite, llm_flags
from tilewise.cli.run_command import cmd_run
from tilewise.cli.serve_command import cmd_serve
from tilewise.cli.suggest_command import cmd_suggest
from tilewise.cli.tune_command import cmd_tune
from tilewise.device.registry import DEVICES


def _case_flags(p: argparse.ArgumentParser, note: str = "") -> None:
    """--shape/--dtype/--attr/--input, shared by run and tune. A list (DYNAMIC) input's tensors are `x[0]`, `x[1]`."""
    p.add_argument(
        "--shape",
        action="append",
        metavar="IN=D0,D1,...",
        help=(
            "input shape, e.g. x=8,1024; x=[] or x=scalar for a 0-d tensor (a scalar input); x[0]=... for a "
            f"tensor of a list input (repeatable){note}"
        ),
    )
    p.add_argument(
        "--dtype",
        action="append",
        metavar="IN=DTYPE",
        help="input dtype, e.g. x=float16 (every tensor of a list x) or x[1]=float32 (repeatable)",
    )
    p.add_argument("--attr", action="append", metavar="NAME=VALUE", help="attribute value (repeatable)")
    p.add_argument(
        "--input",
        action="append",
        metavar="IN=FILE.npy",
        help="input data from a .npy file, e.g. x=a.npy or x[0]=a.npy; a 0-d array is a 0-d input (repeatable)",
    )


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1 (a budget, a worker count)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def installed_version() -> str | None:
    """The version of the installed tilewise distribution, None when there is none (the modules imported from a
    bare checkout). Editors check it to tell tilewise from another package that happens to be called `server`."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tilewise")
    except PackageNotFoundError:
        return None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tilewise", description="Language server, emulator and tiling optimiser for AscendC operators."
    )
    found = installed_version()
    parser.add_argument(
        "--version",
        action="version",
        version=f"tilewise {found}" if found else "tilewise: not installed (pip install -e <the tilewise checkout>)",
        help="print the installed tilewise version (`tilewise X.Y.Z`) and exit",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("inspect", help="print the operator model of the operator containing PATH")
    p.add_argument("path")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("lint", help="report performance and correctness problems; exit 1 on errors")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument(
        "--verify",
        action="store_true",
        help="try each fix a rule could not prove safe on the manifest's cases and say whether it held",
    )
    p.add_argument(
        "--cases",
        action="store_true",
        help="run the manifest's cases on the emulator first, so rules check sizes the host decides",
    )
    p.set_defaults(func=cmd_lint)

    p = sub.add_parser("run", help="build and run the operator on the emulator and check it against its golden")
    p.add_argument("path", metavar="OPDIR")
    p.add_argument("--case", help="manifest case to run (default: the first)")
    _case_flags(p)
    p.add_argument("--golden", metavar="FILE.py:FN", help="numpy golden (default: the manifest's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="emulator", help=f"device to run on: {', '.join(DEVICES)}")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds before the run is killed")
    p.add_argument(
        "--trace",
        metavar="OUT.json",
        help="write the pipeline trace as Chrome trace events (open it in Perfetto): each pipe's instructions with "
        "their API, file, line, bytes and repeats, and its idle gaps (category wait) with what held them",
    )
    p.add_argument(
        "--html",
        metavar="REPORT.html",
        help="write a self-contained HTML report: the pipeline timeline, the roofline and the pipes' busy ratios",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_run)

    from tilewise.search.strategies import STRATEGIES

    p = sub.add_parser("tune", help="search the host tiling's knobs for the fastest correct configuration")
    p.add_argument("path", metavar="OPDIR")
    p.add_argument("--budget", type=positive, default=32, help="configurations to measure, the shipped one included")
    p.add_argument("--strategy", choices=sorted(STRATEGIES), default="evo")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="emulator", help=f"device to measure on: {', '.join(DEVICES)}")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument("--case", action="append", help="manifest case (repeatable; default: all)")
    _case_flags(p, " (with any of these, tune that one case)")
    p.add_argument("--golden", metavar="FILE.py:FN")
    p.add_argument(
        "--workers", type=positive, default=2, help="evaluations in parallel (on Ray: in flight on the cluster)"
    )
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where the measurements run: this machine, or Ray tasks (needs `pip install ray`)",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the Ray cluster's head (HOST:PORT, or auto for one started here); default: start a local Ray",
    )
    p.add_argument("--apply", action="store_true", help="rewrite the knob literals to the best configuration")
    p.add_argument(
        "--sensitivity",
        action="store_true",
        help="re-evaluate the shipped and the best tiling with each timing constant moved by 25%% (about 50 runs of "
        "the largest case): is the gain the hardware's or the model's?",
    )
    p.add_argument("--no-cache", action="store_true", help="do not read or write the persistent results cache")
    p.add_argument("--verbose", "-v", action="store_true", help="print every trial")
    p.add_argument(
        "--html",
        metavar="REPORT.html",
        help="write a self-contained HTML report: the search's convergence, then the best configuration's run "
        "(timeline, roofline and pipes)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_tune)

    p = sub.add_parser("suggest", help="rank the bank's motifs that fit the operator; --verify measures each rewrite")
    p.add_argument("path", metavar="OPDIR")
    p.add_argument("--case", action="append", help="manifest case (repeatable; default: all)")
    _case_flags(p, " (with any of these, profile that one case)")
    p.add_argument("--golden", metavar="FILE.py:FN", help="numpy golden (default: the manifest's)")
    p.add_argument("--top", type=positive, default=5, help="how many suggestions (default 5)")
    p.add_argument(
        "--verify", action="store_true", help="apply each deterministic rewrite in memory and run every case"
    )
    p.add_argument("--bank", metavar="FILE.json", help="read this bank instead of the shipped and the user's")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="emulator", help=f"device to measure on: {', '.join(DEVICES)}")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_suggest)

    p = sub.add_parser(
        "rewrite", help="ask an LLM to apply one motif; keep it only if correct and faster on every case"
    )
    p.add_argument("path", metavar="OPDIR")
    p.add_argument("--motif", required=True, help="the motif to apply (`tilewise bank list` names them)")
    p.add_argument("--case", action="append", help="manifest case (repeatable; default: all)")
    _case_flags(p, " (with any of these, verify on that one case)")
    p.add_argument("--golden", metavar="FILE.py:FN", help="numpy golden (default: the manifest's)")
    p.add_argument("--apply", action="store_true", help="write an accepted rewrite to the sources")
    llm_flags(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="emulator", help=f"device to measure on: {', '.join(DEVICES)}")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_rewrite)

    p = sub.add_parser(
        "optimize", help="the closed loop: tune the tiling, rewrite the kernel with verified motifs, tune again"
    )
    p.add_argument("path", metavar="OPDIR")
    p.add_argument(
        "--budget", type=positive, default=48, help="candidates to measure: configurations and rewrites (default 48)"
    )
    p.add_argument(
        "--iterations", type=positive, default=3, help="kernel rewrites per round, one motif each (default 3)"
    )
    p.add_argument(
        "--llm",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also let an LLM rewrite the kernel and evolve the tiling (--no-llm: the deterministic motifs alone)",
    )
    llm_flags(p)
    p.add_argument("--case", action="append", help="manifest case (repeatable; default: all)")
    _case_flags(p, " (with any of these, optimize for that one case)")
    p.add_argument("--golden", metavar="FILE.py:FN", help="numpy golden (default: the manifest's)")
    p.add_argument("--out", metavar="PATCH.diff", help="write the optimised operator as a unified diff")
    p.add_argument("--apply", action="store_true", help="write the optimised sources after re-running every case")
    p.add_argument("--strategy", choices=sorted(STRATEGIES), default="evo", help="the tiling search's strategy")
    p.add_argument("--workers", type=positive, default=2, help="evaluations in parallel")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="emulator", help=f"device to measure on: {', '.join(DEVICES)}")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--no-cache", action="store_true", help="do not read or write the persistent results cache")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_optimize)

    bank = sub.add_parser("bank", help="the experience bank of motifs: mine it by rewinding operators, browse it")
    bank_sub = bank.add_subparsers(dest="bank_command", required=True)
    p = bank_sub.add_parser("mine", help="rewind operators (default: the project's examples) and record what hurts")
    p.add_argument("paths", nargs="*", metavar="OPDIR")
    p.add_argument("--motif", action="append", help="only this motif (repeatable; default: all)")
    p.add_argument("--out", metavar="FILE.json", help="the bank to add to (default: the user's bank in the cache)")
    p.add_argument("--replace", action="store_true", help="write exactly what this run mined, dropping the rest")
    p.add_argument("--device", default="emulator", help=f"device to measure on: {', '.join(DEVICES)}")
    p.add_argument("--chip", default=None, help=f"chip name ({', '.join(builtin_chips())}) or a JSON file")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--no-cache", action="store_true", help="do not read or write the persistent results cache")
    p.add_argument("--verbose", "-v", action="store_true", help="print each rewind as it runs")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_bank_mine)
    for name, helptext, func in (
        ("list", "every motif with its evidence", cmd_bank_list),
        ("show", "one motif: its trajectories and a before/after example", cmd_bank_show),
    ):
        p = bank_sub.add_parser(name, help=helptext)
        if name == "show":
            p.add_argument("motif", metavar="MOTIF")
        p.add_argument("--bank", metavar="FILE.json", help="read this bank instead of the shipped and the user's")
        p.add_argument("--format", choices=("text", "json"), default="text")
        p.set_defaults(func=func)

    add_calibrate_parser(sub)
    add_examples_parser(sub)

    p = sub.add_parser("doctor", help="check what this machine can run: the emulator, an NPU through CANN, Ray, an LLM")
    p.add_argument("--device", default="emulator", help="also require this device to work (npu, npu:ID)")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("serve", help="run the language server (LSP over stdio, or websockets with --ws)")
    p.add_argument("--ws", type=int, metavar="PORT", help="serve websockets on 127.0.0.1:PORT instead of stdio")
    p.add_argument("--stdio", action="store_true", help="LSP over stdio (the default; editors pass it)")
    p.add_argument("--verbose", "-v", action="store_true")
    p.set_defaults(func=cmd_serve)
    for command in sub.choices.values():  # every command that measures on a device can measure on an NPU
        if any("--device" in a.option_strings for a in command._actions):
            _npu_flags(command)
    return parser


def _npu_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("NPU device (--device npu[:ID])")
    g.add_argument("--cann", metavar="PATH", help="the CANN toolkit (default: $ASCEND_HOME_PATH from set_env.sh)")
    g.add_argument("--npu-warm-up", type=int, default=5, metavar="N", help="msprof op warm-up launches (default 5)")
    g.add_argument("--npu-launches", type=int, default=1, metavar="N", help="launches msprof op measures (default 1)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130
    except BrokenPipeError:
        return 0
