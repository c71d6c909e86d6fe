"""A run against the chip's limits, as a chart payload: its time next to the HBM roofline (the bytes that had to
cross HBM at the chip's HBM bandwidth, or every byte at L2's if that is longer, plus the launch overhead no kernel
avoids), and each pipe's busy ratio with the bottleneck named. Bytes read and written come from the run's
per-call-site figures (`Measurement.sites`), so the run must have been made with `sites=True`; the HBM share from
the emulator's L2 model (`Measurement.hbm_bytes`): writes land in L2 and leave it after the kernel, so counting
them at HBM speed would put the roofline above kernels that really run."""

from __future__ import annotations

from tilewise.analysis.chip import Chip, timing_config
from tilewise.device.protocol import Measurement
from tilewise.report.payloads import PipeBar, RooflinePayload

_PIPE_ORDER = ("scalar", "vector", "mte2", "mte3")


def roofline_payload(m: Measurement, chip: Chip, operator: str) -> RooflinePayload | None:
    """None for a run without timing (it failed before the kernel ran, or the device does not time)."""
    if m.time_us is None or m.launch_us is None:
        return None
    read = sum(s.bytes for s in m.sites if s.pipe == "MTE2")
    written = sum(s.bytes for s in m.sites if s.pipe == "MTE3")
    # HBM carries what missed L2 and what L2 wrote back; L2 carries every byte. A device that cannot tell the first
    # (an NPU's msprof has no such count here) has every byte cross HBM: the cold-data case.
    hbm = int(m.hbm_bytes) if m.hbm_bytes is not None else read + written
    l2_gbps = timing_config(chip).l2_gbps
    hbm_floor = max(hbm / (chip.hbm_gbps * 1e3), (read + written) / (l2_gbps * 1e3))  # bytes / (1e9 B/s) in µs
    floor = m.launch_us + hbm_floor
    pipes = [
        PipeBar(pipe=name.upper(), busy_us=m.pipes[name].busy_us, ratio=m.pipes[name].ratio)
        for name in _PIPE_ORDER
        if name in m.pipes
    ]
    payload = RooflinePayload(
        operator=operator,
        case=m.case,
        chip=m.chip or chip.name,
        time_us=m.time_us,
        launch_us=m.launch_us,
        kernel_us=max(m.time_us - m.launch_us, 0.0),
        bytes_read=read,
        bytes_written=written,
        hbm_bytes=hbm,
        hbm_gbps=chip.hbm_gbps,
        hbm_floor_us=hbm_floor,
        floor_us=floor,
        efficiency=min(floor / m.time_us, 1.0) if m.time_us > 0 else 1.0,
        pipes=pipes,
        bottleneck=m.bottleneck,
    )
    payload.verdict = verdict(payload)
    return payload


def verdict(p: RooflinePayload) -> str:
    """One sentence a developer can act on: what bounds the run, and how far it is from the roofline."""
    busiest = next((b for b in p.pipes if b.pipe.lower() == (p.bottleneck or "")), None)
    if p.launch_us >= 0.5 * p.time_us:
        head = f"Launch overhead is {p.launch_us / p.time_us:.0%} of the run: the kernel's own work is the smaller part"
    elif p.efficiency >= 0.8:
        head = (
            f"Within {1 - p.efficiency:.0%} of the HBM roofline ({p.floor_us:.2f} µs): the data moves at close to "
            f"the chip's {p.hbm_gbps:g} GB/s, and only moving fewer bytes would make it much faster"
        )
    else:
        head = f"{p.time_us / p.floor_us:.1f}x the HBM roofline ({p.floor_us:.2f} µs)"
    if busiest is None:
        return f"{head}."
    return f"{head}; {busiest.pipe} is the busiest pipe ({busiest.ratio:.0%} of each block's span)."
