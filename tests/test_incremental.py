"""The language server re-analyses on every keystroke by reusing what did not change: the preprocessed text
around the edit, and per-chunk extraction results. Whatever it reuses, the result must be exactly what a fresh
analysis of the same text gives."""

from __future__ import annotations

import dataclasses
import os
import random
import re
from pathlib import Path

import pytest
from opgen import big_kernel, write_operator
from paths import EXAMPLES

from tilewise.analysis.chip import load_chip
from tilewise.analysis.chunks import memo
from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator
from tilewise.analysis.preprocess import reprocess
from tilewise.analysis.rules import RuleContext
from tilewise.analysis.source import SourceFile

SNIPPETS = [
    "x",
    "\n",
    "(",
    ")",
    "{",
    "}",
    ";",
    "/*",
    "*/",
    '"',
    "// c",
    "#else\n",
    "#if 1\n",
    "#endif\n",
    "__aicore__ ",
    "ASSERT(",
    "CHECK(a, return;)",
    "\n\n\n",
    "template ",
    "é",
    "DECLARE(half)\n",
    "<<<",
    ">>>",
    "",
]


def dump(obj):
    """Everything in a model, positions included (`start`/`end` are left out of its JSON), caches left out."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: dump(getattr(obj, f.name)) for f in dataclasses.fields(obj) if not f.name.startswith("_")}
    if isinstance(obj, list):
        return [dump(x) for x in obj]
    return obj


def same_as_fresh(sf: SourceFile) -> None:
    fresh = SourceFile(sf.path, sf.text)
    assert sf.pre.text == fresh.pre.text
    assert sf.pre.marks == fresh.pre.marks
    assert sf._line_starts == fresh._line_starts


@pytest.mark.parametrize("seed", [1, 2])
def test_preprocessing_after_random_edits_matches_a_fresh_pass(seed):
    rng = random.Random(seed)
    texts = [big_kernel(600)] + [p.read_text() for p in sorted(EXAMPLES.glob("*/op_kernel/*.cpp"))[:4]]
    texts.append((EXAMPLES / "kernel_invocation_add" / "add_kernel.cpp").read_text())  # a <<<...>>> launch
    for text in texts:
        sf = SourceFile("k.cpp", text)
        for _ in range(60):
            i = rng.randrange(len(text) + 1)
            j = min(len(text), i + rng.choice([0, 0, 1, 5, 50]))
            text = text[:i] + rng.choice(SNIPPETS) * rng.choice([1, 2]) + text[j:]
            sf.update(text)
            same_as_fresh(sf)


def test_an_edit_inside_a_long_macro_call_reprocesses_the_whole_call():
    # The macro starts far above the edit; a `return` typed into its arguments makes it a statement macro.
    items = ",\n".join(f"        ITEM_{i}" for i in range(60))
    text = f"int a = 1;\n\nDECL_ARGS(\n    Op,\n{items});\n\nint b = 2;\n"
    sf = SourceFile("k.h", text)
    at = text.index("ITEM_50")
    sf.update(text[:at] + "CHECK(a, return;) " + text[at:])
    same_as_fresh(sf)
    assert any(m.name == "DECL_ARGS" for m in sf.pre.marks)


def test_an_unterminated_comment_blanks_to_the_end_and_closing_it_restores():
    text = big_kernel(400)
    sf = SourceFile("k.cpp", text)
    at = text.index("uint32_t loops")
    for edited in (text[:at] + "/*" + text[at:], text):
        sf.update(edited)
        same_as_fresh(sf)


COND_SNIPPETS = [
    "#if 0\n",
    "#else\n",
    "#endif\n",
    "#elif __CCE_AICORE__ == 220\n",
    "#ifdef ASCENDC_CPU_DEBUG\n",
    "#ifndef __CCE_KT_TEST__\n",
    "#define __CCE_KT_TEST__\n",
    "#define LEVEL 2\n",
    "#undef LEVEL\n",
    "#if LEVEL == 2 && \\\n",
    "\\\n",
    "x",
    "\n",
    ";",
    "/*",
    "*/",
    "",
]


def _conditional_kernel(lines: int) -> str:
    """A large kernel whose classes sit in `#if` branches of every kind the device configuration decides."""
    text = big_kernel(lines)
    cut = [m.start() for m in re.finditer(r"^class ", text, re.M)]
    parts = [text[a:b] for a, b in zip([0, *cut], [*cut, len(text)], strict=False)]
    wraps = [
        ("#ifndef __CCE_KT_TEST__\n", "#endif\n"),
        ("#define LEVEL 2\n#if LEVEL >= 2\n", "#else\nint cpu;\n#endif\n"),
        ("#if defined(ASCENDC_CPU_DEBUG)\nint dbg;\n#else\n", "#endif\n"),
        ("#ifdef USER_FLAG\n", "#endif\n"),
    ]
    return "".join(w[0] + p + w[1] if k and (w := wraps[k % len(wraps)]) else p for k, p in enumerate(parts))


@pytest.mark.parametrize("seed", [3, 4])
def test_edits_in_and_around_conditional_branches_match_a_fresh_pass(seed):
    rng = random.Random(seed)
    text = _conditional_kernel(500)
    sf = SourceFile("k.cpp", text)
    same_as_fresh(sf)
    directives = [m.start() for m in re.finditer(r"^#", text, re.M)]
    for step in range(80):
        if step % 3 == 0 and directives:  # near a directive: inside a branch, on the condition, on `#endif`
            i = min(len(text), max(0, rng.choice(directives) + rng.randrange(-40, 40)))
        else:
            i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.choice([0, 0, 1, 5, 30]))
        text = text[:i] + rng.choice(COND_SNIPPETS) + text[j:]
        sf.update(text)
        same_as_fresh(sf)


def test_a_define_typed_above_a_decided_conditional_is_not_a_local_edit():
    # `#ifndef __CCE_KT_TEST__` with no #else blanks nothing, so edits elsewhere stay incremental; a #define of the
    # macro typed far above must still blank the whole branch, as a fresh pass does.
    body = big_kernel(300)
    pad = "".join(f"int pad{i} = {i};\n" for i in range(60))  # the window around `int a` ends before the #ifndef
    text = "#include <cstdint>\nint a = 1;\n" + pad + "#ifndef __CCE_KT_TEST__\n" + body + "#endif\n"
    sf = SourceFile("k.cpp", text)
    at = text.index("int a = 1;")
    plain = text[:at] + "int b = 2;\n" + text[at:]
    lo = text.rfind("\n", 0, at) + 1
    assert reprocess(sf.pre, plain.encode(), lo, at + 11, len(plain) - len(text)) is not None
    for edited in (text[:at] + "#define __CCE_KT_TEST__\n" + text[at:], text, plain):
        sf.update(edited)
        same_as_fresh(sf)
    sf.update(text[:at] + "#define __CCE_KT_TEST__\n" + text[at:])
    assert b"KernelScale" not in sf.pre.text


def _operator(tmp_path: Path, lines: int = 900) -> tuple[Path, Path, str]:
    root = write_operator(tmp_path / "big", kernel=big_kernel(lines))
    kernel = root / "op_kernel" / "scale.cpp"
    return root, kernel, kernel.read_text()


def _analysis(root: Path, kernel: Path, text: str, cache=None):
    op = load_operator(root, overlay={str(kernel): text}, cache=cache)
    findings = lint(op, context=RuleContext(op.model, op.sources, load_chip()))
    return op, dump(op.model), [f.model_dump() | {"start": f.start, "end": f.end} for f in findings]


EDITS = {
    "type in a function body": lambda t: t.replace("uint32_t loops", "uint32_t loopsx", 1),
    "add lines at the top": lambda t: "// header\n\n\n" + t,
    "duplicate a class": lambda t: t + t[t.index("class KernelScale0") : t.index("class KernelScale1")],
    "change a constant": lambda t: t.replace("BUFFER_NUM = 2", "BUFFER_NUM = 1", 1),
    "rename a function": lambda t: t.replace("CopyIn(", "Fetch(", 3),
    "break the syntax": lambda t: t[: len(t) // 2] + "{{ (" + t[len(t) // 2 :],
    "non-ASCII on a moved line": lambda t: "// é\n" + t.replace("uint32_t loops", "uint32_t lé", 1),
}


def test_a_model_rebuilt_from_kept_chunks_is_the_fresh_model(tmp_path):
    root, kernel, text = _operator(tmp_path)
    cache: dict[str, SourceFile] = {}
    _analysis(root, kernel, text, cache)
    for name, edit in EDITS.items():
        text = edit(text)
        op, model, findings = _analysis(root, kernel, text, cache)
        _, fresh_model, fresh_findings = _analysis(root, kernel, text)
        assert model == fresh_model, name
        assert findings == fresh_findings, name
        calls = op.model.api_calls  # the call indexes the builder assembled from kept chunks
        for api in {c.name for c in calls}:
            assert op.model.calls(api) == [c for c in calls if c.name == api], (name, api)
        for owner in {c.owner for c in calls}:
            assert op.model.calls_in(owner) == [c for c in calls if c.owner == owner], (name, owner)
        assert op.model.calls("EnQue", "DeQue") == [c for c in calls if c.name in ("EnQue", "DeQue")], name


def test_typing_in_one_function_re_extracts_only_its_chunk(tmp_path):
    root, kernel, text = _operator(tmp_path)
    cache: dict[str, SourceFile] = {}
    _analysis(root, kernel, text, cache)
    op, _, _ = _analysis(root, kernel, text.replace("uint32_t loops", "uint32_t loopz", 1), cache)
    kept = memo(op.sources[str(kernel)], "kernel:kernel")
    assert kept.misses == 1 and kept.hits >= 5


def test_a_source_changed_on_disk_is_read_again(tmp_path):
    root, kernel, text = _operator(tmp_path, lines=200)
    host = root / "op_host" / "scale.cpp"
    cache: dict[str, SourceFile] = {}
    before, _, _ = _analysis(root, kernel, text, cache)
    assert before.sources[str(host)] is _analysis(root, kernel, text, cache)[0].sources[str(host)]  # not re-read
    host.write_text(host.read_text() + "\n// edited\n")
    os.utime(host, ns=(0, 0))  # a different stamp even on a file system with coarse times
    after, _, _ = _analysis(root, kernel, text, cache)
    assert after.sources[str(host)].text.endswith("// edited\n")


def test_a_constant_computed_from_one_in_a_kept_chunk_keeps_its_value(tmp_path):
    # DEPTH depends on constants in chunks above it, kept or not; an edit below must not lose their values.
    text = big_kernel(600).replace("class KernelScale0", "constexpr uint32_t BLOCK = 512;\n\nclass KernelScale0", 1)
    text = text.replace(
        "class KernelScale1 {",
        "constexpr uint32_t DEPTH = BLOCK / 512 + BUFFER_NUM;\n\n"
        "class KernelScale1 {\n    TQue<QuePosition::VECIN, DEPTH> extraQueue;",
        1,
    )
    root = write_operator(tmp_path / "op", kernel=text)
    kernel = root / "op_kernel" / "scale.cpp"
    cache: dict[str, SourceFile] = {}
    for edited in (
        text,
        text[: text.index("DEPTH =")] + text[text.index("DEPTH =") :].replace("uint32_t loops", "uint32_t loopz", 1),
    ):
        op, model, _ = _analysis(root, kernel, edited, cache)
        assert next(q for q in op.model.queues if q.name == "extraQueue").depth == 3
        assert model == _analysis(root, kernel, edited)[1]


OUT_OF_CLASS = """#include "kernel_operator.h"
using namespace AscendC;

