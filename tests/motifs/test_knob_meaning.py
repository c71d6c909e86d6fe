"""all-cores, large-tiles and double-buffer by meaning: the slow value is found from what the run showed (blockDim,
the bytes each copy moved, the buffers each InitBuffer laid out) and the rewrite moves the literal the data flow
shows it is made of, whatever spells it. The kernels are tests/motifs/meaning_op.py's Mix operator with the core
count, the tile and the queue depth written in several ways; the facts are written as a profile would give them."""

from __future__ import annotations

import pytest
from meaning_op import write_mix

from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.observed import BufferSeen, CaseFacts
from tilewise.analysis.operator import Operator, load_operator

CORES = {
    "local": ("", "    auto aivNum = 2;\n    uint32_t cores = aivNum;", "auto aivNum = 2;", 2),
    "member": (
        "struct MixConfig {\n    uint32_t cores = 2;\n};",
        "    MixConfig cfg;\n    uint32_t cores = cfg.cores;",
        "uint32_t cores = 2;",
        2,
    ),
    "min": ("", "    uint32_t cores = std::min<uint32_t>(coreNum, 8);", "std::min<uint32_t>(coreNum, 8)", 8),
    "ternary": ("", "    uint32_t cores = coreNum > 4 ? 4 : coreNum;", "coreNum > 4 ? 4 : coreNum", 4),
    "divisor": ("", "    uint32_t cores = coreNum / 6;", "coreNum / 6", 8),
    "shift": ("", "    uint32_t cores = coreNum >> 2;", "coreNum >> 2", 12),
}
TILES = {
    "min": ("", "    uint32_t tile = std::min<uint32_t>(perCore, 256);", "256", "16384"),
    "divisor": ("", "    uint32_t tile = perCore / 32;", "32", "1"),
    "shift": ("", "    uint32_t tile = perCore >> 5;", "5", "0"),
    "local": ("", "    uint32_t cap = 256;\n    uint32_t tile = perCore < cap ? perCore : cap;", "256", "16384"),
    "constant": (
        "constexpr uint32_t TILE_ELEMS = 256;",
        "    uint32_t tile = std::min<uint32_t>(perCore, TILE_ELEMS);",
        "256",
        "16384",
    ),
}
DEPTHS = {
    "literal": {"@COUNT@": "1", "@DEPTH@": "1"},
    "template": {  # (the queues' type does not depend on BUFS, so their calls need no `template` keyword)
        "@TEMPLATE@": "template <typename T, int32_t BUFS>",
        "@COUNT@": "BUFS",
        "@DEPTH@": "1",
        "@KERNEL_T@": "KernelMix<DTYPE_X, 1>",
    },
    "enum": {
        "@KPRELUDE@": "enum MixQueueDepth : int32_t { MIX_DEPTH = 1 };",
        "@COUNT@": "MIX_DEPTH",
        "@DEPTH@": "MIX_DEPTH",
    },
    "member": {"@COUNT@": "bufNum", "@MEMBERS@": "    int32_t bufNum = 1;"},
    "static-member": {"@COUNT@": "DEPTH", "@DEPTH@": "DEPTH", "@MEMBERS@": "    static constexpr int32_t DEPTH = 1;"},
}


def _kernel(op: Operator) -> str:
    return next(p for p in op.sources if p.endswith("op_kernel/mix.cpp"))


def _copy_facts(op: Operator, copy_bytes: int, calls: int = 32) -> CaseFacts:
    """A run whose tile loop made `calls` copies of `copy_bytes` at each DataCopy, three queues of two buffers."""
    k = _kernel(op)
    lines = [c.loc.line for c in op.model.calls("DataCopy")]
    return CaseFacts(
        case="profiled",
        block_dim=48,
        time_us=100.0,
        ub_capacity=196608,
        buffers=[BufferSeen(k, b.loc.line, 2, copy_bytes) for b in op.model.init_buffers],
        site_calls={(k, line): calls for line in lines},
        copy_bytes={(k, line): copy_bytes for line in lines},
    )


