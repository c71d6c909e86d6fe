"""What a lint rule reports: a finding with a range, a message and optional fixes as text edits."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

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


class Fix(BaseModel):
    title: str
    edits: list[TextEdit]


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
