// The pipeline timing model of the AI Core's vector side: replays each block's trace on per-pipe timelines.
//
// - The scalar unit issues records in program order and pays an issue cost for each.
// - Vector, MTE2 and MTE3 each run their own instructions in order, in parallel with each other.
// - Dependencies: EnQue/DeQue (the consumer pipe waits for the producer's data), AllocTensor/FreeTensor (the
//   producer waits until the consumer released the buffer), SetFlag/WaitFlag, PipeBarrier<PIPE_ALL> (scalar waits
//   for every pipe), scalar GetValue/SetValue (wait for the pipes that write UB or GM), SyncAll across blocks.
// - Costs: a copy occupies its MTE pipe for the longest of its issue cost, its bytes at the core's DMA rate, and its
//   bytes at the core's share of HBM (misses) and of L2 (hits; tw/timing/l2_cache.h), plus 512 bytes for each GM segment
//   a misaligned row adds, and more when other cores' copies of the same round share its 512-byte GM windows
//   (tw/timing/same_address.h); its data is usable a completion latency later. A vector instruction occupies its pipe for
//   slope x repeats (per instruction and dtype; the repeats weighted by their UB bank beats where the
//   instruction recorded them, tw/timing/ub_banks.h) and its result is ready its head + the vector latency later; launch
//   overhead; waves when blockDim exceeds the core count.
// With events kept (for a Chrome trace, tw/timing/trace_files.h), each pipe's instructions are kept with their bytes and
// repeats, and so are its idle gaps with what held it (TimedWait): the dependency that pushed its next instruction
// back, or the scalar unit issuing late. None of it is computed when events are not kept (the tuner's runs).
// Constants come from the chip file (see analysis/data/chips), passed in the run spec. Deterministic by design.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tw/timing/constants.h"
#include "tw/timing/l2_cache.h"
#include "tw/runtime/launcher.h"
#include "tw/timing/same_address.h"
#include "tw/timing/ub_banks.h"

namespace tw {

// A chip's timing constants as the run spec gives them (`timing NAME VALUE` lines): one field per constant of
// analysis/chip.py's table (tw/timing/constants.h, generated from it), and the vector table. A latency is completion
// beyond a pipe's occupancy: the next instruction on the same pipe may start when the pipe is free, but whatever
// depends on the result (a queue's consumer, a flag, a barrier, a scalar read) waits for it to complete.
inline void read_constant(std::istream& in, double& v) { in >> v; }
inline void read_constant(std::istream& in, int& v) { in >> v; }
inline void read_constant(std::istream& in, TimingRow& v) { in >> v.first >> v.second; }

struct TimingParams {
#define TW_TIMING_FIELD(type, name, value) type name = value;
    TW_TIMING_CONSTANTS(TW_TIMING_FIELD)
#undef TW_TIMING_FIELD
    std::map<std::string, TimingRow> vector16, vector32;  // op -> (startup, slope per repeat)

