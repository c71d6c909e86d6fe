// Inter-core synchronisation beyond SyncAll, written from the Ascend C API reference:
//
//   IBSet / IBWait          one core signals, another waits, through flags in a GM workspace (32 bytes per core and
//                           event: slot eventID * blockNum + blockIdx)
//   WaitPreBlock /          ordered execution across blocks: block b waits until the GM word holds b, and
//   NotifyNextBlock         NotifyNextBlock then stores b + 1 (the word starts at 0, as the workspace must)
//   CrossCoreSetFlag/Wait   hardware flags between cores. Mode 0 synchronises every vector core of the launch (a
//                           wait returns once all of them have set the flag as often as this core has waited plus
//                           one); mode 1 the vector cores of one AI core, which in the emulator is the core itself
//                           (GetSubBlockNum() == 1); mode 2 pairs a vector core with its cube core, which the
//                           emulator does not run: setting is recorded, waiting is reported as unsupported.
//
// Blocks run concurrently on their own threads, so a wait really waits; one that nothing can satisfy is reported as
// a deadlock after a grace period instead of hanging the run.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "tw/api/sync.h"

namespace tw {

constexpr double kSyncGraceSeconds = 5.0;

// Spins until ready() holds; fails with a deadlock past the grace period, and stops when the launch aborts.
template <typename Ready>
inline void wait_until(Ready ready, const std::string& what, const char* file, int line) {
    const auto start = std::chrono::steady_clock::now();
    while (!ready()) {
        if (launch()->abort.load()) throw Aborted();
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > kSyncGraceSeconds)
            fail("deadlock", what + " waited " + std::to_string(kSyncGraceSeconds) +
                 " s for a signal no core gave: on hardware the core hangs", file, line);
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

// Mode-0 CrossCoreSetFlag counts, per flag id, shared by the blocks of the running launch.
struct CrossCoreState {
    std::mutex mu;
    const Launch* owner = nullptr;
    std::map<int, int64_t> sets;  // flag id -> SetFlag calls over all blocks
};
inline CrossCoreState& cross_core_state() {
    static CrossCoreState s;
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.owner != launch()) {  // a new launch starts with no flags set
        s.owner = launch();
        s.sets.clear();
    }
    return s;
}
// Per block: flag id -> waits done (mode 0) and sets / waits done (mode 1).
struct CoreFlags {
    std::map<int, int64_t> waits0, sets1, waits1;
};
inline CoreFlags& core_flags() {
    static thread_local CoreFlags f;
    static thread_local const Core* owner = nullptr;
    if (owner != &cur()) {
        owner = &cur();
        f = CoreFlags();
    }
    return f;
}

inline int32_t* ib_slot(const AscendC::GlobalTensor<int32_t>& gm, int32_t blockIdx, int32_t eventID, const char* what,
                        const char* file, int line) {
    if (blockIdx < 0 || blockIdx >= block_num() || eventID < 0)
        fail("invalid_argument", std::string(what) + " with blockIdx " + std::to_string(blockIdx) + " and eventID " +
             std::to_string(eventID) + " (the launch has " + std::to_string(block_num()) + " blocks)", file, line);
    int32_t* p = gm.GetPhyAddr() + (int64_t(eventID) * block_num() + blockIdx) * 8;
    gm_check(p, sizeof(int32_t), what, file, line);
    return p;
}

}  // namespace tw

namespace AscendC {

// IBSet: this core (blockIdx) raises its flag for eventID. The UB workspace is the staging buffer the device's
// implementation copies through; the emulator writes GM directly.
template <bool isAIVOnly = true>
void IBSet(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
           int32_t eventID, TW_SRC) {
    (void)ubWorkspace;
    int32_t* p = tw::ib_slot(gmWorkspace, blockIdx, eventID, "IBSet", TW_AT);
    __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST);
    tw::record(tw::Rec::Instr, PIPE_MTE3, "IBSet", TW_AT, 32, 1, 0, 0, 0, 4);
}
TW_TWIN_M(, void, (bool isAIVOnly = true), IBSet, (isAIVOnly), (const GlobalTensor<int32_t>& gmWorkspace,
        const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx, int32_t eventID), (gmWorkspace, ubWorkspace,
        blockIdx, eventID), )

