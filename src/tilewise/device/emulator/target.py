"""The chip an operator is meant for: the SoCs its OpDef registers (`AICore().AddConfig("ascend310b")`), matched
against the chip being run.

A public operator that registers only a 310B runs there on one AI Core; on the default 910B2's 48 vector cores a
single-core kernel with no per-block offsets fails for a reason its real target never shows. So a run on a chip the
OpDef does not register carries a one-line warning naming the registered SoCs and `--chip`, and when the user chose no
chip and exactly one built-in chip file belongs to the registered SoCs, that chip is run instead (and said so).
"""

from __future__ import annotations

import re
from pathlib import Path

from tilewise.analysis.chip import Chip, builtin_chips, chip_in_soc, load_chip
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import RunWarning

_ADD_CONFIG = re.compile(r"\bAddConfig\s*\(")


def registered_socs(op: Operator) -> list[str]:
    """The SoC names the OpDef registers with AddConfig, lower case (`ascend910b`, `ascend310b`, ...); entries that
    are not a literal SoC name (a variable the analysis cannot read) are left out."""
    opdef = op.model.opdef
    socs = [c.strip().lower() for c in (opdef.configs if opdef else [])]
    return list(dict.fromkeys(s for s in socs if re.fullmatch(r"ascend\w+", s)))


def choose_chip(op: Operator, chip: Chip, chip_given: bool) -> tuple[Chip, RunWarning | None]:
    """The chip to run `op` on and the warning to report with the run: `chip` unless the user gave none and exactly
    one built-in chip belongs to the SoCs the OpDef registers while `chip` does not."""
    socs = registered_socs(op)
    if op.model.layout != "project" or not socs or any(chip_in_soc(chip.name, s) for s in socs):
        return chip, None
    file, line = _add_config_site(op)
    listed = ", ".join(socs)
    if not chip_given:
        matches = [name for name in builtin_chips() if any(chip_in_soc(name, s) for s in socs)]
        if len(matches) == 1:
            picked = load_chip(matches[0])
            return picked, RunWarning(
                kind="target_chip",
                file=file,
                line=line,
                message=(
                    f"the OpDef registers only {listed} (AddConfig), so this run is on {picked.name} "
                    f"({picked.vector_cores} vector core(s), {picked.ub_bytes // 1024} KiB UB) instead of the default "
                    f"{chip.name}; pass --chip to run on another chip"
                ),
            )
    return chip, RunWarning(
        kind="target_chip",
        file=file,
        line=line,
        message=(
            f"the OpDef registers only {listed} (AddConfig) but this run is on {chip.name} ({chip.vector_cores} vector "
            f"cores); a kernel written for its target may fail here for reasons that target never shows: pass --chip "
            f"with a chip of {listed} (or a chip JSON file for it)"
        ),
    )


def _add_config_site(op: Operator) -> tuple[str | None, int | None]:
    """The file and line of the OpDef's first AddConfig call (the OpDef's own line when none is found)."""
    opdef = op.model.opdef
    files = ([opdef.loc.file] if opdef and opdef.loc else []) + list(op.model.host_files)
    for path in dict.fromkeys(files):
        src = op.sources.get(path)
        text = src.text if src is not None else _read(path)
        for i, row in enumerate(text.splitlines(), 1):
            if _ADD_CONFIG.search(row):
                return path, i
    return (opdef.loc.file, opdef.loc.line) if opdef and opdef.loc else (None, None)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
