// Synchronisation and core identity: SetFlag/WaitFlag, PipeBarrier, SyncAll, GetBlockIdx/GetBlockNum, workspaces.
// Blocks run sequentially inside their own thread, so data races cannot show; the flags are still counted so that an
// unpaired SetFlag or WaitFlag (a hang or a race on hardware) is reported.
#pragma once
#include <string>

#include "tw/api/tensor.h"

namespace tw {

inline const char* event_name(AscendC::HardEvent e) {
    using AscendC::HardEvent;
    switch (e) {
        case HardEvent::MTE2_V: return "MTE2_V"; case HardEvent::V_MTE2: return "V_MTE2";
        case HardEvent::MTE3_V: return "MTE3_V"; case HardEvent::V_MTE3: return "V_MTE3";
        case HardEvent::V_S: return "V_S"; case HardEvent::S_V: return "S_V";
        case HardEvent::MTE2_S: return "MTE2_S"; case HardEvent::S_MTE2: return "S_MTE2";
        case HardEvent::MTE3_S: return "MTE3_S"; case HardEvent::S_MTE3: return "S_MTE3";
        case HardEvent::MTE2_MTE3: return "MTE2_MTE3"; case HardEvent::MTE3_MTE2: return "MTE3_MTE2";
        case HardEvent::V_V: return "V_V";
        default: return "event";
    }
}

// Each pipe pair has eight hardware event ids, EVENT_ID0 to EVENT_ID7; another id names no flag on the device.
inline void check_event_id(AscendC::HardEvent e, int32_t id, const char* what, const char* file, int line) {
    if (id < 0 || id > 7)
        fail("invalid_event_id",
             std::string(what) + "<HardEvent::" + event_name(e) + ">(" + std::to_string(id) +
                 "): event ids are EVENT_ID0 to EVENT_ID7 (0-7); take one from FetchEventID / AllocEventID",
             file, line);
}

}  // namespace tw

namespace AscendC {

template <HardEvent e>
void SetFlag(int32_t id, TW_SRC) {
    tw::check_event_id(e, id, "SetFlag", TW_AT);
    tw::Core& c = tw::cur();
    auto key = std::make_pair(static_cast<int>(e), static_cast<int>(id));
    ++c.flags[key];
    c.flag_sites[key] = {tw_file, tw_line};
    tw::record(tw::Rec::SetFlag, static_cast<pipe_t>(static_cast<int>(e) >> 4), "SetFlag", TW_AT, 0, 0, 0,
               static_cast<int>(e), id);
}
TW_TWIN_M(, void, (HardEvent e), SetFlag, (e), (int32_t id), (id), )

template <HardEvent e>
void WaitFlag(int32_t id, TW_SRC) {
    tw::check_event_id(e, id, "WaitFlag", TW_AT);
    tw::Core& c = tw::cur();
    auto key = std::make_pair(static_cast<int>(e), static_cast<int>(id));
    auto it = c.flags.find(key);
    if (it == c.flags.end() || it->second == 0)
        tw::fail("unpaired_flag",
                 std::string("WaitFlag<HardEvent::") + tw::event_name(e) + ">(" + std::to_string(id) +
                     ") waits for an event that no earlier SetFlag set: the pipe would hang",
                 TW_AT);
    --it->second;
    tw::record(tw::Rec::WaitFlag, static_cast<pipe_t>(static_cast<int>(e) & 0xF), "WaitFlag", TW_AT, 0, 0, 0,
               static_cast<int>(e), id);
}
TW_TWIN_M(, void, (HardEvent e), WaitFlag, (e), (int32_t id), (id), )

template <pipe_t pipe>
void PipeBarrier(TW_SRC) {
    tw::record(tw::Rec::Barrier, pipe, "PipeBarrier", TW_AT, 0, 0, 0, static_cast<int>(pipe));
}
TW_TWIN_M0(, void, (pipe_t pipe), PipeBarrier, (pipe), )
template <pipe_t pipe>
void pipe_barrier(TW_SRC) { PipeBarrier<pipe>(TW_AT); }
inline void pipe_barrier(pipe_t pipe, TW_SRC) {
    tw::record(tw::Rec::Barrier, pipe, "PipeBarrier", TW_AT, 0, 0, 0, static_cast<int>(pipe));
}

inline void SyncAllImpl(const char* file, int line) {
    tw::Core& c = tw::cur();
    tw::Launch& l = *tw::launch();
    if (l.workspace == nullptr || l.workspace_size == 0)
        tw::fail("syncall_without_workspace",
                 "SyncAll() needs a GM workspace, but the tiling function set none: set GetWorkspaceSizes(1)[0] to at "
                 "least the system workspace (ascendcPlatform.GetLibApiWorkSpaceSize())",
                 file, line);
    tw::record(tw::Rec::SyncAll, PIPE_ALL, "SyncAll", file, line);
    (void)c;
    l.barrier->arrive_and_wait(l.abort);
}

template <bool hard = true>
void SyncAll(TW_SRC) { SyncAllImpl(TW_AT); }
TW_TWIN_M0(, void, (bool hard = true), SyncAll, (hard), )
template <bool hard = true, typename... Args>
void SyncAll(const GlobalTensor<int32_t>&, const LocalTensor<int32_t>&, Args...) {
    SyncAllImpl(__builtin_FILE(), __builtin_LINE());
}

inline int64_t GetBlockIdx() { return tw::block_idx(); }
inline int64_t GetBlockNum() { return tw::block_num(); }
inline int64_t GetSubBlockIdx() { return 0; }
inline int64_t GetTaskRation() { return 1; }

inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    tw::cur();
    if (workspace == nullptr) return nullptr;
    return workspace + tw::launch()->system_workspace;
}
inline GM_ADDR GetSysWorkSpacePtr() { return tw::launch()->workspace; }
inline void SetSysWorkspace(GM_ADDR) {}

