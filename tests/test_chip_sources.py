"""Every constant in a built-in chip file says where it comes from (issue 15): a document, a table, a cost model, or
"tilewise estimate" with what would settle it. A constant without a source, or a source left behind by a constant
that is gone, fails here with the chip and the key to fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tilewise.analysis.chip import builtin_chips

CHIPS = Path(__file__).resolve().parents[1] / "src" / "tilewise" / "analysis" / "data" / "chips"
DESCRIPTIVE = {"name", "description", "sources", "cube_cores"}  # not constants the model computes with


def constants(data: dict) -> list[str]:
    """Dotted paths of the numbers the model uses: top-level figures, each timing constant, the vector table."""
    keys = [k for k, v in data.items() if k not in DESCRIPTIVE and not isinstance(v, dict)]
    for k, v in data.get("timing", {}).items():
        keys.append(f"timing.{k}")
        if isinstance(v, dict):  # the vector table: one entry per op
            keys.extend(f"timing.{k}.{op}" for op in v)
    return keys


def source_for(key: str, sources: dict[str, str]) -> str | None:
    """The source of `key`: its own entry, or the nearest dotted ancestor's (`timing.vector` covers its ops)."""
    parts = key.split(".")
    for n in range(len(parts), 0, -1):
        if found := sources.get(".".join(parts[:n])):
            return found
    return None


@pytest.mark.parametrize("chip", builtin_chips())
def test_every_constant_has_a_source(chip):
    data = json.loads((CHIPS / f"{chip}.json").read_text())
    sources = data.get("sources", {})
    missing = [key for key in constants(data) if not (source_for(key, sources) or "").strip()]
    assert missing == [], f"{chip}.json: add a 'sources' entry for each of these"
    unused = [s for s in sources if not any(k == s or k.startswith(s + ".") for k in constants(data))]
    assert unused == [], f"{chip}.json: these sources name no constant"


def test_the_check_sees_a_constant_without_a_source():
    data = {"clock_ghz": 1.8, "timing": {"dma_startup_cycles": 30, "vector": {"Add": {}}}, "sources": {}}
    data["sources"] = {"clock_ghz": "ini", "timing.vector": "PTO-ISA"}
    assert [k for k in constants(data) if source_for(k, data["sources"]) is None] == ["timing.dma_startup_cycles"]
