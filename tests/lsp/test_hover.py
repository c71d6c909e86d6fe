"""Hover over the language server: never a made-up figure for a size the host computes at run time."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import hover_at, open_doc
from opgen import HOST, replace_once, write_operator
from pytest_lsp import LanguageClient


@pytest.mark.asyncio
async def test_a_copy_sized_by_a_run_time_tiling_field_shows_the_formula(client: LanguageClient, tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t TILE_NUM = 8;")
    host = replace_once(host, "tiling.set_tileLength(TILE_LENGTH);",
                        "tiling.set_tileLength(total / blockDim / TILE_NUM / 2);")
    path = write_operator(tmp_path / "rt", host=host) / "op_kernel" / "scale.cpp"
    uri = open_doc(client, path)
    lines = path.read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if "DataCopy(xLocal" in text)
    text = (await hover_at(client, uri, row, lines[row].index("DataCopy") + 2)).contents.value
    assert "GiB/s" not in text and "16 bytes" not in text  # what it said before: TILE_NUM = 8 taken as the length
    assert "moves `tileLength` x 2 bytes per call" in text
    assert "set by the host to `total / blockDim / TILE_NUM / 2`" in text and "the input shape" in text
    assert "Add a case to tilewise.toml" in text


@pytest.mark.asyncio
async def test_a_copy_of_a_size_the_host_always_sets_keeps_its_figures(client: LanguageClient, tmp_path: Path):
    path = write_operator(tmp_path / "scale") / "op_kernel" / "scale.cpp"
    uri = open_doc(client, path)
    lines = path.read_text().splitlines()
    row = next(i for i, text in enumerate(lines) if "DataCopy(xLocal" in text)
    text = (await hover_at(client, uri, row, lines[row].index("DataCopy") + 2)).contents.value
    assert "for 8,192 elements (tiling field tileLength, which the host sets to TILE_LENGTH = 8,192): 16,384 bytes" \
        in text and "GiB/s" in text