def _line_of(op: Operator, path: str, line: int) -> str:
    return op.sources[path].text.splitlines()[line - 1]


@pytest.mark.parametrize("name", sorted(CORES))
def test_a_core_count_below_the_chip_is_found_from_the_run_however_it_is_spelled(tmp_path, name):
    prelude, cores, where, launched = CORES[name]
    op = load_operator(write_mix(tmp_path / name, cores=cores, prelude=prelude))
    assert MOTIFS["all-cores"].detect(MotifContext(op)) == []  # no profile, no named constant: nothing proved
    ctx = MotifContext(op, facts=[CaseFacts(case="profiled", block_dim=launched, time_us=100.0)])
    [site] = MOTIFS["all-cores"].detect(ctx)
    [edit] = site.edits or []
    assert where in _line_of(op, edit.file, edit.line)
    # the chip's vector cores first: the count set to 48, a divisor to 1, a shift to 0; then counts between
    assert edit.new_text == {"divisor": "1", "shift": "0"}.get(name, "48")
    assert site.alternatives
    # the whole chip already launched: nothing to find
    full = MotifContext(op, facts=[CaseFacts(case="profiled", block_dim=48, time_us=100.0)])
    assert MOTIFS["all-cores"].detect(full) == []


@pytest.mark.parametrize("name", sorted(TILES))
def test_small_copies_are_found_from_the_run_and_what_shrinks_them_is_moved(tmp_path, name):
    prelude, tile, literal, grown = TILES[name]
    op = load_operator(write_mix(tmp_path / name, tile=tile, prelude=prelude))
    [site] = MOTIFS["large-tiles"].detect(MotifContext(op, facts=[_copy_facts(op, 512)]))
    [edit] = site.edits or []
    host = edit.file
    assert host.endswith("op_host/mix.cpp") and op.sources[host].text[edit.start : edit.end] == literal
    assert edit.new_text == grown  # copies of 512 bytes made 64x larger: the UB holds it
    assert site.alternatives  # smaller factors are measured too
    # copies of 16 KB already: nothing to find
    assert MOTIFS["large-tiles"].detect(MotifContext(op, facts=[_copy_facts(op, 16384)])) == []


def test_the_alignment_and_the_fallback_around_a_tile_are_never_moved(tmp_path):
    op = load_operator(write_mix(tmp_path / "m", tile=TILES["min"][1]))
    [site] = MOTIFS["large-tiles"].detect(MotifContext(op, facts=[_copy_facts(op, 512)]))
    moved = {op.sources[e.file].text[e.start : e.end] for _, edits in site.alternatives for e in edits}
    assert moved == {"256"}  # not the 64 of `tile / 64 * 64`, nor the 64 of `if (tile == 0) tile = 64;`


@pytest.mark.parametrize("name", sorted(DEPTHS))
def test_a_one_deep_streaming_queue_is_double_buffered_however_its_count_is_written(tmp_path, name):
    op = load_operator(write_mix(tmp_path / name, kernel=DEPTHS[name]))
    k = _kernel(op)
    facts = CaseFacts(
        case="profiled",
        buffers=[BufferSeen(k, b.loc.line, 1, 8192) for b in op.model.init_buffers],
        site_calls={(k, c.loc.line): 8 for c in op.model.calls("EnQue")},
    )
    sites = MOTIFS["double-buffer"].detect(MotifContext(op, facts=[facts]))
    edits = [e for s in sites for e in s.edits or []]
    assert edits and all(e.new_text == "2" for e in edits)
    touched = {op.sources[e.file].text[e.start : e.end] for e in edits}
    assert touched == {"1"}
    texts = {_line_of(op, e.file, e.line).strip() for e in edits}
    spelled = {
        "literal": "pipe.InitBuffer(inX, 1, tileLength * sizeof(T));",
        "template": "KernelMix<DTYPE_X, 1> op;",
        "enum": "enum MixQueueDepth : int32_t { MIX_DEPTH = 1 };",
        "member": "int32_t bufNum = 1;",
        "static-member": "static constexpr int32_t DEPTH = 1;",
    }[name]
    assert spelled in texts, texts


