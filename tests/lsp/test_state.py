"""The server's state without a client: superseded analyses stop early, settings are validated."""

from __future__ import annotations

import threading

import pytest
from lsp_helpers import EXAMPLES
from pydantic import ValidationError

from tilewise.lsp.state import ServerState, Settings, Superseded


def test_a_superseded_analysis_stops_and_a_current_one_finishes():
    state = ServerState()
    root = str(EXAMPLES / "add_custom_slow_pipe_all")
    stale = threading.Event()
    stale.set()
    with pytest.raises(Superseded):
        state.analyse(state.snapshot(root, {}), stale)
    analysis = state.analyse(state.snapshot(root, {}), threading.Event())
    assert any(f.rule == "pipe-all-in-loop" for f in analysis.findings)


@pytest.mark.parametrize(
    ("values", "complaint"),
    [
        ({"chip": "910X"}, "910B1, 910B2"),
        ({"strategy": "annealing"}, "evo, random"),
        ({"budget": 0}, "greater"),
        ({"device": "gpu"}, "emulator|npu"),
    ],
)
def test_bad_settings_name_what_is_allowed(values, complaint):
    with pytest.raises(ValidationError) as err:
        Settings.model_validate(values)
    assert complaint in str(err.value)


def test_settings_ignore_the_clients_own_keys():
    s = Settings.model_validate({"chip": "910B4", "pythonPath": "/somewhere/python", "trace": {"server": "off"}})
    assert s.chip == "910B4" and s.strategy == "evo"


@pytest.mark.asyncio
async def test_a_stored_tune_lookup_cut_short_by_an_edit_is_made_again():
    """Opening a second file of an operator cancels the first analysis; if that happened while the stored tune
    results were being read, the next analysis must read them, not skip them as already done."""
    import asyncio

    from tilewise.lsp.server import TilewiseServer
    from tilewise.search.cache import BestConfig

    server = TilewiseServer()
    root = str(EXAMPLES / "add_custom")
    best = BestConfig(cases=["c"], config={"TILE_LENGTH": 4096}, best_us=1.0, baseline_us=2.0)
    started = threading.Event()

    def slow_lookup(analysis, settings):
        started.set()
        threading.Event().wait(0.3)
        return best

    server.state.stored_best = slow_lookup
    analysis = await asyncio.to_thread(server.state.analyse, server.state.snapshot(root, {}))
    first = asyncio.ensure_future(server._replay_stored_tune(root, analysis))
    await asyncio.to_thread(started.wait, 5)
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    assert server.state.session(root).tuned is None
    await server._replay_stored_tune(root, analysis)
    assert server.state.session(root).tuned == best


def test_the_parsed_source_cache_keeps_the_recent_operators_only(monkeypatch):
    import tilewise.lsp.state as state_module

    monkeypatch.setattr(state_module, "KEPT_SOURCES", 4)
    state = ServerState()
    first = str(EXAMPLES / "add_custom")
    state.analyse(state.snapshot(first, {}))
    for name in ("silu", "gelu", "leaky_relu"):
        state.analyse(state.snapshot(str(EXAMPLES / name), {}))
    assert len(state.sources) <= 4
    assert not any(p.startswith(first + "/") for p in state.sources)  # the oldest operator's files went first
    last = state.analyse(state.snapshot(str(EXAMPLES / "leaky_relu"), {}))
    assert all(state.sources[p] is sf for p, sf in last.op.sources.items())  # the current one's are all kept
