// Tensor lists of DYNAMIC inputs and outputs (ListTensorDesc, TensorDesc). The runner lays a list out in GM as the
// kernel API reads it: word 0 is the byte offset of the pointer table; then, per tensor, a word with its dim count
// in the low 32 bits and its index in the high 32 bits, followed by its dims; then one address per tensor.
#pragma once
#include <cstdint>
#include <string>

#include "tw/api/tensor.h"

namespace AscendC {

template <class T>
class TensorDesc {
  public:
    TensorDesc() = default;
    void SetShapeAddr(uint64_t* shapePtr) { shape_ = shapePtr; }
    uint64_t GetDim() const { return dim_; }
    uint64_t GetIndex() const { return index_; }
    uint64_t GetShape(uint32_t offset) const { return shape_ != nullptr && offset < dim_ ? shape_[offset] : 0; }
    T* GetDataPtr() const { return data_; }
    GlobalTensor<T> GetDataObj() const {
        uint64_t n = 1;
        for (uint64_t d = 0; d < dim_ && shape_ != nullptr; ++d) n *= shape_[d];
        GlobalTensor<T> g;
        g.SetGlobalBuffer(data_, n);
        return g;
    }

    // ---- emulator internals (filled by ListTensorDesc::GetDesc) ----
    uint64_t* shape_ = nullptr;
    uint64_t dim_ = 0;
    uint64_t index_ = 0;
    T* data_ = nullptr;
};

class ListTensorDesc {
  public:
    ListTensorDesc() = default;
    ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, TW_SRC) {
        Init(data, length, shapeSize, TW_AT);
    }

    void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff, TW_SRC) {
        words_ = static_cast<const uint64_t*>(data);
        if (words_ == nullptr) tw::fail("invalid_argument", "ListTensorDesc::Init of a null GM address", TW_AT);
        tw::gm_check(words_, sizeof(uint64_t), "ListTensorDesc::Init", TW_AT);
        ptr_word_ = words_[0] / sizeof(uint64_t);
        tw::gm_check(words_, ptr_word_ * sizeof(uint64_t), "ListTensorDesc::Init", TW_AT);
        count_ = 0;
        for (uint64_t w = 1; w < ptr_word_; w += 1 + (words_[w] & 0xffffffffu)) ++count_;
        if (length != 0xffffffffu && uint64_t(length) < (ptr_word_ + count_) * sizeof(uint64_t))
            tw::fail("invalid_argument", "ListTensorDesc::Init: the list needs " +
                     std::to_string((ptr_word_ + count_) * sizeof(uint64_t)) + " bytes but `length` is " +
                     std::to_string(length), TW_AT);
        if (shapeSize != 0xffffffffu && shapeSize != count_)
            tw::fail("invalid_argument", "ListTensorDesc::Init: `shapeSize` is " + std::to_string(shapeSize) +
                     " but the list holds " + std::to_string(count_) + " tensors", TW_AT);
        tw::record(tw::Rec::Scalar, PIPE_S, "ListTensorDesc::Init", TW_AT, ptr_word_ * 8, 1, 0, 1, 0, 8);
    }
    TW_TWIN_N(, void, Init, (__gm__ void* data, uint32_t length, uint32_t shapeSize), (data, length, shapeSize), )

    template <class T>
    void GetDesc(TensorDesc<T>& desc, uint32_t index, TW_SRC) {
        uint64_t w = word_of(index, "ListTensorDesc::GetDesc", TW_AT);
        desc.dim_ = words_[w] & 0xffffffffu;
        desc.index_ = words_[w] >> 32;
        if (desc.shape_ == nullptr)
            tw::fail("invalid_argument", "ListTensorDesc::GetDesc before TensorDesc::SetShapeAddr", TW_AT);
        for (uint64_t d = 0; d < desc.dim_; ++d) desc.shape_[d] = words_[w + 1 + d];
        desc.data_ = reinterpret_cast<T*>(words_[ptr_word_ + index]);
        tw::record(tw::Rec::Scalar, PIPE_S, "ListTensorDesc::GetDesc", TW_AT, 8 * (desc.dim_ + 2), 1, 0, 1, 0, 8);
    }
    TW_TWIN_M(, void, (class T), GetDesc, (T), (TensorDesc<T>& desc, uint32_t index), (desc, index), )

    template <class T>
    T* GetDataPtr(uint32_t index, TW_SRC) {
        word_of(index, "ListTensorDesc::GetDataPtr", TW_AT);
        tw::record(tw::Rec::Scalar, PIPE_S, "ListTensorDesc::GetDataPtr", TW_AT, 8, 1, 0, 1, 0, 8);
        return reinterpret_cast<T*>(words_[ptr_word_ + index]);
    }
    TW_TWIN_M(, T*, (class T), GetDataPtr, (T), (uint32_t index), (index), )

    uint32_t GetSize() const { return count_; }

  private:
    // The descriptor word of tensor `index`.
    uint64_t word_of(uint32_t index, const char* what, const char* file, int line) const {
        if (words_ == nullptr) tw::fail("invalid_argument", std::string(what) + " before Init", file, line);
        if (index >= count_)
            tw::fail("invalid_argument", std::string(what) + "(" + std::to_string(index) + ") of a list of " +
                     std::to_string(count_) + " tensors", file, line);
        uint64_t w = 1;
        for (uint32_t i = 0; i < index; ++i) w += 1 + (words_[w] & 0xffffffffu);
        return w;
    }

    const uint64_t* words_ = nullptr;
    uint64_t ptr_word_ = 0;
    uint32_t count_ = 0;
};

}  // namespace AscendC