    bool set(const std::string& key, std::istream& in) {
#define TW_TIMING_SET(type, name, value) \
    if (key == #name) {                  \
        read_constant(in, name);         \
        return true;                     \
    }
        TW_TIMING_CONSTANTS(TW_TIMING_SET)
#undef TW_TIMING_SET
        if (key == "vcost") {  // vcost OP BYTES STARTUP SLOPE
            std::string op;
            int bytes;
            double a, b;
            in >> op >> bytes >> a >> b;
            (bytes <= 2 ? vector16 : vector32)[op] = {a, b};
            return true;
        }
        return false;
    }
};

enum TimedPipe { TP_SCALAR = 0, TP_VECTOR, TP_MTE2, TP_MTE3, TP_COUNT };
inline const char* timed_pipe_name(int p) {
    static const char* names[] = {"SCALAR", "VECTOR", "MTE2", "MTE3"};
    return names[p];
}

struct TimedEvent {
    uint8_t pipe;
    double start, dur;  // cycles
    uint32_t op, file, line;
    uint64_t bytes;
    uint32_t repeats;
};

// What held a pipe's next instruction back. Names are wait_kind_name's; a trace reader maps them to sentences.
enum WaitKind : uint8_t { W_NONE = 0, W_ISSUE, W_DEQUE, W_ALLOC, W_FLAG, W_BARRIER, W_SCALAR_WRITE, W_SCALAR_ACCESS,
                          W_PIPE_ALL, W_SYNC_ALL };
inline const char* wait_kind_name(int k) {
    static const char* names[] = {"", "Issue", "DeQue", "AllocTensor", "WaitFlag", "PipeBarrier", "SetValue",
                                  "ScalarAccess", "PipeBarrier<PIPE_ALL>", "SyncAll"};
    return names[k];
}
struct WaitCause {
    uint8_t kind = W_NONE;
    int8_t on = -1;       // the timed pipe waited on, -1 when none (a SyncAll)
    bool scalar = false;  // a non-scalar pipe idle because the scalar unit stalled on this (it issued nothing)
};
// An idle gap [start, start + dur) of a pipe (cycles): on VECTOR/MTE2/MTE3, between its previous instruction's end and
// the next one's start; on SCALAR, a stall of the issue.
struct TimedWait {
    uint8_t pipe;
    WaitCause cause;
    double start, dur;
};

// What one call site (API, file, line, pipe) did in one block: the editor shows it on the user's line after a run.
struct SiteUse {
    uint64_t calls = 0, bytes = 0, repeats = 0;
    uint64_t min_bytes = UINT64_MAX, max_bytes = 0;
    uint32_t min_repeats = UINT32_MAX, max_repeats = 0;
    double cycles = 0;  // busy time on its pipe
};
using SiteKey = std::tuple<uint32_t, uint32_t, uint32_t, int>;  // op, file, line (interned), timed pipe

struct CoreTiming {
    double end = 0;     // from the start of its wave
    double offset = 0;  // when its wave started (the waves before it), so offset + end is kernel-relative
    double busy[TP_COUNT] = {0, 0, 0, 0};
    std::vector<TimedEvent> events;  // with keep_events: times from the start of its wave
    std::vector<TimedWait> waits;
    std::map<SiteKey, SiteUse> sites;
};

struct KernelTiming {
    double cycles = 0;       // kernel time without launch overhead
    double launch_us = 0;
    double time_us = 0;      // launch + kernel
    double busy_us[TP_COUNT] = {0, 0, 0, 0};   // summed over blocks
    double ratio[TP_COUNT] = {0, 0, 0, 0};     // busy / (blocks x their span), averaged
    int waves = 1;
    double hbm_bytes = 0;  // what HBM served or took during the kernel: L2 misses and write-backs (the roofline's)
    std::string bottleneck;
    std::vector<CoreTiming> cores;
};

inline int timed_pipe(uint8_t pipe) {
    switch (pipe) {
        case AscendC::PIPE_V: return TP_VECTOR;
        case AscendC::PIPE_MTE2: return TP_MTE2;
        case AscendC::PIPE_MTE3: return TP_MTE3;
        default: return TP_SCALAR;
    }
}

class Scheduler {
  public:
    Scheduler(const TimingParams& p, const std::vector<std::string>& names, int block_dim, bool keep_events,
              bool keep_sites = false)
        : p_(p), names_(names), block_dim_(block_dim), keep_events_(keep_events), keep_sites_(keep_sites) {}

