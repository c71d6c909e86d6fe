// tilewise host emulation: the interface tilewise's generated runner uses to drive an operator's host code.
//
// Compile the operator's op_host/*.cpp together with a runner that includes this header (all of it is inline).
// The runner looks the operator up (find_op), infers output shapes and dtypes (infer_outputs) and runs the tiling
// function (run_tiling) for concrete input shapes, attributes and a chip description; the TilingResult holds what a
// kernel launch needs: block dim, tiling key, the tiling bytes and the workspace sizes.
//
// Input binding: `inputs` are given in OpDef order, one TensorDesc per tensor instance. An OPTIONAL input may be
// skipped by passing a TensorDesc with absent = true (or by leaving it off the end of the list). A DYNAMIC input
// takes every tensor left over once the other IR inputs have one each (one DYNAMIC input per operator is
// supported; with several, the first one takes the surplus).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/types.h"
#include "register/op_def.h"
#include "register/tilingdata_base.h"
#include "tw_host/attr_value.h"
#include "tw_host/knobs.h"
#include "tw_host/node.h"
#include "tw_host/registry.h"

namespace tw_host {

struct TensorDesc {
    std::vector<int64_t> shape;
    ge::DataType dtype = ge::DT_UNDEFINED;
    ge::Format format = ge::FORMAT_ND;
    std::vector<uint8_t> data;  // host values, for inputs the tiling reads (GetInputTensor(i)->GetData<T>())
    bool absent = false;        // an OPTIONAL input that is not passed
};

struct PlatformDesc {
    uint32_t vector_cores = 48;
    uint32_t cube_cores = 24;
    uint64_t ub_bytes = 196608;
    uint64_t l1_bytes = 524288;
    std::string soc_version = "Ascend910B2";
};

// What OP_ADD (and/or IMPL_OP_*) registered, with the OpDef's declared inputs/outputs/attrs in order.
struct OpInfo {
    std::string name;
    std::vector<std::string> inputs, outputs;
    std::vector<std::pair<std::string, AttrValue>> attrs;  // defaults; kind NONE when the OpDef gives none
    ge::graphStatus (*tiling)(gert::TilingContext*) = nullptr;
    ge::graphStatus (*infer_shape)(gert::InferShapeContext*) = nullptr;
    ge::graphStatus (*infer_dtype)(gert::InferDataTypeContext*) = nullptr;

