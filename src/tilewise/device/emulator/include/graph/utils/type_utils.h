// tilewise host emulation: ge::TypeUtils, the conversions op_host code uses between data types, sizes and names.
#pragma once
#include <cstdint>
#include <string>
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>
#include <vector>

#include "graph/types.h"

namespace ge {

class TypeUtils {
public:
    // Returns false (and leaves `length` alone) for types without a fixed byte size.
    static bool GetDataTypeLength(DataType dt, uint32_t& length) {
        const int size = GetSizeByDataType(dt);
        if (size <= 0) {
            return false;
        }
        length = static_cast<uint32_t>(size);
        return true;
    }

    static std::string DataTypeToSerialString(DataType dt) {
        switch (dt) {
            case DT_FLOAT: return "DT_FLOAT";
            case DT_FLOAT16: return "DT_FLOAT16";
            case DT_BF16: return "DT_BF16";
            case DT_INT8: return "DT_INT8";
            case DT_UINT8: return "DT_UINT8";
            case DT_INT16: return "DT_INT16";
            case DT_UINT16: return "DT_UINT16";
            case DT_INT32: return "DT_INT32";
            case DT_UINT32: return "DT_UINT32";
            case DT_INT64: return "DT_INT64";
            case DT_UINT64: return "DT_UINT64";
            case DT_DOUBLE: return "DT_DOUBLE";
            case DT_BOOL: return "DT_BOOL";
            default: return "DT_UNDEFINED";
        }
    }

    static std::string FormatToSerialString(Format f) {
        switch (f) {
            case FORMAT_NCHW: return "NCHW";
            case FORMAT_NHWC: return "NHWC";
            case FORMAT_ND: return "ND";
            case FORMAT_NC1HWC0: return "NC1HWC0";
            case FORMAT_FRACTAL_Z: return "FRACTAL_Z";
            case FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
            case FORMAT_NCDHW: return "NCDHW";
            case FORMAT_NDHWC: return "NDHWC";
            default: return "RESERVED";
        }
    }
};

}  // namespace ge
