// tilewise host emulation: tiling/tiling_base.h, the template-method base class of CANN-style tiling code.
//
// An operator derives from optiling::TilingBaseClass and implements the steps; DoTiling() drives them in the
// documented order: GetShapeAttrsInfo, GetPlatformInfo, IsCapable (false: GRAPH_PARAM_INVALID, "not this
// template, try the next one"), DoOpTiling, DoLibApiTiling, GetWorkspaceSize, PostTiling, and finally the tiling key
// (GetTilingKey) goes to the context. The first step that fails ends the run with its status.
#pragma once
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "exe_graph/runtime/tiling_context.h"
#include "graph/types.h"
#include "graph/utils/type_utils.h"
#include "log/log.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {

// Hardware figures a tiling class caches in GetPlatformInfo.
struct AiCoreParams {
    uint64_t ubSize = 0;
    uint64_t blockDim = 0;
    uint64_t aicNum = 0;
    uint64_t l1Size = 0;
    uint64_t l0aSize = 0;
    uint64_t l0bSize = 0;
    uint64_t l0cSize = 0;
};

class TilingBaseClass {
public:
    TilingBaseClass() = default;
    explicit TilingBaseClass(gert::TilingContext* context) : context_(context) {}
    virtual ~TilingBaseClass() = default;

    ge::graphStatus DoTiling() {
        ge::graphStatus (TilingBaseClass::*const before[])() = {&TilingBaseClass::GetShapeAttrsInfo,
                                                                &TilingBaseClass::GetPlatformInfo};
        for (auto step : before) {
            const ge::graphStatus ret = (this->*step)();
            if (ret != ge::GRAPH_SUCCESS) {
                return ret;
            }
        }
        if (!IsCapable()) {
            return ge::GRAPH_PARAM_INVALID;
        }
        ge::graphStatus (TilingBaseClass::*const after[])() = {
            &TilingBaseClass::DoOpTiling, &TilingBaseClass::DoLibApiTiling, &TilingBaseClass::GetWorkspaceSize,
            &TilingBaseClass::PostTiling};
        for (auto step : after) {
            const ge::graphStatus ret = (this->*step)();
            if (ret != ge::GRAPH_SUCCESS) {
                return ret;
            }
        }
        context_->SetTilingKey(GetTilingKey());
        DumpTilingInfo();
        return ge::GRAPH_SUCCESS;
    }

    // Reuse the object for another operator instance.
    virtual void Reset(gert::TilingContext* context) { context_ = context; }

protected:
    virtual bool IsCapable() = 0;
    virtual ge::graphStatus GetPlatformInfo() = 0;
    virtual ge::graphStatus GetShapeAttrsInfo() = 0;
    virtual ge::graphStatus DoOpTiling() = 0;
    virtual ge::graphStatus DoLibApiTiling() = 0;
    virtual uint64_t GetTilingKey() const = 0;
    virtual ge::graphStatus GetWorkspaceSize() = 0;
    virtual ge::graphStatus PostTiling() = 0;

    // Debug dump of the tiling words (with TW_HOST_DEBUG set, like the other debug logs).
    virtual void DumpTilingInfo() {
        if (!tw_host::log::debug_enabled()) {
            return;
        }
        OP_LOGD(context_, "tiling key %llu, tiling data %s", static_cast<unsigned long long>(GetTilingKey()),
                GetTilingDataDebugStr().c_str());
    }

    // Blocks to launch when each cube core drives aivCoreNum / aicCoreNum vector cores.
    static uint32_t CalcTschBlockDim(uint32_t sliceNum, uint32_t aicCoreNum, uint32_t aivCoreNum) {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) {
            return sliceNum;
        }
        const uint32_t ratio = aivCoreNum / aicCoreNum;
        return (sliceNum + ratio - 1) / ratio;
    }

    template <typename T>
    std::string GetShapeDebugStr(const T& shape) const {
        std::ostringstream out;
        out << "[";
        for (size_t i = 0; i < shape.GetDimNum(); ++i) {
            out << (i ? ", " : "") << shape.GetDim(i);
        }
        out << "]";
        return out.str();
    }

    std::string GetTilingDataDebugStr() const {
        const gert::TilingData* raw = context_->GetRawTilingData();
        const auto* words = static_cast<const int32_t*>(raw->GetData());
        std::ostringstream out;
        for (size_t i = 0; i < raw->GetDataSize() / sizeof(int32_t); ++i) {
            out << words[i] << ", ";
        }
        return out.str();
    }

    gert::TilingContext* context_ = nullptr;
    std::unique_ptr<platform_ascendc::PlatformAscendC> ascendcPlatform_{nullptr};
    uint32_t blockDim_{0};
    uint64_t workspaceSize_{0};
    uint64_t tilingKey_{0};
    AiCoreParams aicoreParams_{};
};

}  // namespace optiling
