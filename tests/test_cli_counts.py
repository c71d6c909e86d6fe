"""Counts on the command line (budgets, iterations, workers, how many suggestions) must be at least 1: argparse's
one line names the flag, and nothing runs."""

from __future__ import annotations

import pytest
from paths import EXAMPLES

from tilewise.cli import main


@pytest.mark.parametrize(
    "argv",
    [
        ["tune", "--budget", "0"],
        ["tune", "--workers", "-2"],
        ["optimize", "--budget", "-1", "--no-llm"],
        ["optimize", "--iterations", "0", "--no-llm"],
        ["suggest", "--top", "zero"],
    ],
)
def test_a_count_below_one_is_refused_naming_the_flag(argv, capsys):
    command, *flags = argv
    with pytest.raises(SystemExit) as done:
        main([command, str(EXAMPLES / "add_custom"), *flags])
    assert done.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"tilewise {command}: error: argument {flags[0]}: ")
    assert "must be at least 1" in last or "is not a whole number" in last