    KernelTiming run(const std::vector<BlockResult>& blocks) {
        KernelTiming kt;
        const int cores = std::max(1, p_.vector_cores);
        kt.waves = (block_dim_ + cores - 1) / cores;
        classify_copies(blocks, cores);
        kt.hbm_bytes = hbm_bytes_;

        kt.cores.resize(blocks.size());
        for (int w = 0; w < kt.waves; ++w) {
            int first = w * cores, last = std::min<int>(first + cores, static_cast<int>(blocks.size()));
            std::vector<State> st(last - first);
            std::vector<size_t> pos(last - first, 0);
            // Advance every block of the wave to its next SyncAll, then release them together.
            bool more = true;
            while (more) {
                more = false;
                double barrier = 0;
                for (int i = first; i < last; ++i) {
                    bool hit = simulate(blocks[i].trace, traffic_[i], pos[i - first], st[i - first], kt.cores[i]);
                    if (hit) {
                        more = true;
                        barrier = std::max(barrier, st[i - first].now());
                    }
                }
                if (more)
                    for (int i = first; i < last; ++i) {
                        if (keep_events_) note_release(st[i - first], kt.cores[i], barrier + p_.sync_all_cycles);
                        st[i - first].release(barrier + p_.sync_all_cycles);
                    }
            }
            double wave_end = 0;
            for (int i = first; i < last; ++i) {
                kt.cores[i].offset = kt.cycles;
                kt.cores[i].end = st[i - first].now();
                for (int k = 0; k < TP_COUNT; ++k) kt.cores[i].busy[k] = st[i - first].busy[k];
                wave_end = std::max(wave_end, kt.cores[i].end);
            }
            kt.cycles += wave_end;
        }
        const double hz = p_.clock_ghz * 1e9;
        kt.launch_us = p_.launch_us_base + p_.launch_us_per_core * std::min(block_dim_, cores);
        kt.time_us = kt.launch_us + kt.cycles / hz * 1e6;
        double best = -1;
        for (int k = 0; k < TP_COUNT; ++k) {
            double sum_ratio = 0;
            for (auto& c : kt.cores) {
                kt.busy_us[k] += c.busy[k] / hz * 1e6;
                sum_ratio += c.end > 0 ? c.busy[k] / c.end : 0;
            }
            kt.ratio[k] = kt.cores.empty() ? 0 : sum_ratio / kt.cores.size();
            if (kt.ratio[k] > best) { best = kt.ratio[k]; kt.bottleneck = k == TP_SCALAR ? "scalar" : k == TP_VECTOR ? "vector" : k == TP_MTE2 ? "mte2" : "mte3"; }
        }
        return kt;
    }

  private:
    struct State {
        double issue = 0;
        double free[TP_COUNT] = {0, 0, 0, 0};  // when the pipe accepts its next instruction
        double done[TP_COUNT] = {0, 0, 0, 0};  // when everything issued to the pipe has completed
        double busy[TP_COUNT] = {0, 0, 0, 0};
        std::map<std::pair<int, int>, double> ready, released;  // (queue, buffer) -> time
        std::map<std::pair<int, int>, int> consumer;
        std::map<std::pair<int, int>, double> flags;             // (event, id) -> time set
        int last_pipe = TP_SCALAR;
        // Kept only with keep_events, for the idle gaps: each pipe's last instruction's end, what last pushed its
        // `free` past that, and the scalar unit's last stall (what held it and when it ended).
        double last_end[TP_COUNT] = {0, 0, 0, 0};
        WaitCause why[TP_COUNT];
        std::map<std::pair<int, int>, int> producer;  // (queue, buffer) -> the pipe whose EnQue made it ready
        WaitCause stall;
        double stall_end = -1;
        double now() const { return std::max({issue, done[0], done[1], done[2], done[3]}); }
        void release(double t) {
            issue = t;
            for (double& f : free) f = std::max(f, t);
            for (double& d : done) d = std::max(d, t);
        }
    };

