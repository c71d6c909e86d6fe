"""Chip descriptions: data files of documented constants, validated at load time.

The analysis needs only the core count and UB size; the emulator's timing model (device/) extends the same files.
A user passes a built-in name (`910B2`) or the path of their own JSON file.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.errors import TilewiseError

CHIP_DIR = Path(__file__).parent / "data" / "chips"
DEFAULT_CHIP = "910B2"


class Chip(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    description: str = ""
    vector_cores: int = Field(gt=0)
    cube_cores: int = Field(ge=0)
    ub_bytes: int = Field(gt=0)
    l1_bytes: int = Field(gt=0)
    clock_ghz: float = Field(gt=0)
    hbm_gbps: float = Field(gt=0)
    sources: dict[str, str] = {}


def builtin_chips() -> list[str]:
    return sorted(p.stem for p in CHIP_DIR.glob("*.json"))


def load_chip(name_or_path: str | None = None) -> Chip:
    spec = name_or_path or DEFAULT_CHIP
    path = Path(spec)
    if not path.suffix:
        path = CHIP_DIR / f"{spec}.json"
        if not path.exists():
            raise TilewiseError(spec, 0, f"unknown chip; use one of {', '.join(builtin_chips())} or a JSON file")
    try:
        return Chip.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise TilewiseError(str(path), 0, f"cannot read chip file ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise TilewiseError(str(path), exc.lineno, f"chip file is not valid JSON: {exc.msg}") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise TilewiseError(str(path), 0, f"chip field '{where}': {err['msg']}") from None