    // Beyond the names: what binding and defaults need.
    std::vector<ops::Option> input_param_types, output_param_types;
    std::vector<bool> input_value_depend;  // ValueDepend inputs: the tiling may read their values
    std::vector<std::vector<ge::DataType>> input_dtypes, output_dtypes;  // the OpDef's DataType({...}) columns
    std::vector<AttrValue::Kind> attr_kinds;                             // declared kind of each attr
    ge::graphStatus (*tiling_parse)(gert::TilingParseContext*) = nullptr;
    std::function<std::shared_ptr<void>()> make_compile_info;
    const TilingClassInfo* tiling_class = nullptr;  // REGISTER_TILING_DATA_CLASS entry, if any
    // An OpDef was registered (OP_ADD): then `outputs` empty means it declares none (the kernel writes into an input,
    // Eye- or ScatterSub-style), not that the outputs are unknown (IMPL_OP_* only).
    bool has_opdef = false;
};

struct TilingResult {
    ge::graphStatus status = ge::GRAPH_FAILED;
    uint32_t block_dim = 0;
    uint64_t tiling_key = 0;
    std::vector<uint8_t> tiling_data;
    std::vector<size_t> workspace_sizes;  // as the op sized them with GetWorkspaceSizes(n); empty if never called
    uint32_t schedule_mode = 0;
    std::string error;  // why status is not GRAPH_SUCCESS, when the emulator knows
};

namespace detail {

inline OpInfo build_op_info(const std::string& name) {
    OpInfo info;
    info.name = name;
    const auto& defs = opdef_registry();
    if (const auto it = defs.find(name); it != defs.end()) {
        const std::unique_ptr<ops::OpDef> def = it->second();
        info.has_opdef = true;
        for (const auto& p : def->inputs()) {
            info.inputs.push_back(p.name());
            info.input_param_types.push_back(p.param_type());
            info.input_value_depend.push_back(p.value_depend() != ops::IGNORE);
            info.input_dtypes.push_back(p.data_types());
        }
        for (const auto& p : def->outputs()) {
            info.outputs.push_back(p.name());
            info.output_param_types.push_back(p.param_type());
            info.output_dtypes.push_back(p.data_types());
        }
        for (const auto& a : def->attrs()) {
            info.attrs.emplace_back(a.name(), a.default_value());
            info.attr_kinds.push_back(a.kind());
        }
        info.tiling = def->AICore().tiling();
        info.tiling_parse = def->AICore().tiling_parse();
        info.infer_shape = def->infer_shape();
        info.infer_dtype = def->infer_dtype();
    }
    // IMPL_OP_* registrations fill whatever the OpDef left unset.
    const auto& impls = opimpl_registry();
    if (const auto it = impls.find(name); it != impls.end()) {
        const OpImplRecord& r = it->second;
        if (info.tiling == nullptr) info.tiling = r.tiling;
        if (info.infer_shape == nullptr) info.infer_shape = r.infer_shape;
        if (info.infer_dtype == nullptr) info.infer_dtype = r.infer_dtype;
        if (r.tiling_parse != nullptr) {  // with its compile-info struct
            info.tiling_parse = r.tiling_parse;
            info.make_compile_info = r.make_compile_info;
        }
    }
    info.tiling_class = find_tiling_class(name);
    return info;
}

// Converts a value the runner gave to the kind the OpDef declares (TOML writes `min = 0` for a Float attr).
inline AttrValue convert_attr(const AttrValue& v, AttrValue::Kind want) {
    if (want == AttrValue::NONE || v.kind == want || v.kind == AttrValue::NONE) {
        return v;
    }
    const auto scalar = [&]() -> double {
        switch (v.kind) {
            case AttrValue::FLOAT: return v.f;
            case AttrValue::INT: return static_cast<double>(v.i);
            case AttrValue::BOOL: return v.b ? 1.0 : 0.0;
            default: throw std::runtime_error("attribute value of the wrong kind");
        }
    };
    const auto ints = [&]() -> std::vector<int64_t> {
        if (v.kind == AttrValue::LIST_FLOAT) return {v.lf.begin(), v.lf.end()};
        if (v.kind == AttrValue::LIST_BOOL) return {v.lb.begin(), v.lb.end()};
        throw std::runtime_error("attribute value of the wrong kind");
    };
    switch (want) {
        case AttrValue::FLOAT: return AttrValue::Float(scalar());
        case AttrValue::INT: return AttrValue::Int(static_cast<int64_t>(scalar()));
        case AttrValue::BOOL: return AttrValue::Bool(scalar() != 0.0);
        case AttrValue::LIST_INT: return AttrValue::ListInt(ints());
        case AttrValue::LIST_FLOAT: {
            if (v.kind != AttrValue::LIST_INT) throw std::runtime_error("attribute value of the wrong kind");
            return AttrValue::ListFloat(std::vector<float>(v.li.begin(), v.li.end()));
        }
        case AttrValue::LIST_BOOL: {
            if (v.kind != AttrValue::LIST_INT) throw std::runtime_error("attribute value of the wrong kind");
            std::vector<bool> b;
            for (int64_t x : v.li) b.push_back(x != 0);
            return AttrValue::ListBool(b);
        }
        default: throw std::runtime_error("attribute value of the wrong kind");
    }
}

inline void add_attr(gert::RuntimeAttrs& attrs, const AttrValue& v) {
    switch (v.kind) {
        case AttrValue::FLOAT: attrs.AddFloat(static_cast<float>(v.f)); break;
        case AttrValue::INT: attrs.AddInt(v.i); break;
        case AttrValue::BOOL: attrs.AddBool(v.b); break;
        case AttrValue::STR: attrs.AddStr(v.s); break;
        case AttrValue::LIST_INT: attrs.AddListInt(v.li); break;
        case AttrValue::LIST_FLOAT: attrs.AddListFloat(v.lf); break;
        case AttrValue::LIST_BOOL: attrs.AddListBool(v.lb); break;
        default: attrs.AddAbsent(); break;
    }
}

// Instance counts per IR param for `given` tensors (absent flags mark skipped optionals).
inline std::vector<uint32_t> instance_counts(const std::vector<ops::Option>& types, const std::vector<bool>& absent) {
    const size_t given = absent.size();
    if (types.empty()) {  // no OpDef: every tensor is its own IR param
        return std::vector<uint32_t>(given, 1);
    }
    std::vector<uint32_t> counts(types.size(), 0);
    const auto dyn = std::find(types.begin(), types.end(), ops::DYNAMIC);
    const size_t dyn_ir = dyn == types.end() ? types.size() : static_cast<size_t>(dyn - types.begin());
    const size_t surplus = given > types.size() - 1 ? given - (types.size() - 1) : 0;
    size_t k = 0;
    for (size_t ir = 0; ir < types.size() && k < given; ++ir) {
        const size_t want = ir == dyn_ir ? surplus : 1;
        for (size_t j = 0; j < want && k < given; ++j, ++k) {
            if (!absent[k]) {
                ++counts[ir];
            }
        }
    }
    return counts;
}

inline void fill_slot(TensorSlot& slot, const TensorDesc& d) {
    gert::Shape s;
    for (int64_t dim : d.shape) {
        s.AppendDim(dim);
    }
    slot.set_shape(s);
    slot.set_dtype(d.dtype);
    slot.set_format(d.format);
    if (!d.data.empty()) {
        slot.tensor.SetData(d.data.data(), d.data.size());
    }
}

inline void bind_side(const std::vector<ops::Option>& types, const std::vector<TensorDesc>& given,
                      std::vector<gert::AnchorInstanceInfo>& ir, std::vector<TensorSlot>& slots) {
    std::vector<bool> absent;
    for (const auto& d : given) {
        absent.push_back(d.absent);
    }
    const std::vector<uint32_t> counts = instance_counts(types, absent);
    uint32_t start = 0;
    for (uint32_t c : counts) {
        ir.emplace_back(start, c);
        start += c;
    }
    for (const auto& d : given) {
        if (!d.absent) {
            slots.emplace_back();
            fill_slot(slots.back(), d);
        }
    }
}

// `inputs`/`outputs` must outlive the node: tensors point at their data.
inline std::unique_ptr<NodeData> make_node(const OpInfo& info, const std::vector<TensorDesc>& inputs,
                                           const std::vector<TensorDesc>& outputs,
                                           const std::vector<std::pair<std::string, AttrValue>>& attrs) {
    auto node = std::make_unique<NodeData>();
    node->node_name = info.name;
    node->node_type = info.name;
    bind_side(info.input_param_types, inputs, node->ir_inputs, node->inputs);
    bind_side(info.output_param_types, outputs, node->ir_outputs, node->outputs);
    for (size_t ir = 0; ir < info.input_param_types.size(); ++ir) {
        if (info.input_param_types[ir] == ops::REQUIRED && node->ir_inputs[ir].GetInstanceNum() == 0) {
            throw std::runtime_error("required input '" + info.inputs[ir] + "' of " + info.name + " is missing");
        }
    }

    std::map<std::string, const AttrValue*> given;
    for (const auto& [name, value] : attrs) {
        given[name] = &value;
    }
    for (size_t i = 0; i < info.attrs.size(); ++i) {
        const auto& [name, def] = info.attrs[i];
        const auto it = given.find(name);
        add_attr(node->attrs, it == given.end() ? def : convert_attr(*it->second, info.attr_kinds[i]));
        if (it != given.end()) {
            given.erase(it);
        }
    }
    // Attributes the OpDef does not declare: keep them (in the order given) when there is no OpDef to go by.
    for (const auto& [name, value] : attrs) {
        if (given.count(name) != 0) {
            if (info.attrs.empty()) {
                add_attr(node->attrs, value);
            } else {
                std::fprintf(stderr, "tw_host: %s has no attribute '%s'; ignored\n", info.name.c_str(), name.c_str());
            }
        }
    }
    return node;
}

// The dtype an output takes when no InferDataType says otherwise: the OpDef's DataType lists are columns of
// supported combinations, so the output takes its entry in the column where input 0 has its actual dtype.
inline ge::DataType default_output_dtype(const OpInfo& info, size_t out, const std::vector<TensorDesc>& inputs) {
    const ge::DataType in0 = inputs.empty() ? ge::DT_UNDEFINED : inputs[0].dtype;
    const std::vector<ge::DataType>* outs = out < info.output_dtypes.size() ? &info.output_dtypes[out] : nullptr;
    if (outs == nullptr || outs->empty()) {
        return in0;
    }
    if (!info.input_dtypes.empty()) {
        const auto& ins = info.input_dtypes[0];
        const auto col = std::find(ins.begin(), ins.end(), in0);
        if (col != ins.end()) {
            const size_t c = static_cast<size_t>(col - ins.begin());
            if (c < outs->size()) {
                return (*outs)[c];
            }
        }
    }
    return outs->size() == 1 ? (*outs)[0] : in0;
}

inline std::map<std::string, OpInfo>& op_info_cache() {
    static std::map<std::string, OpInfo> cache;
    return cache;
}

}  // namespace detail

inline std::vector<std::string> registered_ops() {
    std::vector<std::string> names;
    for (const auto& kv : opdef_registry()) names.push_back(kv.first);
    for (const auto& kv : opimpl_registry()) {
        if (opdef_registry().count(kv.first) == 0) names.push_back(kv.first);
    }
    std::sort(names.begin(), names.end());
    return names;
}

inline const OpInfo* find_op(const std::string& name) {
    auto& cache = detail::op_info_cache();
    if (const auto it = cache.find(name); it != cache.end()) {
        return &it->second;
    }
    if (opdef_registry().count(name) == 0 && opimpl_registry().count(name) == 0) {
        return nullptr;
    }
    return &cache.emplace(name, detail::build_op_info(name)).first->second;
}

// Runs InferShape (if any; otherwise every output takes the first input's shape) and InferDataType (if any; the
// OpDef's dtype columns give the starting point). Throws std::runtime_error when either function fails or the
// inputs do not bind. `counts` gives the number of tensors of each IR output (a DYNAMIC output's list length);
// empty means one per output.
inline std::vector<TensorDesc> infer_outputs(const OpInfo& info, const std::vector<TensorDesc>& inputs,
                                             const std::vector<std::pair<std::string, AttrValue>>& attrs,
                                             const std::vector<uint32_t>& counts = {}) {
    std::vector<size_t> ir_of;  // IR output of each tensor
    if (counts.empty()) {
        for (size_t k = 0; k < (info.outputs.empty() ? 1 : info.outputs.size()); ++k) ir_of.push_back(k);
    } else {
        for (size_t k = 0; k < counts.size(); ++k) ir_of.insert(ir_of.end(), counts[k], k);
    }
    std::vector<TensorDesc> outs(ir_of.size());
    const ge::Format fmt = inputs.empty() ? ge::FORMAT_ND : inputs[0].format;
    for (size_t i = 0; i < outs.size(); ++i) {
        outs[i].dtype = detail::default_output_dtype(info, ir_of[i], inputs);
        outs[i].format = fmt;
    }
    const std::unique_ptr<NodeData> node = detail::make_node(info, inputs, outs, attrs);

    if (info.infer_shape != nullptr) {
        gert::InferShapeContext ctx(node.get());
        if (info.infer_shape(&ctx) != ge::GRAPH_SUCCESS) {
            throw std::runtime_error("InferShape of " + info.name + " failed");
        }
    } else if (!node->inputs.empty()) {
        for (auto& o : node->outputs) {
            o.set_shape(node->inputs[0].tensor.GetOriginShape());
        }
    }
    if (info.infer_dtype != nullptr) {
        gert::InferDataTypeContext ctx(node.get());
        if (info.infer_dtype(&ctx) != ge::GRAPH_SUCCESS) {
            throw std::runtime_error("InferDataType of " + info.name + " failed");
        }
    }

    for (size_t i = 0; i < outs.size() && i < node->outputs.size(); ++i) {
        const gert::Shape& s = node->outputs[i].tensor.GetOriginShape();
        outs[i].shape.clear();
        for (size_t d = 0; d < s.GetDimNum(); ++d) {
            outs[i].shape.push_back(s.GetDim(d));
        }
        outs[i].dtype = node->outputs[i].tensor.GetDataType();
    }
    return outs;
}

// A fingerprint of the tiling bytes (64-bit FNV-1a, hex): a screening reports it so that the tuner can tell which
// knobs change what the kernel is handed and which change nothing.
inline std::string digest(const std::vector<uint8_t>& bytes) {
    uint64_t h = 1469598103934665603ULL;
    for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ULL;
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
    return out;
}

// The tuner's platform knobs (search/space.py): the core count and UB size the tiling function is told, capped, so
// that it derives another consistent tiling by its own logic. Only what the tiling sees changes: the kernel still
// runs on the whole chip. Unset (0) or above the chip's figure, nothing is capped.
inline void cap_platform(fe::PlatFormInfos& p) {
    const long long cores = tw_knob("platform.cores", 0LL);
    if (cores > 0 && cores < static_cast<long long>(p.aiv_num)) {
        // Cube cores follow the vector cores in the chip's ratio (two vector cores to a cube core on A2/A3).
        const long long cube = cores * static_cast<long long>(p.aic_num) / std::max<long long>(1, p.aiv_num);
        p.aic_num = static_cast<uint32_t>(std::max<long long>(1, cube));
        p.aiv_num = static_cast<uint32_t>(cores);
    }
    const long long ub = tw_knob("platform.ub_bytes", 0LL);
    if (ub > 0 && ub < static_cast<long long>(p.ub_bytes)) p.ub_bytes = static_cast<uint64_t>(ub);
}

// Runs TilingParse (if registered, building the compile-info struct) and then the tiling function. Exceptions
// from the operator (e.g. SaveToBuffer overflow) and binding errors come back as a failed status with `error`.
inline TilingResult run_tiling(const OpInfo& info, const std::vector<TensorDesc>& inputs,
                               const std::vector<TensorDesc>& outputs,
                               const std::vector<std::pair<std::string, AttrValue>>& attrs,
                               const PlatformDesc& platform) {
    TilingResult result;
    if (info.tiling == nullptr) {
        result.error = "no tiling function registered for " + info.name;
        return result;
    }
    try {
        const std::unique_ptr<NodeData> node = detail::make_node(info, inputs, outputs, attrs);
        node->platform.soc_version = platform.soc_version;
        node->platform.aiv_num = platform.vector_cores;
        node->platform.aic_num = platform.cube_cores;
        node->platform.ub_bytes = platform.ub_bytes;
        node->platform.l1_bytes = platform.l1_bytes;
        cap_platform(node->platform);
        fe::current_platform() = node->platform;  // for code that asks fe::PlatformInfoManager instead

        std::shared_ptr<void> compile_info;
        if (info.make_compile_info) {
            compile_info = info.make_compile_info();
            node->compile_info = compile_info.get();
        }
        if (info.tiling_parse != nullptr) {
            gert::TilingParseContext pctx(node.get(), compile_info.get());
            if (info.tiling_parse(&pctx) != ge::GRAPH_SUCCESS) {
                result.error = "TilingParse of " + info.name + " failed";
                return result;
            }
        }

        gert::TilingContext ctx(node.get());
        result.status = info.tiling(&ctx);
        if (result.status != ge::GRAPH_SUCCESS && result.error.empty()) {
            result.error = "tiling function of " + info.name + " returned failure";
        }
        result.block_dim = node->block_dim;
        result.tiling_key = node->tiling_key;
        result.schedule_mode = node->schedule_mode;
        const auto* bytes = static_cast<const uint8_t*>(node->raw_tiling.GetData());
        const size_t n = std::min(node->raw_tiling.GetDataSize(), node->raw_tiling.GetCapacity());
        result.tiling_data.assign(bytes, bytes + n);
        result.workspace_sizes = node->workspace_sizes;
    } catch (const std::exception& e) {
        result.status = ge::GRAPH_FAILED;
        result.error = e.what();
    }
    return result;
}

}  // namespace tw_host
