"""The SEARCH/REPLACE answer format: read fenced or bare, applied only when it matches exactly once, and only to the
operator's own sources."""

from __future__ import annotations

import pytest

from tilewise.search.llm.blocks import AnswerError, parse_blocks, to_edits

ROOT = "/op"
KERNEL = "/op/op_kernel/add.cpp"
HOST = "/op/op_host/add.cpp"
TEXTS = {
    KERNEL: "void f() {\n    for (int i = 0; i < n; i++) {\n        Step(i);\n        Step(i);\n"
    "        PipeBarrier<PIPE_ALL>();\n    }\n}\n",
    HOST: "const int TILE = 128;\nconst int CORES = 8;\n",
}


def _apply(answer: str):
    return to_edits(parse_blocks(answer), TEXTS, ROOT, set(TEXTS))


def test_a_fenced_block_with_its_path_before_the_fence_replaces_exactly_the_quoted_lines():
    answer = """Remove the barrier: the queues order the stages.

op_kernel/add.cpp
```cpp
<<<<<<< SEARCH
        Step(i);
        PipeBarrier<PIPE_ALL>();
=======
        Step(i);
>>>>>>> REPLACE
```
"""
    edits, problems = _apply(answer)
    assert not problems
    [e] = edits
    assert e.file == KERNEL and "PipeBarrier" not in e.new_text and "        Step(i);\n    }\n" in e.new_text
    assert e.start == 0 and e.end == len(TEXTS[KERNEL].encode())


def test_bare_blocks_in_two_files_and_a_second_block_without_a_path_edits_the_previous_file():
    answer = """op_host/add.cpp
<<<<<<< SEARCH
const int TILE = 128;
=======
const int TILE = 4096;
>>>>>>> REPLACE
<<<<<<< SEARCH
const int CORES = 8;
=======
const int CORES = 48;
>>>>>>> REPLACE
**op_kernel/add.cpp**
<<<<<<< SEARCH
        PipeBarrier<PIPE_ALL>();
=======
>>>>>>> REPLACE
"""
    edits, problems = _apply(answer)
    assert not problems
    by_file = {e.file: e.new_text for e in edits}
    assert by_file[HOST] == "const int TILE = 4096;\nconst int CORES = 48;\n"
    assert "PipeBarrier" not in by_file[KERNEL]


@pytest.mark.parametrize(
    ("search", "reason"),
    [
        ("Step(i);\n", "does not occur exactly (it is there with other indentation or spacing)"),
        ("        Step(j);\n", "its line `Step(j);` does not occur exactly"),
        ("        Step(i);\n", "matches 2 places"),
    ],
)
def test_a_block_that_does_not_match_exactly_once_says_why(search, reason):
    answer = f"op_kernel/add.cpp\n<<<<<<< SEARCH\n{search}=======\nX\n>>>>>>> REPLACE\n"
    edits, [problem] = _apply(answer)
    assert not edits and reason in problem.reason


def test_the_manifest_golden_and_files_outside_the_operator_may_not_change():
    for path in ("tilewise.toml", "golden.py", "../other/add.cpp", "/etc/passwd"):
        answer = f"{path}\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n"
        edits, [problem] = _apply(answer)
        assert not edits and "is not one of the operator's sources" in problem.reason


def test_an_unterminated_block_or_one_without_a_path_cannot_be_read():
    with pytest.raises(AnswerError, match="no >>>>>>> REPLACE"):
        parse_blocks("op_kernel/add.cpp\n<<<<<<< SEARCH\nx\n=======\ny\n")
    with pytest.raises(AnswerError, match="no file path"):
        parse_blocks("<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n")
    assert parse_blocks("I would rather not change anything.") == []