class KernelCopy {
public:
    __aicore__ inline void Process(GM_ADDR x);
    __aicore__ inline void CopyIn(uint32_t i);
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueueX;
    GlobalTensor<half> xGm;
};

__aicore__ inline void KernelCopy::Process(GM_ADDR x)
{
    for (uint32_t i = 0; i < 8; i++) {
        CopyIn(i);
    }
}

__aicore__ inline void KernelCopy::CopyIn(uint32_t i)
{
    LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
    DataCopy(xLocal, xGm[i * 4096], 4096);
    inQueueX.EnQue(xLocal);
}

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    KernelCopy op;
    op.Process(x);
}
"""


def test_a_kept_chunk_follows_a_call_graph_change_in_another(tmp_path):
    # CopyIn's chunk does not change; whether its DataCopy runs in a loop is decided in Process's chunk.
    root = write_operator(tmp_path / "op", kernel=OUT_OF_CLASS)
    kernel = root / "op_kernel" / "scale.cpp"
    cache: dict[str, SourceFile] = {}
    looped = _analysis(root, kernel, OUT_OF_CLASS, cache)[0].model.calls("DataCopy")
    assert looped[0].in_loop
    once = OUT_OF_CLASS.replace("for (uint32_t i = 0; i < 8; i++) {\n        CopyIn(i);\n    }", "CopyIn(0);")
    op, model, _ = _analysis(root, kernel, once, cache)
    assert not op.model.calls("DataCopy")[0].in_loop
    assert memo(op.sources[str(kernel)], "kernel:kernel").hits >= 2  # CopyIn's chunk was kept, not re-extracted
    assert model == _analysis(root, kernel, once)[1]


def test_a_kernel_invocation_operator_rebuilt_from_kept_chunks_is_the_fresh_one(tmp_path):
    # Host and kernel share one file: the host passes (OpDef, tiling struct and functions) are kept per chunk too.
    import shutil

    root = tmp_path / "kernel_invocation_add"
    shutil.copytree(EXAMPLES / "kernel_invocation_add", root)
    kernel = root / "add_kernel.cpp"
    text = kernel.read_text() + big_kernel(600).split("using namespace AscendC;", 1)[1].split('extern "C"')[0]
    cache: dict[str, SourceFile] = {}
    _analysis(root, kernel, text, cache)
    for name, edit in EDITS.items():
        text = edit(text)
        op, model, findings = _analysis(root, kernel, text, cache)
        assert op.model.layout == "invocation"
        assert (model, findings) == _analysis(root, kernel, text)[1:], name


def test_an_edit_between_a_launchs_brackets_far_apart_reprocesses_the_launch():
    # `<<<` and `>>>` forty lines apart, with a `;` between them: not a launch until the edit removes the `;`.
    filler = "".join(f"        // argument note {i}\n" for i in range(40))
    text = f"void run()\n{{\n    add_kernel<<<8,\n{filler}        nullptr;\n        stream>>>(x, y);\n}}\n"
    sf = SourceFile("main.cpp", text)
    assert not any(m.kind == "launch" for m in sf.pre.marks)
    sf.update(text.replace("nullptr;", "nullptr,"))  # far below the `<<<`: outside the re-read window
    same_as_fresh(sf)
    assert any(m.kind == "launch" for m in sf.pre.marks)
