// tilewise host emulation: the OpDef builder (ops::OpDef and friends) an operator's constructor calls.
// Everything is recorded; the runner reads inputs, outputs, attribute defaults and the registered functions back.
// Builder calls that only matter to Huawei's compiler (formats for binary queries, contiguity, ...) are accepted
// and ignored.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <cstdlib>
#include <initializer_list>
#include <unordered_set>

#include "exe_graph/runtime/infer_datatype_context.h"
#include "exe_graph/runtime/infer_shape_context.h"
#include "exe_graph/runtime/infer_shape_range_context.h"
#include "exe_graph/runtime/tiling_context.h"
#include "exe_graph/runtime/tiling_parse_context.h"
#include "graph/types.h"
#include "tw_host/attr_value.h"

namespace ops {

enum Option { IGNORE = 0, OPTIONAL = 1, REQUIRED = 2, DYNAMIC = 3, VIRTUAL = 4 };
enum class DependScope { ALL = 0, TILING = 1, INVALID_SCOPE };
enum class FollowType { ALL = 0, DTYPE = 1, FORMAT = 2, SHAPE = 3, INVALID_TYPE };

using TilingFunc = ge::graphStatus (*)(gert::TilingContext*);
using InferShapeFunc = ge::graphStatus (*)(gert::InferShapeContext*);
using InferDataTypeFunc = ge::graphStatus (*)(gert::InferDataTypeContext*);
using TilingParseFunc = ge::graphStatus (*)(gert::TilingParseContext*);

// One input or output of the operator.
class OpParamDef {
public:
    explicit OpParamDef(std::string name) : name_(std::move(name)) {}

    OpParamDef& ParamType(Option t) {
        type_ = t;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> v) {
        dtypes_ = std::move(v);
        return *this;
    }
    // DataTypeList/FormatList give one entry that applies to every combination of the other params.
    OpParamDef& DataTypeList(std::vector<ge::DataType> v) {
        dtypes_ = std::move(v);
        dtype_is_list_ = true;
        return *this;
    }
    OpParamDef& Format(std::vector<ge::Format> v) {
        formats_ = std::move(v);
        return *this;
    }
    OpParamDef& FormatList(std::vector<ge::Format> v) {
        formats_ = std::move(v);
        return *this;
    }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> v) {
        unknown_shape_formats_ = std::move(v);
        return *this;
    }
    OpParamDef& DataTypeForBinQuery(std::vector<ge::DataType>) { return *this; }
    OpParamDef& FormatForBinQuery(std::vector<ge::Format>) { return *this; }
    OpParamDef& ValueDepend(Option v) {
        value_depend_ = v;
        return *this;
    }
    OpParamDef& ValueDepend(Option v, DependScope) { return ValueDepend(v); }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& Scalar() { return *this; }
    OpParamDef& ScalarList() { return *this; }
    OpParamDef& OutputShapeDependOnCompute() { return *this; }
    OpParamDef& NoTilingDependOnCompute() { return *this; }
    OpParamDef& Follow(const char*) { return *this; }
    OpParamDef& Follow(const char*, FollowType) { return *this; }
    template <typename T>
    OpParamDef& To(const T&) { return *this; }
    template <typename T>
    OpParamDef& InitValue(const T&) { return *this; }
    OpParamDef& Comment(const char*) { return *this; }

    const std::string& name() const { return name_; }
    Option param_type() const { return type_; }
    const std::vector<ge::DataType>& data_types() const { return dtypes_; }
    bool data_type_is_list() const { return dtype_is_list_; }
    const std::vector<ge::Format>& formats() const { return formats_; }
    Option value_depend() const { return value_depend_; }

private:
    std::string name_;
    Option type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    bool dtype_is_list_ = false;
    std::vector<ge::Format> formats_;
    std::vector<ge::Format> unknown_shape_formats_;
    Option value_depend_ = IGNORE;
};

// One attribute: its kind and, when given, its default value.
class OpAttrDef {
public:
    explicit OpAttrDef(std::string name) : name_(std::move(name)) {}

    OpAttrDef& AttrType(Option t) {
        type_ = t;
        return *this;
    }
    OpAttrDef& Float() { return SetKind(tw_host::AttrValue::FLOAT); }
    OpAttrDef& Float(float v) { return Set(tw_host::AttrValue::Float(v)); }
    OpAttrDef& Int() { return SetKind(tw_host::AttrValue::INT); }
    OpAttrDef& Int(int64_t v) { return Set(tw_host::AttrValue::Int(v)); }
    OpAttrDef& Bool() { return SetKind(tw_host::AttrValue::BOOL); }
    OpAttrDef& Bool(bool v) { return Set(tw_host::AttrValue::Bool(v)); }
    OpAttrDef& String() { return SetKind(tw_host::AttrValue::STR); }
    OpAttrDef& String(const char* v) { return Set(tw_host::AttrValue::Str(v == nullptr ? "" : v)); }
    OpAttrDef& ListInt() { return SetKind(tw_host::AttrValue::LIST_INT); }
    OpAttrDef& ListInt(std::vector<int64_t> v) { return Set(tw_host::AttrValue::ListInt(std::move(v))); }
    OpAttrDef& ListFloat() { return SetKind(tw_host::AttrValue::LIST_FLOAT); }
    OpAttrDef& ListFloat(std::vector<float> v) { return Set(tw_host::AttrValue::ListFloat(std::move(v))); }
    OpAttrDef& ListBool() { return SetKind(tw_host::AttrValue::LIST_BOOL); }
    OpAttrDef& ListBool(std::vector<bool> v) { return Set(tw_host::AttrValue::ListBool(std::move(v))); }
    // Lists of lists have no runtime representation here; the attribute is recorded without a value.
    OpAttrDef& ListListInt() { return *this; }
    OpAttrDef& ListListInt(std::vector<std::vector<int64_t>>) { return *this; }
    OpAttrDef& Comment(const char*) { return *this; }

