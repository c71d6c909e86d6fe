// tilewise host emulation: Ops::Base::ToString of CANN's opbase log header, the text operator code puts in its
// log lines: a dtype ("DT_FLOAT"), a format ("ND"), a shape ("[2, 3]"), a list of shapes ("[[2, 3], [3]]").
#pragma once
#include <string>
#include <vector>

#include "exe_graph/runtime/shape.h"
#include "graph/types.h"
#include "graph/utils/type_utils.h"

namespace Ops::Base {

inline std::string ToString(ge::DataType type) { return ge::TypeUtils::DataTypeToSerialString(type); }
inline std::string ToString(ge::Format format) { return ge::TypeUtils::FormatToSerialString(format); }
inline std::string ToString(const gert::Shape& shape) {
    std::string out = "[";
    for (size_t i = 0; i < shape.GetDimNum(); ++i) {
        out += (i ? ", " : "") + std::to_string(shape.GetDim(i));
    }
    return out + "]";
}
inline std::string ToString(const std::vector<const gert::Shape*>& shapes) {
    std::string out = "[";
    for (size_t i = 0; i < shapes.size(); ++i) {
        out += (i ? ", " : "") + (shapes[i] ? ToString(*shapes[i]) : std::string("nil"));
    }
    return out + "]";
}

}  // namespace Ops::Base
