// Kernel side of tiling-template programming (ASCENDC_TPL_*): a templated kernel entry such as
//   template <typename DT_X> __global__ __aicore__ void erfinv(GM_ADDR x, ...)
//   template <uint32_t schMode> __global__ __aicore__ void sigmoid(GM_ADDR x, ...)
// is compiled once per combination its ASCENDC_TPL_SEL lists (every combination of the ASCENDC_TPL_ARGS_DECL
// values when there is no selection), and the launch runs the one the host's tiling key encodes.
//
// The host header (ascendc/host_api/tiling/template_argument.h) expands the same macros into run-time tables for
// GET_TPL_TILING_KEY. Here they expand into constexpr tables (tw_tpl_decl, tw_tpl_sel) in whatever namespace the
// operator declares them, so the generated entry shim can enumerate the combinations at compile time. Defining the
// macros first makes the host header's `#ifndef` guards keep these kernel expansions.
//
// Value lists follow the documented encoding: a UINT parameter's list starts with its mode, ASCENDC_TPL_UI_LIST
// (the values), ASCENDC_TPL_UI_RANGE (a count, then that many inclusive [low, high] pairs) or ASCENDC_TPL_UI_MIX
// (a count of ranges and their pairs, then single values). Data-type parameters may carry ASCENDC_TPL_INPUT(i) /
// ASCENDC_TPL_OUTPUT(i) markers, which name where the type comes from and are not values.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

#include "tw/runtime/launch_state.h"

