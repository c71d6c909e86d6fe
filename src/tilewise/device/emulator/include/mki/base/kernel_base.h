// tilewise host emulation of the mki framework: KernelBase, the class an operator's `<name>_kernel.cpp` derives
// from. The framework asks CanSupport whether the kernel takes a LaunchParam, sizes the tiling host buffer with
// GetTilingSize, then runs InitImpl (the operator's tiling) into kernelInfo_. Init does those two last steps here.
#pragma once
#include <cstdint>
#include <string>

#include "mki/bin_handle.h"
#include "mki/kernel_info.h"
#include "mki/launch_param.h"
#include "mki/types.h"
#include "mki/utils/any/any.h"
#include "mki/utils/assert/assert.h"
#include "mki/utils/log/log.h"
#include "mki/utils/status/status.h"

namespace Mki {

// A kernel that does not size its tiling gets this many bytes, all of which reach the kernel.
constexpr uint64_t TW_DEFAULT_TILING_BYTES = 4096;

class KernelBase {
public:
    KernelBase(const std::string& kernelName, const BinHandle* handle) noexcept
        : kernelName_(kernelName), handle_(handle) {}
    virtual ~KernelBase() = default;

    virtual bool CanSupport(const LaunchParam& launchParam) const {
        (void)launchParam;
        return true;
    }
    virtual uint64_t GetTilingSize(const LaunchParam& launchParam) const {
        (void)launchParam;
        return TW_DEFAULT_TILING_BYTES;
    }
    virtual Status InitImpl(const LaunchParam& launchParam) = 0;

    Status Init(const LaunchParam& launchParam) {
        kernelInfo_ = KernelInfo();
        kernelInfo_.InitTilingHost(GetTilingSize(launchParam));
        return InitImpl(launchParam);
    }
    std::string GetName() const { return kernelName_; }
    const KernelInfo& GetKernelInfo() const { return kernelInfo_; }
    KernelInfo& GetKernelInfo() { return kernelInfo_; }

protected:
    KernelInfo kernelInfo_;
    std::string kernelName_;
    const BinHandle* handle_ = nullptr;
};

using Kernel = KernelBase;

}  // namespace Mki
