// tilewise host emulation of the mki framework: OperationBase, the graph-level class an operator's
// `<group>_operation.cpp` derives from (ActivationOperation, NormOperation, ...). It names the operation, says how
// many tensors a parameter takes (GetInputNum/GetOutputNum), infers the output descriptions (InferShape runs the
// operation's InferShapeImpl on the LaunchParam's outputs) and picks a kernel by name (GetBestKernel, usually a
// switch over the parameter returning GetKernelByName("...")). The runner chooses the kernel itself (the first
// registered one whose CanSupport accepts the case, tw_host/mki_adapter.h); this class lets the operation sources
// and the tiling units that include this header compile and behave as they do in the framework.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "mki/base/kernel_base.h"
#include "mki/launch_param.h"
#include "mki/tensor.h"
#include "mki/utils/SVector/SVector.h"
#include "mki/utils/any/any.h"
#include "mki/utils/log/log.h"
#include "mki/utils/status/status.h"
#include "mki_loader/op_register.h"

namespace Mki {

class OperationBase {
public:
    explicit OperationBase(const std::string& opName) noexcept : opName_(opName) {}
    virtual ~OperationBase() = default;
    OperationBase(const OperationBase&) = delete;
    OperationBase& operator=(const OperationBase&) = delete;

    std::string GetName() const { return opName_; }

    // Tensor counts for a parameter (`specificParam` holds the OpParam struct); -1 leaves a side unchecked.
    virtual int64_t GetInputNum(const Any& specificParam) const {
        (void)specificParam;
        return -1;
    }
    virtual int64_t GetOutputNum(const Any& specificParam) const {
        (void)specificParam;
        return -1;
    }

    // The kernel for this launch, nullptr when none fits.
    virtual Kernel* GetBestKernel(const LaunchParam& launchParam) const = 0;

    // Sizes the LaunchParam's outputs to the operation's output count, then lets InferShapeImpl describe them.
    Status InferShape(LaunchParam& launchParam) const {
        const int64_t outs = GetOutputNum(launchParam.GetParam());
        SVector<Tensor>& outTensors = launchParam.GetOutTensors();
        if (outs >= 0) outTensors.resize(static_cast<size_t>(outs));
        return InferShapeImpl(launchParam, outTensors);
    }

    // The LaunchParam carries as many inputs and outputs as the operation declares for its parameter.
    bool IsConsistent(const LaunchParam& launchParam) const {
        const int64_t ins = GetInputNum(launchParam.GetParam());
        const int64_t outs = GetOutputNum(launchParam.GetParam());
        if (ins >= 0 && static_cast<int64_t>(launchParam.GetInTensorCount()) != ins) {
            MKI_LOG(ERROR) << opName_ << ": " << launchParam.GetInTensorCount() << " input tensors, expected " << ins;
            return false;
        }
        if (outs >= 0 && static_cast<int64_t>(launchParam.GetOutTensorCount()) != outs) {
            MKI_LOG(ERROR) << opName_ << ": " << launchParam.GetOutTensorCount() << " output tensors, expected "
                           << outs;
            return false;
        }
        return true;
    }

    // A kernel registered with REG_KERNEL_BASE under `kernelName`, created once and owned by the operation;
    // nullptr (with an error logged) when no kernel of that name is registered.
    Kernel* GetKernelByName(const std::string& kernelName) const {
        auto found = kernels_.find(kernelName);
        if (found != kernels_.end()) return found->second.get();
        for (const auto& [name, factory] : tw_registry::Kernels()) {
            if (name == kernelName) return (kernels_[kernelName] = factory()).get();
        }
        MKI_LOG(ERROR) << opName_ << ": no kernel named " << kernelName;
        return nullptr;
    }

protected:
    virtual Status InferShapeImpl(const LaunchParam& launchParam, SVector<Tensor>& outTensors) const = 0;

private:
    std::string opName_;
    mutable std::map<std::string, std::unique_ptr<KernelBase>> kernels_;
};

using Operation = OperationBase;

}  // namespace Mki
