// tilewise host emulation of the mki framework: Mki::LaunchParam, what a kernel's CanSupport and tiling receive:
// the input and output tensor descriptions and the operator's parameter struct.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

#include "mki/tensor.h"
#include "mki/utils/SVector/SVector.h"
#include "mki/utils/any/any.h"

namespace Mki {

class LaunchParam {
public:
    void AddInTensor(const Tensor& t) { inTensors_.push_back(t); }
    void AddOutTensor(const Tensor& t) { outTensors_.push_back(t); }
    size_t GetInTensorCount() const { return inTensors_.size(); }
    size_t GetOutTensorCount() const { return outTensors_.size(); }
    // Out of range throws, where the framework would read past its array: the runner reports it as a tiling error.
    Tensor& GetInTensor(size_t i) { return At(inTensors_, i, "input"); }
    const Tensor& GetInTensor(size_t i) const { return At(const_cast<SVector<Tensor>&>(inTensors_), i, "input"); }
    Tensor& GetOutTensor(size_t i) { return At(outTensors_, i, "output"); }
    const Tensor& GetOutTensor(size_t i) const { return At(const_cast<SVector<Tensor>&>(outTensors_), i, "output"); }
    SVector<Tensor>& GetInTensors() { return inTensors_; }
    const SVector<Tensor>& GetInTensors() const { return inTensors_; }
    SVector<Tensor>& GetOutTensors() { return outTensors_; }
    const SVector<Tensor>& GetOutTensors() const { return outTensors_; }
    void SetParam(const Any& param) { param_ = param; }
    const Any& GetParam() const { return param_; }
    template <typename T>
    T GetParam() const { return AnyCast<T>(param_); }

private:
    static Tensor& At(SVector<Tensor>& v, size_t i, const char* side) {
        if (i >= v.size()) {
            throw std::out_of_range(std::string("LaunchParam has no ") + side + " tensor " + std::to_string(i) +
                                    " (it has " + std::to_string(v.size()) + ")");
        }
        return v[i];
    }
    SVector<Tensor> inTensors_, outTensors_;
    Any param_;
};

}  // namespace Mki
