"""A connected Ascend NPU as a device: CANN found (`cann.py`), operators built as their layout requires
(`build.py`), run through a generated aclnn harness (`harness.py`) under `msprof op` (`msprof.py`), and answered
with the emulator's `Measurement` (`device.py`). `../shared/REAL_DEVICE.md` has the documented formats."""
