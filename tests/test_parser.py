"""Preprocessing and parsing: zero ERROR nodes on AscendC, offsets exact, incremental re-parse equal to a fresh one."""

from __future__ import annotations

import random

import pytest
from paths import EXAMPLES

from analysis.preprocess import preprocess
from analysis.project import SOURCE_SUFFIXES
from analysis.source import SourceFile

EXAMPLE_SOURCES = sorted(p for p in EXAMPLES.rglob("*") if p.suffix in SOURCE_SUFFIXES)


def test_there_are_example_sources():
    assert len(EXAMPLE_SOURCES) >= 40


@pytest.mark.parametrize("path", EXAMPLE_SOURCES, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_examples_parse_without_errors_and_offsets_are_exact(path):
    sf = SourceFile.load(path)
    assert list(sf.errors()) == [], [(sf.line_col(e.start_byte), sf.node_text(e)) for e in sf.errors()]
    raw, neutral = sf.data, sf.pre.text
    assert len(raw) == len(neutral)
    assert [i for i, b in enumerate(raw) if b == 10] == [i for i, b in enumerate(neutral) if b == 10]
    # every byte that changed lies inside a recorded mark (nothing is lost silently)
    changed = [i for i in range(len(raw)) if raw[i] != neutral[i]]
    spans = [(m.start, m.end) for m in sf.pre.marks]
    for m in sf.pre.marks:
        spans.extend((a.start, a.end) for a in m.args)
    template_kw = {i for i in changed if neutral[i] == 32 and raw[i : i + 8] == b"template"[: 8]}
    for i in changed:
        assert any(s <= i < e for s, e in spans) or i in template_kw or raw[i - 8 : i + 8].find(b"template") >= 0


SNIPPET = b"""#include "register/tilingdata_base.h"
namespace optiling {
BEGIN_TILING_DATA_DEF(FooTilingData)
  TILING_DATA_FIELD_DEF(uint32_t, totalLength);
  TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, offsets);
  TILING_DATA_FIELD_DEF_STRUCT(BarTiling, bar);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(Foo, FooTilingData)
}
extern "C" __global__ __aicore__ void foo(GM_ADDR x, GM_ADDR tiling) {
  GET_TILING_DATA(t, tiling);
  if (TILING_KEY_IS(1)) { op.Process(); }
  uint32_t a = ALIGN_UP(n, float);
  auto b = que.template DeQue();
  OP_CHECK(ptr == nullptr, OP_LOGE("foo", "null"), return ge::GRAPH_FAILED);
}
template <typename T> __aicore__ inline void f(__gm__ uint8_t* p) {}
int main() { foo<<<8, nullptr, stream>>>(x, t); /* <<<in a comment>>> */
  const char* s = "__aicore__ stays";
}
"""


def test_ascendc_constructs_parse_cleanly_and_are_recorded():
    sf = SourceFile("snippet.cpp", SNIPPET.decode())
    assert list(sf.errors()) == []
    kinds = [(m.kind, m.name, [a.text for a in m.args]) for m in sf.pre.marks]
    assert ("tiling_begin", "BEGIN_TILING_DATA_DEF", ["FooTilingData"]) in kinds
    assert ("tiling_field_arr", "TILING_DATA_FIELD_DEF_ARR", ["uint32_t", "8", "offsets"]) in kinds
    assert ("tiling_register", "REGISTER_TILING_DATA_CLASS", ["Foo", "FooTilingData"]) in kinds
    assert ("launch", "foo", ["8", "nullptr", "stream"]) in kinds
    assert ("macro_stmt", "OP_CHECK", ['ptr == nullptr', 'OP_LOGE("foo", "null")', "return ge::GRAPH_FAILED"]) in kinds
    assert ("macro_type_arg", "ALIGN_UP", ["float"]) in kinds
    # comments and strings are never rewritten
    assert b"<<<in a comment>>>" in sf.pre.text and b'"__aicore__ stays"' in sf.pre.text


def test_plain_cpp_syntax_errors_are_still_reported():
    sf = SourceFile("bad.cpp", "void f() { int x = ; }\n")
    assert list(sf.errors())


def test_half_typed_and_truncated_sources_do_not_raise():
    text = SNIPPET.decode()
    for cut in range(0, len(text), 37):
        sf = SourceFile("cut.cpp", text[:cut])
        assert len(sf.pre.text) == len(text[:cut].encode())


def _sexp(sf: SourceFile) -> str:
    return str(sf.tree.root_node)


def test_incremental_reparse_matches_a_fresh_parse():
    path = EXAMPLES / "add_custom" / "op_kernel" / "add_custom.cpp"
    text = path.read_text()
    sf = SourceFile(path, text)
    rng = random.Random(7)
    inserts = ["x", " ", "\n", "<<<", "__aicore__ ", "}", "PipeBarrier<PIPE_ALL>();", "é"]
    for _ in range(60):
        pos = rng.randrange(len(text))
        if rng.random() < 0.6:
            text = text[:pos] + rng.choice(inserts) + text[pos:]
        else:
            text = text[:pos] + text[pos + rng.randrange(1, 6):]
        sf.update(text)
        assert _sexp(sf) == _sexp(SourceFile(path, text))


def test_positions_convert_between_bytes_characters_and_utf16():
    sf = SourceFile("u.cpp", "// héllo 😀\nint x;\n")
    off = sf.data.index(b"x;")
    assert sf.line_col(off) == (2, 5)
    emoji_end = sf.data.index(b"\n")
    assert sf.line_col(emoji_end) == (1, 11)
    assert sf.lsp_position(emoji_end) == (0, 11)  # 9 BMP characters, then the emoji's two UTF-16 units
    assert sf.offset_of_lsp(0, 11) == emoji_end
    assert sf.offset_of_line_col(2, 5) == off


def test_preprocess_keeps_length_for_non_ascii_in_launch_args():
    src = "int main() { k<<<n /* é */, nullptr, s>>>(a); }".encode()
    assert len(preprocess(src).text) == len(src)


PUBLIC_SHAPES = """\
#define KIND_A 10
DECLARE_ENTRY_POINTS(half)
TEMPLATE_ARGS_DECL(MyOp, ARG_DECL(D_T, KIND_A, KIND_B), );
class K {
    template <typename U, typename std::enable_if<!std::is_same_v<U, float>, void>::type* = nullptr>
    __aicore__ inline void Widen() {}
    __aicore__ inline void Init(uint32_t n)
    {
        this->n = n ASSERT(n != 0 && "n must not be zero");
        auto t = queue.template EnQue<QuePosition::VECIN, QuePosition::VECOUT, uint8_t>(local);
    }
    __aicore__ inline void Run()
    {
        if constexpr (D == 1) {
            Process1();
#if !(defined(__NPU_ARCH__) && __NPU_ARCH__ == 3003)
        } else if constexpr (D == 2) {
            Process2();
#endif
        } else {
            Process3();
        }
    }
    uint32_t n;
};
"""


def test_shapes_seen_in_public_operators_parse_cleanly():
    sf = SourceFile("public_shapes.cpp", PUBLIC_SHAPES)
    assert [(sf.line_col(e.start_byte), sf.node_text(e)) for e in sf.errors()] == []
    kinds = {(m.kind, m.name) for m in sf.pre.marks}
    assert {("macro_stmt", "DECLARE_ENTRY_POINTS"), ("macro_stmt", "TEMPLATE_ARGS_DECL"), ("macro_stmt", "ASSERT"),
            ("conditional", "if"), ("conditional", "endif")} <= kinds