template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(uint64_t hi, uint64_t lo) {
    tw::Core& c = tw::cur();
    c.vector_mask[0] = lo;
    c.vector_mask[1] = hi;
    c.mask_is_count = mode == MaskMode::COUNTER;  // counter mode: maskLow is the element count
}
template <typename T, MaskMode mode = MaskMode::NORMAL>
void SetVectorMask(int32_t len) {
    tw::Core& c = tw::cur();
    c.mask_is_count = mode == MaskMode::COUNTER;
    if (mode == MaskMode::COUNTER) {  // counter mode: the element count itself
        c.vector_mask[0] = static_cast<uint64_t>(len);
        c.vector_mask[1] = 0;
        return;
    }
    // normal mode: the first `len` lanes of the repeat
    auto bits = [](int32_t n) { return n <= 0 ? 0ull : n >= 64 ? ~0ull : (1ull << n) - 1; };
    c.vector_mask[0] = bits(len);
    c.vector_mask[1] = bits(len - 64);
}
// Scalar GM accesses go through a per-core data cache on hardware; DataCacheCleanAndInvalid writes it back. The
// emulator's scalar accesses hit GM directly, so the call is coherent already and only costs a scalar slot.
template <typename T, CacheLine entireType, DcciDst dcciDst>
void DataCacheCleanAndInvalid(const GlobalTensor<T>&, TW_SRC) {
    tw::record(tw::Rec::Instr, PIPE_S, "DataCacheCleanAndInvalid", TW_AT);
}
template <typename T, CacheLine entireType, DcciDst dcciDst>
void DataCacheCleanAndInvalid(const LocalTensor<T>&, TW_SRC) {
    tw::record(tw::Rec::Instr, PIPE_S, "DataCacheCleanAndInvalid", TW_AT);
}
template <typename T, CacheLine entireType>
void DataCacheCleanAndInvalid(const GlobalTensor<T>&, TW_SRC) {
    tw::record(tw::Rec::Instr, PIPE_S, "DataCacheCleanAndInvalid", TW_AT);
}

// ICachePreLoad(preFetchLen) loads the next preFetchLen x 2 KiB of the kernel's own instructions into the core's
// instruction cache (a PIPE_S instruction). The emulator has no instruction fetch, so it changes no data and costs
// a scalar slot; the documented bound is checked: on the A2 the length must stay below the vector core's 16 KiB
// ICache / 2 KiB = 8.
inline void ICachePreLoad(const int64_t preFetchLen, TW_SRC) {
    if (preFetchLen < 0 || preFetchLen >= 8)
        tw::fail("invalid_argument", "ICachePreLoad(" + std::to_string(preFetchLen) + "): the length, in 2 KiB units, "
                 "must be in [0, 8) on the vector core, whose instruction cache is 16 KiB", TW_AT);
    tw::record(tw::Rec::Instr, PIPE_S, "ICachePreLoad", TW_AT);
}
TW_TWIN_N(, void, ICachePreLoad, (const int64_t preFetchLen), (preFetchLen), )

// Resets the core's global state (atomic mode, mask mode and mask) that a previous operator may have left; each
// emulated launch starts from a fresh core, so this only has to put the state back if the kernel changed it.
inline void InitSocState(TW_SRC) {
    tw::Core& c = tw::cur();
    c.atomic = 0;
    c.counter_mode = false;
    c.vector_mask[0] = c.vector_mask[1] = ~0ull;
    c.mask_is_count = false;
    tw::record(tw::Rec::Instr, PIPE_S, "InitSocState", TW_AT);
}
TW_TWIN_N0(, void, InitSocState, )

inline void ResetMask() {
    tw::Core& c = tw::cur();
    c.vector_mask[0] = c.vector_mask[1] = ~0ull;
    c.mask_is_count = false;
}
inline void SetMaskCount() { tw::cur().counter_mode = true; }
inline void SetMaskNorm() { tw::cur().counter_mode = false; }

}  // namespace AscendC
