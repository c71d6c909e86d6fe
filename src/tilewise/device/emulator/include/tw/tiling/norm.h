// The RmsNorm and LayerNorm tiling structs, shared by the host tiling code and the kernel, with the fields the Ascend
// C API reference lists (RmsNorm-Tiling.md, LayerNorm-Tiling.md). As with SoftMaxTiling (tw/tiling/softmax.h), the
// host's optiling::X (set_/get_ accessors, usable as a TILING_DATA_FIELD_DEF_STRUCT field), AscendC::tiling::X and
// the kernel's X are one standard-layout class, so the bytes SaveToBuffer writes are what GET_TILING_DATA reads.
// Also the kernel-side LayerNormPara and LayerNormConfig.
#pragma once
#include <cstdint>
#include "tw/tiling/struct_fields.h"

namespace optiling {

class RmsNormTiling {
  public:
    TW_LIB_TILING_FIELD(uint32_t, bLength)
    TW_LIB_TILING_FIELD(uint32_t, sLength)
    TW_LIB_TILING_FIELD(uint32_t, hLength)
    TW_LIB_TILING_FIELD(uint32_t, originalHLength)
    TW_LIB_TILING_FIELD(float, reciprocalOfHLength)
    TW_LIB_TILING_FIELD(uint32_t, mainBshLength)
    TW_LIB_TILING_FIELD(uint32_t, mainBsLength)
    TW_LIB_TILING_FIELD(uint32_t, mainBsLengthAlign)
    TW_LIB_TILING_FIELD(uint32_t, loopRound)
    TW_LIB_TILING_FIELD(uint32_t, inputTailPos)
    TW_LIB_TILING_FIELD(uint32_t, tailBshLength)
    TW_LIB_TILING_FIELD(uint32_t, tailBsLength)
    TW_LIB_TILING_SAVE(RmsNormTiling)
};

class LayerNormTiling {
  public:
    TW_LIB_TILING_FIELD(uint32_t, bLength)
    TW_LIB_TILING_FIELD(uint32_t, sLength)
    TW_LIB_TILING_FIELD(uint32_t, hLength)
    TW_LIB_TILING_FIELD(uint32_t, originalHLength)
    TW_LIB_TILING_FIELD(uint32_t, inputXSize)
    TW_LIB_TILING_FIELD(uint32_t, meanVarSize)
    TW_LIB_TILING_FIELD(uint32_t, numberOfTmpBuf)
    TW_LIB_TILING_FIELD(uint32_t, meanTmpTensorPos)
    TW_LIB_TILING_FIELD(uint32_t, meanTmpTensorSize)
    TW_LIB_TILING_FIELD(uint32_t, varianceTmpTensorPos)
    TW_LIB_TILING_FIELD(uint32_t, varianceTmpTensorSize)
    TW_LIB_TILING_FIELD(uint32_t, tmpBufSize)
    TW_LIB_TILING_FIELD(uint32_t, oneTmpSize)
    TW_LIB_TILING_FIELD(uint32_t, firstTmpStartPos)
    TW_LIB_TILING_FIELD(uint32_t, secondTmpStartPos)
    TW_LIB_TILING_FIELD(uint32_t, thirdTmpStartPos)
    TW_LIB_TILING_FIELD(uint32_t, loopRound)
    TW_LIB_TILING_FIELD(uint32_t, inputRoundSize)
    TW_LIB_TILING_FIELD(uint32_t, inputTailSize)
    TW_LIB_TILING_FIELD(uint32_t, inputTailPos)
    TW_LIB_TILING_FIELD(uint32_t, meanVarRoundSize)
    TW_LIB_TILING_FIELD(uint32_t, meanVarTailSize)
    TW_LIB_TILING_FIELD(uint32_t, meanVarTailPos)
    TW_LIB_TILING_FIELD(uint32_t, bshCurLength)
    TW_LIB_TILING_FIELD(uint32_t, bsCurLength)
    TW_LIB_TILING_FIELD(float, lastDimValueBack)
    TW_LIB_TILING_SAVE(LayerNormTiling)
};

class LayerNormSeparateTiling {
  public:
    TW_LIB_TILING_FIELD(uint32_t, aLength)
    TW_LIB_TILING_FIELD(uint32_t, rLength)
    TW_LIB_TILING_FIELD(uint32_t, halfAddRepeatTimes)
    TW_LIB_TILING_FIELD(uint32_t, rHeadLength)
    TW_LIB_TILING_FIELD(float, k2Rec)
    TW_LIB_TILING_FIELD(float, k2RRec)
    TW_LIB_TILING_FIELD(uint32_t, inputXSize)
    TW_LIB_TILING_FIELD(uint32_t, meanVarSize)
    TW_LIB_TILING_FIELD(uint32_t, numberOfTmpBuf)
    TW_LIB_TILING_FIELD(uint32_t, varianceTmpTensorPos)
    TW_LIB_TILING_FIELD(uint32_t, varianceTmpTensorSize)
    TW_LIB_TILING_FIELD(uint32_t, tmpBufSize)
    TW_LIB_TILING_FIELD(uint32_t, oneTmpSize)
    TW_LIB_TILING_FIELD(uint32_t, firstTmpStartPos)
    TW_LIB_TILING_FIELD(uint32_t, secondTmpStartPos)
    TW_LIB_TILING_FIELD(uint32_t, thirdTmpStartPos)
    TW_LIB_TILING_FIELD(uint32_t, loopRound)
    TW_LIB_TILING_FIELD(uint32_t, inputRoundSize)
    TW_LIB_TILING_FIELD(uint32_t, inputTailSize)
    TW_LIB_TILING_FIELD(uint32_t, inputTailPos)
    TW_LIB_TILING_FIELD(uint32_t, meanVarRoundSize)
    TW_LIB_TILING_FIELD(uint32_t, meanVarTailSize)
    TW_LIB_TILING_FIELD(uint32_t, meanVarTailPos)
    TW_LIB_TILING_FIELD(uint32_t, arCurLength)
    TW_LIB_TILING_FIELD(uint32_t, aCurLength)
    TW_LIB_TILING_FIELD(float, rValueBack)
    TW_LIB_TILING_SAVE(LayerNormSeparateTiling)
};

}  // namespace optiling


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
