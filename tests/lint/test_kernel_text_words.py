"""KernelText.words counts identifiers minus those starting inside skipped ranges (declarations). It is written for
speed (C-level scans, no per-word Python loop); this checks it against the plain per-word definition."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tilewise.analysis.rules._kernel_text import KernelText

WORD = re.compile(r"[A-Za-z_]\w*")


def reference(text: str, spans: list[tuple[int, int]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in WORD.finditer(text):
        if not any(a <= m.start() < b for a, b in spans):
            counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    return counts


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet="ab_1 .;x(", max_size=40), st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), max_size=3)
)
def test_words_matches_the_per_word_definition(text, raw):
    spans = [(min(a, b), max(a, b)) for a, b in raw]  # ranges may run past the text's end
    assert KernelText(texts={"k.cpp": text}).words({"k.cpp": spans}) == reference(text, spans)
