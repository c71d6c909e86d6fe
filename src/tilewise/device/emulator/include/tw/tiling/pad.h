// The Pad and UnPad tiling structs, shared by the host tiling code and the kernel, with the fields of the library's
// PadTiling / UnPadTiling. As with SoftMaxTiling (tw/tiling/softmax.h), optiling::X (set_/get_ accessors, usable as
// a TILING_DATA_FIELD_DEF_STRUCT field), AscendC::tiling::X and the kernel's X are one standard-layout class.
// Also the kernel-side PadParams and UnPadParams (Pad.md, UnPad.md).
#pragma once
#include <cstdint>
#include "tw/tiling/struct_fields.h"

namespace optiling {

class PadTiling {
  public:
    TW_LIB_TILING_FIELD(uint32_t, srcHeight)
    TW_LIB_TILING_FIELD(uint32_t, srcWidth)
    TW_LIB_TILING_FIELD(uint32_t, srcOriWidth)
    TW_LIB_TILING_FIELD(uint32_t, widthWithoutLastBlock)
    TW_LIB_TILING_FIELD(uint32_t, blocksPerRow)
    TW_LIB_TILING_FIELD(uint32_t, heightTiling)
    TW_LIB_TILING_FIELD(uint32_t, heightFractal)
    TW_LIB_TILING_FIELD(uint32_t, heightFractalTail)
    TW_LIB_TILING_FIELD(uint32_t, mainLoopOffset)
    TW_LIB_TILING_FIELD(uint32_t, tailBlockOffset)
    TW_LIB_TILING_FIELD(uint32_t, tmpBuffer1BlockNum)
    TW_LIB_TILING_FIELD(uint32_t, tmpBuffer1RowNum)
    TW_LIB_TILING_FIELD(uint32_t, tmpBuffer2Offset)
    TW_LIB_TILING_FIELD(uint32_t, widthTiling)
    TW_LIB_TILING_FIELD(uint32_t, widthFractal)
    TW_LIB_TILING_FIELD(uint32_t, widthFractalTail)
    TW_LIB_TILING_FIELD(uint32_t, widthFractalTailAlingned)
    TW_LIB_TILING_FIELD(uint32_t, brcbTiling)
    TW_LIB_TILING_FIELD(uint32_t, brcbFractal)
    TW_LIB_TILING_FIELD(uint32_t, brcbFractalTail)
    TW_LIB_TILING_FIELD(uint32_t, maxRepeatTimes)
    TW_LIB_TILING_FIELD(uint32_t, brcbTilingRepeatTimes)
    TW_LIB_TILING_FIELD(uint32_t, brcbTilingRepeatTimesTail)
    TW_LIB_TILING_FIELD(uint32_t, brcbFractalTailRepeatTimes)
    TW_LIB_TILING_FIELD(uint32_t, brcbFractalTailRepeatTimesTail)
    TW_LIB_TILING_FIELD(uint32_t, reserved)
    TW_LIB_TILING_SAVE(PadTiling)
};

class UnPadTiling {
  public:
    TW_LIB_TILING_FIELD(uint32_t, srcHeight)
    TW_LIB_TILING_FIELD(uint32_t, srcWidth)
    TW_LIB_TILING_FIELD(uint32_t, tmpBuffer1BlockNum)
    TW_LIB_TILING_FIELD(uint32_t, tmpBuffer1RowNum)
    TW_LIB_TILING_FIELD(uint32_t, tmpBuffer2Offset)
    TW_LIB_TILING_FIELD(uint32_t, widthTiling)
    TW_LIB_TILING_FIELD(uint32_t, widthFractal)
    TW_LIB_TILING_FIELD(uint32_t, widthFractalTail)
    TW_LIB_TILING_SAVE(UnPadTiling)
};

}  // namespace optiling


namespace AscendC {
namespace tiling {
using PadTiling = ::optiling::PadTiling;
using UnPadTiling = ::optiling::UnPadTiling;
}  // namespace tiling

struct PadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
    int32_t padValue = 0;
};

struct UnPadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
};

}  // namespace AscendC

// The kernel side's names.
using PadTiling = ::optiling::PadTiling;
using UnPadTiling = ::optiling::UnPadTiling;
