"""Errors about the user's input. Each names the file, the line and what to do, and prints on one line."""

from __future__ import annotations


class TilewiseError(Exception):
    """Base of every error tilewise reports to a user instead of a traceback."""

    def __init__(self, file: str, line: int, message: str):
        super().__init__(f"{file}:{line}: {message}" if line else f"{file}: {message}")
        self.file = file
        self.line = line
        self.message = message

    def one_line(self) -> str:
        return str(self).replace("\n", " ")


class SourceError(TilewiseError):
    """A source file that cannot be read or decoded."""


class ProjectError(TilewiseError):
    """A folder that is not an operator, or one missing a part the command needs."""


class ManifestError(TilewiseError):
    """A tilewise.toml that does not parse or does not validate."""
