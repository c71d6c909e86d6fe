"""Same-address serialisation (tw/timing/same_address.h): copies that several cores make at the same time into the same
512-byte GM windows are served one after another, so they cost more the more cores meet there; copies into windows
of their own cost nothing extra. Checked by running the same kernels on the chip as shipped and with the term off."""

from __future__ import annotations

import pytest
from opgen import TILING_H, write_operator
from test_timing import KERNEL, SEPARATE_BODY, SEPARATE_INIT, TIMED_HOST

from tilewise.analysis.chip import Chip, load_chip, timing_config
from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

BLOCKS, TILE, TILES = 48, 2048, 8


def without_term(chip: Chip) -> Chip:
    data = chip.model_dump()
    data["timing"] = {**data["timing"], "same_address_serial": 0.0}
    return Chip.model_validate(data)


def run(emu_cache, chip: Chip, shared: bool):
    kernel = KERNEL.format(buffers=2, init=SEPARATE_INIT, body=SEPARATE_BODY.format(barrier=""))
    if shared:  # every block reads the first block's slice of x, at the same time
        kernel = kernel.replace(
            "xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx()", "xGm.SetGlobalBuffer((__gm__ float*)x"
        )
    root = write_operator(
        emu_cache.parent / ("same-address-shared" if shared else "same-address-own") / "scale",
        kernel=kernel,
        host=TIMED_HOST,
        tiling_h=TILING_H,
    )
    case = Case(
        name="t",
        inputs={"x": InputSpec(shape=[BLOCKS * TILE * TILES], dtype="float32")},
        attrs={"block_dim": BLOCKS, "tile": TILE},
    )
    m = EmulatorDevice(chip=chip, cache_dir=emu_cache).run(load_operator(root), RunRequest(case, golden=None))
    assert m.ok and m.error is None, m.error
    return m


def test_cores_meeting_in_the_same_windows_are_served_one_after_another(emu_cache, needs_gxx):
    chip = load_chip("910B2")
    beta = timing_config(chip).same_address_serial
    assert beta > 0
    shared, shared_off = run(emu_cache, chip, True), run(emu_cache, without_term(chip), True)
    # the reads of all 48 blocks meet in every window: their GM time grows by up to 47 shares
    ratio = shared.pipes["mte2"].busy_us / shared_off.pipes["mte2"].busy_us
    assert 1.0 + 0.5 * beta * (BLOCKS - 1) < ratio <= 1.0 + beta * (BLOCKS - 1) + 1e-6


def test_copies_into_windows_of_their_own_cost_nothing_extra(emu_cache, needs_gxx):
    chip = load_chip("910B2")
    own, own_off = run(emu_cache, chip, False), run(emu_cache, without_term(chip), False)
    assert own.pipes["mte2"].busy_us == pytest.approx(own_off.pipes["mte2"].busy_us, rel=1e-9)
    assert own.time_us == pytest.approx(own_off.time_us, rel=1e-9)
