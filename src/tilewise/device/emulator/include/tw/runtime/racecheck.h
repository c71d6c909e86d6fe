// Racecheck: an unsynchronised cross-pipe access to the Unified Buffer is a sanitizer warning.
//
// The emulator runs a block's calls one after the other, so a kernel that forgets a SetFlag/WaitFlag between the
// MTE2 copy that fills a buffer and the vector instruction that reads it still computes the right numbers; on the
// device the pipes run in parallel and the vector pipe may read the buffer before the copy lands. This header finds
// such accesses with vector clocks over the pipes:
//   - every pipe p keeps clock[p][q], how far it knows pipe q has got; an access by p ticks clock[p][p];
//   - SetFlag<SRC_DST> stores clock[SRC], WaitFlag<SRC_DST> merges it into clock[DST]; PipeBarrier<PIPE_ALL> and
//     SyncAll merge every pipe into every pipe; the scalar pipe issues all instructions in order, so an instruction
//     inherits what the scalar pipe knows (a WaitFlag<V_S> orders the V work before every later instruction);
//   - a queue hand-off orders what came before it with what follows: EnQue stores the merge of all pipes for its
//     buffer and DeQue merges it back (the SetFlag/WaitFlag pair the framework inserts); FreeTensor and the next
//     AllocTensor of the same buffer do the same for reuse;
//   - per UB byte interval it keeps the last MTE2 write, the last vector access and the last MTE3 read, each with
//     its clock and call site.
// Reported: a vector access to bytes an MTE2 copy wrote (MTE2 -> V), an MTE2 copy over bytes a vector instruction
// used (V -> MTE2), and an MTE3 copy of bytes a vector instruction or an MTE2 copy touched (V -> MTE3, MTE2 -> MTE3),
// each when no sync orders the two. Vector operands are not told apart as read or written (their bounds checks are
// the hook), so a vector read followed by an unsynchronised MTE3 read of the same bytes is reported too, although
// two reads do not race; scalar GetValue/SetValue are not tracked.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tw/runtime/launch_state.h"

