"""tilewise.analysis.explain: a call's size is a figure only when the sources decide it; otherwise the formula and what
decides it at run time. And hover's Markdown (its formatting of these facts) never shows a made-up figure."""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.chip import load_chip, timing_config
from tilewise.analysis.explain import explain_buffer, explain_call
from tilewise.analysis.explain_markdown import format_buffer, format_call
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rules import RuleContext

# The host computes the tile from the input shape: the only knob that reaches the copy's length is TILE_NUM = 8,
# which the old hover took for the length ("8 elements: 16 bytes at about 0 GiB/s").
RUNTIME_HOST = replace_once(
    replace_once(HOST, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t TILE_NUM = 8;"),
    "tiling.set_tileLength(TILE_LENGTH);",
    "tiling.set_tileLength(total / blockDim / TILE_NUM / 2);",
)
CASE = """\
[[cases]]
name = "wide"
[cases.inputs.x]
shape = [48, 4096]
dtype = "float16"
"""


def _explain(root: Path, needle: str, occurrence: int = 0):
    op = load_operator(root)
    ctx = RuleContext(op.model, op.sources, load_chip())
    first_case = op.manifest.cases[0].name if op.manifest and op.manifest.cases else None
    calls = sorted((c for c in op.model.api_calls if c.name == needle), key=lambda c: c.loc.start)
    return explain_call(ctx, calls[occurrence], first_case), ctx, op


def test_a_copy_whose_length_the_host_computes_shows_the_formula_not_figures(tmp_path: Path):
    root = write_operator(tmp_path / "rt", host=RUNTIME_HOST)
    e, _, _ = _explain(root, "DataCopy")
    assert e.size.elements is None and e.copy is None
    d = e.size.derivation
    assert e.size.expr == "tileLength" and d.fields == ("tileLength",)
    assert d.steps[0].side == "tiling" and d.steps[0].expr == "total / blockDim / TILE_NUM / 2"
    assert "the input shape" in d.decided_by and ("TILE_NUM", 8) in d.knobs
    text = "\n\n".join(format_call(e))
    assert "GiB/s" not in text and "16 bytes" not in text and "for 8 elements" not in text
    assert "moves `tileLength` x 2 bytes per call" in text
    assert "set by the host to `total / blockDim / TILE_NUM / 2`" in text
    assert "GetInputShape(0)" in text  # the host line that reads the shape
    assert "Add a case to tilewise.toml" in text


def test_with_a_case_the_formula_names_the_case_to_run(tmp_path: Path):
    root = write_operator(tmp_path / "rt", host=RUNTIME_HOST, manifest=CASE)
    e, _, _ = _explain(root, "Muls")
    assert e.size.elements is None and e.vector is None
    text = "\n\n".join(format_call(e))
    assert "computes `tileLength` elements of 2 bytes (half) per call" in text
    assert "run case wide on the emulator" in text and "repeats" not in text


def test_a_constant_size_through_the_tiling_data_keeps_its_figures(tmp_path: Path):
    root = write_operator(tmp_path / "scale")  # the host sets tileLength to TILE_LENGTH = 8192, always
    e, ctx, _ = _explain(root, "DataCopy")
    t = timing_config(ctx.chip)
    assert e.size.elements == 8192 and e.element.bytes == 2 and e.copy.nbytes == 16384
    gibps = t.dma_gibps(16384, ctx.chip.clock_ghz)
    assert 0 < gibps < t.dma_peak_gibps  # the copy's latency is exposed
    assert abs(e.copy.gibps - gibps) < 1e-9
    text = "\n\n".join(format_call(e))
    assert f"16,384 bytes at about {gibps:.0f} GiB/s" in text
    assert "tiling field tileLength, which the host sets to TILE_LENGTH = 8,192" in text
    v, _, _ = _explain(root, "Muls")
    assert v.vector.repeats == 16384 // 256
    assert v.vector.cycles == t.vector_cycles("Muls", 2, 64)


def test_a_literal_count_is_sized_and_a_parameter_struct_is_not(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "DataCopy(xLocal, xGm[progress * tileLength], tileLength);",
        "DataCopy(xLocal, xGm[progress * tileLength], 1024);",
    )
    kernel = replace_once(
        kernel,
        "DataCopy(yGm[progress * tileLength], yLocal, tileLength);",
        "DataCopyParams p{1, 8, 0, 0};\n        DataCopy(yGm[progress * tileLength], yLocal, p);",
    )
    root = write_operator(tmp_path / "lit", kernel=kernel, host=RUNTIME_HOST)
    e, _, _ = _explain(root, "DataCopy", 0)
    assert e.size.elements == 1024 and e.copy.nbytes == 2048 and e.size.via is None
    p, _, _ = _explain(root, "DataCopy", 1)
    assert p.size.form == "params" and p.copy is None and p.pipe == "mte3"
    assert "set by the copy parameters `p`" in "\n".join(format_call(p))


def test_a_templated_element_type_says_which_dtype_it_assumed():
    e, _, _ = _explain(Path(__file__).resolve().parents[1] / "examples" / "add_custom", "DataCopy")
    assert e.element.bytes == 2 and "float16" in e.element.assumed
    assert e.size.derivation is not None and e.size.expr == "len"
    text = "\n\n".join(format_call(e))
    assert "`len = (i == tileNum - 1) ? lastTileLength : tileLength`" in text
    assert "run case fp16_base on the emulator" in text and "bytes at" not in text


def test_a_queue_buffer_is_sized_only_when_the_host_decides_it(tmp_path: Path):
    for name, host, want in (("scale", HOST, 2 * 8192 * 2), ("rt", RUNTIME_HOST, None)):
        root = write_operator(tmp_path / name, host=host)
        op = load_operator(root)
        ctx = RuleContext(op.model, op.sources, load_chip())
        ib = next(b for b in op.model.init_buffers if b.queue == "inQueueX")
        b = explain_buffer(ctx, ib)
        assert b.bytes == want
        text = format_buffer(b)
        if want is None:
            assert "bytes of UB" not in text and "total / blockDim / TILE_NUM / 2" in text
        else:
            assert text == f"{want:,} bytes of UB"