    // Replays records from `pos` until a SyncAll (returns true) or the end (returns false).
    bool simulate(const std::vector<TraceRecord>& trace, const std::vector<L2Cache::Traffic>& traffic, size_t& pos,
                  State& s, CoreTiming& core) {
        const size_t n = trace.size();
        for (; pos < n; ++pos) {
            const TraceRecord& r = trace[pos];
            s.issue += p_.scalar_issue_cycles;
            s.busy[TP_SCALAR] += p_.scalar_issue_cycles;
            switch (r.kind) {
                case Rec::Instr: {
                    int pipe = timed_pipe(r.pipe);
                    double cost = cost_of(r, pipe, traffic[pos]);
                    if (keep_sites_) note_site(core, r, pipe, cost);
                    if (pipe == TP_SCALAR) {
                        if (keep_events_) core.events.push_back(event_of(r, pipe, s.issue, cost));
                        s.issue += cost;
                        s.busy[TP_SCALAR] += cost;
                        break;
                    }
                    double start = std::max(s.issue, s.free[pipe]);
                    if (keep_events_) note_gap(s, core, pipe, start, start + cost);
                    s.free[pipe] = start + cost;
                    // A vector instruction's head (its table startup) delays its result, not the next instruction:
                    // the A2/A3 models issue back-to-back vector instructions pipelined (see head_of).
                    const double lat = latency_of(pipe) + (pipe == TP_VECTOR ? head_of(r) : 0.0);
                    s.done[pipe] = std::max(s.done[pipe], start + cost + lat);
                    s.busy[pipe] += cost;
                    s.last_pipe = pipe;
                    if (keep_events_) core.events.push_back(event_of(r, pipe, start, cost));
                    break;
                }
                case Rec::Alloc: {
                    if (keep_sites_) note_site(core, r, TP_SCALAR, 0);
                    int pipe = next_pipe(trace, pos);
                    auto it = s.released.find({r.a, r.b});
                    if (it != s.released.end() && pipe != TP_SCALAR)
                        wait_for(s, pipe, it->second, {W_ALLOC, keep_events_ ? on_pipe(s.consumer, r) : int8_t(-1)});
                    break;
                }
                case Rec::EnQue:
                    if (keep_sites_) note_site(core, r, TP_SCALAR, 0);  // how many tiles a queue streams
                    s.ready[{r.a, r.b}] = s.last_pipe == TP_SCALAR ? s.issue : s.done[s.last_pipe];
                    if (keep_events_) s.producer[{r.a, r.b}] = s.last_pipe;
                    break;
                case Rec::DeQue: {
                    if (keep_sites_) note_site(core, r, TP_SCALAR, 0);
                    int pipe = next_pipe(trace, pos);
                    double ready = s.ready.count({r.a, r.b}) ? s.ready[{r.a, r.b}] : 0;
                    s.consumer[{r.a, r.b}] = pipe;
                    const WaitCause why{W_DEQUE, keep_events_ ? on_pipe(s.producer, r) : int8_t(-1)};
                    if (pipe == TP_SCALAR) hold_issue(s, core, ready, why);
                    else wait_for(s, pipe, ready, why);
                    break;
                }
                case Rec::Free: {
                    auto c = s.consumer.find({r.a, r.b});
                    int pipe = c == s.consumer.end() ? TP_SCALAR : c->second;
                    s.released[{r.a, r.b}] = pipe == TP_SCALAR ? s.issue : std::max(s.done[pipe], s.issue);
                    break;
                }
                case Rec::SetFlag: {
                    int src = timed_pipe(static_cast<uint8_t>(r.a >> 4));
                    s.flags[{r.a, r.b}] = src == TP_SCALAR ? s.issue : std::max(s.done[src], s.issue);
                    break;
                }
                case Rec::WaitFlag: {
                    int dst = timed_pipe(static_cast<uint8_t>(r.a & 0xF));
                    double t = s.flags.count({r.a, r.b}) ? s.flags[{r.a, r.b}] : 0;
                    const WaitCause why{W_FLAG, static_cast<int8_t>(timed_pipe(static_cast<uint8_t>(r.a >> 4)))};
                    if (dst == TP_SCALAR) hold_issue(s, core, t, why);
                    else wait_for(s, dst, t, why);
                    break;
                }
                case Rec::Barrier:
                    if (r.a == AscendC::PIPE_ALL)  // a full stall: every pipe drains
                        hold_issue(s, core, s.now(), {W_PIPE_ALL, keep_events_ ? last_done(s) : int8_t(-1)});
                    else if (r.a == AscendC::PIPE_V) {
                        // The next vector instruction waits until every earlier one has completed, plus the drain;
                        // with nothing in flight the barrier costs nothing.
                        const bool in_flight = s.done[TP_VECTOR] > s.issue;
                        wait_for(s, TP_VECTOR, s.done[TP_VECTOR] + (in_flight ? p_.barrier_v_cycles : 0.0),
                                 {W_BARRIER, TP_VECTOR});
                    }
                    break;
                case Rec::Scalar: {
                    // Scalar access to UB waits for the pipes writing UB; to GM, for the pipes moving data.
                    bool gm = r.a == 1;
                    double wait = gm ? std::max(s.done[TP_MTE2], s.done[TP_MTE3])
                                     : std::max({s.done[TP_VECTOR], s.done[TP_MTE2], s.done[TP_MTE3]});
                    double cost = gm ? p_.gm_scalar_cycles : p_.ub_scalar_cycles;
                    hold_issue(s, core, wait, {W_SCALAR_ACCESS, keep_events_ ? last_done(s, gm ? 2 : 1) : int8_t(-1)});
                    if (keep_events_) core.events.push_back(event_of(r, TP_SCALAR, s.issue, cost));
                    s.issue += cost;
                    s.busy[TP_SCALAR] += cost;
                    // A write must land before later vector or copy work reads it.
                    if (r.b == 1)
                        for (int k = 1; k < TP_COUNT; ++k) wait_for(s, k, s.issue, {W_SCALAR_WRITE, TP_SCALAR});
                    break;
                }
                case Rec::SyncAll:
                    hold_issue(s, core, s.now(), {W_SYNC_ALL, -1});
                    ++pos;
                    return true;
            }
        }
        return false;
    }