namespace tw {

constexpr int kPipes = 9;  // pipe_t values PIPE_S .. PIPE_FIX

struct RaceClock {
    uint32_t c[kPipes] = {0};
    void merge(const RaceClock& o) {
        for (int i = 0; i < kPipes; ++i) c[i] = c[i] > o.c[i] ? c[i] : o.c[i];
    }
};

struct RaceSite {
    uint32_t clock = 0;  // 0: never
    const char* file = nullptr;
    int line = 0;
};

struct RaceSeg {
    uint64_t end = 0;
    RaceSite mte2_write, v_access, mte3_read;
};

struct RaceState {
    RaceClock pipe[kPipes];
    std::map<std::pair<int, int>, std::deque<RaceClock>> flags;  // (event, id) -> clocks of SetFlags not yet waited
    std::map<std::pair<int, int>, RaceClock> enq, freed;          // (queue, buffer) -> clock at EnQue / FreeTensor
    std::map<uint64_t, RaceSeg> segs;                             // start -> non-overlapping UB byte intervals
    std::vector<std::pair<uint64_t, uint64_t>> pending;           // operand ranges of the call being made
};

inline RaceState& race_state(Core& c) {
    if (c.race == nullptr) {
        c.race = new RaceState();
        c.race_free = [](void* p) { delete static_cast<RaceState*>(p); };
    }
    return *static_cast<RaceState*>(c.race);
}

inline RaceClock race_all(const RaceState& s) {
    RaceClock all;
    for (const RaceClock& p : s.pipe) all.merge(p);
    return all;
}

// The segments covering [a, b), split at a and b, with fresh ones for the gaps; calls f(seg) on each.
template <typename F>
inline void race_cover(RaceState& s, uint64_t a, uint64_t b, F f) {
    auto split = [&](uint64_t x) {
        auto it = s.segs.upper_bound(x);
        if (it == s.segs.begin()) return;
        --it;
        if (it->first < x && x < it->second.end) {
            RaceSeg right = it->second;
            it->second.end = x;
            s.segs.emplace(x, right);
        }
    };
    split(a);
    split(b);
    uint64_t pos = a;
    auto it = s.segs.lower_bound(a);
    while (pos < b) {
        if (it == s.segs.end() || it->first > pos) {  // a gap nobody touched yet
            uint64_t gap_end = it == s.segs.end() ? b : (it->first < b ? it->first : b);
            RaceSeg fresh;
            fresh.end = gap_end;
            it = s.segs.emplace(pos, fresh).first;
        }
        f(it->second);
        pos = it->second.end;
        ++it;
    }
}

inline std::string race_where(const RaceSite& s) {
    return std::string(s.file ? s.file : "?") + ":" + std::to_string(s.line);
}

TW_RUNTIME_FN void race_report(const char* what, const RaceSite& other, const char* sync, uint64_t a, uint64_t b,
                        const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    warn("race", std::string(what) + " UB bytes [" + std::to_string(a) + ", " + std::to_string(b) + ") that " +
                     race_where(other) + " also uses, and nothing orders the two (" + sync +
                     ", or a queue's EnQue/DeQue): on the device the pipes run in parallel",
         file, line);
}
#endif

// An access by `pipe` inherits what the scalar pipe, which issued it, knows.
inline RaceClock& race_issue(RaceState& s, int pipe) {
    s.pipe[pipe].merge(s.pipe[AscendC::PIPE_S]);
    return s.pipe[pipe];
}

inline uint64_t race_off(const Core& c, const void* p) {
    return static_cast<uint64_t>(static_cast<const uint8_t*>(p) - c.ub.data());
}

inline bool race_in_ub(const Core& c, const void* p, uint64_t n) {
    const uint8_t* q = static_cast<const uint8_t*>(p);
    return n > 0 && q >= c.ub.data() && q + n <= c.ub.data() + c.ub.size();
}

// MTE2 writes [p, p + n) of UB (a GM -> UB copy).
TW_RUNTIME_FN void race_mte2_write(const void* p, uint64_t n, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    Core& c = cur();
    if (!race_in_ub(c, p, n)) return;
    RaceState& s = race_state(c);
    RaceClock& me = race_issue(s, AscendC::PIPE_MTE2);
    const uint32_t tick = ++me.c[AscendC::PIPE_MTE2];
    const uint64_t a = race_off(c, p), b = a + n;
    race_cover(s, a, b, [&](RaceSeg& g) {
        if (g.v_access.clock > me.c[AscendC::PIPE_V])
            race_report("the MTE2 copy overwrites", g.v_access,
                        "SetFlag/WaitFlag<HardEvent::V_MTE2> or PipeBarrier<PIPE_ALL>", a, b, file, line);
        if (g.mte3_read.clock > me.c[AscendC::PIPE_MTE3])
            race_report("the MTE2 copy overwrites", g.mte3_read,
                        "SetFlag/WaitFlag<HardEvent::MTE3_MTE2> or PipeBarrier<PIPE_ALL>", a, b, file, line);
        g.mte2_write = RaceSite{tick, file, line};
    });
}
#endif

// MTE3 reads [p, p + n) of UB (a UB -> GM copy).
TW_RUNTIME_FN void race_mte3_read(const void* p, uint64_t n, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    Core& c = cur();
    if (!race_in_ub(c, p, n)) return;
    RaceState& s = race_state(c);
    RaceClock& me = race_issue(s, AscendC::PIPE_MTE3);
    const uint32_t tick = ++me.c[AscendC::PIPE_MTE3];
    const uint64_t a = race_off(c, p), b = a + n;
    race_cover(s, a, b, [&](RaceSeg& g) {
        if (g.v_access.clock > me.c[AscendC::PIPE_V])
            race_report("the MTE3 copy reads", g.v_access,
                        "SetFlag/WaitFlag<HardEvent::V_MTE3> or PipeBarrier<PIPE_ALL>", a, b, file, line);
        if (g.mte2_write.clock > me.c[AscendC::PIPE_MTE2])
            race_report("the MTE3 copy reads", g.mte2_write,
                        "SetFlag/WaitFlag<HardEvent::MTE2_MTE3> or PipeBarrier<PIPE_ALL>", a, b, file, line);
        g.mte3_read = RaceSite{tick, file, line};
    });
}
#endif

// A LocalTensor bounds check: remember the operand range; the call's trace record decides whose access it was.
inline void race_touch(const void* p, uint64_t n) {
    Core* c = core();
    if (c == nullptr || !race_in_ub(*c, p, n)) return;
    race_state(*c).pending.emplace_back(race_off(*c, p), race_off(*c, p) + n);
}

// The vector instruction just recorded accessed the pending ranges.
TW_RUNTIME_FN void race_vector(RaceState& s, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    RaceClock& me = race_issue(s, AscendC::PIPE_V);
    const uint32_t tick = ++me.c[AscendC::PIPE_V];
    for (const auto& r : s.pending) {
        race_cover(s, r.first, r.second, [&](RaceSeg& g) {
            if (g.mte2_write.clock > me.c[AscendC::PIPE_MTE2])
                race_report("the vector instruction uses", g.mte2_write,
                            "SetFlag/WaitFlag<HardEvent::MTE2_V> or PipeBarrier<PIPE_ALL>", r.first, r.second, file,
                            line);
            g.v_access = RaceSite{tick, file, line};
        });
    }
}
#endif

// Called for every trace record (tw/runtime/launch_state.h's record): sync records move clocks, a vector instruction's record
// claims the operand ranges its bounds checks noted.
TW_RUNTIME_FN void race_on_record(Core& c, Rec kind, uint8_t pipe, int32_t a, int32_t b, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    if (c.race == nullptr && kind != Rec::Instr) return;  // nothing tracked yet: sync has nothing to order
    RaceState& s = race_state(c);
    switch (kind) {
        case Rec::Instr:
            if (pipe == AscendC::PIPE_V && !s.pending.empty()) race_vector(s, file, line);
            s.pending.clear();
            break;
        case Rec::SetFlag: {
            const int src = (a >> 4) & 0xF;
            if (src < kPipes) s.flags[{a, b}].push_back(s.pipe[src]);
            break;
        }
        case Rec::WaitFlag: {
            const int dst = a & 0xF;
            auto it = s.flags.find({a, b});
            if (dst < kPipes && it != s.flags.end() && !it->second.empty()) {
                s.pipe[dst].merge(it->second.front());
                it->second.pop_front();
            }
            break;
        }
        case Rec::Barrier:
            if (a == AscendC::PIPE_ALL) {
                RaceClock all = race_all(s);
                for (RaceClock& p : s.pipe) p = all;
            }
            break;
        case Rec::SyncAll: {
            RaceClock all = race_all(s);
            for (RaceClock& p : s.pipe) p = all;
            break;
        }
        case Rec::EnQue: s.enq[{a, b}] = race_all(s); break;
        case Rec::Free: s.freed[{a, b}] = race_all(s); break;
        case Rec::DeQue:
        case Rec::Alloc: {
            auto& slots = kind == Rec::DeQue ? s.enq : s.freed;
            auto it = slots.find({a, b});
            if (it != slots.end())
                for (RaceClock& p : s.pipe) p.merge(it->second);
            break;
        }
        default:
            break;
    }
}
#endif

}  // namespace tw
