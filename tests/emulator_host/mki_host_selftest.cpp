// Self-test of the mki (Ascend Transformer Boost) host headers an operation unit includes: an OpParam struct that
// includes only SVector.h yet compares its float field with Mki::Utils::Compare, and an OperationBase subclass
// (tensor counts per parameter, IsConsistent, InferShape through InferShapeImpl, GetBestKernel choosing a
// REG_KERNEL_BASE kernel by name). Prints "all checks passed".

// ---- a parameter header of the framework's shape: nothing included before it but SVector.h ----
#include <mki/utils/SVector/SVector.h>

namespace TwOps {
namespace OpParam {
struct Blend {
    enum BlendType { BLEND_UNDEFINED = 0, BLEND_ONE, BLEND_TWO };
    BlendType blendType = BLEND_UNDEFINED;
    float weight = 0.5f;
    bool operator==(const Blend& other) const
    {
        return blendType == other.blendType && Mki::Utils::Compare<float>::IsEqual(weight, other.weight);
    }
};
}  // namespace OpParam
}  // namespace TwOps

#include <cstdio>
#include <string>

#include <mki/base/kernel_base.h>
#include <mki/base/operation_base.h>
#include <mki_loader/op_register.h>

static int g_failures = 0;
#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond);           \
            ++g_failures;                                                   \
        }                                                                   \
    } while (0)

namespace TwOps {
using namespace Mki;

class BlendOneKernel : public KernelBase {
public:
    BlendOneKernel(const std::string& name, const BinHandle* handle) noexcept : KernelBase(name, handle) {}
    Status InitImpl(const LaunchParam& launchParam) override
    {
        (void)launchParam;
        kernelInfo_.SetBlockDim(1);
        return Status::OkStatus();
    }
};
REG_KERNEL_BASE(BlendOneKernel);

class BlendTwoKernel : public KernelBase {
public:
    BlendTwoKernel(const std::string& name, const BinHandle* handle) noexcept : KernelBase(name, handle) {}
    Status InitImpl(const LaunchParam& launchParam) override
    {
        (void)launchParam;
        kernelInfo_.SetBlockDim(2);
        return Status::OkStatus();
    }
};
REG_KERNEL_BASE(BlendTwoKernel);

class BlendOperation : public OperationBase {
public:
    explicit BlendOperation(const std::string& opName) noexcept : OperationBase(opName) {}
    Kernel* GetBestKernel(const LaunchParam& launchParam) const override
    {
        MKI_CHECK(IsConsistent(launchParam), "Failed to check consistent", return nullptr);
        auto param = launchParam.GetParam<OpParam::Blend>();
        switch (param.blendType) {
            case OpParam::Blend::BLEND_ONE: return GetKernelByName("BlendOneKernel");
            case OpParam::Blend::BLEND_TWO: return GetKernelByName("BlendTwoKernel");
            default: return GetKernelByName("BlendNoSuchKernel");
        }
    }
    int64_t GetInputNum(const Any& specificParam) const override
    {
        return AnyCast<OpParam::Blend>(specificParam).blendType == OpParam::Blend::BLEND_TWO ? 2 : 1;
    }
    int64_t GetOutputNum(const Any& specificParam) const override
    {
        (void)specificParam;
        return 1;
    }

protected:
    Status InferShapeImpl(const LaunchParam& launchParam, SVector<Tensor>& outTensors) const override
    {
        outTensors[0].desc = launchParam.GetInTensor(0).desc;
        outTensors[0].desc.dims.back() *= 2;
        return Status::OkStatus();
    }
};
REG_OPERATION(BlendOperation);
}  // namespace TwOps

int main()
{
    using namespace Mki;
    using TwOps::OpParam::Blend;
    Blend a, b;
    b.weight = 0.5f + 1e-9f;  // within float epsilon
    CHECK(a == b);
    b.weight = 0.75f;
    CHECK(!(a == b));

    TwOps::BlendOperation op("BlendOperation");
    CHECK(op.GetName() == "BlendOperation");
    Tensor x;
    x.desc.dtype = TENSOR_DTYPE_FLOAT16;
    x.desc.dims = {4, 8};
    LaunchParam lp;
    lp.AddInTensor(x);
    Blend p;
    p.blendType = Blend::BLEND_ONE;
    lp.SetParam(p);

    // InferShape gives the LaunchParam the operation's output count, described by InferShapeImpl.
    CHECK(op.InferShape(lp).Ok());
    CHECK(lp.GetOutTensorCount() == 1);
    CHECK(lp.GetOutTensor(0).desc.dims == SVector<int64_t>({4, 16}));
    CHECK(lp.GetOutTensor(0).desc.dtype == TENSOR_DTYPE_FLOAT16);

    // One input and one output is what BLEND_ONE takes: its kernel, the same object on every call.
    Kernel* k1 = op.GetBestKernel(lp);
    CHECK(k1 != nullptr && k1->GetName() == "BlendOneKernel");
    CHECK(op.GetBestKernel(lp) == k1);
    CHECK(k1->Init(lp).Ok() && k1->GetKernelInfo().GetBlockDim() == 1);

    // BLEND_TWO takes two inputs: with one the launch is not consistent and no kernel is chosen.
    p.blendType = Blend::BLEND_TWO;
    lp.SetParam(p);
    LastError().clear();
    CHECK(!op.IsConsistent(lp));
    CHECK(op.GetBestKernel(lp) == nullptr);
    CHECK(LastError() == "Failed to check consistent");
    lp.AddInTensor(x);
    CHECK(op.IsConsistent(lp));
    Kernel* k2 = op.GetBestKernel(lp);
    CHECK(k2 != nullptr && k2->GetName() == "BlendTwoKernel" && k2 != k1);

    // A name no kernel registered under: nullptr, and the reason logged.
    p.blendType = Blend::BLEND_UNDEFINED;
    lp.SetParam(p);
    lp.GetInTensors().resize(1);
    CHECK(op.GetBestKernel(lp) == nullptr);
    CHECK(LastError() == "BlendOperation: no kernel named BlendNoSuchKernel");
    // The same line is the runner's reason for a failed tiling (tw_host/host_error.h).
    CHECK(tw_host::last_host_error() == "BlendOperation: no kernel named BlendNoSuchKernel");

    if (g_failures == 0) {
        std::printf("all checks passed\n");
    }
    return g_failures == 0 ? 0 : 1;
}