    static void note_site(CoreTiming& core, const TraceRecord& r, int pipe, double cost) {
        SiteUse& u = core.sites[SiteKey{r.op, r.file, r.line, pipe}];
        ++u.calls;
        u.bytes += r.bytes;
        u.repeats += r.repeats;
        u.min_bytes = std::min<uint64_t>(u.min_bytes, r.bytes);
        u.max_bytes = std::max<uint64_t>(u.max_bytes, r.bytes);
        u.min_repeats = std::min(u.min_repeats, r.repeats);
        u.max_repeats = std::max(u.max_repeats, r.repeats);
        u.cycles += cost;
    }

    // A pipe's next instruction may not start before `t` (a dependency, a released buffer, a barrier).
    void wait_for(State& s, int pipe, double t, WaitCause why) const {
        if (keep_events_ && t > s.free[pipe]) s.why[pipe] = why;  // the latest to push `free` is the one that binds
        s.free[pipe] = std::max(s.free[pipe], t);
        s.done[pipe] = std::max(s.done[pipe], t);
    }

    // The scalar unit may not issue before `t`: with events kept, the stall is its idle gap.
    void hold_issue(State& s, CoreTiming& core, double t, WaitCause why) const {
        if (keep_events_ && t > s.issue) {
            core.waits.push_back({TP_SCALAR, why, s.issue, t - s.issue});
            s.stall = why;
            s.stall_end = t;
        }
        s.issue = std::max(s.issue, t);
    }

    // Every block released from a SyncAll at `t`: the gap each pipe (and the scalar unit) spends waiting for it.
    static void note_release(State& s, CoreTiming& core, double t) {
        const WaitCause why{W_SYNC_ALL, -1};
        if (t > s.issue) core.waits.push_back({TP_SCALAR, why, s.issue, t - s.issue});
        s.stall = why;
        s.stall_end = t;
        for (int k = 1; k < TP_COUNT; ++k)
            if (t > s.free[k]) s.why[k] = why;
    }

