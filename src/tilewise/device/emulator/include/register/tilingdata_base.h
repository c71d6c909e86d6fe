// tilewise host emulation: the tiling-struct macros (BEGIN_TILING_DATA_DEF ... END_TILING_DATA_DEF).
//
// The same header is included by the host tiling code and by the kernel translation unit, and the macros expand
// to the same class in both: a standard-layout class of public members with default initialisers, plus accessors.
// The host fills it with set_*() and SaveToBuffer() memcpy's the object; the kernel memcpy's those bytes back into
// the same class and reads `tilingData.field`. Because both sides are one class compiled by one compiler, the
// layout (natural alignment, padding) is identical by construction.
//
// As in CANN, the header also brings the graph and runtime types (ge::DataType, ge::Shape, gert::TilingContext,
// gert::TilingParseContext, gert::Shape, ...), which tiling headers that include nothing else use for compile-info
// structs and helper declarations (a TilingParse's); those headers reach the kernel translation unit too, where the
// types are inert.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/shape.h"
#include "graph/types.h"

namespace tw_host {

// What REGISTER_TILING_DATA_CLASS recorded for one operator type.
struct TilingClassInfo {
    std::string class_name;
    size_t size = 0;
};

// op type (the first argument of REGISTER_TILING_DATA_CLASS) -> tiling class. Function-local static so that it is
// ready whatever the order of static initialisation across translation units.
inline std::map<std::string, TilingClassInfo>& tiling_class_registry() {
    static std::map<std::string, TilingClassInfo> registry;
    return registry;
}

inline const TilingClassInfo* find_tiling_class(const std::string& op_type) {
    const auto& r = tiling_class_registry();
    const auto it = r.find(op_type);
    return it == r.end() ? nullptr : &it->second;
}

struct TilingClassRegistrar {
    TilingClassRegistrar(const char* op_type, const char* class_name, size_t size) {
        tiling_class_registry()[op_type] = TilingClassInfo{class_name, size};
    }
};

}  // namespace tw_host

// Operators wrap their tiling code in namespace optiling; declaring it here lets `using namespace optiling;`
// appear before any of their own declarations.
namespace optiling {}

#define TW_TILING_CAT2(a, b) a##b
#define TW_TILING_CAT(a, b) TW_TILING_CAT2(a, b)

// Opens the class. Everything is public so that the class is an aggregate-like standard-layout type.
#define BEGIN_TILING_DATA_DEF(class_name) \
    class class_name {                    \
    public:

// A scalar field: `type name = 0;` plus set_name()/get_name().
#define TILING_DATA_FIELD_DEF(data_type, field_name)                            \
    data_type field_name = 0;                                                   \
    void set_##field_name(data_type v) { field_name = v; }                     \
    data_type get_##field_name() const { return field_name; }

// A fixed-size array field: set_name(ptr) copies `n` elements; get_name() returns the array.
#define TILING_DATA_FIELD_DEF_ARR(data_type, arr_size, field_name)             \
    data_type field_name[arr_size] = {};                                        \
    void set_##field_name(const data_type* v) {                                 \
        std::memcpy(field_name, v, sizeof(field_name));                         \
    }                                                                           \
    data_type* get_##field_name() { return field_name; }                        \
    const data_type* get_##field_name() const { return field_name; }

// A nested tiling struct (another BEGIN_TILING_DATA_DEF class), embedded by value.
#define TILING_DATA_FIELD_DEF_STRUCT(struct_type, field_name)                   \
    struct_type field_name;                                                     \
    struct_type& get_##field_name() { return field_name; }                      \
    const struct_type& get_##field_name() const { return field_name; }

// Closes the class with the serialisation helpers. SaveToBuffer throws when the buffer is too small, because a
// silently truncated tiling would make the kernel read garbage.
#define END_TILING_DATA_DEF                                                     \
    void SaveToBuffer(void* buf, size_t cap) const {                            \
        if (buf == nullptr || cap < sizeof(*this)) {                            \
            throw std::runtime_error("tiling data does not fit in the tiling buffer"); \
        }                                                                       \
        std::memcpy(buf, static_cast<const void*>(this), sizeof(*this));        \
    }                                                                           \
    size_t GetDataSize() const { return sizeof(*this); }                        \
    }

// Records `class_name` as the tiling struct of operator type `op_type`. Expands to one namespace-scope declaration
// that already ends in ';', so the macro may be followed by nothing or by ';' (an empty declaration).
#define REGISTER_TILING_DATA_CLASS(op_type, class_name)                         \
    static const ::tw_host::TilingClassRegistrar TW_TILING_CAT(                 \
        tw_tiling_registrar_##op_type##_##class_name##_, __LINE__)(#op_type, #class_name, sizeof(class_name));
