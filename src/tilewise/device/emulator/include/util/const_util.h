// tilewise host emulation: util/const_util.h of CANN's opbase package: the values of a constant (ValueDepend)
// input, read in tiling or shape inference from the input tensor's host data. int32, int64, uint32 and uint64
// tensors are read; any other dtype, a missing tensor or missing data is a failure (false).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/tiling_context.h"
#include "log/log.h"

namespace Ops::Base {
namespace const_detail {

template <typename Context>
constexpr bool kIsConstContext = std::is_same_v<std::remove_const_t<Context>, gert::InferShapeContext> ||
                                 std::is_same_v<std::remove_const_t<Context>, gert::TilingContext>;

// Calls f(const E* data, size_t count) with the tensor's elements as their own integer type E.
template <typename F>
bool VisitInts(const gert::Tensor* t, const char* who, F&& f) {
    if (t == nullptr) {
        OP_LOGE(who, "the constant input tensor is missing");
        return false;
    }
    const size_t n = t->GetShapeSize() < 0 ? 0 : static_cast<size_t>(t->GetShapeSize());
    switch (t->GetDataType()) {
        case ge::DT_INT32: return t->GetData<int32_t>() != nullptr && f(t->GetData<int32_t>(), n);
        case ge::DT_INT64: return t->GetData<int64_t>() != nullptr && f(t->GetData<int64_t>(), n);
        case ge::DT_UINT32: return t->GetData<uint32_t>() != nullptr && f(t->GetData<uint32_t>(), n);
        case ge::DT_UINT64: return t->GetData<uint64_t>() != nullptr && f(t->GetData<uint64_t>(), n);
        default:
            OP_LOGW(who, "only int32, int64, uint32 and uint64 constant inputs are read");
            return false;
    }
}

}  // namespace const_detail

// The first element of constant input `inputIdx`, converted to T.
template <typename ContextType, typename T>
bool GetConstInt(const ContextType* context, int64_t inputIdx, T& value) {
    static_assert(const_detail::kIsConstContext<ContextType>,
                  "GetConstInt takes a gert::InferShapeContext or gert::TilingContext");
    if (context == nullptr) {
        return false;
    }
    return const_detail::VisitInts(context->GetInputTensor(static_cast<size_t>(inputIdx)), "GetConstInt",
                                   [&](const auto* data, size_t n) {
                                       if (n == 0) return false;
                                       value = static_cast<T>(data[0]);
                                       return true;
                                   });
}

// Every element of constant input `inputIdx` as the dimensions of `shape` (a shape tensor such as `dims`).
template <typename ContextType>
bool GetConstIntToShape(const ContextType* context, int64_t inputIdx, gert::Shape& shape) {
    static_assert(const_detail::kIsConstContext<ContextType>,
                  "GetConstIntToShape takes a gert::InferShapeContext or gert::TilingContext");
    if (context == nullptr) {
        return false;
    }
    return const_detail::VisitInts(context->GetInputTensor(static_cast<size_t>(inputIdx)), "GetConstIntToShape",
                                   [&](const auto* data, size_t n) {
                                       shape.SetDimNum(0);
                                       for (size_t i = 0; i < n; ++i) {
                                           shape.AppendDim(static_cast<int64_t>(data[i]));
                                       }
                                       return true;
                                   });
}

}  // namespace Ops::Base
