"""A tune that capped a platform query shows in the editor (server/lsp/results.py): an Information diagnostic on the
query, whose "Apply" action writes the clamp after it; once the clamp stands, the diagnostic clears."""

from __future__ import annotations

from types import SimpleNamespace

from opgen import PLATFORM_HOST, scale_manifest, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.findings import Fix
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rewrite import apply_fix, tuned_edits
from tilewise.lsp.results import tuned_items
from tilewise.search.cache import BestConfig


def _analysis(root):
    return SimpleNamespace(op=load_operator(root), context=SimpleNamespace(chip=load_chip("910B2")))


def test_a_capped_platform_query_is_shown_and_applied_once(tmp_path):
    root = write_operator(tmp_path / "scale", host=PLATFORM_HOST, manifest=scale_manifest(12288))
    best = BestConfig(config={"platform.cores": 8}, best_us=2.0, baseline_us=3.0, cases=["small"])
    (item,) = tuned_items(_analysis(root), best)
    assert item.file.endswith("op_host/scale.cpp")
    assert item.diagnostic.code == "tuned-tiling" and "platform.cores=8: 1.50x faster" in item.diagnostic.message
    line = PLATFORM_HOST.splitlines().index("    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();")
    assert item.diagnostic.range.start.line == line
    assert item.action is not None and item.action.edit is not None
    edit = item.action.edit
    texts = [e.new_text for changes in (edit.changes or {}).values() for e in changes]
    texts += [e.new_text for dc in edit.document_changes or [] for e in getattr(dc, "edits", [])]
    assert any("coreNum = coreNum < 8 ? coreNum : 8;" in t for t in texts)  # the action carries the clamp
    op = load_operator(root)
    apply_fix(
        Fix(title="t", edits=tuned_edits(op.model, op.sources, best.config, {"platform.cores": 48}, ["small"])),
        write=True,
    )
    assert tuned_items(_analysis(root), best) == []  # the clamp stands: nothing left to apply
