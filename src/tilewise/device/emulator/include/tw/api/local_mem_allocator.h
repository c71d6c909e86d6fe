// LocalMemAllocator: the linear allocator of AscendC's static tensor programming. Each Alloc hands out the next
// tileSize elements of the Unified Buffer, starting at address 0 and rounding each allocation up to 32 bytes, as a
// LocalTensor built the way `LocalTensor(pos, addr, tileSize)` builds one (so the same alignment and UB-end checks
// apply, and the sanitizer's UB-peak figure counts it).
#pragma once
#include <cstdint>

#include "tw/api/tensor.h"

namespace AscendC {

template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
    static_assert(hard == Hardware::UB, "the emulator models the Unified Buffer only");

public:
    LocalMemAllocator() = default;

    template <TPosition pos, typename T, uint32_t tileSize>
    LocalTensor<T> Alloc(TW_SRC) { return take<T>(pos, tileSize, TW_AT); }
    TW_TWIN_M0(, LocalTensor<T>, (TPosition pos, typename T, uint32_t tileSize), Alloc, (pos, T, tileSize), )
    template <typename T, uint32_t tileSize>
    LocalTensor<T> Alloc(TW_SRC) { return take<T>(TPosition::VECCALC, tileSize, TW_AT); }
    TW_TWIN_M0(, LocalTensor<T>, (typename T, uint32_t tileSize), Alloc, (T, tileSize), )
    template <TPosition pos, typename T>
    LocalTensor<T> Alloc(uint32_t tileSize, TW_SRC) { return take<T>(pos, tileSize, TW_AT); }
    TW_TWIN_M(, LocalTensor<T>, (TPosition pos, typename T), Alloc, (pos, T), (uint32_t tileSize), (tileSize), )
    template <typename T>
    LocalTensor<T> Alloc(uint32_t tileSize, TW_SRC) { return take<T>(TPosition::VECCALC, tileSize, TW_AT); }
    TW_TWIN_M(, LocalTensor<T>, (typename T), Alloc, (T), (uint32_t tileSize), (tileSize), )

    // The UB byte address the next Alloc starts at.
    uint32_t GetCurAddr() const { return head_; }

private:
    template <typename T>
    LocalTensor<T> take(TPosition pos, uint32_t tileSize, const char* file, int line) {
        LocalTensor<T> t(pos, head_, tileSize, file, line);
        head_ += static_cast<uint32_t>(tw::align32(uint64_t(tileSize) * sizeof(T)));
        return t;
    }
    uint32_t head_ = 0;
};

}  // namespace AscendC
