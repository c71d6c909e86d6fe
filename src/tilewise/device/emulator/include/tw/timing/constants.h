// GENERATED from analysis/chip.py's table of timing constants (TIMING_CONSTANTS) by
// `python -m tilewise.device.emulator.timing_header`: do not edit, change the table and regenerate
// (tests/emulator/test_timing_constants.py fails while this file is stale).
//
// TW_TIMING_CONSTANTS(X) calls X(type, name, default) once per constant the run spec sends as
// `timing NAME VALUE` (device/emulator/timing.py::spec_lines); TimingParams (tw/timing/model.h)
// expands it into its fields and its parser. A constant every chip file gives defaults to 0: the
// spec always sends it. The vector table travels as `timing vcost OP BYTES HEAD PER_REPEAT` lines,
// which TimingParams reads itself.
#pragma once
#include <utility>

namespace tw {
using TimingRow = std::pair<double, double>;  // (head cycles, cycles per repeat)
}  // namespace tw

#define TW_TIMING_CONSTANTS(X) \
    /* launch_us_base: a launch's fixed cost (scheduling, init, end report) (µs; every chip file gives it) */ \
    X(double, launch_us_base, 0.0) \
    /* launch_us_per_core: a launch's cost per core it starts (µs; every chip file gives it) */ \
    X(double, launch_us_per_core, 0.0) \
    /* dma_peak_gibps: one core's MTE2 rate (GM -> UB) (GiB/s; every chip file gives it) */ \
    X(double, dma_peak_gibps, 0.0) \
    /* dma_out_gibps: one core's MTE3 rate (UB -> GM) (GiB/s; default in the table) */ \
    X(double, dma_out_gibps, 188.46) \
    /* dma_issue_cycles: the least a copy occupies its pipe, however small (cycles; every chip file gives it) */ \
    X(double, dma_issue_cycles, 0.0) \
    /* mte2_latency_cycles: an MTE2 copy's completion latency (cycles; default in the table) */ \
    X(double, mte2_latency_cycles, 0.0) \
    /* mte3_latency_cycles: an MTE3 copy's completion latency (cycles; default in the table) */ \
    X(double, mte3_latency_cycles, 0.0) \
    /* vector_latency_cycles: a vector instruction's completion latency (cycles; default in the table) */ \
    X(double, vector_latency_cycles, 0.0) \
    /* scalar_issue_cycles: the scalar unit's cost per traced call (cycles; every chip file gives it) */ \
    X(double, scalar_issue_cycles, 0.0) \
    /* l2_gbps: L2 bandwidth the cores share: a copy's cap on L2 hits (GB/s; default in the table) */ \
    X(double, l2_gbps, 5200.0) \
    /* pad_row_cycles: DataCopyPad's extra work per row (cycles; every chip file gives it) */ \
    X(double, pad_row_cycles, 0.0) \
    /* l2_mbytes: L2 capacity: which re-read bytes hit L2 (MiB; default in the table) */ \
    X(double, l2_mbytes, 192.0) \
    /* ub_scalar_cycles: one GetValue/SetValue on UB, once the pipes it waits for drained (cycles; every chip file gives it) */ \
    X(double, ub_scalar_cycles, 0.0) \
    /* gm_scalar_cycles: one GetValue/SetValue on GM (cycles; every chip file gives it) */ \
    X(double, gm_scalar_cycles, 0.0) \
    /* sync_all_cycles: one SyncAll across the cores (cycles; every chip file gives it) */ \
    X(double, sync_all_cycles, 0.0) \
    /* barrier_v_cycles: the drain a PipeBarrier<PIPE_V> adds while vector work is in flight (cycles; default in the table) */ \
    X(double, barrier_v_cycles, 0.0) \
    /* ub_rw_conflict_beats: a vector repeat reading and writing one UB bank in a beat (tw/timing/ub_banks.h) (beats; default in the table) */ \
    X(double, ub_rw_conflict_beats, 0.0) \
    /* same_address_serial: a copy's GM time, per extra core copying into its 512-byte windows (tw/timing/same_address.h) (share per core; default in the table) */ \
    X(double, same_address_serial, 0.0) \
    /* vector_default: (head, per repeat) of a vector API the table does not list (cycles, cycles per repeat; every chip file gives it) */ \
    X(TimingRow, vector_default, (TimingRow{0.0, 0.0})) \
    /* vector_cores: the blocks that run at once: a launch's waves, its cores, each core's HBM share (cores; every chip file gives it) */ \
    X(int, vector_cores, 0) \
    /* clock_ghz: cycles into microseconds: every cycle count (GHz; every chip file gives it) */ \
    X(double, clock_ghz, 0.0) \
    /* hbm_gbps: GM bandwidth the cores share: a copy's cap (GB/s; every chip file gives it) */ \
    X(double, hbm_gbps, 0.0)
