"""analysis/model_error.py and the residuals benchmarks/fidelity.py writes for it: the range around a simulated time
and the verdict on a gain follow the measured error of its kind. The figures here are made up for the test."""

from __future__ import annotations

import json
import math

import pytest

from benchmarks.fidelity import Outcome, model_error
from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.model_error import ModelError, kinds_of_roles, likely_range, load_model_error

ERROR = ModelError.model_validate(
    {
        "source": "test",
        "overall": {"factor": 1.3, "cases": 10},
        "absolute": {"factor": 1.5, "cases": 8},
        "kinds": {"core-count": {"factor": 1.25, "cases": 3}, "tile-size": {"factor": 1.1, "cases": 2}},
    }
)


def test_a_time_gets_the_range_of_the_typical_absolute_error():
    assert ERROR.time_range(30.0) == pytest.approx((20.0, 45.0))
    assert ModelError(source="t", overall={"factor": 1.3, "cases": 1}).time_range(30.0) is None


def test_a_gain_below_its_kinds_error_is_flagged_and_a_larger_one_is_not():
    note = ERROR.gain_note(1.08, ["core-count"])
    assert note == "1.08x is within the model's typical error for core-count changes (1.25x): verify on hardware"
    assert ERROR.gain_note(1.3, ["core-count"]) is None
    assert ERROR.gain_note(1.15, ["tile-size"]) is None  # tile changes are modelled closer
    # several kinds: the least certain decides; an unmeasured kind falls back to the overall figure
    assert "core-count" in (ERROR.gain_note(1.2, ["tile-size", "core-count"]) or "")
    assert ERROR.gain_note(1.2, ["double-buffer"]) == (
        "1.20x is within the model's typical error for changes of this kind (1.30x): verify on hardware"
    )


def test_knob_roles_name_the_kinds_of_change():
    assert kinds_of_roles(["block_dim", "tile", "other", "tile"]) == ["core-count", "tile-size"]


def test_a_broken_error_file_is_one_line_naming_the_file_and_the_fix(tmp_path):
    path = tmp_path / "model_error.json"
    path.write_text('{"source": "x"}')
    with pytest.raises(TilewiseError, match="model_error.json: model error file is invalid .*--write-error"):
        load_model_error(path)
    assert load_model_error(tmp_path / "absent.json") is None


def test_fidelity_residuals_become_the_error_file():
    outcomes = [
        Outcome("a", "core-count", "s", published=4.0, published_us=(40.0, 10.0), predicted_us=(80.0, 10.0)),
        Outcome("b", "core-count", "s", published=2.0, predicted_us=(20.0, 10.0)),
        Outcome("c", "tile-size", "s", published=1.5, error="fast: wrong output"),  # left out
    ]
    data = model_error(outcomes, "test run")
    assert data["overall"] == {"factor": pytest.approx(math.sqrt(2), abs=1e-3), "cases": 2}
    assert data["kinds"] == {"core-count": {"factor": pytest.approx(math.sqrt(2), abs=1e-3), "cases": 2}}
    assert data["absolute"] == {"factor": pytest.approx(math.sqrt(2), abs=1e-3), "cases": 2}  # 80 vs 40, 10 vs 10
    assert ModelError.model_validate(json.loads(json.dumps(data))).overall.cases == 2


def test_the_shipped_error_file_is_valid_and_speaks_the_suites_kinds():
    """The committed file (written by fidelity.py --write-error) loads, and every kind of change tune names is one
    the fidelity suite measures, so no tuned knob falls back to the overall figure by a spelling difference."""
    import tomllib
    from pathlib import Path

    from tilewise.analysis.model_error import ERROR_FILE, KIND_OF_ROLE, KIND_OF_RULE
    from tilewise.analysis.rules import ALL_RULES

    error = load_model_error(ERROR_FILE)
    assert error is not None and error.overall.cases >= 15
    assert likely_range(10.0) == error.time_range(10.0) and likely_range(None) is None
    cases = Path(__file__).resolve().parents[1] / "benchmarks" / "fidelity" / "cases"
    suite = {tomllib.loads((c / "case.toml").read_text())["case"]["kind"] for c in cases.iterdir()}
    assert set(KIND_OF_ROLE.values()) <= suite and set(KIND_OF_RULE.values()) <= suite
    assert set(KIND_OF_RULE) <= {r.id for r in ALL_RULES}  # no rule id misspelt
    assert set(error.kinds) == suite
