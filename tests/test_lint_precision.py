"""benchmarks/lint_precision.py: labels are read strictly (a bad entry stops with its file and entry named), and the
report counts verdicts per rule, the false-positive share, and labels whose finding no longer fires."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.lint_precision import Found, Key, load_labels, report

LABEL = '[[label]]\nop = "a/op"\nfile = "k.cpp"\nline = {line}\nverdict = "{verdict}"\nreason = "why"\n'


def test_labels_are_keyed_by_rule_operator_file_and_line(tmp_path: Path):
    (tmp_path / "scalar-loop.toml").write_text(
        LABEL.format(line=3, verdict="true") + LABEL.format(line=9, verdict="false")
    )
    labels = load_labels(tmp_path)
    assert {k: v.verdict for k, v in labels.items()} == {
        Key("scalar-loop", "a/op", "k.cpp", 3): "true",
        Key("scalar-loop", "a/op", "k.cpp", 9): "false",
    }


@pytest.mark.parametrize(
    "text, says",
    [
        (LABEL.format(line=3, verdict="maybe"), "verdict 'maybe': use one of true, low, false"),
        ('[[label]]\nop = "a/op"\nline = 3\nverdict = "true"\n', "missing file"),
        (LABEL.format(line=3, verdict="true") * 2, "labelled twice"),
        ("[[label]\n", "fix the TOML syntax"),
    ],
)
def test_a_bad_label_stops_with_its_file_and_entry(tmp_path: Path, text: str, says: str):
    (tmp_path / "small-copy.toml").write_text(text)
    with pytest.raises(SystemExit) as stop:
        load_labels(tmp_path)
    assert "small-copy.toml" in str(stop.value) and says in str(stop.value)


def test_report_counts_verdicts_and_labels_no_longer_found(tmp_path: Path):
    (tmp_path / "single-buffer.toml").write_text(
        LABEL.format(line=1, verdict="true")
        + LABEL.format(line=2, verdict="false")
        + LABEL.format(line=3, verdict="low")
        + LABEL.format(line=4, verdict="true")
    )
    labels = load_labels(tmp_path)
    found = [Found(Key("single-buffer", "a/op", "k.cpp", n), "info", "", []) for n in (1, 2, 3, 5)]
    lines = report(found, labels)
    row = next(line for line in lines if line.startswith("single-buffer"))
    # 4 findings, 3 labelled (1 true, 1 low, 1 false: FP 33%, worth 33%); the true label at line 4 is gone
    assert row.split()[:8] == ["single-buffer", "4", "3", "1", "1", "1", "33%", "33%"]
    assert row.rstrip().endswith("true 1")


def test_the_partitions_are_reported_side_by_side_with_false_errors_counted():
    from benchmarks.lint_precision import Label, by_partition

    dev = Key("small-copy", "devrepo/op", "op_kernel/k.cpp", 3)
    dev_false = Key("small-copy", "devrepo/op", "op_kernel/k.cpp", 9)
    test_false = Key("syntax-error", "testrepo/op", "op_kernel/k.cpp", 5)
    found = [
        Found(dev, "info", "", []),
        Found(dev_false, "info", "", []),
        Found(test_false, "error", "", []),
        Found(Key("syntax-error", "testrepo/op", "op_kernel/k.cpp", 7), "error", "", []),  # unlabelled
    ]
    labels = {
        dev: Label(dev, "true", "", "t"),
        dev_false: Label(dev_false, "false", "", "t"),
        test_false: Label(test_false, "false", "", "t"),
    }
    lines = by_partition(found, labels, {"devrepo/op": "development", "testrepo/op": "test"})
    rows = {ln.split("|")[0].strip(): [c.split() for c in ln.split("|")[1:]] for ln in lines[1:-1]}
    assert rows["small-copy"] == [["2", "2", "50%", "0"], ["0", "0", "-", "0"]]
    assert rows["syntax-error"] == [["0", "0", "-", "0"], ["2", "1", "100%", "1"]]
    assert rows["overall"] == [["2", "2", "50%", "0"], ["2", "1", "100%", "1"]]