    // A non-scalar pipe's next instruction starts at `start`: an idle gap since its last one, with what held it.
    // The dependency that pushed `free`, if that binds; else the scalar unit: its stall while the pipe stood idle,
    // then its issuing (a busy scalar loop). Both parts when each lasts kSplitCycles; else the longer one alone.
    static void note_gap(State& s, CoreTiming& core, int pipe, double start, double end) {
        constexpr double kSplitCycles = 32;
        const double idle = s.last_end[pipe];
        const uint8_t p = static_cast<uint8_t>(pipe);
        if (start > idle && s.free[pipe] >= s.issue && s.why[pipe].kind != W_NONE) {
            core.waits.push_back({p, s.why[pipe], idle, start - idle});
        } else if (start > idle) {
            const WaitCause issue{W_ISSUE, TP_SCALAR};
            WaitCause stall = s.stall;
            stall.scalar = true;
            const double split = std::clamp(s.stall_end, idle, start);
            if (split - idle >= kSplitCycles && start - split >= kSplitCycles) {
                core.waits.push_back({p, stall, idle, split - idle});
                core.waits.push_back({p, issue, split, start - split});
            } else {
                core.waits.push_back({p, split - idle > start - split ? stall : issue, idle, start - idle});
            }
        }
        s.last_end[pipe] = end;
        s.why[pipe] = WaitCause{};
    }

    static TimedEvent event_of(const TraceRecord& r, int pipe, double start, double dur) {
        return {static_cast<uint8_t>(pipe), start, dur, r.op, r.file, r.line, r.bytes, r.repeats};
    }

    static int8_t on_pipe(const std::map<std::pair<int, int>, int>& by_buffer, const TraceRecord& r) {
        auto it = by_buffer.find({r.a, r.b});
        return it == by_buffer.end() ? int8_t(-1) : static_cast<int8_t>(it->second);
    }

    // The pipe that completes last from `from` on (VECTOR = 1, MTE2 = 2): what a full stall waited for.
    static int8_t last_done(const State& s, int from = 1) {
        int best = -1;
        for (int k = from; k < TP_COUNT; ++k)
            if (s.done[k] > s.issue && (best < 0 || s.done[k] > s.done[best])) best = k;
        return static_cast<int8_t>(best);
    }

    double latency_of(int pipe) const {
        return pipe == TP_VECTOR ? p_.vector_latency_cycles
             : pipe == TP_MTE2   ? p_.mte2_latency_cycles
             : pipe == TP_MTE3   ? p_.mte3_latency_cycles
                                 : 0.0;
    }

    // A vector instruction's table row: (head, cycles per repeat). The pipe is busy for the repeats; the head comes
    // on top of the result's latency. Both Huawei A2/A3 models work this way: PTO-ISA charges the head only when the
    // vector queue is empty (cce_costmodel_core.hpp EstimateLinearCycles), pypto's simulator issues the next
    // instruction when the previous one's repeats are issued and completes each `delay + 15` cycles later.
    const std::pair<double, double>& vector_row(const TraceRecord& r) const {
        auto& cache = r.dtype <= 2 ? rows16_ : rows32_;  // by interned name: a trace repeats a few ops many times
        if (cache.size() <= r.op) cache.resize(names_.size() > r.op ? names_.size() : r.op + 1, nullptr);
        if (cache[r.op] == nullptr) {
            const auto& table = r.dtype <= 2 ? p_.vector16 : p_.vector32;
            auto it = table.find(names_[r.op]);
            cache[r.op] = it != table.end() ? &it->second : &p_.vector_default;
        }
        return *cache[r.op];
    }
    double head_of(const TraceRecord& r) const { return vector_row(r).first; }

