"""double-buffer: the rewind sets the kernel's buffer count to 1; detect finds single buffers both where the
single-buffer rule proves them and where an InitBuffer asks for one buffer with a literal the rule does not follow."""

from __future__ import annotations

import re
import shutil

from paths import EXAMPLES

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rewrite import apply_edits

MOTIF = MOTIFS["double-buffer"]


def test_rewind_sets_the_kernel_count_to_one():
    op = load_operator(EXAMPLES / "add_custom")
    [rw] = MOTIF.rewind(MotifContext(op))
    assert rw.description == "BUFFER_NUM 2 -> 1"
    [text] = rw.texts.values()
    assert "constexpr int32_t BUFFER_NUM = 1;" in text


def test_detect_follows_the_rule_and_its_fix_restores_the_fast_kernel():
    slow = load_operator(EXAMPLES / "add_custom_slow_single_buffer")
    sites = MOTIF.detect(MotifContext(slow))
    assert sites and all(s.edits for s in sites)
    kernel = sites[0].file
    fixed = apply_edits(slow.sources[kernel].text, [e for e in sites[0].edits if e.file == kernel])
    assert re.search(r"BUFFER_NUM = 2;", fixed)


def test_literal_counts_of_one_on_looped_queues_are_sites(tmp_path):
    root = tmp_path / "op"
    shutil.copytree(EXAMPLES / "multi_key_abs_sub", root)
    kernel = next((root / "op_kernel").glob("*.cpp"))
    kernel.write_text(re.sub(r"InitBuffer\((\w+), BUFFER_NUM,", r"InitBuffer(\1, 1,", kernel.read_text()))
    sites = MOTIF.detect(MotifContext(load_operator(root)))
    assert len(sites) == 3 and all(s.edits and s.edits[0].new_text == "2" for s in sites)
    assert "enqueued in a loop" in sites[0].why
    # the fast kernel (counts from the constant, already 2) has none
    assert MOTIF.detect(MotifContext(load_operator(EXAMPLES / "multi_key_abs_sub"))) == []
