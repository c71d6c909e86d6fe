// tilewise host emulation: tiling-template programming (ASCENDC_TPL_*), the newer way to pick a kernel variant.
//
// A header shared by host and kernel declares the template parameters of the kernel entry:
//   ASCENDC_TPL_ARGS_DECL(Op, ASCENDC_TPL_UINT_DECL(schMode, 4, ASCENDC_TPL_UI_LIST, 0, 1, 2), ...);
//   ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, 0, 1)), ...);
// and the host turns chosen values into a tiling key with GET_TPL_TILING_KEY(v0, v1, ...) or
// ASCENDC_TPL_SEL_PARAM(context, v0, v1, ...).
//
// Encoding (documented behaviour: each value in its declared bit width, concatenated in declaration order):
// the FIRST declared parameter occupies the LOWEST bits. Data types and formats take 8 bits, bools 1, unsigned
// parameters the width they declare. tw_tpl::DecodeTilingKey inverts it for the kernel side.
//
// The declarations become two static tables per translation unit, g_tilingDeclareParams and
// g_tilingSelectParams (the names the public docs give). Each macro is defined only if not defined already, so
// the kernel runtime may provide its own expansions when it is included first.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <type_traits>

#include "graph/c_types.h"

namespace tw_tpl {

enum ParamKind : uint32_t { DTYPE = 0, FORMAT = 1, UINT = 2, BOOL = 3, KERNEL_TYPE = 4 };

struct Param {
    const char* name;
    uint32_t kind;
    uint8_t bit_width;  // 0 for selection entries, which only list allowed values
    std::vector<uint64_t> vals;
};
using DeclareParams = std::vector<Param>;
using SelectParams = std::vector<std::vector<Param>>;

// Parameters that take part in the key (kernel-type selections do not).
inline bool in_key(const Param& p) { return p.kind != KERNEL_TYPE && p.bit_width > 0; }

inline uint64_t EncodeTilingKey(const DeclareParams& decl, const std::vector<uint64_t>& values) {
    uint64_t key = 0;
    unsigned shift = 0;
    size_t vi = 0;
    for (const Param& p : decl) {
        if (!in_key(p)) {
            continue;
        }
        const uint64_t v = vi < values.size() ? values[vi] : 0;
        ++vi;
        const uint64_t mask = p.bit_width >= 64 ? ~uint64_t(0) : ((uint64_t(1) << p.bit_width) - 1);
        if (shift < 64) {
            key |= (v & mask) << shift;
        }
        shift += p.bit_width;
    }
    return key;
}

template <typename... A>
inline uint64_t EncodeArgs(const DeclareParams& decl, A... values) {
    return EncodeTilingKey(decl, std::vector<uint64_t>{static_cast<uint64_t>(values)...});
}

// The values of the key-bearing parameters, in declaration order.
inline std::vector<uint64_t> DecodeTilingKey(const DeclareParams& decl, uint64_t key) {
    std::vector<uint64_t> out;
    unsigned shift = 0;
    for (const Param& p : decl) {
        if (!in_key(p)) {
            continue;
        }
        const uint64_t mask = p.bit_width >= 64 ? ~uint64_t(0) : ((uint64_t(1) << p.bit_width) - 1);
        out.push_back(shift < 64 ? (key >> shift) & mask : 0);
        shift += p.bit_width;
    }
    return out;
}

}  // namespace tw_tpl

// Bit widths by name.
#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8
// Value-list modes of unsigned parameters.
#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2
// Markers inside a data-type declaration naming the input/output whose type it follows (not key values).
#define ASCENDC_TPL_INPUT(x) (0x10000ULL + (x))
#define ASCENDC_TPL_OUTPUT(x) (0x20000ULL + (x))
// Kernel task types for ASCENDC_TPL_KERNEL_TYPE_SEL.
#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 2
#define ASCENDC_TPL_MIX_AIC_1_0 3
#define ASCENDC_TPL_MIX_AIC_1_1 4
#define ASCENDC_TPL_MIX_AIC_1_2 5

// Data-type constants usable in declarations: graph/c_types.h's C_DataType, numerically equal to ge::DataType, so a
// host may pass static_cast<uint32_t>(dtype) as the value. Format constants equal ge::Format likewise.
#define C_FORMAT_NCHW 0
#define C_FORMAT_NHWC 1
#define C_FORMAT_ND 2

#define TW_TPL_PARAM(name, kind, bw, ...) (::tw_tpl::Param{#name, ::tw_tpl::kind, bw, {__VA_ARGS__}})

#ifndef ASCENDC_TPL_DTYPE_DECL
#define ASCENDC_TPL_DTYPE_DECL(x, ...) TW_TPL_PARAM(x, DTYPE, 8, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_DATATYPE_DECL
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) TW_TPL_PARAM(x, DTYPE, 8, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_FORMAT_DECL
#define ASCENDC_TPL_FORMAT_DECL(x, ...) TW_TPL_PARAM(x, FORMAT, 8, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_UINT_DECL
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) TW_TPL_PARAM(x, UINT, bw, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_BOOL_DECL
#define ASCENDC_TPL_BOOL_DECL(x, ...) TW_TPL_PARAM(x, BOOL, 1, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_DTYPE_SEL
#define ASCENDC_TPL_DTYPE_SEL(x, ...) TW_TPL_PARAM(x, DTYPE, 0, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_DATATYPE_SEL
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) TW_TPL_PARAM(x, DTYPE, 0, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_FORMAT_SEL
#define ASCENDC_TPL_FORMAT_SEL(x, ...) TW_TPL_PARAM(x, FORMAT, 0, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_UINT_SEL
#define ASCENDC_TPL_UINT_SEL(x, ...) TW_TPL_PARAM(x, UINT, 0, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_BOOL_SEL
#define ASCENDC_TPL_BOOL_SEL(x, ...) TW_TPL_PARAM(x, BOOL, 0, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_KERNEL_TYPE_SEL
#define ASCENDC_TPL_KERNEL_TYPE_SEL(x) TW_TPL_PARAM(kernel_type, KERNEL_TYPE, 0, x)
#endif

#ifndef ASCENDC_TPL_ARGS_DECL
#define ASCENDC_TPL_ARGS_DECL(op, ...) \
    [[maybe_unused]] static const ::tw_tpl::DeclareParams g_tilingDeclareParams{__VA_ARGS__}
#endif
#ifndef ASCENDC_TPL_ARGS_SEL
#define ASCENDC_TPL_ARGS_SEL(...) (::tw_tpl::DeclareParams{__VA_ARGS__})
#endif
#ifndef ASCENDC_TPL_SEL
#define ASCENDC_TPL_SEL(...) [[maybe_unused]] static const ::tw_tpl::SelectParams g_tilingSelectParams{__VA_ARGS__}
#endif

#ifndef GET_TPL_TILING_KEY
#define GET_TPL_TILING_KEY(...) ::tw_tpl::EncodeArgs(g_tilingDeclareParams, __VA_ARGS__)
#endif
#ifndef ASCENDC_TPL_SEL_PARAM
#define ASCENDC_TPL_SEL_PARAM(context, ...)                          \
    do {                                                             \
        (context)->SetTilingKey(GET_TPL_TILING_KEY(__VA_ARGS__));    \
    } while (0)
#endif