def test_a_queue_the_run_shows_with_two_buffers_or_one_tile_is_left_alone(tmp_path):
    op = load_operator(write_mix(tmp_path / "m", kernel=DEPTHS["member"]))
    k = _kernel(op)
    two = CaseFacts(case="a", buffers=[BufferSeen(k, b.loc.line, 2, 8192) for b in op.model.init_buffers])
    one_tile = CaseFacts(
        case="b",
        buffers=[BufferSeen(k, b.loc.line, 1, 8192) for b in op.model.init_buffers],
        site_calls={(k, c.loc.line): 1 for c in op.model.calls("EnQue")},
    )
    for facts in (two, one_tile):
        assert MOTIFS["double-buffer"].detect(MotifContext(op, facts=[facts])) == []


@pytest.mark.slow
def test_suggest_profiles_and_verifies_each_rewrite_on_the_emulator(device, tmp_path):
    from tilewise.search.bank.store import BankFile
    from tilewise.search.bank.suggest import suggest

    variants = {
        "all-cores": write_mix(tmp_path / "cores", cores=CORES["local"][1]),
        "large-tiles": write_mix(tmp_path / "tiles", tile=TILES["divisor"][1]),
        # four tiles per core, so that a second buffer has copies to overlap
        "double-buffer": write_mix(
            tmp_path / "depth", kernel=DEPTHS["template"], tile="    uint32_t tile = std::min<uint32_t>(perCore, 2048);"
        ),
    }
    for motif, root in variants.items():
        op = load_operator(root)
        assert op.manifest is not None
        result = suggest(op, device, BankFile(), list(op.manifest.cases), top=5, verify=True)
        found = {s.motif: s for s in result.suggestions}
        assert motif in found, (motif, list(found))
        v = found[motif].verified
        assert v is not None and v.correct and v.speedup is not None and v.speedup > 1.05, (motif, v)


def test_a_profile_made_through_the_memo_device_says_what_each_copy_moved(tmp_path):
    from tilewise.analysis.chip import load_chip
    from tilewise.device.protocol import Measurement, SiteUse
    from tilewise.search.bank.suggest import MemoDevice, run_facts

    op = load_operator(write_mix(tmp_path / "m"))
    assert op.manifest is not None
    k = _kernel(op)

    def site(block: int, line: int, calls: int, most: int, api: str = "DataCopy") -> SiteUse:
        return SiteUse(
            block=block, pipe="MTE2", api=api, file=k, line=line, calls=calls, bytes=calls * most, min_bytes=most,
            max_bytes=most, repeats=0, min_repeats=0, max_repeats=0, busy_us=1.0,
        )  # fmt: skip

    class Device:
        name, chip, asked = "fake", load_chip(), []

        def run(self, _op, request):
            self.asked.append(request)
            sites = [site(0, 40, 8, 512), site(0, 41, 8, 256), site(1, 40, 2, 4096), site(0, 60, 8, 64, "Add")]
            return Measurement(ok=True, correct=True, time_us=5.0, block_dim=2, sites=sites)

    device = Device()
    memo = MemoDevice(device)
    case = op.manifest.cases[0]
    from tilewise.device.protocol import RunRequest

    runs = [(case, memo.run(op, RunRequest(case))), (case, memo.run(op, RunRequest(case, sites=True)))]
    assert len(device.asked) == 1 and device.asked[0].sites  # one run, asked for its call sites, answered twice
    [facts, _] = run_facts(runs, device.chip)
    # the busiest block's copies (block 0 made the most calls), the most bytes one call moved
    assert facts.copy_bytes == {(k, 40): 512, (k, 41): 256} and facts.block_dim == 2