// IBWait: wait until core blockIdx has raised its flag for eventID, then consume that signal.
template <bool isAIVOnly = true>
void IBWait(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx,
            int32_t eventID, TW_SRC) {
    (void)ubWorkspace;
    int32_t* p = tw::ib_slot(gmWorkspace, blockIdx, eventID, "IBWait", TW_AT);
    tw::wait_until([p] { return __atomic_load_n(p, __ATOMIC_SEQ_CST) > 0; },
                   "IBWait for block " + std::to_string(blockIdx) + " event " + std::to_string(eventID), TW_AT);
    __atomic_sub_fetch(p, 1, __ATOMIC_SEQ_CST);
    tw::record(tw::Rec::Instr, PIPE_MTE2, "IBWait", TW_AT, 32, 1, 0, 0, 0, 4);
}
TW_TWIN_M(, void, (bool isAIVOnly = true), IBWait, (isAIVOnly), (const GlobalTensor<int32_t>& gmWorkspace,
        const LocalTensor<int32_t>& ubWorkspace, int32_t blockIdx, int32_t eventID), (gmWorkspace, ubWorkspace,
        blockIdx, eventID), )

inline void WaitPreBlock(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace, TW_SRC) {
    (void)ubWorkspace;
    int32_t* p = gmWorkspace.GetPhyAddr();
    tw::gm_check(p, sizeof(int32_t), "WaitPreBlock", TW_AT);
    const int32_t me = static_cast<int32_t>(tw::block_idx());
    tw::wait_until([p, me] { return __atomic_load_n(p, __ATOMIC_SEQ_CST) >= me; },
                   "WaitPreBlock in block " + std::to_string(me), TW_AT);
    tw::record(tw::Rec::Instr, PIPE_MTE2, "WaitPreBlock", TW_AT, 32, 1, 0, 0, 0, 4);
}
TW_TWIN_N(, void, WaitPreBlock, (const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace),
        (gmWorkspace, ubWorkspace), )

inline void NotifyNextBlock(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                            TW_SRC) {
    (void)ubWorkspace;
    int32_t* p = gmWorkspace.GetPhyAddr();
    tw::gm_check(p, sizeof(int32_t), "NotifyNextBlock", TW_AT);
    __atomic_store_n(p, static_cast<int32_t>(tw::block_idx()) + 1, __ATOMIC_SEQ_CST);
    tw::record(tw::Rec::Instr, PIPE_MTE3, "NotifyNextBlock", TW_AT, 32, 1, 0, 0, 0, 4);
}
TW_TWIN_N(, void, NotifyNextBlock, (const GlobalTensor<int32_t>& gmWorkspace,
        const LocalTensor<int32_t>& ubWorkspace), (gmWorkspace, ubWorkspace), )

template <uint8_t modeId, pipe_t pipe = PIPE_S>
void CrossCoreSetFlag(uint16_t flagId, TW_SRC) {
    static_assert(modeId <= 2, "CrossCoreSetFlag modes are 0, 1 and 2");
    if (modeId == 0) {
        tw::CrossCoreState& s = tw::cross_core_state();
        std::lock_guard<std::mutex> lock(s.mu);
        ++s.sets[flagId];
    } else if (modeId == 1) {
        ++tw::core_flags().sets1[flagId];
    }
    tw::record(tw::Rec::Instr, pipe, "CrossCoreSetFlag", TW_AT);
}
TW_TWIN_M(, void, (uint8_t modeId, pipe_t pipe = PIPE_S), CrossCoreSetFlag, (modeId, pipe), (uint16_t flagId),
        (flagId), )

template <uint8_t modeId = 0, pipe_t pipe = PIPE_S>
void CrossCoreWaitFlag(uint16_t flagId, TW_SRC) {
    static_assert(modeId <= 2, "CrossCoreWaitFlag modes are 0, 1 and 2");
    const std::string what = "CrossCoreWaitFlag<" + std::to_string(modeId) + ">(" + std::to_string(flagId) + ")";
    if (modeId == 2)
        tw::fail("unsupported", what + " waits for the cube core, which the emulator does not run (it runs the "
                 "vector cores only)", TW_AT);
    if (modeId == 0) {
        tw::CrossCoreState& s = tw::cross_core_state();
        const int64_t need = (tw::core_flags().waits0[flagId] + 1) * tw::block_num();
        tw::wait_until([&s, flagId, need] {
            std::lock_guard<std::mutex> lock(s.mu);
            return s.sets[flagId] >= need;
        }, what, TW_AT);
        ++tw::core_flags().waits0[flagId];
    } else {
        tw::CoreFlags& f = tw::core_flags();
        if (f.sets1[flagId] <= f.waits1[flagId])
            tw::fail("deadlock", what + " waits for a flag no vector core of this AI core set", TW_AT);
        ++f.waits1[flagId];
    }
    tw::record(tw::Rec::Instr, pipe, "CrossCoreWaitFlag", TW_AT);
}
TW_TWIN_M(, void, (uint8_t modeId = 0, pipe_t pipe = PIPE_S), CrossCoreWaitFlag, (modeId, pipe), (uint16_t flagId),
        (flagId), )

}  // namespace AscendC
