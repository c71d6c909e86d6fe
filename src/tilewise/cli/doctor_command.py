"""`tilewise doctor`: what this machine can do with tilewise, one line per check, and what to do about each miss.

The emulator needs g++ (C++17); user code (kernels, host programs, goldens) runs without network where
`unshare --net` works. An NPU needs CANN (set_env.sh sourced, or --cann), msprof, a card that `npu-smi`
lists, and a chip file for its SoC. Ray and an LLM endpoint are optional. The exit status is 0 when the emulator
works and, with `--device npu`, when the NPU does too.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess

from tilewise.cli.common import out


def cmd_doctor(args: argparse.Namespace) -> int:
    checks: list[tuple[str, bool, str]] = []
    gxx = shutil.which("g++")
    checks.append(("g++ (the emulator's compiler)", gxx is not None, gxx or "not found: install g++ (C++17)"))
    from tilewise.device.process import network_isolation, network_note

    # a miss here is stated, not fatal: without unshare, user code runs with the network (process.py)
    checks.append(("user code without network", network_isolation() is not None, network_note()))
    npu_ok = _npu_checks(args, checks)
    for name, extra in (("ray", "--executor ray: pip install 'ray>=2.10'"), ("openai", "--llm: pip install openai")):
        found = importlib.util.find_spec(name) is not None
        checks.append((f"{name} (optional)", True, "installed" if found else f"not installed ({extra})"))
    for name, ok, detail in checks:
        mark = "[green]ok[/green]  " if ok else "[red]miss[/red]"
        out.print(f"{mark} {name}: {detail}", highlight=False)
    emulator_ok = gxx is not None
    wants_npu = args.device != "emulator"
    return 0 if emulator_ok and (npu_ok or not wants_npu) else 1


def _npu_checks(args: argparse.Namespace, checks: list[tuple[str, bool, str]]) -> bool:
    from tilewise.analysis.chip import builtin_chips
    from tilewise.device.npu.cann import CannError, chip_of_soc, find_cann, soc_name

    try:
        cann = find_cann(args.cann)
    except CannError as exc:
        checks.append(("CANN toolkit", False, str(exc)))
        return False
    checks.append(("CANN toolkit", True, str(cann.home)))
    checks.append(("msprof", True, cann.msprof))
    checks.append(
        ("npu-smi", cann.npu_smi is not None, cann.npu_smi or "not found (the driver's tool): the SoC comes from pyACL")
    )
    device_id = int(args.device.split(":")[1]) if ":" in args.device else 0
    try:
        soc = soc_name(cann, device_id)
    except CannError as exc:
        checks.append((f"NPU card {device_id}", False, str(exc)))
        return False
    chip = chip_of_soc(soc)
    checks.append((f"NPU card {device_id}", True, soc))
    known = chip in builtin_chips()
    checks.append(
        (
            "chip file",
            known,
            chip if known else f"no chip file for {soc}: pass --chip FILE.json (tilewise calibrate writes one)",
        )
    )
    cmake = shutil.which("cmake", path=cann.env.get("PATH"))
    checks.append(("cmake (builds)", cmake is not None, cmake or "not found: install cmake"))
    if cmake:
        proc = subprocess.run([cmake, "--version"], capture_output=True, text=True, check=False)
        checks[-1] = ("cmake (builds)", proc.returncode == 0, (proc.stdout.splitlines() or ["?"])[0])
    return True
