"""The documented AscendC API of the Atlas A2 (910B) as data: every API the official Ascend C API reference
documents for the A2's vector core (and, marked, its cube core), kernel side and host (tiling) side, with each
documented overload and template form, the header each is documented in, and the header paths that are documented
or commonly included.

The index is `analysis/data/api_index.json`, made by `benchmarks/api_index_build.py` from the reference's sources
(each entry names its page and URL). It is facts, read here at the boundary with pydantic: hover and completion
can show a form's signature and header from it; `benchmarks/api_coverage.py` measures how many forms compile
against the emulator's headers (device/emulator/api_probe.py).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

INDEX_PATH = Path(__file__).resolve().parents[1] / "data" / "api_index.json"

Kind = Literal["function", "member", "constructor", "macro", "type", "field"]
Unit = Literal["vector", "cube", "hccl", "other"]
Side = Literal["kernel", "host"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Form(_Model):
    """One documented form: an overload, a template, a macro's spelling, a type or a field. `key` tells it apart
    from every other form of the index (qualified name, template head and parameter types)."""

    key: str
    kind: Kind
    template: str = ""
    signature: str
    variant: str = ""  # the reference's description of when this form applies ("tensor前n个数据连续计算")


class Api(_Model):
    """One API: a function with its overloads, a class member, a macro, a type or a field."""

    name: str
    qualified: str
    owner: str = ""  # the class of a member, constructor or field
    kind: Kind
    side: Side
    unit: Unit
    header: str  # where the reference documents it (header_from "page"), else see header_from
    header_from: Literal["page", "tree", "folder", "umbrella"]
    aliases: list[str] = Field(default_factory=list)  # older spellings of the header's path (lib/ for adv_api/)
    dtypes: dict[str, list[str]] = Field(default_factory=dict)  # per template parameter, the A2's data types
    doc: str
    url: str
    forms: list[Form]


class Header(_Model):
    """A header path: documented (`apis` > 0 names it for that many APIs), an older alias, or common in the
    development corpus (`corpus_uses` includes of it)."""

    path: str
    side: Side
    apis: int = 0
    alias: bool = False
    corpus_uses: int = 0


class Source(_Model):
    repo: str
    commit: str
    docs: str
    extra: str


class Reference(_Model):
    """What the reference's own API lists name, against what the index holds."""

    listed: int
    listed_on_a2: int
    listed_indexed: int
    listed_missing: list[str]
    pages_read: int
    pages_on_a2: int


class ApiIndex(_Model):
    schema_: int = Field(alias="schema")
    source: Source
    reference: Reference
    headers: list[Header]
    apis: list[Api]

    def forms(self) -> list[tuple[Api, Form]]:
        return [(a, f) for a in self.apis for f in a.forms]

    def find(self, name: str) -> list[Api]:
        """The APIs called `name` (plain or qualified), for hover and completion."""
        return [a for a in self.apis if name in (a.name, a.qualified)]


def load_index(path: Path | None = None) -> ApiIndex:
    """The index at `path` (the shipped one by default), validated."""
    if path is None:
        return _shipped()
    return ApiIndex.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _shipped() -> ApiIndex:
    return ApiIndex.model_validate(json.loads(INDEX_PATH.read_text(encoding="utf-8")))
