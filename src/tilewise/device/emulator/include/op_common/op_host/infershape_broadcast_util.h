// tilewise host emulation: op_host/infershape_broadcast_util.h of CANN's opbase package: numpy-style broadcasting of
// graph shapes. Shapes are aligned at their last dimension; two dimensions agree when equal or when one is 1 (the
// result is the other); an unknown dimension (-1) against a known one other than 1 takes the known one; an unknown
// rank (-2) makes the result's rank unknown. Anything else cannot broadcast (false / GRAPH_FAILED).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "exe_graph/runtime/infer_shape_context.h"
#include "log/log.h"
#include "util/shape_util.h"

namespace Ops::Base {
namespace broadcast_detail {

inline bool MergeDim(int64_t& acc, int64_t dim) {
    if (acc == dim || dim == 1) {
        return true;
    }
    if (acc == 1) {
        acc = dim;
        return true;
    }
    if (acc == UNKNOWN_DIM_VALUE || dim == UNKNOWN_DIM_VALUE) {
        acc = acc == UNKNOWN_DIM_VALUE ? dim : acc;
        return true;
    }
    return false;
}

// Broadcasts `in` into `acc` (the result so far).
inline bool MergeShape(const gert::Shape& in, gert::Shape& acc) {
    if (IsUnknownRank(in) || IsUnknownRank(acc)) {
        SetUnknownRank(acc);
        return true;
    }
    const size_t n = in.GetDimNum() > acc.GetDimNum() ? in.GetDimNum() : acc.GetDimNum();
    gert::Shape out;
    out.SetDimNum(n);
    for (size_t i = 0; i < n; ++i) {  // i counts from the last dimension
        const size_t ia = acc.GetDimNum(), ii = in.GetDimNum();
        int64_t dim = i < ia ? acc.GetDim(ia - 1 - i) : 1;
        if (i < ii && !MergeDim(dim, in.GetDim(ii - 1 - i))) {
            OP_LOGE("BroadcastShape", "dimensions %lld and %lld cannot broadcast", static_cast<long long>(dim),
                    static_cast<long long>(in.GetDim(ii - 1 - i)));
            return false;
        }
        out.SetDim(n - 1 - i, dim);
    }
    acc = out;
    return true;
}

}  // namespace broadcast_detail

inline bool BroadcastShape(const std::vector<const gert::Shape*>& inShapes, gert::Shape* outShape) {
    if (inShapes.empty() || outShape == nullptr || inShapes[0] == nullptr) {
        return false;
    }
    gert::Shape acc = *inShapes[0];
    for (size_t i = 1; i < inShapes.size(); ++i) {
        if (inShapes[i] == nullptr || !broadcast_detail::MergeShape(*inShapes[i], acc)) {
            return false;
        }
    }
    *outShape = acc;
    return true;
}
inline bool BroadcastShape(const gert::Shape* in1Shape, const gert::Shape* in2Shape, gert::Shape* outShape) {
    return BroadcastShape(std::vector<const gert::Shape*>{in1Shape, in2Shape}, outShape);
}

// The output shape of an operator whose first `inputNum` inputs broadcast against each other.
inline ge::graphStatus InferShape4Broadcast(gert::InferShapeContext* context, size_t inputNum) {
    std::vector<const gert::Shape*> shapes;
    for (size_t i = 0; i < inputNum; ++i) {
        shapes.push_back(context->GetInputShape(i));
    }
    gert::Shape* out = context->GetOutputShape(0);
    if (inputNum == 0 || out == nullptr || !BroadcastShape(shapes, out)) {
        OP_LOGE(context->GetNodeName(), "the inputs' shapes cannot broadcast");
        return ge::GRAPH_FAILED;
    }
    return ge::GRAPH_SUCCESS;
}
inline ge::graphStatus InferShape4Broadcast(gert::InferShapeContext* context) {
    return InferShape4Broadcast(context, 2);
}

}  // namespace Ops::Base