namespace tw {
// Not `tpl`: these names are expanded inside the kernel source, where the build renames the entry by a macro, so a
// namespace called like a plausible operator would be renamed with it.
namespace tplargs {

constexpr uint32_t kMaxRaw = 96;      // raw list entries per parameter
constexpr uint32_t kMaxVals = 256;    // values per parameter once ranges are expanded
constexpr uint32_t kMaxParams = 16;   // parameters per declaration or selection
enum Kind : uint32_t { DTYPE = 0, FORMAT = 1, UINT = 2, BOOL = 3, KERNEL_TYPE = 4 };

struct P {
    const char* name = "";
    uint32_t kind = 0;
    uint32_t bw = 0;
    uint32_t n = 0;
    uint64_t raw[kMaxRaw] = {};
    constexpr P() = default;
    constexpr P(const char* nm, uint32_t k, uint32_t b, std::initializer_list<uint64_t> v) : name(nm), kind(k), bw(b) {
        for (uint64_t x : v)
            if (n < kMaxRaw) raw[n++] = x;
    }
};

struct ArgsSel {
    uint32_t n = 0;
    P p[kMaxParams] = {};
    constexpr ArgsSel() = default;
    constexpr ArgsSel(std::initializer_list<P> ps) {
        for (const P& x : ps)
            if (n < kMaxParams) p[n++] = x;
    }
};

struct Vals {
    uint32_t n = 0;
    uint64_t v[kMaxVals] = {};
    constexpr void add(uint64_t x) {
        for (uint32_t i = 0; i < n; ++i)
            if (v[i] == x) return;
        if (n < kMaxVals) v[n++] = x;
    }
};

constexpr bool same(const char* a, const char* b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}

// The values a declaration or selection entry allows.
constexpr Vals values(const P& p) {
    Vals out;
    if (p.kind != UINT) {
        for (uint32_t i = 0; i < p.n; ++i)
            if (p.raw[i] < 0x10000) out.add(p.kind == BOOL ? (p.raw[i] != 0) : p.raw[i]);  // skip INPUT/OUTPUT markers
        return out;
    }
    if (p.n == 0) return out;
    const uint64_t mode = p.raw[0];
    uint32_t i = 1;
    if (mode == 0 || mode == 2) {  // ASCENDC_TPL_UI_RANGE / ASCENDC_TPL_UI_MIX: ranges first
        const uint64_t ranges = i < p.n ? p.raw[i++] : 0;
        for (uint64_t r = 0; r < ranges && i + 1 < p.n; ++r, i += 2)
            for (uint64_t x = p.raw[i]; x <= p.raw[i + 1] && out.n < kMaxVals; ++x) out.add(x);
        if (mode == 0) return out;
    }
    for (; i < p.n; ++i) out.add(p.raw[i]);  // ASCENDC_TPL_UI_LIST, or the tail of a mix
    return out;
}

constexpr bool in_key(const P& p) { return p.kind != KERNEL_TYPE && (p.kind != UINT || p.bw > 0); }
constexpr uint32_t width(const P& p) { return p.kind == DTYPE || p.kind == FORMAT ? 8 : p.kind == BOOL ? 1 : p.bw; }

struct Combo {
    uint32_t n = 0;
    uint64_t v[kMaxParams] = {};
};

// Values of declared parameter `d` in selection `s` (the declaration's own when the selection leaves it out).
template <size_t ND>
constexpr Vals sel_values(const P (&decl)[ND], size_t d, const ArgsSel& s) {
    for (uint32_t i = 0; i < s.n; ++i)
        if (s.p[i].kind != KERNEL_TYPE && same(s.p[i].name, decl[d].name)) return values(s.p[i]);
    return values(decl[d]);
}

// Walks every combination of every selection (or of the declaration when `use_sel` is false).
template <size_t ND, size_t NS, typename F>
constexpr void each_combo(const P (&decl)[ND], const ArgsSel (&sel)[NS], bool use_sel, F&& f) {
    const size_t groups = use_sel ? NS : 1;
    for (size_t g = 0; g < groups; ++g) {
        Vals lists[kMaxParams] = {};
        size_t keys = 0;
        for (size_t d = 0; d < ND && keys < kMaxParams; ++d) {
            if (!in_key(decl[d])) continue;
            lists[keys++] = use_sel ? sel_values(decl, d, sel[g]) : values(decl[d]);
        }
        size_t total = 1;
        for (size_t k = 0; k < keys; ++k) total *= lists[k].n;
        for (size_t c = 0; c < total; ++c) {
            Combo combo;
            size_t rest = c;
            for (size_t k = 0; k < keys; ++k) {
                combo.v[combo.n++] = lists[k].v[rest % lists[k].n];
                rest /= lists[k].n;
            }
            f(combo);
        }
    }
}

template <size_t ND, size_t NS>
constexpr size_t combo_count(const P (&decl)[ND], const ArgsSel (&sel)[NS], bool use_sel) {
    size_t n = 0;
    each_combo(decl, sel, use_sel, [&n](const Combo&) { ++n; });
    return n;
}

template <size_t N, size_t ND, size_t NS>
constexpr std::array<Combo, N> combos(const P (&decl)[ND], const ArgsSel (&sel)[NS], bool use_sel) {
    std::array<Combo, N> out{};
    size_t i = 0;
    each_combo(decl, sel, use_sel, [&](const Combo& c) {
        if (i < N) out[i++] = c;
    });
    return out;
}

// The key-bearing values a tiling key encodes (first declared parameter in the lowest bits, as the host packs it).
template <size_t ND>
inline Combo decode(const P (&decl)[ND], uint64_t key) {
    Combo c;
    unsigned shift = 0;
    for (size_t d = 0; d < ND; ++d) {
        if (!in_key(decl[d])) continue;
        const uint32_t w = width(decl[d]);
        const uint64_t mask = w >= 64 ? ~uint64_t(0) : ((uint64_t(1) << w) - 1);
        c.v[c.n++] = shift < 64 ? (key >> shift) & mask : 0;
        shift += w;
    }
    return c;
}

// ge::DataType code -> element type, for `typename` template parameters declared with ASCENDC_TPL_DTYPE_DECL.
template <uint64_t C> struct dtype_of { static_assert(C != C, "tiling template: no C++ type for this data type code"); };
template <> struct dtype_of<0> { using type = float; };
template <> struct dtype_of<1> { using type = half; };
template <> struct dtype_of<2> { using type = int8_t; };
template <> struct dtype_of<3> { using type = int32_t; };
template <> struct dtype_of<4> { using type = uint8_t; };
template <> struct dtype_of<6> { using type = int16_t; };
template <> struct dtype_of<7> { using type = uint16_t; };
template <> struct dtype_of<8> { using type = uint32_t; };
template <> struct dtype_of<9> { using type = int64_t; };
template <> struct dtype_of<10> { using type = uint64_t; };
template <> struct dtype_of<11> { using type = double; };
template <> struct dtype_of<12> { using type = bool; };
template <> struct dtype_of<27> { using type = bfloat16_t; };
template <uint64_t C>
using dtype_t = typename dtype_of<C>::type;

// Runs Caller::call<I> for the combination the launch's tiling key selects.
template <typename Caller, size_t N, size_t ND, size_t... I>
inline void dispatch(const std::array<Combo, N>& table, const P (&decl)[ND], uint8_t** gm, size_t n, const char* file,
                     int line, std::index_sequence<I...>) {
    const Combo want = decode(decl, tiling_key());
    auto match = [&](const Combo& c) {
        for (uint32_t k = 0; k < c.n; ++k)
            if (c.v[k] != want.v[k]) return false;
        return true;
    };
    bool found = ((match(table[I]) ? (Caller::template call<I>(gm, n), true) : false) || ...);
    if (!found) {
        std::string vals;
        for (uint32_t k = 0; k < want.n; ++k) vals += (k ? ", " : "") + std::to_string(want.v[k]);
        fail("bad_tiling_key",
             "tiling key " + std::to_string(tiling_key()) + " decodes to template arguments (" + vals +
                 "), which no ASCENDC_TPL_SEL combination of the kernel entry allows (did the host SetTilingKey by "
                 "hand instead of GET_TPL_TILING_KEY / ASCENDC_TPL_SEL_PARAM?)",
             file, line);
    }
}

// `file`/`line`: the kernel entry, which errors name.
template <typename Caller, size_t N, size_t ND>
inline void dispatch(const std::array<Combo, N>& table, const P (&decl)[ND], uint8_t** gm, size_t n, const char* file,
                     int line) {
    dispatch<Caller>(table, decl, gm, n, file, line, std::make_index_sequence<N>{});
}

// Stands in for tw_tpl_sel when an operator declares no selection.
constexpr ArgsSel no_sel[1] = {};

// A tiling-key header without an include guard may be included twice (CANN's kernel compile tolerates it), so each
// ASCENDC_TPL_ARGS_DECL / ASCENDC_TPL_SEL expansion defines a table under a name of its own (numbered by
// __COUNTER__) plus an accessor overloaded on Rank<number>. tw_tpl_decl and tw_tpl_sel name the accessor called
// with the deepest Rank, which overload resolution sends to the highest-numbered expansion (the nearest base);
// repeated expansions hold the same table, so whichever is picked is the declaration.
template <unsigned N>
struct Rank : Rank<N - 1> {};
template <>
struct Rank<0> {};
constexpr unsigned kMaxRank = 512;  // __COUNTER__ values a kernel's translation unit reaches stay well below this

}  // namespace tplargs
}  // namespace tw

