// tilewise host emulation: op_host/tiling_base_util.h of CANN's opbase package (operator libraries' tiling helpers).
#pragma once
#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "register/op_impl_registry.h"  // CANN's header brings IMPL_OP_OPTILING with it
#include "tiling/platform/platform_ascendc.h"

namespace Ops::Base {

// A scalar (rank-0) shape seen as the 1-element vector [1]; any other shape unchanged. Tiling code that walks
// dimensions calls it so that a scalar input has one axis to split.
inline const gert::Shape& EnsureNotScalar(const gert::Shape& shape) {
    static const gert::Shape one_element{1};
    return shape.IsScalar() ? one_element : shape;
}

// Whether the chip runs the register-based vector architecture (arch35: Ascend910_95), whose kernels and tiling
// templates differ from the A2/A3 ones. Asked of the runner's chip, as a device build would ask of the device's.
inline bool IsRegbaseSocVersion(const fe::PlatFormInfos* info) {
    auto platform = platform_ascendc::PlatformAscendC(const_cast<fe::PlatFormInfos*>(info));
    return platform.GetSocVersion() == platform_ascendc::SocVersion::ASCEND910_95;
}
inline bool IsRegbaseSocVersion(const gert::TilingContext* context) {
    return context != nullptr && IsRegbaseSocVersion(context->GetPlatformInfo());
}
inline bool IsRegbaseSocVersion(const gert::TilingParseContext* context) {
    return context != nullptr && IsRegbaseSocVersion(context->GetPlatformInfo());
}

}  // namespace Ops::Base
