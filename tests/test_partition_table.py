"""The two-column layout every benchmark prints (benchmarks/partition_table.py), and bank.py's sample of a
partition: a row one partition lacks shows '-', an operator below a listed folder takes the folder's partition, and
a limited run spreads over the list."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bank import spread
from benchmarks.partition_table import partition_of, side_by_side


def test_side_by_side_gives_each_partition_a_column_and_marks_missing_rows() -> None:
    lines = side_by_side(
        {
            "development": [("slowed operators", "12"), ("  recipe a", "3/4 of 5")],
            "test": [("slowed operators", "7"), ("  recipe b", "1/2 of 2")],
        }
    )
    header, *rows = lines
    assert header.split("|")[1].strip() == "development" and header.split("|")[2].strip() == "test"
    cells = {row.split("|")[0].strip(): [c.strip() for c in row.split("|")[1:]] for row in rows}
    assert cells == {"slowed operators": ["12", "7"], "recipe a": ["3/4 of 5", "-"], "recipe b": ["-", "1/2 of 2"]}
    assert len({len(line) for line in lines}) == 1  # the columns line up


def test_side_by_side_of_nothing_is_nothing() -> None:
    assert side_by_side({}) == []


def test_partition_of_reads_the_listed_folder_above() -> None:
    parts = {"opsnn/activation/relu": "test", "s2/ops/Add": "development"}
    assert partition_of("opsnn/activation/relu", parts) == "test"
    assert partition_of("opsnn/activation/relu/inner/variant", parts) == "test"
    assert partition_of("s2/ops/Add", parts) == "development"
    assert partition_of("examples/add_custom", parts) == "development"


def test_spread_takes_evenly_spaced_items_in_order() -> None:
    items = list(range(10))
    assert spread(items, 5) == [0, 2, 4, 6, 8]
    assert spread(items, None) == items
    assert spread(items, 20) == items
    assert spread(items, 0) == []