#define TW_TPL_KPARAM(name, kind, bw, ...) (::tw::tplargs::P{#name, ::tw::tplargs::kind, bw, {__VA_ARGS__}})
#define ASCENDC_TPL_DTYPE_DECL(x, ...) TW_TPL_KPARAM(x, DTYPE, 8, __VA_ARGS__)
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) TW_TPL_KPARAM(x, DTYPE, 8, __VA_ARGS__)
#define ASCENDC_TPL_FORMAT_DECL(x, ...) TW_TPL_KPARAM(x, FORMAT, 8, __VA_ARGS__)
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) TW_TPL_KPARAM(x, UINT, bw, __VA_ARGS__)
#define ASCENDC_TPL_BOOL_DECL(x, ...) TW_TPL_KPARAM(x, BOOL, 1, __VA_ARGS__)
#define ASCENDC_TPL_DTYPE_SEL(x, ...) TW_TPL_KPARAM(x, DTYPE, 0, __VA_ARGS__)
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) TW_TPL_KPARAM(x, DTYPE, 0, __VA_ARGS__)
#define ASCENDC_TPL_FORMAT_SEL(x, ...) TW_TPL_KPARAM(x, FORMAT, 0, __VA_ARGS__)
#define ASCENDC_TPL_UINT_SEL(x, ...) TW_TPL_KPARAM(x, UINT, 0, __VA_ARGS__)
#define ASCENDC_TPL_BOOL_SEL(x, ...) TW_TPL_KPARAM(x, BOOL, 0, __VA_ARGS__)
#define ASCENDC_TPL_KERNEL_TYPE_SEL(x) TW_TPL_KPARAM(kernel_type, KERNEL_TYPE, 0, x)
// `kind` is decl or sel, pasted into the names (never a macro argument that expands: tw_tpl_decl is a macro).
#define TW_TPL_TABLE(type, kind, n, ...)                                                                       \
    [[maybe_unused]] static constexpr type tw_tpl_##kind##_##n[] = {__VA_ARGS__};                              \
    static_assert(n < ::tw::tplargs::kMaxRank, "too many __COUNTER__ uses before ASCENDC_TPL_*");             \
    [[maybe_unused]] static constexpr const auto& tw_tpl_##kind##_of(::tw::tplargs::Rank<n>) {                 \
        return tw_tpl_##kind##_##n;                                                                            \
    }
#define TW_TPL_TABLE_AT(type, kind, n, ...) TW_TPL_TABLE(type, kind, n, __VA_ARGS__)
#define ASCENDC_TPL_ARGS_DECL(op, ...) TW_TPL_TABLE_AT(::tw::tplargs::P, decl, __COUNTER__, __VA_ARGS__)
#define ASCENDC_TPL_ARGS_SEL(...) (::tw::tplargs::ArgsSel{__VA_ARGS__})
#define ASCENDC_TPL_SEL(...) TW_TPL_TABLE_AT(::tw::tplargs::ArgsSel, sel, __COUNTER__, __VA_ARGS__)
#define tw_tpl_decl (tw_tpl_decl_of(::tw::tplargs::Rank<::tw::tplargs::kMaxRank>{}))
#define tw_tpl_sel (tw_tpl_sel_of(::tw::tplargs::Rank<::tw::tplargs::kMaxRank>{}))

#include "ascendc/host_api/tiling/template_argument.h"
