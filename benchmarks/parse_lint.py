"""Time to preprocess, parse, build the model and lint a 3000-line kernel (target: 30 ms end to end).

Prints each stage's best-of-N time and its ratio to a baseline measured in the same process: a plain
tree-sitter parse of the same text, which is the least any C++ tool must pay.

    python benchmarks/parse_lint.py [--lines 3000] [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tree_sitter import Parser

from benchmarks.synth import write_big_operator
from tilewise.analysis.chip import load_chip
from tilewise.analysis.extract import build_model
from tilewise.analysis.lint import lint
from tilewise.analysis.operator import Operator, load_sources
from tilewise.analysis.preprocess import preprocess
from tilewise.analysis.project import locate
from tilewise.analysis.source import CPP, SourceFile


def best(fn, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    root = write_big_operator(Path(tempfile.mkdtemp()) / "big", args.lines)
    kernel = root / "op_kernel" / "scale.cpp"
    text = kernel.read_text()
    data = text.encode()
    chip = load_chip()
    project = locate(root)
    print(f"kernel: {len(text.splitlines())} lines, {len(data)} bytes")

    raw_parser = Parser(CPP)
    baseline, _ = best(lambda: raw_parser.parse(data), args.repeat)
    stages = {
        "preprocess": lambda: preprocess(data),
        "parse (preprocess + tree-sitter)": lambda: SourceFile(str(kernel), text),
        "load all operator sources": lambda: load_sources(project),
    }
    sources, _ = load_sources(project)
    model = build_model(project, sources)
    op = Operator(project, sources, model)

    def cold(fn):
        # Sources keep per-chunk results for the next edit (analysis/chunks.py); a cold stage starts without them.
        def run():
            for sf in sources.values():
                sf.memo.clear()
            return fn()

        return run

    stages["build model"] = cold(lambda: build_model(project, sources))
    stages["lint (12 rules)"] = cold(lambda: lint(op, chip))

    def end_to_end():
        s, _ = load_sources(project)
        m = build_model(project, s)
        return lint(Operator(project, s, m), chip)

    stages["end to end"] = end_to_end

    # What the editor pays per keystroke: incremental re-parse of the edited file, then model and lint.
    live, _ = load_sources(project)
    edits = iter(range(10**9))

    def after_edit():
        n = next(edits)
        sf = live[str(kernel)]
        sf.update(text.replace("uint32_t loops = blockLength", f"uint32_t loops{n % 7} = blockLength", 1))
        m = build_model(project, live)
        return lint(Operator(project, live, m), chip)

    stages["one edit: incremental parse + model + lint"] = after_edit
    print(f"{'stage':36} {'best ms':>9} {'median ms':>10} {'x baseline':>11}")
    print(f"{'baseline: raw tree-sitter parse':36} {baseline * 1e3:9.2f} {'':>10} {1.0:11.1f}")
    for name, fn in stages.items():
        b, med = best(fn, args.repeat)
        print(f"{name:36} {b * 1e3:9.2f} {med * 1e3:10.2f} {b / baseline:11.1f}")
    total, _ = best(end_to_end, args.repeat)
    print(
        f"end to end: {total * 1e3:.1f} ms = {total / baseline:.1f}x a raw tree-sitter parse "
        f"(target 30 ms: {'met' if total <= 0.030 else 'not met'})"
    )


if __name__ == "__main__":
    main()
