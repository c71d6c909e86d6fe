"""tilewise.device.sites folds a run's per-block call-site rows into one summary per line; hover formats it (no g++
here: the rows are written by hand, as the runner would)."""

from __future__ import annotations

from tilewise.analysis.explain_markdown import format_measured
from tilewise.device.protocol import SiteUse
from tilewise.device.sites import per_line
from tilewise.lsp.state import RunLines


def _row(block: int, calls: int, size: int, api: str = "DataCopy", pipe: str = "MTE2", line: int = 12) -> SiteUse:
    return SiteUse(
        block=block,
        pipe=pipe,
        api=api,
        file="/op/k.cpp",
        line=line,
        calls=calls,
        bytes=calls * size,
        min_bytes=size,
        max_bytes=size,
        repeats=calls * -(-size // 256),
        min_repeats=-(-size // 256),
        max_repeats=-(-size // 256),
        busy_us=0.5 * calls,
    )


def test_blocks_fold_into_one_summary_per_line_api_and_pipe():
    rows = [_row(0, 2, 8192), _row(1, 1, 4096), _row(1, 3, 1024, api="Add", pipe="VECTOR")]
    lines = per_line(rows, blocks=3)  # block 2 never reached the line
    vec, copy = lines[("/op/k.cpp", 12)]  # in API order
    assert (copy.calls, copy.blocks, copy.active_blocks) == (3, 3, 2)
    assert (copy.min_calls_per_block, copy.max_calls_per_block) == (0, 2)
    assert (copy.bytes, copy.min_bytes, copy.max_bytes, copy.busy_us) == (20480, 4096, 8192, 1.5)
    assert (vec.api, vec.calls, vec.repeats, vec.min_repeats) == ("Add", 3, 12, 4)


def test_hover_text_of_a_run_and_when_the_file_changed_since():
    run = RunLines(
        case="base",
        lines=per_line([_row(b, 2, 8192) for b in range(4)], blocks=4),
        text_hashes={"/op/k.cpp": hash("text as run")},
    )
    text = format_measured(run, "/op/k.cpp", 12, "DataCopy", "text as run")
    assert text == (
        "**Last run** (case base): 8 calls (2 per block over 4 blocks), 8,192 bytes each, MTE2 4.00 µs in total"
    )
    assert format_measured(run, "/op/k.cpp", 12, "DataCopy", "edited").endswith("(sources changed since)")
    assert format_measured(run, "/op/k.cpp", 13, "DataCopy", "text as run") == (
        "**Last run** (case base): no calls from this line."
    )
    mixed = RunLines(case="base", lines=per_line([_row(0, 1, 8192), _row(1, 1, 4096)], blocks=2), text_hashes={})
    assert "4,096 to 8,192 bytes per call (6,144 on average)" in format_measured(mixed, "/op/k.cpp", 12, "DataCopy", "")
