// tilewise host emulation: runs an mki (Ascend Transformer Boost) operator's tiling under the emulator's runner.
//
// An ATB operator has no OpDef and no TilingFunc(gert::TilingContext*): its `<name>_kernel.cpp` registers a
// KernelBase subclass (REG_KERNEL_BASE) whose InitImpl computes the tiling from a LaunchParam (tensor descriptions
// plus the operator's parameter struct, e.g. AsdOps::OpParam::Norm) into a KernelInfo. build.py's ATB path
// generates one translation unit that includes this header and registers, under the operator's name, an OpDef
// whose inputs and outputs are the kernel entry's GM parameters and whose attributes are the parameter struct's
// fields (TW_MKI_FIELD), each under its own name and its snake_case spelling. The OpDef's tiling function is the
// bridge below, so the runner (tw/runtime/runner_main.cpp) drives an ATB operator exactly as it drives an op_host one:
//   - the TilingContext's tensors become the LaunchParam's (dims, dtype, format; an absent input has no dims);
//   - the case's attributes set the parameter struct's fields (unset fields keep the struct's defaults);
//   - the chip goes into PlatformInfo;
//   - the first registered kernel whose CanSupport accepts the LaunchParam runs Init (GetTilingSize, InitImpl);
//   - its KernelInfo gives the tiling bytes, block dim, tiling key and scratch sizes (the workspace); the scratch
//     sizes and memsets also go to tw/runtime/mki_entry.h, which lays out the kernel's arguments the framework's way.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mki/base/kernel_base.h"
#include "mki/utils/platform/platform_info.h"
#include "mki_loader/op_register.h"
#include "register/op_def.h"
#include "tw/runtime/mki_launch.h"
#include "tw_host/attr_value.h"
#include "tw_host/host_api.h"
#include "tw_host/registry.h"

