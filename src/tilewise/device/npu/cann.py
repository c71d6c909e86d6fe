"""Finding the CANN toolkit and the NPU on this machine, and saying plainly what is missing.

CANN's `set_env.sh` exports `ASCEND_HOME_PATH` and `ASCEND_TOOLKIT_HOME` (and puts `msprof` and the compilers on
PATH); `--cann PATH` names the toolkit instead. The SoC comes from `npu-smi info` (its Name column, `910B3`, is the
SoC `Ascend910B3`), else from pyACL's `acl.get_soc_name()`. Every failure is a `CannError` with one line that says
what to source or install and how to check (`tilewise doctor`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

SET_ENV = "/usr/local/Ascend/ascend-toolkit/set_env.sh"
HOME_VARIABLES = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
# Ray (and users) set this to pick cards; msprof op is documented not to support it being set, so the device
# drops it from every child's environment and names the card by its own id instead.
VISIBLE_DEVICES = "ASCEND_RT_VISIBLE_DEVICES"


class CannError(Exception):
    """The toolkit or the device cannot be used; the message is the one line to print."""


@dataclass
class Cann:
    home: Path  # the toolkit's root (ASCEND_HOME_PATH)
    msprof: str  # the msprof executable
    npu_smi: str | None
    env: dict[str, str] = field(default_factory=dict)  # the environment every CANN tool runs with

    def tool(self, name: str) -> str | None:
        """`name` on the toolkit's PATH, or in its usual folders."""
        found = shutil.which(name, path=self.env.get("PATH"))
        if found:
            return found
        for sub in ("bin", "tools/profiler/bin", "compiler/ccec_compiler/bin"):
            candidate = self.home / sub / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
        return None


def find_cann(explicit: str | None = None, env: dict[str, str] | None = None) -> Cann:
    """The toolkit named by `--cann` or by the environment set_env.sh made; CannError when there is none."""
    env = dict(os.environ if env is None else env)
    source = "--cann" if explicit else next((v for v in HOME_VARIABLES if env.get(v)), None)
    root = explicit or (env.get(source) if source else None)
    if not root:
        raise CannError(
            f"CANN not found: ASCEND_HOME_PATH is not set. Run `source {SET_ENV}` (or pass --cann PATH to the "
            "toolkit), then check with `tilewise doctor`"
        )
    home = Path(root).expanduser()
    if not home.is_dir():
        raise CannError(f"CANN not found at {home} (from {source}): source the set_env.sh of an installed toolkit")
    env.pop(VISIBLE_DEVICES, None)
    env.setdefault("ASCEND_HOME_PATH", str(home))
    env.setdefault("ASCEND_TOOLKIT_HOME", str(home))
    env["PATH"] = os.pathsep.join([str(home / "bin"), str(home / "tools/profiler/bin"), env.get("PATH", "")])
    lib = [str(home / "lib64"), str(home / "runtime/lib64")]
    env["LD_LIBRARY_PATH"] = os.pathsep.join([*lib, env.get("LD_LIBRARY_PATH", "")])
    cann = Cann(home, "", None, env)
    msprof = cann.tool("msprof")
    if msprof is None:
        raise CannError(
            f"CANN at {home} has no msprof (tools/profiler): install the toolkit's profiler, or source {SET_ENV}"
        )
    cann.msprof = msprof
    cann.npu_smi = cann.tool("npu-smi")
    return cann


def soc_name(cann: Cann, device_id: int = 0) -> str:
    """The SoC of card `device_id`, as CANN spells it (`Ascend910B3`)."""
    if cann.npu_smi is not None:
        proc = _quiet([cann.npu_smi, "info"], cann.env)
        if proc is not None and proc.returncode == 0:
            found = _soc_from_npu_smi(proc.stdout, device_id)
            if found:
                return found
    python = shutil.which("python3", path=cann.env.get("PATH")) or "python3"
    proc = _quiet([python, "-c", "import acl; print(acl.get_soc_name())"], cann.env)
    if proc is not None and proc.returncode == 0 and proc.stdout.strip():
        return proc.stdout.strip().splitlines()[-1]
    raise CannError(
        "no Ascend NPU found: `npu-smi info` lists none and pyACL's acl.get_soc_name() failed. Is the driver "
        "installed and the card visible (ls /dev/davinci*)? Check with `tilewise doctor`"
    )


def _soc_from_npu_smi(text: str, device_id: int) -> str | None:
    """The Name of card `device_id` in `npu-smi info`'s table: a row `| 0     910B3     | OK ...`."""
    names: dict[int, str] = {}
    for line in text.splitlines():
        m = re.match(r"^\|\s*(\d+)\s+(\w*9\d0\w*|\w*310\w*)\s*\|", line)
        if m:
            names.setdefault(int(m.group(1)), m.group(2))
    name = names.get(device_id)
    if name is None:
        return None
    return name if name.startswith("Ascend") else f"Ascend{name}"


def chip_of_soc(soc: str) -> str:
    """The chip file for a SoC: `Ascend910B3` -> `910B3`."""
    return soc.removeprefix("Ascend")


def _quiet(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
