"""Apply text edits (from lint fixes or a tuned configuration) to file contents, minimally and safely."""

from __future__ import annotations

import contextlib
import shutil
from collections import defaultdict
from pathlib import Path

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.findings import Fix, TextEdit, edit
from tilewise.analysis.knobs import TUNED_MARK
from tilewise.analysis.model import Knob, OperatorModel
from tilewise.analysis.testhooks import kill_point
from tilewise.analysis.treeutil import enclosing_statement


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
        write_files(result)
    return result


def write_files(contents: dict[str, str]) -> None:
    """Replace each file by its new content, atomically per file: every new text is written in full to a temporary
    file beside its target first, then each is renamed over its target. A process killed at any point leaves each
    file old or new, never half of each (and, killed while writing, every file old)."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, content in contents.items():
            target = Path(path)
            tmp = target.with_name(f".{target.name}.tilewise-tmp")
            tmp.write_text(content, encoding="utf-8")
            with contextlib.suppress(OSError):
                shutil.copymode(target, tmp)  # an executable or read-only file stays so
            staged.append((tmp, target))
        for tmp, target in staged:
            tmp.replace(target)
            kill_point("applied")
    finally:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)


def knob_edit(knob: Knob, value: int) -> TextEdit:
    return edit(knob.literal, str(value))


def decided_knobs(model: OperatorModel, config: dict[str, int]) -> list[Knob]:
    """The constants a configuration sets. A literal SetBlockDim or launch argument is a knob for the analysis, but
    the tuner sets blockDim through the named constant it comes from."""
    literal = [k for k in model.knobs if k.kind not in ("set_block_dim", "launch")]
    literal += [k for k in model.tiling_knobs if k.kind == "tiling_literal"]  # (a platform knob has no literal)
    return [k for k in literal if k.name in config]


def changed_knobs(model: OperatorModel, config: dict[str, int]) -> list[Knob]:
    """The constants whose literal a configuration changes."""
    return [k for k in decided_knobs(model, config) if config[k.name] != k.value]


def tuned_edits(
    model: OperatorModel,
    sources: dict,
    config: dict[str, int],
    platform: dict[str, int] | None = None,
    cases: list[str] | None = None,
) -> list[TextEdit]:
    """Apply a tuned configuration: each changed literal, and `// tilewise: tuned` on the line of every knob the
    search decided (changed or confirmed), so the rules that would second-guess a measured choice (too few cores,
    small tiles, one buffer) leave it alone. A platform knob set below the chip's figure (`platform`: the chip's
    figure per platform knob) becomes a clamp after each query, naming the `cases` it was tuned on."""
    edits = [
        e
        for name, full in (platform or {}).items()
        for e in clamp_edits(model, sources, name, config.get(name, full), full, cases or [])
    ]
    for k in decided_knobs(model, config):
        if config[k.name] != k.value:
            edits.append(knob_edit(k, config[k.name]))
        sf = sources.get(k.file)
        # (a literal inside the tiling function is marked only where it moved: the rules never read those)
        if sf is None or k.tuned or (k.kind == "tiling_literal" and config[k.name] == k.value):
            continue
        line = sf.line_text(k.line)
        at = sf.offset_of_line_col(k.line, len(line) + 1)
        mark = f" ({TUNED_MARK})" if "//" in line else f"  // {TUNED_MARK}"
        edits.append(_insertion(k.file, k.line, len(line) + 1, at, mark))
    return edits


def knob_edits(model: OperatorModel, config: dict[str, int]) -> list[TextEdit]:
    """Minimal edits that set each knob of `config` to its value: one literal each."""
    return [knob_edit(k, config[k.name]) for k in changed_knobs(model, config)]


def clamp_edits(
    model: OperatorModel, sources: dict, name: str, value: int, full: int, cases: list[str]
) -> list[TextEdit]:
    """`ub = ub < 98304 ? ub : 98304;  // tilewise: tuned ...` after every query of the platform knob `name` whose
    answer is stored in a variable (a query used inline is wrapped in the same ternary instead). Nothing when
    `value` is the chip's own figure `full`."""
    if value >= full:
        return []
    note = f"// {TUNED_MARK}: {name} {value} (the chip has {full}) on cases {', '.join(cases) or 'the default'}"
    edits = []
    for k in model.tiling_knobs:
        sf = sources.get(k.file)
        if k.kind != "platform" or k.name != name or sf is None:
            continue
        call = sf.tree.root_node.descendant_for_byte_range(k.literal.start, k.literal.end)
        stmt = enclosing_statement(call) if call is not None else None
        if k.target and stmt is not None:
            end_line = stmt.end_point[0] + 1
            line_text = sf.line_text(end_line)
            indent = line_text[: len(line_text) - len(line_text.lstrip())]
            at = sf.offset_of_line_col(end_line, len(line_text) + 1)
            text = f"\n{indent}{k.target} = {k.target} < {value} ? {k.target} : {value};  {note}"
            edits.append(_insertion(k.file, end_line, len(line_text) + 1, at, text))
        else:
            call_text = sf.node_text(call) if call is not None else ""
            edits.append(edit(k.literal, f"({call_text} < {value} ? {call_text} : {value}) /* {note[3:]} */"))
    return edits


def _insertion(file: str, line: int, col: int, at: int, text: str) -> TextEdit:
    return TextEdit(file=file, line=line, col=col, end_line=line, end_col=col, new_text=text, start=at, end=at)