namespace tw_mki {

template <typename T>
struct is_sequence : std::false_type {};
template <typename T, typename A>
struct is_sequence<std::vector<T, A>> : std::true_type {};
template <typename T, size_t N>
struct is_sequence<Mki::SVector<T, N>> : std::true_type {};

// The attribute kind a parameter field takes; NONE for a type tilewise cannot set from an attribute.
template <typename T>
constexpr tw_host::AttrValue::Kind kind_of() {
    if constexpr (std::is_same_v<T, bool>) return tw_host::AttrValue::BOOL;
    else if constexpr (std::is_floating_point_v<T>) return tw_host::AttrValue::FLOAT;
    else if constexpr (std::is_integral_v<T> || std::is_enum_v<T>) return tw_host::AttrValue::INT;
    else if constexpr (std::is_same_v<T, std::string>) return tw_host::AttrValue::STR;
    else if constexpr (is_sequence<T>::value) {
        using E = typename T::value_type;
        if constexpr (std::is_floating_point_v<E>) return tw_host::AttrValue::LIST_FLOAT;
        else if constexpr (std::is_integral_v<E>) return tw_host::AttrValue::LIST_INT;
        else return tw_host::AttrValue::NONE;
    } else return tw_host::AttrValue::NONE;
}

// Sets `field` from attribute `i` (already converted to the field's kind by the runner).
template <typename T>
void assign(T& field, const gert::RuntimeAttrs& attrs, size_t i, const std::string& name) {
    constexpr tw_host::AttrValue::Kind kind = kind_of<T>();
    if constexpr (kind == tw_host::AttrValue::BOOL) field = *attrs.GetBool(i);
    else if constexpr (kind == tw_host::AttrValue::FLOAT) field = static_cast<T>(*attrs.GetFloat(i));
    else if constexpr (kind == tw_host::AttrValue::INT) field = static_cast<T>(*attrs.GetInt(i));
    else if constexpr (kind == tw_host::AttrValue::STR) field = attrs.GetStr(i);
    else if constexpr (kind == tw_host::AttrValue::LIST_FLOAT || kind == tw_host::AttrValue::LIST_INT) {
        using E = typename T::value_type;
        field.clear();
        if constexpr (kind == tw_host::AttrValue::LIST_FLOAT) {
            const auto* v = attrs.GetListFloat(i);
            for (size_t k = 0; k < v->GetSize(); ++k) field.push_back(static_cast<E>(v->GetData()[k]));
        } else {
            const auto* v = attrs.GetListInt(i);
            for (size_t k = 0; k < v->GetSize(); ++k) field.push_back(static_cast<E>(v->GetData()[k]));
        }
    } else {
        (void)field;
        throw std::runtime_error("parameter field '" + name + "' has a type tilewise cannot set from an attribute");
    }
}

// One field of the parameter struct P: its names as attributes and how to set it.
template <typename P>
struct Field {
    std::string name, snake;
    tw_host::AttrValue::Kind kind;
    std::function<void(P&, const gert::RuntimeAttrs&, size_t)> set;
};

template <typename P, typename Get>
Field<P> make_field(const char* name, const char* snake, Get get) {
    using T = std::remove_reference_t<decltype(get(std::declval<P&>()))>;
    std::string n = name;
    return Field<P>{name, snake, kind_of<T>(),
                    [get, n](P& p, const gert::RuntimeAttrs& a, size_t i) { assign(get(p), a, i, n); }};
}

// The one operator of this runner: its kernel entry's GM parameters and how to build its parameter struct.
struct Binding {
    std::string op;
    std::vector<std::string> inputs, outputs;
    std::vector<std::string> attr_names;  // the OpDef's attributes, in order
    std::vector<tw_host::AttrValue::Kind> attr_kinds;
    std::function<Mki::Any(const gert::RuntimeAttrs&)> make_param;
};

inline Binding*& current() {
    static Binding* binding = nullptr;
    return binding;
}

inline Mki::Tensor tensor_of(const gert::StorageShape* shape, const gert::CompileTimeTensorDesc* desc) {
    Mki::Tensor t;
    if (shape == nullptr || desc == nullptr) return t;  // an input the case leaves out: an empty tensor
    const gert::Shape& s = shape->GetStorageShape();
    for (size_t k = 0; k < s.GetDimNum(); ++k) t.desc.dims.push_back(s.GetDim(k));
    // ge::DataType and the mki dtypes share the aclDataType numbering; so do the formats (aclFormat).
    t.desc.dtype = static_cast<Mki::TensorDType>(static_cast<int32_t>(desc->GetDataType()));
    t.desc.format = static_cast<Mki::TensorFormat>(static_cast<int32_t>(desc->GetStorageFormat()));
    return t;
}

// The OpDef's tiling function: see the top of this file.
inline ge::graphStatus tiling(gert::TilingContext* ctx) {
    const Binding& b = *current();
    const fe::PlatFormInfos& plat = *ctx->GetPlatformInfo();
    Mki::PlatformInfo::Instance().Set(plat.aiv_num, plat.aic_num, plat.ub_bytes, plat.l1_bytes, plat.soc_version);
    Mki::LaunchParam lp;
    for (size_t i = 0; i < b.inputs.size(); ++i)
        lp.AddInTensor(tensor_of(ctx->GetOptionalInputShape(i), ctx->GetOptionalInputDesc(i)));
    for (size_t i = 0; i < b.outputs.size(); ++i)
        lp.AddOutTensor(tensor_of(ctx->GetOutputShape(i), ctx->GetOutputDesc(i)));
    lp.SetParam(b.make_param(*ctx->GetAttrs()));

    std::unique_ptr<Mki::KernelBase> kernel;
    std::string refused;
    for (const auto& [name, factory] : Mki::tw_registry::Kernels()) {
        std::unique_ptr<Mki::KernelBase> k = factory();
        Mki::LastError().clear();
        if (k->CanSupport(lp)) {
            kernel = std::move(k);
            break;
        }
        refused += (refused.empty() ? "" : "; ") + name + ": " +
                   (Mki::LastError().empty() ? "CanSupport returned false" : Mki::LastError());
    }
    if (kernel == nullptr) {
        throw std::runtime_error(Mki::tw_registry::Kernels().empty()
                                     ? "no kernel registered with REG_KERNEL_BASE"
                                     : "no registered kernel supports the case (" + refused + ")");
    }
    Mki::LastError().clear();
    const Mki::Status status = kernel->Init(lp);
    if (!status.Ok()) {
        throw std::runtime_error(kernel->GetName() + " tiling failed: " + status.ToString() +
                                 (Mki::LastError().empty() ? "" : " (" + Mki::LastError() + ")"));
    }
    const Mki::KernelInfo& info = kernel->GetKernelInfo();
    gert::TilingData* raw = ctx->GetRawTilingData();
    const uint64_t used = std::min<uint64_t>(info.GetTilingUsedSize(), info.GetTilingSize());
    if (used > raw->GetCapacity()) {
        throw std::runtime_error("the tiling is " + std::to_string(used) + " bytes, more than the emulator's " +
                                 std::to_string(raw->GetCapacity()));
    }
    if (used != 0) std::memcpy(raw->GetData(), info.GetTilingHostAddr(), used);
    raw->SetDataSize(used);
    ctx->SetBlockDim(info.GetBlockDim());
    ctx->SetTilingKey(info.GetTilingId());
    const auto& scratch = info.GetScratchSizes();
    if (!scratch.empty()) {
        size_t* ws = ctx->GetWorkspaceSizes(scratch.size());
        for (size_t k = 0; k < scratch.size(); ++k) ws[k] = scratch[k];
    }
    LaunchExtras& extras = launch_extras();
    extras.scratch_sizes.assign(scratch.begin(), scratch.end());
    extras.memsets = info.GetMemsetInfo();
    return ge::GRAPH_SUCCESS;
}

// Registers the operator; the generated unit holds one of these at namespace scope.
template <typename P>
struct Registrar {
    Registrar(const char* op, std::vector<std::string> inputs, std::vector<std::string> outputs,
              std::vector<Field<P>> fields) {
        static Binding binding;
        static std::vector<Field<P>> kept;
        kept = std::move(fields);
        binding.op = op;
        binding.inputs = std::move(inputs);
        binding.outputs = std::move(outputs);
        std::vector<std::pair<size_t, size_t>> slots;  // per field: its attribute indexes (name, snake_case)
        for (const Field<P>& f : kept) {
            const size_t first = binding.attr_names.size();
            binding.attr_names.push_back(f.name);
            binding.attr_kinds.push_back(f.kind);
            size_t second = first;
            if (f.snake != f.name) {
                second = binding.attr_names.size();
                binding.attr_names.push_back(f.snake);
                binding.attr_kinds.push_back(f.kind);
            }
            slots.emplace_back(first, second);
        }
        binding.make_param = [slots](const gert::RuntimeAttrs& attrs) {
            P param{};
            for (size_t k = 0; k < kept.size(); ++k) {
                for (size_t i : {slots[k].first, slots[k].second}) {
                    if (attrs.GetAttrPointer<void>(i) != nullptr) {
                        kept[k].set(param, attrs, i);
                        break;
                    }
                }
            }
            return Mki::Any(param);
        };
        current() = &binding;
        tw_host::opdef_registry()[op] = [] {
            const Binding& b = *current();
            auto def = std::make_unique<ops::OpDef>(b.op.c_str());
            // The framework declares no optionality: every input may be left out (the tiling then sees an empty
            // tensor, which is how callers pass an absent bias), every output is written.
            for (const std::string& n : b.inputs) def->Input(n.c_str()).ParamType(ops::OPTIONAL);
            for (const std::string& n : b.outputs) def->Output(n.c_str()).ParamType(ops::REQUIRED);
            for (size_t i = 0; i < b.attr_names.size(); ++i) set_kind(def->Attr(b.attr_names[i].c_str()), b.attr_kinds[i]);
            def->AICore().SetTiling(&tiling);
            return def;
        };
    }

