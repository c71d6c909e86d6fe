// The RmsNorm and LayerNorm tiling structs, shared by the host tiling code and the kernel, with the fields the Ascend
// C API reference lists (RmsNorm-Tiling.md, LayerNorm-Tiling.md). As with SoftMaxTiling (tw/softmax_tiling.h), the
// host's optiling::X (set_/get_ accessors, usable as a TILING_DATA_FIELD_DEF_STRUCT field), AscendC::tiling::X and
// the kernel's X are one standard-layout class, so the bytes SaveToBuffer writes are what GET_TILING_DATA reads.
// Also the kernel-side LayerNormPara and LayerNormConfig.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#define TW_NORM_FIELD(type, name)                   \
    type name = 0;                                  \
    void set_##name(type v) { name = v; }           \
    type get_##name() const { return name; }
#define TW_NORM_SAVE(cls)                                                                                          \
    void SaveToBuffer(void* buf, size_t cap) const {                                                               \
        if (buf == nullptr || cap < sizeof(*this)) throw std::runtime_error(#cls " does not fit in the buffer");   \
        std::memcpy(buf, static_cast<const void*>(this), sizeof(*this));                                           \
    }                                                                                                              \
    size_t GetDataSize() const { return sizeof(*this); }

namespace optiling {

class RmsNormTiling {
  public:
    TW_NORM_FIELD(uint32_t, bLength)
    TW_NORM_FIELD(uint32_t, sLength)
    TW_NORM_FIELD(uint32_t, hLength)
    TW_NORM_FIELD(uint32_t, originalHLength)
    TW_NORM_FIELD(float, reciprocalOfHLength)
    TW_NORM_FIELD(uint32_t, mainBshLength)
    TW_NORM_FIELD(uint32_t, mainBsLength)
    TW_NORM_FIELD(uint32_t, mainBsLengthAlign)
    TW_NORM_FIELD(uint32_t, loopRound)
    TW_NORM_FIELD(uint32_t, inputTailPos)
    TW_NORM_FIELD(uint32_t, tailBshLength)
    TW_NORM_FIELD(uint32_t, tailBsLength)
    TW_NORM_SAVE(RmsNormTiling)
};

class LayerNormTiling {
  public:
    TW_NORM_FIELD(uint32_t, bLength)
    TW_NORM_FIELD(uint32_t, sLength)
    TW_NORM_FIELD(uint32_t, hLength)
    TW_NORM_FIELD(uint32_t, originalHLength)
    TW_NORM_FIELD(uint32_t, inputXSize)
    TW_NORM_FIELD(uint32_t, meanVarSize)
    TW_NORM_FIELD(uint32_t, numberOfTmpBuf)
    TW_NORM_FIELD(uint32_t, meanTmpTensorPos)
    TW_NORM_FIELD(uint32_t, meanTmpTensorSize)
    TW_NORM_FIELD(uint32_t, varianceTmpTensorPos)
    TW_NORM_FIELD(uint32_t, varianceTmpTensorSize)
    TW_NORM_FIELD(uint32_t, tmpBufSize)
    TW_NORM_FIELD(uint32_t, oneTmpSize)
    TW_NORM_FIELD(uint32_t, firstTmpStartPos)
    TW_NORM_FIELD(uint32_t, secondTmpStartPos)
    TW_NORM_FIELD(uint32_t, thirdTmpStartPos)
    TW_NORM_FIELD(uint32_t, loopRound)
    TW_NORM_FIELD(uint32_t, inputRoundSize)
    TW_NORM_FIELD(uint32_t, inputTailSize)
    TW_NORM_FIELD(uint32_t, inputTailPos)
    TW_NORM_FIELD(uint32_t, meanVarRoundSize)
    TW_NORM_FIELD(uint32_t, meanVarTailSize)
    TW_NORM_FIELD(uint32_t, meanVarTailPos)
    TW_NORM_FIELD(uint32_t, bshCurLength)
    TW_NORM_FIELD(uint32_t, bsCurLength)
    TW_NORM_FIELD(float, lastDimValueBack)
    TW_NORM_SAVE(LayerNormTiling)
};

class LayerNormSeparateTiling {
  public:
    TW_NORM_FIELD(uint32_t, aLength)
    TW_NORM_FIELD(uint32_t, rLength)
    TW_NORM_FIELD(uint32_t, halfAddRepeatTimes)
    TW_NORM_FIELD(uint32_t, rHeadLength)
    TW_NORM_FIELD(float, k2Rec)
    TW_NORM_FIELD(float, k2RRec)
    TW_NORM_FIELD(uint32_t, inputXSize)
    TW_NORM_FIELD(uint32_t, meanVarSize)
    TW_NORM_FIELD(uint32_t, numberOfTmpBuf)
    TW_NORM_FIELD(uint32_t, varianceTmpTensorPos)
    TW_NORM_FIELD(uint32_t, varianceTmpTensorSize)
    TW_NORM_FIELD(uint32_t, tmpBufSize)
    TW_NORM_FIELD(uint32_t, oneTmpSize)
    TW_NORM_FIELD(uint32_t, firstTmpStartPos)
    TW_NORM_FIELD(uint32_t, secondTmpStartPos)
    TW_NORM_FIELD(uint32_t, thirdTmpStartPos)
    TW_NORM_FIELD(uint32_t, loopRound)
    TW_NORM_FIELD(uint32_t, inputRoundSize)
    TW_NORM_FIELD(uint32_t, inputTailSize)
    TW_NORM_FIELD(uint32_t, inputTailPos)
    TW_NORM_FIELD(uint32_t, meanVarRoundSize)
    TW_NORM_FIELD(uint32_t, meanVarTailSize)
    TW_NORM_FIELD(uint32_t, meanVarTailPos)
    TW_NORM_FIELD(uint32_t, arCurLength)
    TW_NORM_FIELD(uint32_t, aCurLength)
    TW_NORM_FIELD(float, rValueBack)
    TW_NORM_SAVE(LayerNormSeparateTiling)
};

}  // namespace optiling

#undef TW_NORM_FIELD
#undef TW_NORM_SAVE

namespace AscendC {
namespace tiling {
using RmsNormTiling = ::optiling::RmsNormTiling;
using LayerNormTiling = ::optiling::LayerNormTiling;
using LayerNormSeparateTiling = ::optiling::LayerNormSeparateTiling;
}  // namespace tiling

struct LayerNormPara {
    uint32_t aLength;
    uint32_t rLength;
    uint32_t rLengthWithPadding;
};

struct LayerNormConfig {
    bool isNoBeta = false;
    bool isNoGamma = false;
    bool isOnlyOutput = false;
    bool isOutputRstd = true;
};

constexpr LayerNormConfig LNCFG_NORM = {false, false, false, true};

}  // namespace AscendC

// The kernel side's names (global structs in CANN's kernel tiling header).
using RmsNormTiling = ::optiling::RmsNormTiling;
using LayerNormTiling = ::optiling::LayerNormTiling;
using LayerNormSeparateTiling = ::optiling::LayerNormSeparateTiling;
