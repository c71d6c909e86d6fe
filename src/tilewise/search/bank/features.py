"""A kernel's features, as retrieval compares them: from its model (APIs, loops, layout) and its runs (bottleneck,
pipe ratios, dtypes)."""

from __future__ import annotations

from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Measurement
from tilewise.search.bank.store import Features, Profile


def profile(runs: list[tuple[Case, Measurement]]) -> Profile:
    """The summed time over the cases, with the pipes and bottleneck of the largest case (where they say most)."""
    timed = [(c, m) for c, m in runs if m.time_us is not None]
    if not timed:
        return Profile(time_us=0.0)
    _, largest = max(timed, key=lambda cm: cm[0].input_elements)
    return Profile(
        time_us=sum(m.time_us or 0.0 for _, m in timed),
        bottleneck=largest.bottleneck,
        pipes={name: round(use.ratio, 3) for name, use in sorted(largest.pipes.items())},
    )


def kernel_features(op: Operator, runs: list[tuple[Case, Measurement]]) -> Features:
    prof = profile(runs)
    kernel = set(op.model.kernel_files)
    apis = sorted({c.name for c in op.model.api_calls if c.loc.file in kernel})
    # lexical loops, or one when the call's function is called from a loop (CopyIn called by Process's tile loop)
    depth = max((len(c.loops) or int(c.in_loop) for c in op.model.api_calls if c.loc.file in kernel), default=0)
    dtypes = sorted({spec.dtype for case, _ in runs for spec in case.inputs.values() if getattr(spec, "dtype", None)})
    return Features(
        bottleneck=prof.bottleneck,
        pipe_ratios=prof.pipes,
        dtypes=dtypes,
        apis=apis,
        loop_depth=depth,
        layout=op.project.layout,
    )
