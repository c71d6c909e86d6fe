// tilewise host emulation: op_host/tiling_base_class.h of CANN's opbase package: Ops::Base::TilingBaseClass, the
// template-method base of ops-math style tiling classes. It is the emulator's optiling::TilingBaseClass
// (tiling/tiling_base.h: DoTiling runs GetShapeAttrsInfo, GetPlatformInfo, IsCapable, DoOpTiling, DoLibApiTiling,
// GetWorkspaceSize, PostTiling, then sets the key; the first failure wins, IsCapable false is GRAPH_PARAM_INVALID)
// with opbase's own hardware-figures struct (numBlocks) and tensor debug strings.
#pragma once
#include <cstdint>
#include <sstream>
#include <string>

#include "exe_graph/runtime/tiling_context.h"
#include "graph/utils/type_utils.h"
#include "log/log.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_base.h"

namespace Ops::Base {

// Hardware figures a tiling class caches in GetPlatformInfo.
struct AiCoreParams {
    uint64_t ubSize = 0;
    uint64_t numBlocks = 0;
    uint64_t aicNum = 0;
    uint64_t l1Size = 0;
    uint64_t l0aSize = 0;
    uint64_t l0bSize = 0;
    uint64_t l0cSize = 0;
};

// What TilingParse stores for tiling when no platform information reaches the tiling (socVersion is a
// platform_ascendc::SocVersion value).
struct CompileInfoCommon {
    uint32_t aivNum;
    uint32_t aicNum;
    uint64_t ubSize;
    uint64_t l1Size;
    uint64_t l0aSize;
    uint64_t l0bSize;
    uint64_t l0cSize;
    uint64_t l2CacheSize;
    int64_t coreNum;
    int32_t socVersion;
    uint32_t rsvd;
};

class TilingBaseClass : public optiling::TilingBaseClass {
public:
    explicit TilingBaseClass(gert::TilingContext* context) : optiling::TilingBaseClass(context) {}
    ~TilingBaseClass() override = default;

protected:
    // "(dtype: DT_FLOAT),(shape:[2, 3]),(ori_shape:[2, 3]),(format: ND),(ori_format: ND) ", or "nil " when either
    // is missing.
    std::string GetTensorDebugStr(const gert::StorageShape* shape, const gert::CompileTimeTensorDesc* tensor) {
        if (shape == nullptr || tensor == nullptr) {
            return "nil ";
        }
        std::ostringstream out;
        out << "(dtype: " << ge::TypeUtils::DataTypeToSerialString(tensor->GetDataType()) << "),";
        out << "(shape:" << GetShapeDebugStr(shape->GetStorageShape()) << "),";
        out << "(ori_shape:" << GetShapeDebugStr(shape->GetOriginShape()) << "),";
        out << "(format: " << ge::TypeUtils::FormatToSerialString(tensor->GetStorageFormat()) << "),";
        out << "(ori_format: " << ge::TypeUtils::FormatToSerialString(tensor->GetOriginFormat()) << ") ";
        return out.str();
    }

    AiCoreParams aicoreParams_;
};

}  // namespace Ops::Base
