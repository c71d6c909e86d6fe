"""Every example operator, every manifest case, on the emulator: it builds, runs clean (no sanitizer error and no
warning: no race, no dropped copy tail) and matches its golden.

The cases of one example share an xdist worker (`xdist_group`, scripts/test.sh runs `--dist loadgroup`): run one
after another, a later case of the same dtypes finds the first one's build in the session's build cache instead of
compiling it again at the same time on the other worker. A hand-slowed variant (`<example>_slow_<what>`: the same
operator with one performance mistake put in, for the bank and `suggest`) is `slow`: it calls what its original
calls, which the fast suite runs; `--all` (CI) runs the variants too."""

from __future__ import annotations

import pytest
from paths import example_dirs

from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

CASES = [
    pytest.param(
        d,
        c.name,
        id=f"{d.name}:{c.name}",
        marks=[pytest.mark.xdist_group(f"example-{d.name}"), *([pytest.mark.slow] if "_slow_" in d.name else [])],
    )
    for d in example_dirs()
    for c in load_operator(d).manifest.cases
]


@pytest.mark.parametrize(("root", "case"), CASES)
def test_example_matches_its_golden(root, case, emu_cache, needs_gxx):
    op = load_operator(root)
    m = EmulatorDevice(cache_dir=emu_cache).run(op, RunRequest(op.manifest.case(case)))
    assert m.error is None, m.error
    assert m.warnings == [], m.warnings
    assert m.ok and m.correct, [o for o in m.outputs if not o.ok]
    assert m.block_dim >= 1
