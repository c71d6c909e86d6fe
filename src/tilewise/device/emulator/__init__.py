"""The embedded default device: AscendC compiled with g++ against tilewise's headers and run on the CPU."""

from tilewise.device.emulator.device import EmulatorDevice

__all__ = ["EmulatorDevice"]
