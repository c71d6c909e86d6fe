// What every library tiling struct (SoftMaxTiling, TopkTiling, PadTiling, UnPadTiling, RmsNormTiling,
// LayerNormTiling, ...) is made of in the emulator: public fields with default initialisers and set_/get_
// accessors, so the host's optiling::X, AscendC::tiling::X and the kernel's X can be one standard-layout class,
// and SaveToBuffer memcpy's the object so the bytes the host writes are exactly what GET_TILING_DATA reads back.
// A buffer too small for the struct throws: a silently truncated tiling would make the kernel read garbage.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#define TW_LIB_TILING_FIELD(type, name)          \
    type name = 0;                               \
    void set_##name(type v) { name = v; }        \
    type get_##name() const { return name; }

#define TW_LIB_TILING_SAVE(cls)                                                                                    \
    void SaveToBuffer(void* buf, size_t cap) const {                                                               \
        if (buf == nullptr || cap < sizeof(*this)) throw std::runtime_error(#cls " does not fit in the buffer");   \
        std::memcpy(buf, static_cast<const void*>(this), sizeof(*this));                                           \
    }                                                                                                              \
    size_t GetDataSize() const { return sizeof(*this); }
