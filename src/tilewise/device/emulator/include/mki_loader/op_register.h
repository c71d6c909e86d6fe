// tilewise host emulation of the mki framework: REG_KERNEL_BASE(Class) registers a kernel class under its own name
// (in a header-only registry, whatever the order of static initialisation); the runner's adapter
// (tw_host/mki_adapter.h) creates each registered kernel and takes the first whose CanSupport accepts the case.
// Operation registrations (the graph level above the kernels) are accepted and ignored.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mki/base/kernel_base.h"

namespace Mki {
namespace tw_registry {

using KernelFactory = std::function<std::unique_ptr<KernelBase>()>;

inline std::vector<std::pair<std::string, KernelFactory>>& Kernels() {
    static std::vector<std::pair<std::string, KernelFactory>> kernels;
    return kernels;
}

struct KernelRegistrar {
    KernelRegistrar(const char* name, KernelFactory factory) { Kernels().emplace_back(name, std::move(factory)); }
};

}  // namespace tw_registry
}  // namespace Mki

#define TW_MKI_CAT2(a, b) a##b
#define TW_MKI_CAT(a, b) TW_MKI_CAT2(a, b)
#define REG_KERNEL_BASE(kernelClass)                                                                      \
    static const ::Mki::tw_registry::KernelRegistrar TW_MKI_CAT(tw_mki_kernel_, __LINE__)(               \
        #kernelClass, []() -> std::unique_ptr<::Mki::KernelBase> {                                        \
            return std::unique_ptr<::Mki::KernelBase>(new kernelClass(#kernelClass, nullptr));            \
        })
#define REG_OPERATION(operationClass) static_assert(true, "")
