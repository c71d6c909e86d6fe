"""Knob naming: which role an integer constant plays in the tiling, and `// tilewise: tune` annotations."""

from __future__ import annotations

import re

from tilewise.analysis.model import KnobRole

_ANNOTATION_RE = re.compile(r"tilewise:\s*tune\s+(?P<name>[A-Za-z_]\w*)\s+in\s*\[(?P<values>[^\]]*)\]")


def parse_annotation(line: str, name: str) -> list[int] | None:
    """`// tilewise: tune TILE_NUM in [1, 2, 4]` on a constant's line gives that knob's search domain."""
    for m in _ANNOTATION_RE.finditer(line):
        if m.group("name") != name:
            continue
        try:
            return [int(v.strip(), 0) for v in m.group("values").split(",") if v.strip()]
        except ValueError:
            return None
    return None


# The platform knobs (analysis/extract/tiling_knobs.py): what the tiling function is told about the chip, capped.
PLATFORM_CORES = "platform.cores"
PLATFORM_UB = "platform.ub_bytes"
PLATFORM_KNOBS = (PLATFORM_CORES, PLATFORM_UB)


def platform_knobs(config: dict[str, int]) -> dict[str, int]:
    """The platform knobs of a configuration (a device passes them to the host at run time, not as text)."""
    return {name: value for name, value in config.items() if name in PLATFORM_KNOBS}


_TUNED_RE = re.compile(r"tilewise:\s*tuned\b")
TUNED_MARK = "tilewise: tuned"


def is_tuned(line: str) -> bool:
    """`// tilewise: tuned` on a constant's line: its value was chosen by measurement (an applied tune)."""
    return bool(_TUNED_RE.search(line))


def role_of(name: str) -> KnobRole:
    upper = name.upper()
    if "BUFFER_NUM" in upper or "BUFFERNUM" in upper or "DOUBLE_BUFFER" in upper or upper in ("BUF_NUM", "DB_NUM"):
        return "buffer_num"
    if any(k in upper for k in ("BLOCK_DIM", "BLOCKDIM", "CORE_NUM", "CORENUM", "BLOCK_NUM", "USED_CORE")):
        return "block_dim"
    if any(k in upper for k in ("TILE", "LENGTH", "LEN", "CHUNK", "ROWS", "COLS", "SPLIT", "UB_", "PER_")):
        return "tile"
    return "other"
