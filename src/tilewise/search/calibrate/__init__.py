"""Calibration: fit a chip file's timing constants to a device's times, so the emulator predicts that machine.

`tilewise calibrate` (server/cli/calibrate_command.py) runs a fixed set of micro-kernels (`kernels.py`: copies of
growing size on one core and on all, a launch on growing block counts, queue depth 1 against 2, each vector
instruction class per dtype at two repeat counts; the operators that run them in `operators.py`) on the device and
on the emulator, fits the constants the micro-kernels pin (`fit.py`, over the chip-file numbers of `constants.py`,
in the stages of `run.py`), and writes a chip file saying which constants were calibrated and how (`report.py`).

Why: the chip files' constants come from public documents and other models (their `sources` say which), and the
tuner's choices are only as good as they are. On a machine with an NPU, calibration replaces them with that machine's.
"""

from tilewise.search.calibrate.fit import CalibrationError
from tilewise.search.calibrate.kernels import DEFAULT_CLASSES, QUICK_CLASSES, VECTOR_CLASSES
from tilewise.search.calibrate.report import calibration_json, check_writable, write_chip
from tilewise.search.calibrate.run import Calibration, calibrate, default_workdir

__all__ = [
    "DEFAULT_CLASSES",
    "QUICK_CLASSES",
    "VECTOR_CLASSES",
    "Calibration",
    "CalibrationError",
    "calibrate",
    "calibration_json",
    "check_writable",
    "default_workdir",
    "write_chip",
]