    int next_pipe(const std::vector<TraceRecord>& trace, size_t pos) const {
        for (size_t i = pos + 1; i < trace.size() && i < pos + 64; ++i) {
            const TraceRecord& r = trace[i];
            if (r.kind == Rec::Instr) return timed_pipe(r.pipe);
            if (r.kind == Rec::Scalar) return TP_SCALAR;
        }
        return TP_SCALAR;
    }

    static bool is_copy(const TraceRecord& r) {
        return r.kind == Rec::Instr && (r.pipe == AscendC::PIPE_MTE2 || r.pipe == AscendC::PIPE_MTE3);
    }

    // Which bytes of each copy HBM serves and which L2 serves (tw/timing/l2_cache.h), and one core's share of each per
    // direction: both are shared by the blocks running at once.
    void classify_copies(const std::vector<BlockResult>& blocks, int cores) {
        traffic_.assign(blocks.size(), {});
        L2Cache l2(static_cast<uint64_t>(p_.l2_mbytes * 1048576.0));
        double hbm[2] = {0, 0}, writeback = 0;
        for (size_t first = 0; first < blocks.size(); first += cores) {
            const size_t last = std::min(blocks.size(), first + static_cast<size_t>(cores));
            std::vector<size_t> pos(last - first, 0);
            for (size_t i = first; i < last; ++i) traffic_[i].resize(blocks[i].trace.size());
            // Every block's k-th copy before any block's (k+1)-th: SPMD blocks run close to lockstep, so this is
            // near the order in which L2 sees their copies, and a round is the copies made at about the same time.
            SameAddress round;
            std::vector<std::pair<size_t, size_t>> in_round;  // (block, record) of each copy of the round
            for (bool more = true; more;) {
                more = false;
                round.clear();
                in_round.clear();
                for (size_t i = first; i < last; ++i) {
                    const std::vector<TraceRecord>& trace = blocks[i].trace;
                    size_t& k = pos[i - first];
                    while (k < trace.size() && !is_copy(trace[k])) ++k;
                    if (k == trace.size()) continue;
                    more = true;
                    const TraceRecord& r = trace[k];
                    const bool write = r.pipe == AscendC::PIPE_MTE3;
                    L2Cache::Traffic t;
                    if (r.gm == 0 || r.bytes == 0) {
                        t.hbm = static_cast<double>(r.bytes);  // GM side unknown: HBM, as if L2 missed
                    } else {
                        const uint32_t rows = std::max<uint32_t>(r.repeats, 1);
                        t = l2.access(r.gm, r.bytes / rows, rows, r.gm_stride, write, (r.flags & 8) == 0);
                        // a misaligned row's extra GM segment is more traffic wherever the row is served
                        const double scale = 1.0 + double(r.gm_extra) * double(kGmSegment) / double(r.bytes);
                        t.hbm *= scale;
                        t.l2 *= scale;
                    }
                    traffic_[i][k] = t;
                    hbm[write] += t.hbm;
                    writeback += t.writeback;
                    if (r.gm != 0 && r.bytes != 0 && p_.same_address_serial > 0) {
                        const uint32_t rows = std::max<uint32_t>(r.repeats, 1);
                        round.add(r.gm, r.bytes / rows, rows, r.gm_stride);
                        in_round.emplace_back(i, k);
                    }
                    ++k;
                }
                // Copies of the round that share 512-byte windows are served one after another (tw/timing/same_address.h).
                for (size_t c = 0; c < in_round.size(); ++c) {
                    const double extra = p_.same_address_serial * (round.sharers(c) - 1.0);
                    if (extra <= 0) continue;
                    L2Cache::Traffic& t = traffic_[in_round[c].first][in_round[c].second];
                    t.hbm *= 1.0 + extra;
                    t.l2 *= 1.0 + extra;
                }
            }
        }
        // HBM binds often, and both directions share it, with L2's write-backs: each direction gets a share in
        // proportion to its HBM bytes (the older best-practice guide's "pipeline time = (MTE2 bytes + MTE3 bytes) /
        // GM bandwidth"). L2 is several times faster and rarely binds: each direction may use a core's whole share.
        const double active = std::min(block_dim_, cores);
        const double hbm_total = hbm_bytes_ = hbm[0] + hbm[1] + writeback;
        for (int d = 0; d < 2; ++d) {
            const double part = hbm_total > 0 && hbm[d] > 0 ? hbm[d] / hbm_total : 1.0;
            hbm_share_[d] = p_.hbm_gbps * 1e9 * part / active;
            l2_share_[d] = p_.l2_gbps * 1e9 / active;
        }
    }