    const std::string& name() const { return name_; }
    Option attr_type() const { return type_; }
    tw_host::AttrValue::Kind kind() const { return kind_; }
    bool has_default() const { return default_.kind != tw_host::AttrValue::NONE; }
    const tw_host::AttrValue& default_value() const { return default_; }

private:
    OpAttrDef& SetKind(tw_host::AttrValue::Kind k) {
        kind_ = k;
        return *this;
    }
    OpAttrDef& Set(tw_host::AttrValue v) {
        kind_ = v.kind;
        default_ = std::move(v);
        return *this;
    }

    std::string name_;
    Option type_ = REQUIRED;
    tw_host::AttrValue::Kind kind_ = tw_host::AttrValue::NONE;
    tw_host::AttrValue default_;
};

// Per-SoC overrides of the OpDef (AICore().AddConfig(soc, config)).
class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}

    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }
    // Graph compilation's hints (asynchronous launch; "limited"/"unlimited" shape ranges): nothing a run computes.
    OpAICoreConfig& AsyncFlag(bool) { return *this; }
    OpAICoreConfig& RangeLimitValue(const char*) { return *this; }

    OpParamDef& Input(const char* name) { return Find(inputs_, name); }
    OpParamDef& Output(const char* name) { return Find(outputs_, name); }

private:
    static OpParamDef& Find(std::deque<OpParamDef>& list, const char* name) {
        for (auto& p : list) {
            if (p.name() == name) {
                return p;
            }
        }
        list.emplace_back(name);
        return list.back();
    }

    std::deque<OpParamDef> inputs_;
    std::deque<OpParamDef> outputs_;
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(TilingFunc f) {
        tiling_ = f;
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc) {
        socs_.emplace_back(soc);
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc, const OpAICoreConfig&) { return AddConfig(soc); }
    // The compile-time step before tiling (no compile-info struct with this form: GetCompiledInfo is null).
    OpAICoreDef& SetTilingParse(TilingParseFunc f) {
        tiling_parse_ = f;
        return *this;
    }
    // Graph-mode hooks: accepted whatever their signature, never called by the emulator.
    template <typename F>
    OpAICoreDef& SetCheckSupport(F) { return *this; }
    template <typename F>
    OpAICoreDef& SetOpSelectFormat(F) { return *this; }
    template <typename F>
    OpAICoreDef& SetOpSupportInfo(F) { return *this; }
    template <typename F>
    OpAICoreDef& SetOpSpecInfo(F) { return *this; }
    template <typename F>
    OpAICoreDef& SetParamGeneralize(F) { return *this; }

    TilingFunc tiling() const { return tiling_; }
    TilingParseFunc tiling_parse() const { return tiling_parse_; }
    const std::vector<std::string>& socs() const { return socs_; }

private:
    TilingFunc tiling_ = nullptr;
    TilingParseFunc tiling_parse_ = nullptr;
    std::vector<std::string> socs_;
};

// Communication (MC2) settings of fused compute+collective operators: recorded nowhere.
class OpMC2Def {
public:
    template <typename T>
    OpMC2Def& HcclGroup(const T&) { return *this; }
    OpMC2Def& HcclGroup(std::vector<const char*>) { return *this; }
};

class OpDef {
public:
    explicit OpDef(const char* type) : type_(type == nullptr ? "" : type) {}
    virtual ~OpDef() = default;
    OpDef(const OpDef&) = delete;
    OpDef& operator=(const OpDef&) = delete;

    // Calling Input/Output/Attr twice with a name returns the same definition.
    OpParamDef& Input(const char* name) { return FindParam(inputs_, name); }
    OpParamDef& Output(const char* name) { return FindParam(outputs_, name); }
    OpAttrDef& Attr(const char* name) {
        for (auto& a : attrs_) {
            if (a.name() == name) {
                return a;
            }
        }
        attrs_.emplace_back(name);
        return attrs_.back();
    }

    OpDef& SetInferShape(InferShapeFunc f) {
        infer_shape_ = f;
        return *this;
    }
    OpDef& SetInferDataType(InferDataTypeFunc f) {
        infer_dtype_ = f;
        return *this;
    }
    template <typename F>
    OpDef& SetInferShapeRange(F) { return *this; }
    OpDef& Comment(const char*) { return *this; }
    OpDef& EnableFallBack() { return *this; }

    OpAICoreDef& AICore() { return aicore_; }
    OpMC2Def& MC2() { return mc2_; }

    // Read back by the emulator's runner.
    const std::string& GetOpType() const { return type_; }
    const std::deque<OpParamDef>& inputs() const { return inputs_; }
    const std::deque<OpParamDef>& outputs() const { return outputs_; }
    const std::deque<OpAttrDef>& attrs() const { return attrs_; }
    InferShapeFunc infer_shape() const { return infer_shape_; }
    InferDataTypeFunc infer_dtype() const { return infer_dtype_; }

private:
    static OpParamDef& FindParam(std::deque<OpParamDef>& list, const char* name) {
        for (auto& p : list) {
            if (p.name() == name) {
                return p;
            }
        }
        list.emplace_back(name);
        return list.back();
    }

    std::string type_;
    // deques, so that references handed out by Input()/Attr() stay valid while more are added.
    std::deque<OpParamDef> inputs_;
    std::deque<OpParamDef> outputs_;
    std::deque<OpAttrDef> attrs_;
    InferShapeFunc infer_shape_ = nullptr;
    InferDataTypeFunc infer_dtype_ = nullptr;
    OpAICoreDef aicore_;
    OpMC2Def mc2_;
};

}  // namespace ops
