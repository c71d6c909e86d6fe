// tilewise host emulation: gert::TilingParseContext, the argument of a TilingParse function (run once before
// tiling to fill the operator's compile-info struct, which tiling then reads through GetCompileInfo()).
#pragma once
#include <cstddef>
#include <type_traits>

#include "exe_graph/runtime/extended_kernel_context.h"
#include "platform/platform_infos_def.h"

namespace gert {

class TilingParseContext : public ExtendedKernelContext {
public:
    TilingParseContext(tw_host::NodeData* node, void* compile_info)
        : ExtendedKernelContext(node), compile_info_(compile_info) {}

    template <typename T>
    T* GetCompiledInfo() const { return static_cast<T*>(compile_info_); }
    // The context's outputs, as the reference's ContextBuilder examples read them: output 0 holds the compile-info
    // pointer (`void* compileInfo = *context->GetOutputPointer<void**>(0);`), the only output a TilingParse has.
    template <typename T>
    T GetOutputPointer(size_t index) const {
        static_assert(std::is_pointer<T>::value, "GetOutputPointer<T> takes a pointer type");
        return index == 0 ? reinterpret_cast<T>(const_cast<void**>(&compile_info_)) : nullptr;
    }
    const char* GetCompiledJson() const { return "{}"; }
    fe::PlatFormInfos* GetPlatformInfo() const { return &node_->platform; }

private:
    void* compile_info_;
};

}  // namespace gert
