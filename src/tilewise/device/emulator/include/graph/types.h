// tilewise host emulation: the ge:: value types an AscendC op_host file uses (data types, formats, status codes).
// Written from the public API semantics; enum values follow the published numbering so that code comparing a
// ge::DataType with an integer (`case 1:` for DT_FLOAT16) behaves as on a real toolkit.
#pragma once
#include <cstdint>
#include <string>
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <atomic>
#include <memory>
#include <vector>

namespace ge {

enum DataType {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_STRING = 13,
    DT_DUAL_SUB_INT8 = 14,
    DT_DUAL_SUB_UINT8 = 15,
    DT_COMPLEX64 = 16,
    DT_COMPLEX128 = 17,
    DT_QINT8 = 18,
    DT_QINT16 = 19,
    DT_QINT32 = 20,
    DT_QUINT8 = 21,
    DT_QUINT16 = 22,
    DT_RESOURCE = 23,
    DT_STRING_REF = 24,
    DT_DUAL = 25,
    DT_VARIANT = 26,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
    DT_INT4 = 29,
    DT_UINT1 = 30,
    DT_INT2 = 31,
    DT_UINT2 = 32,
    DT_COMPLEX32 = 33,
    DT_MAX
};

// Only the formats' names matter to the emulator (nothing is laid out differently); the numbers are ge::Format's.
// One list for the enum and GetFormatName.
#define TW_GE_FORMATS(X) \
    X(NCHW, 0) \
    X(NHWC, 1) \
    X(ND, 2) \
    X(NC1HWC0, 3) \
    X(FRACTAL_Z, 4) \
    X(NC1C0HWPAD, 5) \
    X(NHWC1C0, 6) \
    X(FSR_NCHW, 7) \
    X(FRACTAL_DECONV, 8) \
    X(C1HWNC0, 9) \
    X(FRACTAL_DECONV_TRANSPOSE, 10) \
    X(FRACTAL_DECONV_SP_STRIDE_TRANS, 11) \
    X(NC1HWC0_C04, 12) \
    X(FRACTAL_Z_C04, 13) \
    X(CHWN, 14) \
    X(FRACTAL_DECONV_SP_STRIDE8_TRANS, 15) \
    X(HWCN, 16) \
    X(NC1KHKWHWC0, 17) \
    X(BN_WEIGHT, 18) \
    X(FILTER_HWCK, 19) \
    X(HASHTABLE_LOOKUP_LOOKUPS, 20) \
    X(HASHTABLE_LOOKUP_KEYS, 21) \
    X(HASHTABLE_LOOKUP_VALUE, 22) \
    X(HASHTABLE_LOOKUP_OUTPUT, 23) \
    X(HASHTABLE_LOOKUP_HITS, 24) \
    X(C1HWNCoC0, 25) \
    X(MD, 26) \
    X(NDHWC, 27) \
    X(FRACTAL_ZZ, 28) \
    X(FRACTAL_NZ, 29) \
    X(NCDHW, 30) \
    X(DHWCN, 31) \
    X(NDC1HWC0, 32) \
    X(FRACTAL_Z_3D, 33) \
    X(CN, 34) \
    X(NC, 35) \
    X(DHWNC, 36) \
    X(FRACTAL_Z_3D_TRANSPOSE, 37) \
    X(FRACTAL_ZN_LSTM, 38) \
    X(FRACTAL_Z_G, 39) \
    X(ND_RNN_BIAS, 43) \
    X(FRACTAL_ZN_RNN, 44) \
    X(NCL, 47) \
    X(RESERVED, 200) \
    X(ALL, 201) \
    X(NULL, 202)

enum Format {
#define TW_GE_FORMAT_ENUM(NAME, VALUE) FORMAT_##NAME = VALUE,
    TW_GE_FORMATS(TW_GE_FORMAT_ENUM)
#undef TW_GE_FORMAT_ENUM
    FORMAT_MAX = 0xff
};

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFFU;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649U;
constexpr graphStatus GRAPH_NOT_CHANGED = 1343242304U;

// Bytes per element; -1 for types that have no fixed byte size (strings, resources, sub-byte types).
inline int GetSizeByDataType(DataType dt) {
    switch (dt) {
        case DT_BOOL:
        case DT_INT8:
        case DT_UINT8:
        case DT_QINT8:
        case DT_QUINT8:
        case DT_DUAL_SUB_INT8:
        case DT_DUAL_SUB_UINT8:
            return 1;
        case DT_FLOAT16:
        case DT_BF16:
        case DT_INT16:
        case DT_UINT16:
        case DT_QINT16:
        case DT_QUINT16:
            return 2;
        case DT_FLOAT:
        case DT_INT32:
        case DT_UINT32:
        case DT_QINT32:
        case DT_COMPLEX32:
            return 4;
        case DT_INT64:
        case DT_UINT64:
        case DT_DOUBLE:
        case DT_COMPLEX64:
            return 8;
        case DT_COMPLEX128:
            return 16;
        default:
            return -1;
    }
}

// Bytes that `element_count` elements of `data_type` take: sub-byte types pack (4-bit types two to a byte, 2-bit
// four, 1-bit eight, the last byte rounded up); -1 for a negative count, an overflow or a type of no fixed size.
inline int64_t GetSizeInBytes(int64_t element_count, DataType data_type) {
    if (element_count < 0) {
        return -1;
    }
    int64_t per_byte = data_type == DT_INT4 ? 2 : (data_type == DT_INT2 || data_type == DT_UINT2) ? 4
                                                  : data_type == DT_UINT1 ? 8 : 0;
    if (per_byte != 0) {
        return (element_count + per_byte - 1) / per_byte;
    }
    int64_t size = GetSizeByDataType(data_type);
    if (size <= 0 || element_count > INT64_MAX / size) {
        return -1;
    }
    return element_count * size;
}

// A format value carries its primary format in the low 8 bits and an optional sub-format above them.
inline Format GetPrimaryFormat(int32_t format) { return static_cast<Format>(static_cast<uint32_t>(format) & 0xffU); }
inline int32_t GetSubFormat(int32_t format) { return static_cast<int32_t>((static_cast<uint32_t>(format) >> 8) & 0xffffU); }

// A format's name ("NCHW", "FRACTAL_NZ", ...; the primary format's, for a value with a sub-format); nullptr for a
// value the enum does not name.
inline const char* GetFormatName(Format format) {
    switch (GetPrimaryFormat(static_cast<int32_t>(format))) {
#define TW_GE_FORMAT_NAME(NAME, VALUE) \
    case FORMAT_##NAME:                \
        return #NAME;
        TW_GE_FORMATS(TW_GE_FORMAT_NAME)
#undef TW_GE_FORMAT_NAME
        default: return nullptr;
    }
}

// A string that owns its characters; op_host code meets it in check-support and attribute helpers.
class AscendString {
public:
    AscendString() = default;
    AscendString(const char* s) : s_(s == nullptr ? "" : s) {}  // NOLINT: implicit on purpose, as in real code
    const char* GetString() const { return s_.c_str(); }
    size_t GetLength() const { return s_.size(); }
    bool operator==(const AscendString& o) const { return s_ == o.s_; }
    bool operator<(const AscendString& o) const { return s_ < o.s_; }

private:
    std::string s_;
};

class Operator;  // graph-mode operator: op_host code only passes it around by reference

}  // namespace ge
