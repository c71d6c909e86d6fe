"""The devices an operator can be measured on, by name: what `--device` on the command line accepts.

Only the CPU emulator exists today; a real NPU device is a later one with the same interface (`run`, `name`,
`chip`). Naming them in one place lets the CLI reject an unknown name with the list of allowed ones instead of
silently measuring on the emulator.
"""

from __future__ import annotations

from analysis.chip import Chip
from device.protocol import Device

DEVICES: tuple[str, ...] = ("emulator",)


def make_device(name: str, *, chip: Chip | str | None = None, timeout_s: float | None = None) -> Device:
    """The device called `name`; ValueError naming the allowed devices for any other name."""
    if name not in DEVICES:
        raise ValueError(
            f"unknown device '{name}'; use one of: {', '.join(DEVICES)} (only the CPU emulator exists so far)"
        )
    from device.emulator.device import DEFAULT_TIMEOUT_S, EmulatorDevice

    return EmulatorDevice(chip=chip, timeout_s=timeout_s if timeout_s is not None else DEFAULT_TIMEOUT_S)
