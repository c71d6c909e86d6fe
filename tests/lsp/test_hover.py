"""Hover over the language server: never a made-up figure for a size the host computes at run time; after a
`tilewise/run`, the run's measured figures for the line under the cursor."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import change, diagnostics_for, hover_at, kernel, open_doc
from opgen import HOST, replace_once, write_operator
from pytest_lsp import LanguageClient

from tilewise.analysis.chip import load_chip


@pytest.mark.asyncio
async def test_a_copy_sized_by_a_run_time_tiling_field_shows_the_formula(client: LanguageClient, tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t TILE_NUM = 8;")
    host = replace_once(
        host, "tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / blockDim / TILE_NUM / 2);"
    )
    path = write_operator(tmp_path / "rt", host=host) / "op_kernel" / "scale.cpp"
    uri = open_doc(client, path)
    lines = path.read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if "DataCopy(xLocal" in text)
    text = (await hover_at(client, uri, row, lines[row].index("DataCopy") + 2)).contents.value
    assert "GiB/s" not in text and "16 bytes" not in text  # what it said before: TILE_NUM = 8 taken as the length
    assert "moves `tileLength` x 2 bytes per call" in text
    assert "set by the host to `total / blockDim / TILE_NUM / 2`" in text and "the input shape" in text
    assert "Add a case to tilewise.toml" in text and "Last run" not in text


@pytest.mark.asyncio
async def test_a_copy_of_a_size_the_host_always_sets_keeps_its_figures(client: LanguageClient, tmp_path: Path):
    path = write_operator(tmp_path / "scale") / "op_kernel" / "scale.cpp"
    uri = open_doc(client, path)
    lines = path.read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if "DataCopy(xLocal" in text)
    text = (await hover_at(client, uri, row, lines[row].index("DataCopy") + 2)).contents.value
    assert (
        "for 8,192 elements (tiling field tileLength, which the host sets to TILE_LENGTH = 8,192): 16,384 bytes" in text
        and "GiB/s" in text
    )


def _copy_in_calls(shape: list[int], cores: int, ub_bytes: int) -> tuple[list[int], set[int]]:
    """What add_custom's host tiling and kernel loop do for an fp16 input of `shape`: the aligned DataCopy calls
    of `DataCopy(xLocal, ...)` per block, and the bytes of each (the unaligned tail goes through DataCopyPad)."""
    total = 1
    for d in shape:
        total *= d
    align = 32 // 2
    block_dim = min(48, cores)  # BLOCK_DIM, capped by the chip's vector cores
    per_core = -(-total // block_dim)  # ceiling division, as the host's (a + b - 1) / b
    block_len = -(-per_core // align) * align
    used = -(-total // block_len)
    last = total - (used - 1) * block_len
    tile = min(4096, ub_bytes // (3 * 2 * 2), block_len) // align * align
    calls, sizes = [], set()
    for b in range(used):
        core = last if b == used - 1 else block_len
        tiles = -(-core // tile)
        n = 0
        for i in range(tiles):
            length = core - (tiles - 1) * tile if i == tiles - 1 else tile
            if length * 2 % 32 == 0:
                n += 1
                sizes.add(length * 2)
        calls.append(n)
    return calls, sizes


@pytest.mark.asyncio
async def test_after_a_run_hover_shows_the_lines_measured_figures(client: LanguageClient):
    path = kernel()  # add_custom with a PipeBarrier in the loop; the case's last core ends on an unaligned tail
    uri = open_doc(client, path)
    await diagnostics_for(client, uri)
    result = await client.protocol.send_request_async("tilewise/run", {"uri": uri, "case": "fp16_odd_tail"})
    assert result.ok and result.correct
    chip = load_chip("910B2")  # the server's default chip
    calls, sizes = _copy_in_calls([3, 5, 1111], chip.vector_cores, chip.ub_bytes)
    assert len(sizes) == 1 and result.block_dim == len(calls)
    lines = path.read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if "DataCopy(xLocal" in text)
    text = (await hover_at(client, uri, row, lines[row].index("DataCopy") + 2)).contents.value
    per_block = f"{min(calls)}" if min(calls) == max(calls) else f"{min(calls)} to {max(calls)}"
    want = (
        f"**Last run** (case fp16_odd_tail): {sum(calls)} calls ({per_block} per block over {len(calls)} "
        f"blocks), {next(iter(sizes)):,} bytes each, MTE2 "
    )
    assert want in text and "µs in total" in text and "sources changed since" not in text
    # an edit that keeps every line where it was: the figures stay, marked as coming from other sources
    change(client, uri, 2, path.read_text() + "\n// edited after the run\n")
    await diagnostics_for(client, uri)
    text = (await hover_at(client, uri, row, lines[row].index("DataCopy") + 2)).contents.value
    assert want in text and "(sources changed since)" in text
    # a run that yields no per-line figures (the process crashes) drops the older run's: they would pass for its
    change(client, uri, 3, path.read_text().replace("op.Process();", "op.Process(); *(volatile int*)nullptr = 1;"))
    await diagnostics_for(client, uri)
    result = await client.protocol.send_request_async("tilewise/run", {"uri": uri, "case": "fp16_odd_tail"})
    assert not result.ok and result.error.kind == "crash"
    text = (await hover_at(client, uri, row, lines[row].index("DataCopy") + 2)).contents.value
    assert "**DataCopy**" in text and "Last run" not in text
