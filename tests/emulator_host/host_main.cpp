// Test driver for the host emulation headers: compiled together with an operator's op_host/*.cpp, it runs the
// operator's InferShape/InferDataType and tiling for the shapes given on the command line and prints one JSON line.
//
//   host_main [--op NAME] [-i DTYPE:D0,D1,...]... [-a NAME=KIND:VALUE]... [--cores N] [--ub BYTES]
//
// DTYPE is a numpy name (float16, float32, bfloat16, int8, ..., bool); an empty dim list is a scalar.
// KIND is f (float), i (int), b (bool: 0/1/true/false), s (string), li / lf (comma-separated int / float lists).
// Without --op the single registered operator is used.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tw_host/host_api.h"

namespace {

const std::map<std::string, ge::DataType>& dtype_names() {
    static const std::map<std::string, ge::DataType> m = {
        {"float16", ge::DT_FLOAT16}, {"float32", ge::DT_FLOAT},  {"float", ge::DT_FLOAT},   {"bfloat16", ge::DT_BF16},
        {"int8", ge::DT_INT8},       {"uint8", ge::DT_UINT8},    {"int16", ge::DT_INT16},   {"uint16", ge::DT_UINT16},
        {"int32", ge::DT_INT32},     {"uint32", ge::DT_UINT32},  {"int64", ge::DT_INT64},   {"uint64", ge::DT_UINT64},
        {"float64", ge::DT_DOUBLE},  {"double", ge::DT_DOUBLE},  {"bool", ge::DT_BOOL},
    };
    return m;
}

std::string dtype_name(ge::DataType dt) {
    for (const auto& [name, v] : dtype_names()) {
        if (v == dt && name != "float" && name != "double") {
            return name;
        }
    }
    return "undefined";
}

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "host_main: %s\n", msg.c_str());
    std::exit(2);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    if (s.empty()) {
        return out;
    }
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep)) {
        out.push_back(item);
    }
    return out;
}

tw_host::TensorDesc parse_input(const std::string& arg) {
    const size_t colon = arg.find(':');
    if (colon == std::string::npos) {
        die("input '" + arg + "' is not DTYPE:DIMS");
    }
    const auto it = dtype_names().find(arg.substr(0, colon));
    if (it == dtype_names().end()) {
        die("unknown dtype in '" + arg + "'");
    }
    tw_host::TensorDesc d;
    d.dtype = it->second;
    for (const auto& dim : split(arg.substr(colon + 1), ',')) {
        d.shape.push_back(std::stoll(dim));
    }
    return d;
}

std::pair<std::string, tw_host::AttrValue> parse_attr(const std::string& arg) {
    const size_t eq = arg.find('=');
    const size_t colon = arg.find(':', eq);
    if (eq == std::string::npos || colon == std::string::npos) {
        die("attribute '" + arg + "' is not NAME=KIND:VALUE");
    }
    const std::string name = arg.substr(0, eq);
    const std::string kind = arg.substr(eq + 1, colon - eq - 1);
    const std::string value = arg.substr(colon + 1);
    using tw_host::AttrValue;
    if (kind == "f") return {name, AttrValue::Float(std::stod(value))};
    if (kind == "i") return {name, AttrValue::Int(std::stoll(value))};
    if (kind == "b") return {name, AttrValue::Bool(value == "1" || value == "true" || value == "True")};
    if (kind == "s") return {name, AttrValue::Str(value)};
    if (kind == "li") {
        std::vector<int64_t> v;
        for (const auto& x : split(value, ',')) v.push_back(std::stoll(x));
        return {name, AttrValue::ListInt(v)};
    }
    if (kind == "lf") {
        std::vector<float> v;
        for (const auto& x : split(value, ',')) v.push_back(std::stof(x));
        return {name, AttrValue::ListFloat(v)};
    }
    die("unknown attribute kind '" + kind + "'");
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof(buf), "\\u%04x", c);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

template <typename T>
std::string json_list(const std::vector<T>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) {
        out += (i ? "," : "") + std::to_string(v[i]);
    }
    return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
    std::string op;
    std::vector<tw_host::TensorDesc> inputs;
    std::vector<std::pair<std::string, tw_host::AttrValue>> attrs;
    tw_host::PlatformDesc platform;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            die("option '" + a + "' needs a value");
        }
        const std::string v = argv[++i];
        if (a == "--op") op = v;
        else if (a == "-i") inputs.push_back(parse_input(v));
        else if (a == "-a") attrs.push_back(parse_attr(v));
        else if (a == "--cores") platform.vector_cores = static_cast<uint32_t>(std::stoul(v));
        else if (a == "--ub") platform.ub_bytes = std::stoull(v);
        else die("unknown option '" + a + "'");
    }

    const std::vector<std::string> ops = tw_host::registered_ops();
    if (op.empty()) {
        if (ops.size() != 1) {
            die("pass --op: " + std::to_string(ops.size()) + " operators are registered");
        }
        op = ops[0];
    }
    const tw_host::OpInfo* info = tw_host::find_op(op);
    if (info == nullptr) {
        die("operator '" + op + "' is not registered");
    }

    std::vector<tw_host::TensorDesc> outputs;
    std::string error;
    tw_host::TilingResult r;
    try {
        outputs = tw_host::infer_outputs(*info, inputs, attrs);
        r = tw_host::run_tiling(*info, inputs, outputs, attrs, platform);
        error = r.error;
    } catch (const std::exception& e) {
        error = e.what();
    }

    std::string outs = "[";
    for (size_t i = 0; i < outputs.size(); ++i) {
        outs += std::string(i ? "," : "") + "{\"shape\":" + json_list(outputs[i].shape) +
                ",\"dtype\":" + json_string(dtype_name(outputs[i].dtype)) + "}";
    }
    outs += "]";
    const tw_host::TilingClassInfo* tc = info->tiling_class;
    std::printf(
        "{\"op\":%s,\"status\":%u,\"block_dim\":%u,\"tiling_key\":%llu,\"tiling_size\":%zu,"
        "\"tiling_struct\":%s,\"tiling_struct_size\":%zu,\"workspace_sizes\":%s,\"outputs\":%s,\"error\":%s}\n",
        json_string(op).c_str(), r.status, r.block_dim, static_cast<unsigned long long>(r.tiling_key),
        r.tiling_data.size(), json_string(tc ? tc->class_name : "").c_str(), tc ? tc->size : size_t(0),
        json_list(r.workspace_sizes).c_str(), outs.c_str(), json_string(error).c_str());
    return r.status == ge::GRAPH_SUCCESS && error.empty() ? 0 : 1;
}
