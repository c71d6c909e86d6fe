"""Two users of one cache: two `tilewise tune` processes at once on the same TILEWISE_CACHE (the CLI and the editor
look the same to it) both finish with the right answer, the cache passes `PRAGMA integrity_check`, and a
configuration both want is measured once: the process that claimed it measures, the other waits for its row
(search/cache.py). Run as real processes, in parallel; nothing here depends on which one starts first."""

from __future__ import annotations

import json
import sqlite3

from opgen import SCALE_GOLDEN, SMALL_TUNED_HOST, scale_manifest, small_tuned_operator, write_operator
from tuneproc import cache_state, fresh_cache, start, tune_argv


def finish(procs) -> list[dict]:
    outputs = [p.communicate(timeout=600) for p in procs]
    for p, (_, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
    return [json.loads(out) for out, _ in outputs]


def measured(result: dict) -> int:
    return result["evaluations"] - result["cached"]


def test_two_tunes_of_one_operator_at_once_measure_each_configuration_once(tmp_path, emu_cache, needs_gxx):
    root = small_tuned_operator(tmp_path / "scale")
    cache, env = fresh_cache(tmp_path / "cache", emu_cache)
    a, b = finish([start(tune_argv(root), env), start(tune_argv(root), env)])
    assert a["best"] is not None and a["best"] == b["best"] and a["best_us"] == b["best_us"]
    assert not a["failed"] and not b["failed"] and a["evaluations"] == b["evaluations"] == 4
    assert cache_state(cache) == ("ok", 4)
    assert measured(a) + measured(b) == 4  # each configuration measured by one of them, read by the other
    con = sqlite3.connect(cache / "results.sqlite")
    assert con.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0  # every claim was let go
    con.close()


def test_two_tunes_of_different_operators_at_once_share_the_cache(tmp_path, emu_cache, needs_gxx):
    first = small_tuned_operator(tmp_path / "scale")
    second = write_operator(  # another operator as the cache sees it: other sources, another case
        tmp_path / "scale2",
        host=SMALL_TUNED_HOST.replace("ws[0] = 0;", "ws[0] = 0;  // second"),
        manifest=scale_manifest(32768),
    )
    (second / "golden.py").write_text(SCALE_GOLDEN)
    cache, env = fresh_cache(tmp_path / "cache", emu_cache)
    a, b = finish([start(tune_argv(first), env), start(tune_argv(second), env)])
    for result in (a, b):
        assert not result["failed"] and result["evaluations"] == 4 and measured(result) == 4
        assert result["best"] is not None
    assert cache_state(cache) == ("ok", 8)