def test_a_pattern_the_run_only_hints_at_ranks_after_the_proved_ones(tmp_path):
    # copies of 8 KB: under the 16 KB mark, but not plainly small; a launch of 2 blocks that copy 8 KB in all
    tiles = load_operator(write_mix(tmp_path / "t", tile=TILES["min"][1]))
    [site] = MOTIFS["large-tiles"].detect(MotifContext(tiles, facts=[_copy_facts(tiles, 8192)]))
    assert site.weight < 1
    [site] = MOTIFS["large-tiles"].detect(MotifContext(tiles, facts=[_copy_facts(tiles, 512)]))
    assert site.weight == 1
    cores = load_operator(write_mix(tmp_path / "c", cores=CORES["local"][1]))
    few = _copy_facts(cores, 1024, calls=4)
    few.block_dim = 2
    [site] = MOTIFS["all-cores"].detect(MotifContext(cores, facts=[few]))
    assert site.weight < 1
    many = _copy_facts(cores, 16384, calls=64)
    many.block_dim = 2
    [site] = MOTIFS["all-cores"].detect(MotifContext(cores, facts=[many]))
    assert site.weight == 1


# The Mix kernel's copies made through DataCopyPad: in-copies by a helper that fills a DataCopyExtParams field by
# field (its burst count a literal 1, which is no tile), the copy-out with the parameters braced in the call.
PAD_HELPER = """\
template <typename T, typename D, typename S>
__aicore__ inline void CopyTile(const D& dst, const S& src, uint32_t count)
{
    DataCopyExtParams params;
    params.blockCount = 1;
    params.blockLen = count * sizeof(T);
    DataCopyPadExtParams<T> pad{false, 0, 0, 0};
    DataCopyPad(dst, src, params, pad);
}"""


def _through_datacopypad(root) -> None:
    kernel = root / "op_kernel" / "mix.cpp"
    text = kernel.read_text()
    for src, dst in (
        ("DataCopy(xLocal, xGm[t * tileLength], len);", "CopyTile<T>(xLocal, xGm[t * tileLength], len);"),
        ("DataCopy(yLocal, yGm[t * tileLength], len);", "CopyTile<T>(yLocal, yGm[t * tileLength], len);"),
        (
            "DataCopy(zGm[t * tileLength], zLocal, len);",
            "DataCopyPad(zGm[t * tileLength], zLocal, {1, static_cast<uint32_t>(len * sizeof(T)), 0, 0, 0});",
        ),
    ):
        assert src in text
        text = text.replace(src, dst)
    kernel.write_text(text)


def test_small_copies_sized_by_copy_parameters_are_found_and_their_tile_moved(tmp_path):
    """A DataCopyPad's length is its parameters' blockLen (and a block count that is not a literal), set field by
    field in a helper the tile loop calls or braced in the call: the run's small copies there lead back to the
    host's tile cap, as they do through a plain DataCopy's count; the helper's literal burst count is never moved."""
    op = load_operator(write_mix(tmp_path / "m", tile=TILES["min"][1], kernel={"@KPRELUDE@": PAD_HELPER}))
    _through_datacopypad(op.project.root)
    op = load_operator(op.project.root)
    k = _kernel(op)
    lines = [c.loc.line for c in op.model.calls("DataCopyPad")]
    assert len(lines) == 2  # the helper's and the copy-out's
    facts = CaseFacts(
        case="profiled",
        block_dim=48,
        time_us=100.0,
        ub_capacity=196608,
        buffers=[BufferSeen(k, b.loc.line, 2, 512) for b in op.model.init_buffers],
        site_calls={(k, line): 32 for line in lines},
        copy_bytes={(k, line): 512 for line in lines},
    )
    [site] = MOTIFS["large-tiles"].detect(MotifContext(op, facts=[facts]))
    moved = [(e.file, op.sources[e.file].text[e.start : e.end], e.new_text) for e in site.edits or []]
    assert [(f.endswith("op_host/mix.cpp"), was, now) for f, was, now in moved] == [(True, "256", "16384")]
    every = {op.sources[e.file].text[e.start : e.end] for _, edits in site.alternatives for e in edits}
    assert every == {"256"}  # neither the helper's `blockCount = 1` nor the braced 1
