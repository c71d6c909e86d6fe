"""The development and the test partition side by side (issue 32), for the benchmarks that measure both.

Every benchmark prints its totals per partition in two columns, the development partition (what tilewise has been
tuned against) and the test partition (held out), never folded together: `side_by_side` lays out the rows each
partition's summary gives, and `partition_of` says which partition a corpus operator belongs to
(benchmarks/corpus/sources.toml; the project's own examples are development).
"""

from __future__ import annotations

from benchmarks.corpus_fetch import PARTITIONS


def partition_of(op_id: str, partitions: dict[str, str]) -> str:
    """The partition of an operator id: a listed one's, one below a listed folder takes the folder's, anything
    else (the examples) is development."""
    while op_id and op_id not in partitions:
        op_id = op_id.rpartition("/")[0]
    return partitions.get(op_id, "development")


def side_by_side(tables: dict[str, list[tuple[str, str]]]) -> list[str]:
    """(label, figure) rows per partition as one table, a column per partition in PARTITIONS order; a label one
    partition lacks shows '-' there. Labels keep the order they first appear in."""
    labels = list(dict.fromkeys(label for p in PARTITIONS for label, _ in tables.get(p, [])))
    if not labels:
        return []
    found = {p: dict(tables.get(p, [])) for p in PARTITIONS}
    width = max(len(label) for label in labels)
    cols = {p: max([len(p), *(len(v) for v in found[p].values())]) for p in PARTITIONS}
    lines = [f"{'':<{width}} | " + " | ".join(f"{p:<{cols[p]}}" for p in PARTITIONS)]
    for label in labels:
        lines.append(f"{label:<{width}} | " + " | ".join(f"{found[p].get(label, '-'):<{cols[p]}}" for p in PARTITIONS))
    return lines
