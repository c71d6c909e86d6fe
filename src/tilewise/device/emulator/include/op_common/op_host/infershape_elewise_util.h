// tilewise host emulation: op_host/infershape_elewise_util.h of CANN's opbase package: the shape inference of an
// elementwise operator (the output has the first input's shape; an unknown rank stays unknown).
#pragma once
#include "exe_graph/runtime/infer_shape_context.h"
#include "log/log.h"
#include "util/shape_util.h"

namespace Ops::Base {

inline ge::graphStatus InferShape4Elewise(gert::InferShapeContext* context) {
    const gert::Shape* in = context->GetInputShape(0);
    gert::Shape* out = context->GetOutputShape(0);
    if (in == nullptr || out == nullptr) {
        OP_LOGE(context->GetNodeName(), "the input or output shape is missing");
        return ge::GRAPH_FAILED;
    }
    if (IsUnknownRank(*in)) {
        SetUnknownRank(*out);
    } else {
        *out = *in;
    }
    return ge::GRAPH_SUCCESS;
}

}  // namespace Ops::Base
