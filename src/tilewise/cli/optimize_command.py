"""`tilewise rewrite` (one motif applied by a model, verified) and `tilewise optimize` (the closed loop: tiling
search and kernel rewrites in turn). Both leave the user's files alone unless `--apply` is given, and then write
only what was measured correct on every case."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tilewise.analysis.errors import TilewiseError
from tilewise.cli.common import err, escape, out, rel, session_from_args


def llm_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--llm-base-url",
        metavar="URL",
        help="an OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 (llama.cpp, vLLM, Ollama's /v1); "
        "default: the hosted OpenAI API. The key comes from TILEWISE_LLM_API_KEY or OPENAI_API_KEY",
    )
    p.add_argument("--llm-model", metavar="NAME", help="the model to ask (default gpt-4o-mini, or TILEWISE_LLM_MODEL)")
    p.add_argument("--llm-timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")
    p.add_argument("--llm-retries", type=int, default=3, help="retries of 429/5xx/timeouts with backoff (default 3)")
    p.add_argument(
        "--llm-token-budget",
        type=int,
        default=200_000,
        metavar="N",
        help="tokens the whole run may use (default 200,000)",
    )


def _llm(args: argparse.Namespace):
    from tilewise.search.llm.client import LlmClient, LlmSettings

    settings = LlmSettings.from_env(
        model=args.llm_model,
        base_url=args.llm_base_url,
        timeout_s=args.llm_timeout,
        max_retries=args.llm_retries,
        token_budget=args.llm_token_budget,
    )
    return LlmClient(settings)


def _prepare(args: argparse.Namespace):
    """(device, operator, cases, bank) from the flags, or a TilewiseError/ValueError with the one line to print."""
    from tilewise.search.bank.store import load_banks

    session = session_from_args(args)
    bank, problems = load_banks()
    for line in problems:
        err.print(line, markup=False)
    return session.device, session.op, session.cases, bank


def cmd_rewrite(args: argparse.Namespace) -> int:
    from tilewise.analysis.findings import Fix
    from tilewise.analysis.motifs import MOTIFS
    from tilewise.analysis.rewrite import apply_fix
    from tilewise.search.llm.client import LlmError
    from tilewise.search.llm.rewrite import rewrite

    if args.motif not in MOTIFS:
        err.print(f"error: --motif: unknown motif '{args.motif}'; motifs are: {', '.join(MOTIFS)}", markup=False)
        return 2
    try:
        device, op, cases, bank = _prepare(args)
        llm = _llm(args)
    except (TilewiseError, ValueError) as exc:
        err.print(f"error: {exc.one_line() if isinstance(exc, TilewiseError) else exc}", markup=False)
        return 2
    except LlmError as exc:
        err.print(f"error: {exc}", markup=False)
        return 2
    if args.format == "text":
        err.print(f"asking {llm.settings.model} to apply {args.motif} to {op.model.operator}...", markup=False)
    result = rewrite(op, device, cases, args.motif, llm, bank, seed=args.seed, golden=args.golden)
    root = str(op.project.root)
    applied = False
    if args.apply and result.accepted:
        read = {p: op.sources[p].text for p in result.texts}
        moved = [p for p, text in read.items() if Path(p).read_text(encoding="utf-8") != text]
        if moved:  # (the edits replace whole files: writing them now would lose the change made meanwhile)
            err.print(
                f"{rel(moved[0])}: changed on disk during the rewrite; nothing written, run it again", markup=False
            )
        else:
            apply_fix(Fix(title=f"{args.motif} (LLM)", edits=result.edits), write=True)
            applied = True
    if args.format == "json":
        print(json.dumps({**result.json(root), "applied": applied, "tokens": llm.tokens_used}, indent=2))
    else:
        verdict = "[green]accepted[/green]" if result.accepted else "[red]rejected[/red]"
        out.print(
            f"{args.motif}: {verdict}: {escape(result.reason.removeprefix('accepted: ').removeprefix('rejected: '))}"
        )
        for b in result.blocks:
            out.print(f"  edit {escape(b.path)}: {len(b.search.splitlines())} line(s) -> {len(b.replace.splitlines())}")
        if applied:
            out.print(f"applied to {', '.join(rel(p) for p in sorted(result.texts))}")
        elif result.accepted:
            out.print("[dim]the files are unchanged: --apply writes the rewrite[/dim]")
        out.print(f"[dim]{llm.calls} request(s), {llm.tokens_used:,} tokens[/dim]")
    return 0 if result.accepted else 1


def cmd_optimize(args: argparse.Namespace) -> int:
    from tilewise.search.cache import ResultsCache, default_results_path
    from tilewise.search.llm.client import LlmError
    from tilewise.search.optimize import OptimizeOptions, apply_result, optimize

    try:
        device, op, cases, bank = _prepare(args)
        llm = _llm(args) if args.llm else None
    except (TilewiseError, ValueError) as exc:
        err.print(f"error: {exc.one_line() if isinstance(exc, TilewiseError) else exc}", markup=False)
        return 2
    except LlmError as exc:
        err.print(f"error: {exc} (or run with --no-llm: the deterministic motifs alone)", markup=False)
        return 2
    options = OptimizeOptions(
        budget=args.budget,
        iterations=args.iterations,
        llm=llm,
        seed=args.seed,
        golden=args.golden,
        workers=args.workers,
        strategy=args.strategy,
    )
    text = args.format == "text"
    if text:
        how = f"with {llm.settings.model}" if llm else "with the deterministic motifs (no LLM)"
        out.print(
            f"optimizing {op.model.operator} {how}, budget {args.budget}, cases {', '.join(c.name for c in cases)}"
        )

    def show(step, best_us) -> None:
        if text:
            out.print(_step_line(step, best_us), markup=False)

    cache = None if args.no_cache else ResultsCache(default_results_path())
    try:
        result = optimize(op, device, cases, options, cache=cache, bank=bank, on_step=show)
    except KeyboardInterrupt:
        err.print("interrupted: nothing was written")
        return 130
    finally:
        if cache:
            cache.close()
    patch_written = None
    if args.out and result.best:
        Path(args.out).write_text(result.patch(), encoding="utf-8")
        patch_written = args.out
    applied = apply_result(result, device, cases, options) if args.apply and result.best else None
    if args.format == "json":
        data = result.json()
        data.update(patch_file=patch_written, applied=applied, tokens=llm.tokens_used if llm else 0)
        print(json.dumps(data, indent=2))
    else:
        _print_summary(result, patch_written, applied, llm)
    return 0 if not result.problems or result.best_us else 1


def _step_line(step, best_us: float | None) -> str:
    mark = "+" if step.accepted else "-"
    time = f"{step.time_us:.2f} µs" if step.time_us is not None else "-"
    gain = f" ({step.speedup:.2f}x)" if step.speedup else ""
    best = f"; best {best_us:.2f} µs" if best_us is not None else ""
    return f"{mark} {step.index:>2} {step.stage:<8} {step.what}: {time}{gain}{best} - {step.detail}"


def _print_summary(result, patch_written: str | None, applied: dict | None, llm) -> None:
    for p in result.problems:
        out.print(f"[red]problem[/red]: {escape(p)}")
    if result.baseline_us is None:
        return
    if result.speedup and result.speedup > 1.0:
        out.print(
            f"optimized: [bold]{result.baseline_us:.2f} µs -> {result.best_us:.2f} µs "
            f"({result.speedup:.2f}x)[/bold] in {sum(s.accepted for s in result.steps) - 1} accepted step(s), "
            f"{result.evaluations} candidates measured" + (", stopped early" if result.stopped else "")
        )
        out.print(f"files changed: {', '.join(rel(p) for p in sorted(result.best))}")
    else:
        out.print(f"nothing faster found ({result.evaluations} candidates measured): the operator is left as it is")
    if patch_written:
        out.print(f"patch written to {patch_written} (apply with `git apply` or `patch -p1` in the operator's folder)")
    if applied is not None:
        verdict = "[green]every case passes[/green]" if applied["verified"] else "[red]NOT written[/red]"
        out.print(f"--apply: {verdict}" + "".join(f"\n  {escape(f)}" for f in applied["failures"]))
    elif result.best and not patch_written:
        out.print("[dim]the files are unchanged: --out FILE writes the patch, --apply the sources[/dim]")
    if llm is not None:
        out.print(f"[dim]{llm.calls} LLM request(s), {llm.tokens_used:,} tokens[/dim]")
