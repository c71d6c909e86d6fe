// Data-movement APIs beyond tw/api/data_copy.h, written from the Ascend C API reference:
//
//   InitGlobalMemory(gm, size, value)   fill `size` elements of GM with `value` (kernels zero an output or a
//                                       workspace with it before accumulating into it with SetAtomicAdd)
//   DisableDmaAtomic()                  turn atomic accumulation off again (as SetAtomicNone)
//
// On the device the fill goes through UB and leaves by MTE3, so it is recorded as an MTE3 transfer of its bytes,
// which the timing model costs like a copy out; the kernel must synchronise before reading the memory back, as
// after any MTE3 write.
#pragma once
#include <cstdint>

#include "tw/api/data_copy.h"
#include "tw/api/vector/core.h"

namespace AscendC {

template <typename T>
void InitGlobalMemory(const GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size, const tw::nd_t<T> value, TW_SRC) {
    T* d = gmWorkspaceAddr.data();
    tw::gm_check(d, size * sizeof(T), "InitGlobalMemory", TW_AT);
    for (uint64_t i = 0; i < size; ++i) d[i] = value;
    tw::record(tw::Rec::Instr, PIPE_MTE3, "InitGlobalMemory", TW_AT, size * sizeof(T),
               static_cast<uint32_t>(size), 1, 0, 1, sizeof(T));
}
TW_TWIN_M(, void, (typename T), InitGlobalMemory, (T), (const GlobalTensor<T>& gmWorkspaceAddr, const uint64_t size,
        const tw::nd_t<T> value), (gmWorkspaceAddr, size, value), )

inline void DisableDmaAtomic(TW_SRC) { SetAtomicNone(TW_AT); }
TW_TWIN_N0(, void, DisableDmaAtomic, )

}  // namespace AscendC
