// The high-level Select of the AscendC library (数据过滤 / Select, the byte-mask select), written from the Ascend C
// API reference:
//
//   Select(dst, srcTensor, srcScalar, mask, sharedTmpBuffer, info)   dst = mask == 0 ? srcTensor : srcScalar
//   Select(dst, srcScalar, srcTensor, mask, sharedTmpBuffer, info)   dst = mask == 0 ? srcScalar : srcTensor
//
// over info.firstAxis rows: row r of the source holds info.srcLastAxis elements, row r of the mask
// info.maskLastAxis >= srcLastAxis values (of bool or an integer type, 0 or not) of which the first srcLastAxis
// decide and the rest are dropped. The reference's constraints are sanitizer errors: T half or float, the source's
// row 32-byte aligned, the mask's row 32-byte aligned and a multiple of 16 elements, maskLastAxis >= srcLastAxis, a
// sharedTmpBuffer below the host query's minimum (GetSelectMinTmpSize, tw/tiling/tmp_buffer_min.h). The mask is
// left unchanged (with isReuseMask the reference allows the call to modify it when the row lengths differ; it need
// not). The trace records the library's steps: a GatherMask when the rows differ, then Cast, Compare and Select.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include "tw/api/vector/core.h"
#include "tw/tiling/tmp_buffer_min.h"

namespace AscendC {

struct SelectWithBytesMaskShapeInfo {
    SelectWithBytesMaskShapeInfo() {}
    uint32_t firstAxis = 0;
    uint32_t srcLastAxis = 0;
    uint32_t maskLastAxis = 0;
};

}  // namespace AscendC

namespace tw {

template <typename T, typename U, bool scalar_first>
inline void select_bytes_mask(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src, T scalar,
                              const AscendC::LocalTensor<U>& mask, const AscendC::LocalTensor<uint8_t>& tmp,
                              const AscendC::SelectWithBytesMaskShapeInfo& info, bool reuse_mask, const char* file,
                              int line) {
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value, "Select (byte mask): T is half or float");
    static_assert(std::is_same<U, bool>::value || std::is_same<U, int8_t>::value || std::is_same<U, uint8_t>::value ||
                      std::is_same<U, int16_t>::value || std::is_same<U, uint16_t>::value ||
                      std::is_same<U, int32_t>::value || std::is_same<U, uint32_t>::value,
                  "Select (byte mask): the mask is bool or an 8-, 16- or 32-bit integer");
    const uint32_t rows = info.firstAxis, k1 = info.srcLastAxis, k2 = info.maskLastAxis;
    auto bad = [&](const std::string& why) { fail("invalid_argument", "Select (byte mask): " + why, file, line); };
    if (k1 * sizeof(T) % 32 != 0)
        bad("the source's last axis (srcLastAxis " + std::to_string(k1) + ") must be 32-byte aligned");
    if (k2 * sizeof(U) % 32 != 0 || k2 % 16 != 0)
        bad("the mask's last axis (maskLastAxis " + std::to_string(k2) +
            ") must be 32-byte aligned and a multiple of 16 elements");
    if (k2 < k1)
        bad("maskLastAxis (" + std::to_string(k2) + ") must be at least srcLastAxis (" + std::to_string(k1) + ")");
    const uint64_t n = uint64_t(rows) * k1;
    const uint32_t need = select_bytes_mask_min_tmp(k1, k2, sizeof(U), reuse_mask);
    if (tmp.GetSize() < need)
        fail("work_buffer_too_small",
             "Select (byte mask): sharedTmpBuffer holds " + std::to_string(tmp.GetSize()) + " bytes; it needs at least " +
                 std::to_string(need) + " (GetSelectMinTmpSize)",
             file, line);
    T* d = dst.span(0, n, "Select", file, line);
    const T* s = src.span(0, n, "Select", file, line);
    const U* m = mask.span(0, uint64_t(rows) * k2, "Select", file, line);
    for (uint32_t r = 0; r < rows; ++r) {
        for (uint32_t c = 0; c < k1; ++c) {
            const uint64_t i = uint64_t(r) * k1 + c;
            const bool zero = m[uint64_t(r) * k2 + c] == U(0);
            d[i] = (zero != scalar_first) ? s[i] : scalar;
        }
    }
    if (k1 != k2) vrec_count<U>("GatherMask", file, line, uint64_t(rows) * k2);
    vrec_count<half>("Cast", file, line, n);
    vrec_count<half>("Compare", file, line, n);
    vrec_count<T>("Select", file, line, n);
}

}  // namespace tw

namespace AscendC {

template <typename T, typename U, bool isReuseMask = true>
void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, tw::nd_t<T> src1, const LocalTensor<U>& mask,
            const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info, TW_SRC) {
    tw::select_bytes_mask<T, U, false>(dst, src0, src1, mask, sharedTmpBuffer, info, isReuseMask, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, bool isReuseMask = true), Select, (T, U, isReuseMask),
          (const LocalTensor<T>& dst, const LocalTensor<T>& src0, tw::nd_t<T> src1, const LocalTensor<U>& mask,
           const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info),
          (dst, src0, src1, mask, sharedTmpBuffer, info), )
template <typename T, typename U, bool isReuseMask = true>
void Select(const LocalTensor<T>& dst, tw::nd_t<T> src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
            const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info, TW_SRC) {
    tw::select_bytes_mask<T, U, true>(dst, src1, src0, mask, sharedTmpBuffer, info, isReuseMask, TW_AT);
}
TW_TWIN_M(, void, (typename T, typename U, bool isReuseMask = true), Select, (T, U, isReuseMask),
          (const LocalTensor<T>& dst, tw::nd_t<T> src0, const LocalTensor<T>& src1, const LocalTensor<U>& mask,
           const LocalTensor<uint8_t>& sharedTmpBuffer, const SelectWithBytesMaskShapeInfo& info),
          (dst, src0, src1, mask, sharedTmpBuffer, info), )

}  // namespace AscendC
