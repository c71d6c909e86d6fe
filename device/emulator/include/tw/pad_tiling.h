// The Pad and UnPad tiling structs, shared by the host tiling code and the kernel, with the fields of the library's
// PadTiling / UnPadTiling. As with SoftMaxTiling (tw/softmax_tiling.h), optiling::X (set_/get_ accessors, usable as
// a TILING_DATA_FIELD_DEF_STRUCT field), AscendC::tiling::X and the kernel's X are one standard-layout class.
// Also the kernel-side PadParams and UnPadParams (Pad.md, UnPad.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#define TW_PAD_FIELD(name)                                \
    uint32_t name = 0;                                    \
    void set_##name(uint32_t v) { name = v; }             \
    uint32_t get_##name() const { return name; }
#define TW_PAD_SAVE(cls)                                                                                           \
    void SaveToBuffer(void* buf, size_t cap) const {                                                               \
        if (buf == nullptr || cap < sizeof(*this)) throw std::runtime_error(#cls " does not fit in the buffer");   \
        std::memcpy(buf, static_cast<const void*>(this), sizeof(*this));                                           \
    }                                                                                                              \
    size_t GetDataSize() const { return sizeof(*this); }

namespace optiling {

class PadTiling {
  public:
    TW_PAD_FIELD(srcHeight)
    TW_PAD_FIELD(srcWidth)
    TW_PAD_FIELD(srcOriWidth)
    TW_PAD_FIELD(widthWithoutLastBlock)
    TW_PAD_FIELD(blocksPerRow)
    TW_PAD_FIELD(heightTiling)
    TW_PAD_FIELD(heightFractal)
    TW_PAD_FIELD(heightFractalTail)
    TW_PAD_FIELD(mainLoopOffset)
    TW_PAD_FIELD(tailBlockOffset)
    TW_PAD_FIELD(tmpBuffer1BlockNum)
    TW_PAD_FIELD(tmpBuffer1RowNum)
    TW_PAD_FIELD(tmpBuffer2Offset)
    TW_PAD_FIELD(widthTiling)
    TW_PAD_FIELD(widthFractal)
    TW_PAD_FIELD(widthFractalTail)
    TW_PAD_FIELD(widthFractalTailAlingned)
    TW_PAD_FIELD(brcbTiling)
    TW_PAD_FIELD(brcbFractal)
    TW_PAD_FIELD(brcbFractalTail)
    TW_PAD_FIELD(maxRepeatTimes)
    TW_PAD_FIELD(brcbTilingRepeatTimes)
    TW_PAD_FIELD(brcbTilingRepeatTimesTail)
    TW_PAD_FIELD(brcbFractalTailRepeatTimes)
    TW_PAD_FIELD(brcbFractalTailRepeatTimesTail)
    TW_PAD_FIELD(reserved)
    TW_PAD_SAVE(PadTiling)
};

class UnPadTiling {
  public:
    TW_PAD_FIELD(srcHeight)
    TW_PAD_FIELD(srcWidth)
    TW_PAD_FIELD(tmpBuffer1BlockNum)
    TW_PAD_FIELD(tmpBuffer1RowNum)
    TW_PAD_FIELD(tmpBuffer2Offset)
    TW_PAD_FIELD(widthTiling)
    TW_PAD_FIELD(widthFractal)
    TW_PAD_FIELD(widthFractalTail)
    TW_PAD_SAVE(UnPadTiling)
};

}  // namespace optiling

#undef TW_PAD_FIELD
#undef TW_PAD_SAVE

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
