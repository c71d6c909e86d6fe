"""Facts of a run follow the lines the user keeps while typing, and are dropped for lines the user changed."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tilewise.analysis.observed import BufferSeen, CaseFacts, _line_map, moved

OLD = "void Init() {\n    pipe.InitBuffer(inQ, 1, len);\n    pipe.InitBuffer(outQ, 1, len);\n}\n"


def _facts() -> list[CaseFacts]:
    return [
        CaseFacts(
            "c",
            block_dim=8,
            buffers=[BufferSeen("k.cpp", 2, 1, 4096), BufferSeen("k.cpp", 3, 1, 4096)],
            site_calls={("k.cpp", 2): 5, ("h.cpp", 9): 1},
        )
    ]


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


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "}", "{", ""]), max_size=15),
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 20), st.sampled_from(["a", "}", "x"])), max_size=3),
)
def test_line_map_keeps_text_and_order(lines, edits):
    """Whatever the edit, a mapped line holds the same text in the new file, the order is kept, lines before and
    after the edit map to themselves (shifted after it), and no two old lines share a new one."""
    new = list(lines)
    for op, at, text in edits:
        at = min(at, len(new))
        if op == 0:
            new.insert(at, text)
        elif new and op == 1:
            new[min(at, len(new) - 1)] = text
        elif new:
            del new[min(at, len(new) - 1)]
    old_text, new_text = "".join(f"{x}\n" for x in lines), "".join(f"{x}\n" for x in new)
    m = _line_map(old_text, new_text)
    assert all(lines[o - 1] == new[n - 1] for o, n in m.items())
    pairs = sorted(m.items())
    assert [n for _, n in pairs] == sorted(n for _, n in pairs) and len(set(m.values())) == len(m)
    head = next((i for i, (a, b) in enumerate(zip(lines, new, strict=False)) if a != b), min(len(lines), len(new)))
    assert all(m.get(i) == i for i in range(1, head + 1))
