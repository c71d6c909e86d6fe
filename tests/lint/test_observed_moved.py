"""Facts of a run follow the lines the user keeps while typing, and are dropped for lines the user changed."""

from __future__ import annotations

from analysis.observed import BufferSeen, CaseFacts, moved

OLD = "void Init() {\n    pipe.InitBuffer(inQ, 1, len);\n    pipe.InitBuffer(outQ, 1, len);\n}\n"


def _facts() -> list[CaseFacts]:
    return [CaseFacts("c", block_dim=8, buffers=[BufferSeen("k.cpp", 2, 1, 4096), BufferSeen("k.cpp", 3, 1, 4096)],
                      site_calls={("k.cpp", 2): 5, ("h.cpp", 9): 1})]


def test_unchanged_sources_keep_the_facts_as_they_are():
    facts = _facts()
    assert moved(facts, {"k.cpp": OLD}, {"k.cpp": OLD}) is facts


def test_lines_inserted_above_move_the_facts_down():
    new = "// a comment\n\n" + OLD
    [f] = moved(_facts(), {"k.cpp": OLD}, {"k.cpp": new})
    assert [(b.line, b.bytes) for b in f.buffers] == [(4, 4096), (5, 4096)]
    assert f.site_calls == {("k.cpp", 4): 5}  # h.cpp's text is unknown on both sides: its site is dropped
    assert f.block_dim == 8


def test_an_edited_line_loses_its_facts():
    new = OLD.replace("inQ, 1, len", "inQ, 2, len")
    [f] = moved(_facts(), {"k.cpp": OLD}, {"k.cpp": new})
    assert [b.line for b in f.buffers] == [3]
