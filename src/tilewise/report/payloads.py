"""The chart payloads: the one contract between the Python side (CLI reports, the language server) and the
charts bundle (vscode-client/webview). Each is a JSON object with a `kind`; the TypeScript twin of these models is
vscode-client/webview/payloads.ts, and a change here changes it there.

Times are microseconds. A timeline's times are kernel-relative (launch overhead excluded, 0 = the kernel starts);
its events are compact rows rather than objects, because a run can have hundreds of thousands of them.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

Config = dict[str, int]

PIPES = ["SCALAR", "VECTOR", "MTE2", "MTE3"]  # a timeline row's pipe is an index into this list


class TimelineSite(BaseModel):
    """One call site: an API called on a source line (absolute path of the user's file, 1-based line)."""

    api: str
    file: str
    line: int


class TimelineCore(BaseModel):
    core: int
    end_us: float  # when the core's last pipe finished
    # (pipe, start_us, dur_us, site, bytes, repeats): `site` indexes TimelinePayload.sites
    events: list[tuple[int, float, float, int, int, int]] = []
    # (pipe, start_us, dur_us, cause): the pipe stood idle waiting on a dependency; `cause` indexes .causes
    waits: list[tuple[int, float, float, int]] = []


class TimelinePayload(BaseModel):
    kind: Literal["timeline"] = "timeline"
    operator: str
    case: str | None = None
    chip: str | None = None
    time_us: float | None = None  # the whole run, launch included
    launch_us: float | None = None
    block_dim: int | None = None
    pipes: list[str] = PIPES
    sites: list[TimelineSite] = []
    causes: list[str] = []  # e.g. "DeQue: waits for MTE2's data", "AllocTensor: waits for VECTOR to free the buffer"
    cores: list[TimelineCore] = []  # in core order; may stop early when `truncated`
    core_count: int = 0  # cores the run used (blocks), whether or not all are in `cores`
    truncated: bool = False  # the trace hit its event cap: later events are missing


class ConvergencePoint(BaseModel):
    """One candidate: measured (ok or failed) or screened out before any measurement."""

    evaluation: int  # x: the measured candidates so far, this one included (a screened one: those before it)
    config: Config
    time_us: float | None = None
    status: Literal["ok", "failed", "screened"]
    cached: bool = False  # its measurement came from the results cache
    reason: str | None = None  # why it failed or was screened out
    label: str | None = None  # an optimize step's what, e.g. "motif pipe-sync" (a tune's points have the config)


class ConvergencePayload(BaseModel):
    kind: Literal["convergence"] = "convergence"
    source: Literal["tune", "optimize"] = "tune"
    operator: str
    strategy: str
    budget: int
    cases: list[str] = []
    shipped_us: float | None = None  # the tiling as shipped: drawn as a horizontal line
    shipped_config: Config = {}
    best_us: float | None = None
    best_config: Config | None = None
    points: list[ConvergencePoint] = []  # in the order measured; best-so-far is drawn from the ok ones
    done: bool = False  # False while the search is still running (the view updates)
    stopped: bool = False  # cancelled before its budget ran out


class PipeBar(BaseModel):
    pipe: str  # SCALAR, VECTOR, MTE2, MTE3
    busy_us: float  # summed over the blocks
    ratio: float  # busy time over the blocks' span, averaged over the blocks


class RooflinePayload(BaseModel):
    kind: Literal["roofline"] = "roofline"
    operator: str
    case: str | None = None
    chip: str
    time_us: float  # the whole run
    launch_us: float
    kernel_us: float  # time_us - launch_us
    bytes_read: int  # GM -> UB over all blocks (MTE2)
    bytes_written: int  # UB -> GM (MTE3)
    # What had to cross HBM during the kernel: reads that missed L2 and L2's write-backs (the emulator's L2 model;
    # a device that cannot tell counts every byte read and written). Writes land in L2 and mostly leave it later.
    hbm_bytes: int = 0
    hbm_gbps: float  # the chip's HBM bandwidth, 1e9 bytes per second
    hbm_floor_us: float  # the longer of hbm_bytes at the HBM bandwidth and every byte at L2's: no kernel is faster
    floor_us: float  # launch_us + hbm_floor_us: the roofline
    efficiency: float  # floor_us / time_us, in (0, 1]
    pipes: list[PipeBar] = []
    bottleneck: str | None = None  # the pipe with the highest busy ratio, lower case (vector, mte2, ...)
    verdict: str = ""  # one sentence: what bounds the kernel and by how much


ChartPayload = Annotated[TimelinePayload | ConvergencePayload | RooflinePayload, Field(discriminator="kind")]


class ReportPayload(BaseModel):
    """What an `--html` report embeds: a title and the charts, drawn in order."""

    title: str
    subtitle: str = ""
    charts: list[ChartPayload] = []
