// tilewise host emulation: gert::TilingParseContext, the argument of a TilingParse function (run once before
// tiling to fill the operator's compile-info struct, which tiling then reads through GetCompileInfo()).
#pragma once
#include "exe_graph/runtime/extended_kernel_context.h"
#include "platform/platform_infos_def.h"

namespace gert {

class TilingParseContext : public ExtendedKernelContext {
public:
    TilingParseContext(tw_host::NodeData* node, void* compile_info)
        : ExtendedKernelContext(node), compile_info_(compile_info) {}

    template <typename T>
    T* GetCompiledInfo() const { return static_cast<T*>(compile_info_); }
    const char* GetCompiledJson() const { return "{}"; }
    fe::PlatFormInfos* GetPlatformInfo() const { return &node_->platform; }

private:
    void* compile_info_;
};

}  // namespace gert
