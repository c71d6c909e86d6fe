"""Apply text edits (from lint fixes or a tuned configuration) to file contents, minimally and safely."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from analysis.errors import TilewiseError
from analysis.findings import Fix, TextEdit
from analysis.knobs import TUNED_MARK
from analysis.model import Knob, OperatorModel


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """Apply edits to one file's text. Edits use byte offsets into the text they were computed against."""
    data = text.encode("utf-8")
    ordered = sorted(edits, key=lambda e: (e.start, e.end), reverse=True)
    last_start = len(data) + 1
    for e in ordered:
        if not (0 <= e.start <= e.end <= len(data)) or e.end > last_start:
            raise TilewiseError(e.file, e.line, "edits overlap or fall outside the file; re-run the analysis")
        data = data[: e.start] + e.new_text.encode("utf-8") + data[e.end :]
        last_start = e.start
    return data.decode("utf-8")


def apply_fix(fix: Fix, texts: dict[str, str] | None = None, write: bool = False) -> dict[str, str]:
    """New contents of every file a fix touches. `texts` supplies current contents (else read from disk)."""
    by_file: dict[str, list[TextEdit]] = defaultdict(list)
    for e in fix.edits:
        by_file[e.file].append(e)
    result: dict[str, str] = {}
    for path, edits in by_file.items():
        current = texts[path] if texts and path in texts else Path(path).read_text(encoding="utf-8")
        result[path] = apply_edits(current, edits)
    if write:
        for path, content in result.items():
            tmp = Path(path).with_suffix(Path(path).suffix + ".tilewise-tmp")
            tmp.write_text(content, encoding="utf-8")
            tmp.replace(path)  # atomic: a crash leaves the old file or the new one, never half of each
    return result


def knob_edit(knob: Knob, value: int) -> TextEdit:
    lit = knob.literal
    return TextEdit(
        file=lit.file,
        line=lit.line,
        col=lit.col,
        end_line=lit.end_line,
        end_col=lit.end_col,
        new_text=str(value),
        start=lit.start,
        end=lit.end,
    )


def decided_knobs(model: OperatorModel, config: dict[str, int]) -> list[Knob]:
    """The constants a configuration sets. A literal SetBlockDim or launch argument is a knob for the analysis, but
    the tuner sets blockDim through the named constant it comes from."""
    return [k for k in model.knobs if k.name in config and k.kind not in ("set_block_dim", "launch")]


def changed_knobs(model: OperatorModel, config: dict[str, int]) -> list[Knob]:
    """The constants whose literal a configuration changes."""
    return [k for k in decided_knobs(model, config) if config[k.name] != k.value]


def tuned_edits(model: OperatorModel, sources: dict, config: dict[str, int]) -> list[TextEdit]:
    """Apply a tuned configuration: each changed literal, and `// tilewise: tuned` on the line of every knob the
    search decided (changed or confirmed), so the rules that would second-guess a measured choice (too few cores,
    small tiles, one buffer) leave it alone."""
    edits = []
    for k in decided_knobs(model, config):
        if config[k.name] != k.value:
            edits.append(knob_edit(k, config[k.name]))
        sf = sources.get(k.file)
        if sf is None or k.tuned:
            continue
        line = sf.line_text(k.line)
        at = sf.offset_of_line_col(k.line, len(line) + 1)
        mark = f" ({TUNED_MARK})" if "//" in line else f"  // {TUNED_MARK}"
        edits.append(
            TextEdit(
                file=k.file,
                line=k.line,
                col=len(line) + 1,
                end_line=k.line,
                end_col=len(line) + 1,
                new_text=mark,
                start=at,
                end=at,
            )
        )
    return edits


def knob_edits(model: OperatorModel, config: dict[str, int]) -> list[TextEdit]:
    """Minimal edits that set each knob of `config` to its value: one literal each."""
    return [knob_edit(k, config[k.name]) for k in changed_knobs(model, config)]