    static void set_kind(ops::OpAttrDef& a, tw_host::AttrValue::Kind kind) {
        a.AttrType(ops::OPTIONAL);
        switch (kind) {
            case tw_host::AttrValue::FLOAT: a.Float(); break;
            case tw_host::AttrValue::INT: a.Int(); break;
            case tw_host::AttrValue::BOOL: a.Bool(); break;
            case tw_host::AttrValue::STR: a.String(); break;
            case tw_host::AttrValue::LIST_INT: a.ListInt(); break;
            case tw_host::AttrValue::LIST_FLOAT: a.ListFloat(); break;
            default: break;
        }
    }
};

}  // namespace tw_mki

// One parameter field: TW_MKI_FIELD(AsdOps::OpParam::Norm, gemmaMode, "gemma_mode").
#define TW_MKI_FIELD(P, member, snake) \
    ::tw_mki::make_field<P>(#member, snake, [](P& p) -> decltype((p.member)) { return p.member; })

namespace tw_mki {

// A field of an enum type, set from the enumerator's name (a string attribute) through the table the build reads
// from the parameter header.
template <typename P, typename Get>
Field<P> make_enum_field(const char* name, const char* snake, Get get,
                         std::vector<std::pair<std::string, int64_t>> table) {
    using T = std::remove_reference_t<decltype(get(std::declval<P&>()))>;
    std::string n = name;
    return Field<P>{name, snake, tw_host::AttrValue::STR,
                    [get, n, table](P& p, const gert::RuntimeAttrs& a, size_t i) {
                        const std::string given = a.GetStr(i);
                        std::string known;
                        for (const auto& [e, v] : table) {
                            if (e == given) {
                                get(p) = static_cast<T>(v);
                                return;
                            }
                            known += (known.empty() ? "" : ", ") + e;
                        }
                        throw std::runtime_error("'" + given + "' is no enumerator of parameter field '" + n +
                                                 "' (" + known + ")");
                    }};
}

}  // namespace tw_mki

#define TW_MKI_ENUM(P, member, snake, ...)                                                                 \
    ::tw_mki::make_enum_field<P>(#member, snake, [](P& p) -> decltype((p.member)) { return p.member; }, \
                                 std::vector<std::pair<std::string, int64_t>> __VA_ARGS__)