    double cost_of(const TraceRecord& r, int pipe, const L2Cache::Traffic& traffic) const {
        const double hz = p_.clock_ghz * 1e9;
        if (pipe == TP_MTE2 || pipe == TP_MTE3) {
            // The longest of: the issue cost, the bytes at the core's own DMA rate, and the bytes at the core's share
            // of whatever serves them (HBM for misses, L2 for hits).
            const int dir = pipe == TP_MTE3;
            const double bytes = static_cast<double>(r.bytes) + double(r.gm_extra) * double(kGmSegment);
            const double own = bytes / ((dir ? p_.dma_out_gibps : p_.dma_peak_gibps) * 1073741824.0);
            const double shared = traffic.hbm / hbm_share_[dir] + traffic.l2 / l2_share_[dir];
            double cycles = std::max(p_.dma_issue_cycles, std::max(own, shared) * hz);
            if (r.flags & 1) cycles += p_.pad_row_cycles * std::max<uint32_t>(r.repeats, 1);  // DataCopyPad
            return cycles;
        }
        if (pipe == TP_VECTOR) {
            // UB bank conflicts (tw/timing/ub_banks.h): a repeat takes as many beats as its busiest bank group needs, plus
            // the read-write conflict's extra; the table's per-repeat cost is that of one beat. No information: 1.
            double beats = 1.0;
            BankBeats b;
            if (unpack_bank_beats(r.a, b)) beats = std::max({1.0, b.read, b.write}) + b.rw * p_.ub_rw_conflict_beats;
            return std::max(1.0, vector_row(r).second * std::max<uint32_t>(r.repeats, 1) * beats);
        }
        return 1.0;
    }

    const TimingParams& p_;
    const std::vector<std::string>& names_;
    int block_dim_;
    bool keep_events_;
    bool keep_sites_;
    mutable std::vector<const std::pair<double, double>*> rows16_, rows32_;
    std::vector<std::vector<L2Cache::Traffic>> traffic_;  // per block and record: what serves each copy's bytes
    double hbm_share_[2] = {0, 0}, l2_share_[2] = {0, 0};    // one core's bytes per second, MTE2 and MTE3
    double hbm_bytes_ = 0;
};

inline std::string timing_json(const KernelTiming& kt, double clock_ghz) {
    char buf[1024];
    auto pipe = [&](int k) {
        char b[128];
        std::snprintf(b, sizeof(b), "{\"busy_us\": %.4f, \"ratio\": %.4f}", kt.busy_us[k], kt.ratio[k]);
        return std::string(b);
    };
    std::snprintf(buf, sizeof(buf),
                  "\"time_us\": %.4f, \"cycles\": %.0f, \"launch_us\": %.3f, \"waves\": %d, \"bottleneck\": \"%s\", "
                  "\"hbm_bytes\": %.0f, \"pipes\": {\"vector\": %s, \"mte2\": %s, \"mte3\": %s, \"scalar\": %s}",
                  kt.time_us, kt.cycles, kt.launch_us, kt.waves, kt.bottleneck.c_str(), kt.hbm_bytes,
                  pipe(TP_VECTOR).c_str(), pipe(TP_MTE2).c_str(), pipe(TP_MTE3).c_str(), pipe(TP_SCALAR).c_str());
    (void)clock_ghz;
    return buf;
}

}  // namespace tw
