"""What a lint rule reports: a finding with a range, a message and optional fixes as text edits."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:  # only the hints: the model and the parsed sources both sit above this module
    from tilewise.analysis.model import Loc
    from tilewise.analysis.source import SourceFile

# error: the kernel is wrong or will hang. warning: proven slow, with a proven fix or a precise one to verify.
# info: worth a look; the premise is likely but not proven (the finding says what would prove it).
Severity = Literal["error", "warning", "info", "hint"]


class TextEdit(BaseModel):
    """Replace [line:col, end_line:end_col) of file with new_text. Lines and columns are 1-based characters."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    new_text: str
    start: int = Field(0, exclude=True)
    end: int = Field(0, exclude=True)


def edit(loc: Loc, new_text: str) -> TextEdit:
    """`loc`'s range replaced by `new_text`."""
    return TextEdit(
        file=loc.file,
        line=loc.line,
        col=loc.col,
        end_line=loc.end_line,
        end_col=loc.end_col,
        new_text=new_text,
        start=loc.start,
        end=loc.end,
    )


def edit_range(sf: SourceFile, start: int, end: int, new_text: str) -> TextEdit:
    """Bytes [start, end) of `sf` replaced by `new_text`, with their lines and columns."""
    line, col = sf.line_col(start)
    end_line, end_col = sf.line_col(end)
    return TextEdit(
        file=sf.path, line=line, col=col, end_line=end_line, end_col=end_col, new_text=new_text, start=start, end=end
    )


class Fix(BaseModel):
    """An edit a finding offers. `safe`: the rule proved the fix's precondition (the buffer fits, the split stays
    aligned, no dependency is lost), so it is offered as "Apply". Otherwise the editor offers "Verify on the
    emulator": the fix is applied to a scratch copy and every case is run before anyone trusts it."""

    title: str
    edits: list[TextEdit]
    safe: bool = True


class Finding(BaseModel):
    rule: str
    severity: Severity
    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    message: str
    fixes: list[Fix] = []
    start: int = Field(0, exclude=True)
    end: int = Field(0, exclude=True)
