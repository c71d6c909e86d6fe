// Kernel-side debugging and scalar conversion APIs of the Ascend C reference that kernels call on the vector core:
//
//   AscendC::printf(fmt, args...) / PRINTF    the device's printf: the same formats, printed from the calling block
//   AscendC::DumpTensor(tensor, desc, n[, shapeInfo])   print a tensor's first n elements under the user's number
//                                             `desc` ("DumpTensor: desc=..., addr=..., position=UB|GM" then a list)
//   AscendC::DumpAccChkPoint(tensor, index, countOff, n)  the same from element countOff on
//   AscendC::PrintTimeStamp(descId)            a time stamp line, with -DASCENDC_TIME_STAMP_ON only
//   AscendC::ToFloat(bfloat16_t)              a bfloat16 scalar as float (exact)
//   AscendC::ToBfloat16(float)                a float scalar as bfloat16 (round to nearest even)
//
// The runner's standard output is not part of any result, so printing never changes what a kernel computes; the
// dump reads the tensor's memory directly (no trace record, no bounds error: it stops at the tensor's end), as the
// device's dump is a debugging side channel rather than a vector or scalar instruction of the kernel.
#pragma once
#include <cstdint>
#include <cstdio>
#include <utility>

#include "tw/api/half.h"
#include "tw/api/scalar_system.h"
#include "tw/api/tensor.h"

namespace AscendC {

// The device's printf takes the C formats (%d %u %x %f %s %p, with l / ll sizes); the CPU's does the same.
template <typename... Args>
inline int printf(const char* fmt, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
        return std::fputs(fmt, stdout) < 0 ? -1 : 0;
    } else {
        return std::printf(fmt, std::forward<Args>(args)...);
    }
}

inline float ToFloat(const bfloat16_t& bVal) { return static_cast<float>(bVal); }
inline bfloat16_t ToBfloat16(const float& fVal) { return bfloat16_t(fVal); }

}  // namespace AscendC

namespace tw {
template <typename T>
inline void dump_values(const char* position, uint64_t addr, uint32_t desc, const T* data, uint64_t count) {
    std::printf("DumpTensor: desc=%u, addr=%llu, position=%s\n[", desc, static_cast<unsigned long long>(addr),
                position);
    for (uint64_t i = 0; i < count; ++i) {
        std::printf(i ? ", %g" : "%g", static_cast<double>(static_cast<float>(data[i])));
    }
    std::printf("]\n");
}
}  // namespace tw

namespace AscendC {

template <typename T>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
    uint64_t n = dumpSize < tensor.GetSize() ? dumpSize : tensor.GetSize();
    tw::dump_values("UB", tensor.GetPhyAddr(), desc, tensor.GetPhyAddr(0), n);
}
template <typename T>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
    // A GlobalTensor set up without a size has no known end: only the header is printed then.
    uint64_t n = dumpSize < tensor.GetSize() ? dumpSize : tensor.GetSize();
    tw::dump_values("GM", reinterpret_cast<uint64_t>(tensor.GetPhyAddr()), desc, tensor.GetPhyAddr(), n);
}
// The shape only changes how the device lays the values out in its log.
template <typename T>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo&) {
    DumpTensor(tensor, desc, dumpSize);
}
template <typename T>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize, const ShapeInfo&) {
    DumpTensor(tensor, desc, dumpSize);
}
// DumpTensor of the tensor `countOff` elements on, under the user's number `index` (DumpAccChkPoint.md).
template <typename T>
inline void DumpAccChkPoint(const LocalTensor<T>& tensor, uint32_t index, uint32_t countOff, uint32_t dumpSize) {
    DumpTensor(tensor[countOff], index, dumpSize);
}
template <typename T>
inline void DumpAccChkPoint(const GlobalTensor<T>& tensor, uint32_t index, uint32_t countOff, uint32_t dumpSize) {
    DumpTensor(tensor[countOff], index, dumpSize);
}
// A time stamp in the device's log (PrintTimeStamp.md), printed only when the build defines ASCENDC_TIME_STAMP_ON,
// as on the device; the emulator's "cycle" is GetSystemCycle's (the calls made so far), and it has no pc.
inline void PrintTimeStamp(uint32_t descId) {
#ifdef ASCENDC_TIME_STAMP_ON
    std::printf("descId is %u, rsv is 0, timeStamp is %lld, pcPtr is 0, entry is 0.\n", descId,
                static_cast<long long>(GetSystemCycle()));
#else
    (void)descId;
#endif
}

}  // namespace AscendC
