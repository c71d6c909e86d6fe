"""The devices an operator can be measured on, by name: what `--device` on the command line accepts.

`emulator` is the CPU emulator (the default, always there); `npu` or `npu:ID` is the Ascend NPU card ID of this
machine, through CANN (device/npu/). Naming them in one place lets the CLI reject an unknown name with the list of
allowed ones instead of silently measuring on the emulator, and a missing CANN with the one line that says what to
source.
"""

from __future__ import annotations

import re

from tilewise.analysis.chip import Chip
from tilewise.device.protocol import Device

DEVICES: tuple[str, ...] = ("emulator", "npu[:ID]")


def make_device(
    name: str,
    *,
    chip: Chip | str | None = None,
    timeout_s: float | None = None,
    cann: str | None = None,
    warm_up: int = 5,
    launches: int = 1,
) -> Device:
    """The device called `name`; ValueError with one line for an unknown name or an NPU that cannot be used."""
    if name == "emulator":
        from tilewise.device.emulator.device import DEFAULT_TIMEOUT_S, EmulatorDevice

        return EmulatorDevice(chip=chip, timeout_s=timeout_s if timeout_s is not None else DEFAULT_TIMEOUT_S)
    m = re.fullmatch(r"npu(?::(\d+))?", name)
    if m is None:
        raise ValueError(f"unknown device '{name}'; use one of: emulator, npu, npu:ID (an Ascend card's id)")
    from tilewise.device.npu.cann import CannError
    from tilewise.device.npu.device import DEFAULT_TIMEOUT_S as NPU_TIMEOUT_S
    from tilewise.device.npu.device import NpuDevice

    try:
        return NpuDevice(
            int(m.group(1) or 0),
            chip=chip,
            timeout_s=timeout_s if timeout_s is not None else NPU_TIMEOUT_S,
            cann=cann,
            warm_up=warm_up,
            launches=launches,
        )
    except CannError as exc:
        raise ValueError(str(exc)) from None
