// The emulator's runner: read a run spec, run the operator's real host tiling, launch the kernel over blockDim
// threads, write outputs, the trace and a result JSON. Linked with the operator's host objects, its kernel object and
// a small generated entry shim (tw_call_kernel).
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "tw/runtime/launcher.h"
#include "tw/timing/model.h"
#include "tw/timing/trace_files.h"
#include "tw_host/host_api.h"
#include "tw_host/host_error.h"

void tw_call_kernel(uint8_t** gm, size_t n);  // generated: calls the kernel entry with gm[0..n)
extern const char* tw_op_name;

namespace {

std::string json_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += c; }
        else if (c == '\n') out += "\\n";
        else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
        else out += c;
    }
    return out;
}

struct Spec {
    std::string op;
    tw_host::PlatformDesc platform;
    std::vector<std::string> input_names, input_paths, output_names, output_paths;
    std::vector<tw_host::TensorDesc> inputs;
    std::vector<std::pair<std::string, tw_host::AttrValue>> attrs;
    std::vector<std::vector<int64_t>> output_shapes;  // the golden's, for outputs InferShape leaves unset
    std::vector<bool> output_shape_given;  // per output: the golden gave a shape (a 0-d one has no dims)
    std::vector<std::pair<size_t, int>> output_dtypes;  // the case's, for outputs whose dtype the sources cannot say
    std::string trace_path, result_path, chrome_path, sites_path;
    tw::TimingParams timing;
    uint64_t system_workspace = 16 * 1024 * 1024;
    bool outputs_zeroed = false;  // `outputs_init zeros`: the case's outputs start zeroed instead of poisoned
    bool screen = false;  // `screen`: the tiling, then block 0 up to its first copy or vector instruction
};

Spec read_spec(const char* path) {
    Spec s;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string key;
        ls >> key;
        if (key == "op") ls >> s.op;
        else if (key == "platform") ls >> s.platform.vector_cores >> s.platform.cube_cores >> s.platform.ub_bytes >> s.platform.l1_bytes;
        else if (key == "input") {
            std::string name, path2;
            int dtype, ndim;
            ls >> name >> dtype >> ndim;
            tw_host::TensorDesc d;
            d.dtype = static_cast<ge::DataType>(dtype);
            for (int i = 0; i < ndim; ++i) { int64_t v; ls >> v; d.shape.push_back(v); }
            ls >> path2;
            s.inputs.push_back(d);
            s.input_names.push_back(name);
            s.input_paths.push_back(path2);
        } else if (key == "output") {
            std::string name, path2;
            ls >> name >> path2;
            s.output_names.push_back(name);
            s.output_paths.push_back(path2);
        } else if (key == "attr") {
            std::string name, kind;
            ls >> name >> kind;
            tw_host::AttrValue v;
            if (kind == "f") { v.kind = tw_host::AttrValue::FLOAT; ls >> v.f; }
            else if (kind == "i") { v.kind = tw_host::AttrValue::INT; ls >> v.i; }
            else if (kind == "b") { v.kind = tw_host::AttrValue::BOOL; int b; ls >> b; v.b = b != 0; }
            else if (kind == "s") { v.kind = tw_host::AttrValue::STR; ls >> v.s; }
            else if (kind == "li") { v.kind = tw_host::AttrValue::LIST_INT; int64_t x; while (ls >> x) v.li.push_back(x); }
            else if (kind == "lf") { v.kind = tw_host::AttrValue::LIST_FLOAT; float x; while (ls >> x) v.lf.push_back(x); }
            s.attrs.emplace_back(name, v);
        } else if (key == "output_shape") {
            size_t i;
            int ndim;
            ls >> i >> ndim;
            if (s.output_shapes.size() <= i) s.output_shapes.resize(i + 1);
            if (s.output_shape_given.size() <= i) s.output_shape_given.resize(i + 1);
            s.output_shape_given[i] = true;
            for (int k = 0; k < ndim; ++k) { int64_t v; ls >> v; s.output_shapes[i].push_back(v); }
        } else if (key == "output_dtype") {
            size_t i;
            int dtype;
            ls >> i >> dtype;
            s.output_dtypes.emplace_back(i, dtype);
        } else if (key == "trace") ls >> s.trace_path;
        else if (key == "result") ls >> s.result_path;
        else if (key == "system_workspace") ls >> s.system_workspace;
        else if (key == "outputs_init") { std::string v; ls >> v; s.outputs_zeroed = v == "zeros"; }
        else if (key == "screen") s.screen = true;
        else if (key == "chrome_trace") ls >> s.chrome_path;
        else if (key == "site_uses") ls >> s.sites_path;
        else if (key == "timing") { std::string k; ls >> k; s.timing.set(k, ls); }
    }
    return s;
}

uint64_t elements_of(const std::vector<int64_t>& shape) {
    uint64_t n = 1;
    for (int64_t v : shape) n *= static_cast<uint64_t>(v);
    return n;
}

uint64_t bytes_of(const tw_host::TensorDesc& d) {
    return elements_of(d.shape) * static_cast<uint64_t>(ge::GetSizeByDataType(d.dtype));
}

std::string dims_text(const std::vector<int64_t>& shape) {
    std::string dims;
    for (int64_t d : shape) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    return "[" + dims + "]";
}

constexpr size_t kNoAlias = static_cast<size_t>(-1);

// In-place outputs: the output tensor `names[i]` that has an input's name (`this->Input("var")` and
// `this->Output("var")`, or a spec output of an OpDef with no outputs naming the input it reads back) is that input's
// memory on a device, so the runner gives it the input's GM buffer. The input's position, or kNoAlias.
std::vector<size_t> in_place_aliases(const Spec& s, const std::vector<std::string>& names) {
    std::vector<size_t> alias(names.size(), kNoAlias);
    for (size_t i = 0; i < names.size(); ++i)
        for (size_t j = 0; j < s.input_names.size(); ++j)
            if (s.input_names[j] == names[i] && !s.inputs[j].absent) alias[i] = j;
    return alias;
}

// One IR input or output of the OpDef and the tensors bound to it: one, none (an OPTIONAL input left out) or, for a
// DYNAMIC one, a list. The case names a list's tensors `x[0]`, `x[1]`, ... (a single tensor may keep the name `x`).
struct Binding {
    std::string name;
    bool dynamic = false;
    std::vector<size_t> items;  // positions in the spec's (reordered) tensor lists
};

bool instance_of(const std::string& given, const std::string& ir, bool dynamic) {
    if (given == ir) return true;
    return dynamic && given.size() > ir.size() + 2 && given.compare(0, ir.size(), ir) == 0 && given[ir.size()] == '[' &&
           given.back() == ']';
}

// Puts the case's inputs in OpDef order, with an absent placeholder for each OPTIONAL input the case leaves out (the
// kernel entry still has a parameter for it, which receives nullptr, and the tiling context sees it as absent, so the
// inputs after it keep their positions) and every tensor of a DYNAMIC input in a row. Inputs the OpDef does not name
// stay at the end, each its own binding, in the case's order.
std::vector<Binding> bind_inputs(Spec& s, const tw_host::OpInfo& op) {
    std::vector<std::string> names, paths;
    std::vector<tw_host::TensorDesc> descs;
    std::vector<bool> used(s.input_names.size(), false);
    std::vector<Binding> out;
    auto take = [&](size_t i, Binding& b) {
        used[i] = true;
        b.items.push_back(names.size());
        names.push_back(s.input_names[i]);
        paths.push_back(s.input_paths[i]);
        descs.push_back(s.inputs[i]);
    };
    for (size_t k = 0; k < op.inputs.size(); ++k) {
        Binding b;
        b.name = op.inputs[k];
        const ops::Option type = k < op.input_param_types.size() ? op.input_param_types[k] : ops::REQUIRED;
        b.dynamic = type == ops::DYNAMIC;
        for (size_t i = 0; i < s.input_names.size(); ++i) {
            if (!used[i] && instance_of(s.input_names[i], b.name, b.dynamic)) {
                take(i, b);
                if (!b.dynamic) break;
            }
        }
        if (b.items.empty() && type == ops::OPTIONAL) {
            tw_host::TensorDesc absent;
            absent.absent = true;
            b.items.push_back(names.size());
            names.push_back(b.name);
            paths.emplace_back();
            descs.push_back(absent);
        }
        out.push_back(b);
    }
    for (size_t i = 0; i < s.input_names.size(); ++i) {
        if (used[i]) continue;
        Binding b;
        b.name = s.input_names[i];
        take(i, b);
        out.push_back(b);
    }
    s.input_names = names;
    s.input_paths = paths;
    s.inputs = descs;
    return out;
}

// The outputs the spec lists (the golden's count: a DYNAMIC output has as many tensors as the golden returns for it),
// grouped by IR output. Spec outputs are listed in OpDef order already. An OpDef that declares no output (the kernel
// writes into an input) has no output parameter in its entry: no binding, the spec's outputs are read-backs of inputs.
std::vector<Binding> bind_outputs(const Spec& s, const tw_host::OpInfo& op) {
    std::vector<Binding> out;
    if (op.has_opdef && op.outputs.empty()) return out;
    size_t next = 0;
    for (size_t k = 0; k < op.outputs.size(); ++k) {
        Binding b;
        b.name = op.outputs[k];
        b.dynamic = k < op.output_param_types.size() && op.output_param_types[k] == ops::DYNAMIC;
        while (next < s.output_names.size() && instance_of(s.output_names[next], b.name, b.dynamic)) {
            b.items.push_back(next++);
            if (!b.dynamic) break;
        }
        if (b.items.empty()) b.items.push_back(next++);  // unnamed in the spec: one tensor in this position
        out.push_back(b);
    }
    if (op.outputs.empty()) {
        for (size_t i = 0; i < (s.output_names.empty() ? 1 : s.output_names.size()); ++i) {
            Binding b;
            b.name = i < s.output_names.size() ? s.output_names[i] : "y";
            b.items.push_back(i);
            out.push_back(b);
        }
    }
    return out;
}

// The GM bytes of a tensor list as the kernel's ListTensorDesc reads them: the byte offset of the pointer table,
// then per tensor a word holding its dim count (low 32 bits) and its index (high 32 bits) followed by its dims, then
// the tensors' addresses.
std::vector<uint8_t> tensor_list(const std::vector<const tw_host::TensorDesc*>& descs,
                                 const std::vector<uint8_t*>& ptrs) {
    std::vector<uint64_t> words{0};
    for (size_t i = 0; i < descs.size(); ++i) {
        words.push_back(static_cast<uint64_t>(descs[i]->shape.size()) | (static_cast<uint64_t>(i) << 32));
        for (int64_t d : descs[i]->shape) words.push_back(static_cast<uint64_t>(d));
    }
    words[0] = words.size() * sizeof(uint64_t);
    for (uint8_t* p : ptrs) words.push_back(reinterpret_cast<uint64_t>(p));
    std::vector<uint8_t> bytes(words.size() * sizeof(uint64_t));
    std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
}

// The operator's host code (InferShape, tiling) runs in this process: a crash there becomes a typed error naming it
// rather than a bare signal. The result is written from the handler with write(2) only.
int g_result_fd = -1;
std::string g_crash_json;

extern "C" void on_host_crash(int sig) {
    const char* name = sig == SIGSEGV ? "SIGSEGV" : sig == SIGBUS ? "SIGBUS" : sig == SIGFPE ? "SIGFPE" : "a signal";
    std::string body = g_crash_json;
    size_t at = body.find("@SIG@");
    if (at != std::string::npos) body.replace(at, 5, name);  // the message is prepared in advance; only copied here
    if (g_result_fd >= 0) {
        ssize_t n = write(g_result_fd, body.data(), body.size());
        (void)n;
    }
    _exit(0);
}

void guard_host_code(const Spec& spec) {
    g_crash_json = "{\"status\": \"error\", \"error\": {\"kind\": \"host_crash\", \"message\": \"the operator's host code "
                   "(InferShape or the tiling function) crashed with @SIG@: a null or wild pointer, e.g. "
                   "GetInputTensor(i)->GetData() of an input the OpDef does not declare ValueDepend, or a division by "
                   "zero\", \"file\": \"\", \"line\": 0}}\n";
    g_result_fd = open(spec.result_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE}) std::signal(sig, on_host_crash);
}

void unguard_host_code() {
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE}) std::signal(sig, SIG_DFL);
    if (g_result_fd >= 0) close(g_result_fd);
    g_result_fd = -1;
}

void write_result(const Spec& s, const std::string& body) {
    std::ofstream out(s.result_path);
    out << "{" << body << "}\n";
}

std::string error_json(const std::string& kind, const std::string& msg, const std::string& file, int line) {
    return "\"status\": \"error\", \"error\": {\"kind\": \"" + json_escape(kind) + "\", \"message\": \"" +
           json_escape(msg) + "\", \"file\": \"" + json_escape(file) + "\", \"line\": " + std::to_string(line) + "}";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: runner SPEC\n";
        return 2;
    }
    Spec spec = read_spec(argv[1]);
    const tw_host::OpInfo* op = tw_host::find_op(spec.op.empty() ? tw_op_name : spec.op);
    if (op == nullptr) {
        std::string known;
        for (auto& n : tw_host::registered_ops()) known += (known.empty() ? "" : ", ") + n;
        write_result(spec, error_json("no_opdef", "no OpDef named " + spec.op + " was registered with OP_ADD (found: " +
                                                      known + ")", "", 0));
        return 0;
    }
    const std::vector<Binding> in_bind = bind_inputs(spec, *op);
    // The tiling and InferShape see the values of ValueDepend inputs (a paddings or axis tensor), as on a device.
    for (size_t k = 0; k < in_bind.size() && k < op->input_value_depend.size(); ++k) {
        if (!op->input_value_depend[k]) continue;
        for (size_t i : in_bind[k].items) {
            if (spec.inputs[i].absent) continue;
            spec.inputs[i].data.resize(bytes_of(spec.inputs[i]));
            std::ifstream f(spec.input_paths[i], std::ios::binary);
            f.read(reinterpret_cast<char*>(spec.inputs[i].data.data()), static_cast<std::streamsize>(spec.inputs[i].data.size()));
        }
    }
    guard_host_code(spec);
    const std::vector<Binding> out_bind = bind_outputs(spec, *op);
    std::vector<uint32_t> out_counts;
    std::vector<bool> out_dynamic;  // per output tensor
    for (const Binding& b : out_bind) {
        out_counts.push_back(static_cast<uint32_t>(b.items.size()));
        out_dynamic.insert(out_dynamic.end(), b.items.size(), b.dynamic);
    }
    std::vector<std::string> out_names;
    for (const Binding& b : out_bind)
        for (size_t j = 0; j < b.items.size(); ++j)
            out_names.push_back(b.dynamic ? b.name + "[" + std::to_string(j) + "]" : b.name);
    const bool no_opdef_outputs = op->has_opdef && op->outputs.empty();
    if (no_opdef_outputs) out_names = spec.output_names;
    const std::vector<size_t> alias = in_place_aliases(spec, out_names);
    if (no_opdef_outputs) {
        for (size_t i = 0; i < alias.size(); ++i) {
            if (alias[i] != kNoAlias) continue;
            write_result(spec, error_json("bad_case", "the OpDef declares no output, so the golden's answer is the "
                                          "updated inputs in OpDef order, but " + out_names[i] + " is not an input",
                                          "", 0));
            return 0;
        }
    }
    auto t0 = std::chrono::steady_clock::now();
    std::vector<tw_host::TensorDesc> outputs;
    std::vector<bool> from_golden;  // outputs whose shape the golden gave
    std::vector<std::vector<int64_t>> inferred(out_names.size());  // InferShape's shape where the golden's replaced it
    tw_host::TilingResult tiling;
    try {
        // With no OpDef output there is nothing to infer: the read-backs are the inputs themselves.
        if (!no_opdef_outputs) outputs = tw_host::infer_outputs(*op, spec.inputs, spec.attrs, out_counts);
        outputs.resize(out_names.size());
        // An aclnn caller allocates the outputs with shapes it knows: where the operator registers no InferShape
        // (the emulator would copy input 0's shape), its InferShape never sets an output (dim count 0), or the output
        // is a DYNAMIC list (always the caller's), the golden's shape stands in for the caller's. Where InferShape
        // sets a shape whose element count differs from the golden's (public reductions often copy x's shape to y),
        // the caller would still allocate what it expects: the golden's shape, and the result says InferShape's.
        for (size_t i = 0; i < outputs.size() && i < spec.output_shapes.size(); ++i) {
            const bool dyn = i < out_dynamic.size() && out_dynamic[i];
            const std::vector<int64_t>& want = spec.output_shapes[i];
            if (alias[i] != kNoAlias || i >= spec.output_shape_given.size() || !spec.output_shape_given[i]) continue;
            const bool unset = dyn || op->infer_shape == nullptr || outputs[i].shape.empty();
            const bool differs = !unset && elements_of(outputs[i].shape) != elements_of(want);
            if (unset || differs) {
                from_golden.resize(outputs.size());
                from_golden[i] = outputs[i].shape != want;
                if (differs) inferred[i] = outputs[i].shape;
                outputs[i].shape = want;
            }
        }
        // The case's dtype for an output (the manifest's [cases.outputs.<name>]), before the tiling sees it.
        for (const auto& [i, dtype] : spec.output_dtypes)
            if (i < outputs.size()) outputs[i].dtype = static_cast<ge::DataType>(dtype);
        // An in-place output is its input's tensor: same shape, dtype and memory.
        for (size_t i = 0; i < outputs.size(); ++i) {
            if (alias[i] == kNoAlias) continue;
            outputs[i] = spec.inputs[alias[i]];
            outputs[i].data.clear();
        }
        tw_host::last_host_error().clear();
        tiling = tw_host::run_tiling(*op, spec.inputs, outputs, spec.attrs, spec.platform);
    } catch (const std::exception& e) {
        unguard_host_code();
        write_result(spec, error_json("tiling_exception", std::string("the tiling function threw: ") + e.what(), "", 0));
        return 0;
    }
    unguard_host_code();
    if (tiling.status != ge::GRAPH_SUCCESS) {
        // Why, where the host code said so: the last error it logged (OP_LOGE, a failed check, MKI_LOG(ERROR)).
        const std::string& why = tw_host::last_host_error();
        write_result(spec, error_json("tiling_failed", "the tiling function returned GRAPH_FAILED" +
                                                           (why.empty() ? std::string() : ": " + why), "", 0));
        return 0;
    }
    if (tiling.block_dim == 0) {
        write_result(spec, error_json("tiling_failed", "the tiling function set blockDim 0 (or never called SetBlockDim)", "", 0));
        return 0;
    }

    // GM: every input and output tensor, the tensor lists of DYNAMIC ones, the workspace and the tiling data. Each
    // allocation gets the device allocator's 32-byte rounding and 32 bytes of padding (zeros), then a guard of
    // tw::kGmGuard poison bytes standing for the memory that lies after it on a device (an access there is a
    // warning, beyond it an error); the tensors of one DYNAMIC list lie back to back at 512-byte boundaries, as a
    // framework's caching allocator places a list it allocates in one go (kernels that derive a row pitch from the
    // distance of two list members rely on it), with the guard after the last.
    tw::Launch launch;
    launch.ub_bytes = spec.platform.ub_bytes;
    launch.tiling_key = tiling.tiling_key;
    launch.system_workspace = spec.system_workspace;
    launch.screening = spec.screen;
    std::vector<std::vector<uint8_t>> storage;
    struct GmBuf {
        uint8_t* base = nullptr;
        uint64_t bytes = 0;  // the tensor's own length
        uint64_t cap = 0;    // what an access may touch
        std::string name;
        bool alias = false;  // an in-place output: the input's buffer, not a region of its own
        uint64_t guard = 0;  // poison bytes after cap
    };
    // A zeroed allocation of `cap` bytes followed by the poisoned guard.
    auto guarded = [&](uint64_t cap) {
        storage.emplace_back(cap + tw::kGmGuard, 0);
        std::memset(storage.back().data() + cap, tw::kGmPoison, tw::kGmGuard);
        return storage.back().data();
    };
    std::vector<GmBuf> bufs;  // inputs, then outputs (tensor order), then lists, workspace, tiling
    auto alloc = [&](uint64_t bytes, const std::string& name) {
        const uint64_t cap = bytes ? tw::device_alloc_size(bytes) : 0;
        bufs.push_back({bytes ? guarded(cap) : nullptr, bytes, cap, name, false, bytes ? tw::kGmGuard : 0});
    };
    // Places the tensors `items` (positions in `descs`, buffers from `first` on) of a DYNAMIC binding in one block.
    auto alloc_list = [&](const Binding& b, size_t first, const std::vector<tw_host::TensorDesc>& descs) {
        std::vector<uint64_t> offs;
        uint64_t total = 0;
        for (size_t i : b.items) {
            offs.push_back(total);
            total += (std::max<uint64_t>(bytes_of(descs[i]), 1) + 32 + 511) / 512 * 512;
        }
        uint8_t* block = guarded(total);
        for (size_t k = 0; k < b.items.size(); ++k) {
            GmBuf& g = bufs[first + b.items[k]];
            g.base = block + offs[k];
            g.cap = (k + 1 < offs.size() ? offs[k + 1] : total) - offs[k];
            g.guard = k + 1 < offs.size() ? 0 : tw::kGmGuard;
        }
    };
    for (size_t i = 0; i < spec.inputs.size(); ++i) {
        if (spec.inputs[i].absent) {  // an optional input left out: the entry gets nullptr
            bufs.push_back({nullptr, 0, 0, "input " + spec.input_names[i]});
            continue;
        }
        bufs.push_back({nullptr, bytes_of(spec.inputs[i]), 0, "input " + spec.input_names[i]});
    }
    const size_t out_base = bufs.size();
    for (size_t i = 0; i < outputs.size(); ++i) {
        std::string name = "output " + (i < out_names.size() ? out_names[i] : "?");
        if (i < from_golden.size() && from_golden[i]) {  // say so: an overrun may be the golden's mistake
            name += " (shape " + dims_text(outputs[i].shape) + " taken from the golden, as " +
                    (!inferred[i].empty() ? "InferShape gives " + dims_text(inferred[i]) + ")"
                     : op->infer_shape == nullptr ? "the operator registers no InferShape)"
                                                  : "InferShape leaves it unset)");
        }
        if (alias[i] != kNoAlias) {  // filled in below, once the input has its buffer
            bufs.push_back({nullptr, 0, 0, name, true});
            continue;
        }
        bufs.push_back({nullptr, bytes_of(outputs[i]), 0, name});
    }
    for (const Binding& b : in_bind) if (b.dynamic && !b.items.empty()) alloc_list(b, 0, spec.inputs);
    for (const Binding& b : out_bind) if (b.dynamic && !b.items.empty()) alloc_list(b, out_base, outputs);
    for (GmBuf& g : bufs) {
        if (g.base != nullptr || g.bytes == 0) continue;
        g.cap = tw::device_alloc_size(g.bytes);
        g.base = guarded(g.cap);
        g.guard = tw::kGmGuard;
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        if (alias[i] == kNoAlias) continue;
        const GmBuf& in = bufs[alias[i]];
        bufs[out_base + i] = {in.base, in.bytes, in.cap, bufs[out_base + i].name, true, in.guard};
    }
    // A device does not clear an output before the kernel runs: outputs start as a poison pattern (all bits set,
    // nan for floats), so a kernel that accumulates into an output it never zeroed fails here as it does there.
    if (!spec.outputs_zeroed)
        for (size_t i = 0; i < outputs.size(); ++i)
            if (bufs[out_base + i].base != nullptr && !bufs[out_base + i].alias) std::memset(bufs[out_base + i].base, 0xFF, bufs[out_base + i].bytes);
    for (size_t i = 0; i < spec.inputs.size(); ++i) {
        if (bufs[i].base == nullptr) continue;
        std::ifstream f(spec.input_paths[i], std::ios::binary);
        f.read(reinterpret_cast<char*>(bufs[i].base), static_cast<std::streamsize>(bufs[i].bytes));
    }
    // The entry's parameters: one pointer per IR input and output (a tensor list for a DYNAMIC one).
    std::vector<uint8_t*> args;
    auto bind_args = [&](const std::vector<Binding>& binds, size_t first, const std::vector<tw_host::TensorDesc>& descs) {
        for (const Binding& b : binds) {
            if (!b.dynamic) {
                args.push_back(b.items.empty() ? nullptr : bufs[first + b.items[0]].base);
                continue;
            }
            std::vector<const tw_host::TensorDesc*> ds;
            std::vector<uint8_t*> ptrs;
            for (size_t i : b.items) {
                ds.push_back(&descs[i]);
                ptrs.push_back(bufs[first + i].base);
            }
            const std::vector<uint8_t> list = tensor_list(ds, ptrs);
            alloc(list.size(), "tensor list of " + b.name);
            std::memcpy(bufs.back().base, list.data(), list.size());
            args.push_back(bufs.back().base);
        }
    };
    bind_args(in_bind, 0, spec.inputs);
    bind_args(out_bind, out_base, outputs);
    uint64_t ws = 0;
    for (size_t w : tiling.workspace_sizes) ws += w;
    alloc(ws, "workspace");
    args.push_back(bufs.back().base);
    alloc(tiling.tiling_data.size(), "tiling data");
    if (!tiling.tiling_data.empty()) std::memcpy(bufs.back().base, tiling.tiling_data.data(), tiling.tiling_data.size());
    args.push_back(bufs.back().base);
    for (const GmBuf& g : bufs)
        if (g.base != nullptr && !g.alias) launch.regions.push_back({g.base, g.cap, g.name, g.bytes, g.guard});
    launch.workspace = args[args.size() - 2];
    launch.workspace_size = ws;

    auto t1 = std::chrono::steady_clock::now();
    tw::LaunchResult result = tw::run_blocks(launch, static_cast<int>(tiling.block_dim), [&] { tw_call_kernel(args.data(), args.size()); });
    auto t2 = std::chrono::steady_clock::now();
    if (spec.screen) {  // what the tiling and block 0's set-up said: nothing was computed, so no outputs or timing
        write_result(spec, (result.ok ? "\"status\": \"ok\", \"error\": null"
                                      : error_json(result.kind, result.message, result.file, result.line)) +
                               ", \"warnings\": " + tw::warnings_json(result.warnings) + ", \"block_dim\": " +
                               std::to_string(tiling.block_dim) + ", \"tiling_key\": " +
                               std::to_string(tiling.tiling_key) + ", \"tiling_digest\": \"" +
                               tw_host::digest(tiling.tiling_data) + "\", \"init_buffers\": " +
                               tw::buffers_json(result.blocks[0].buffers));  // blockDim > 0: block 0 exists
        return 0;
    }

    for (size_t i = 0; i < outputs.size() && i < spec.output_paths.size(); ++i) {
        std::ofstream f(spec.output_paths[i], std::ios::binary);
        f.write(reinterpret_cast<const char*>(bufs[out_base + i].base), static_cast<std::streamsize>(bufs[out_base + i].bytes));
    }
    uint64_t ub_peak = 0;
    auto t3 = std::chrono::steady_clock::now();
    tw::Scheduler scheduler(spec.timing, launch.names, static_cast<int>(tiling.block_dim), !spec.chrome_path.empty(),
                            !spec.sites_path.empty());
    tw::KernelTiming timing = scheduler.run(result.blocks);
    auto t4 = std::chrono::steady_clock::now();
    if (!spec.chrome_path.empty()) tw::write_chrome_trace(spec.chrome_path, timing, launch.names, spec.timing.clock_ghz);
    if (!spec.sites_path.empty()) tw::write_site_uses(spec.sites_path, timing, launch.names);
    if (!spec.trace_path.empty()) {
        std::ofstream tr(spec.trace_path);
        tr << "names";
        for (auto& n : launch.names) tr << "\t" << n;
        tr << "\n";
        for (size_t b = 0; b < result.blocks.size(); ++b) {
            for (const auto& r : result.blocks[b].trace)
                tr << b << ' ' << static_cast<char>(r.kind) << ' ' << int(r.pipe) << ' ' << r.op << ' ' << r.file << ' '
                   << r.line << ' ' << r.bytes << ' ' << r.elems << ' ' << r.repeats << ' ' << r.a << ' ' << r.b << ' '
                   << int(r.dtype) << ' ' << int(r.flags) << '\n';
        }
    }
    for (auto& b : result.blocks) ub_peak = b.ub_peak > ub_peak ? b.ub_peak : ub_peak;

    std::ostringstream body;
    if (result.ok) body << "\"status\": \"ok\", \"error\": null";
    else body << error_json(result.kind, result.message, result.file, result.line);
    body << ", \"warnings\": " << tw::warnings_json(result.warnings);
    body << ", \"block_dim\": " << tiling.block_dim << ", \"tiling_key\": " << tiling.tiling_key
         << ", \"tiling_size\": " << tiling.tiling_data.size() << ", \"workspace\": [";
    for (size_t i = 0; i < tiling.workspace_sizes.size(); ++i) body << (i ? ", " : "") << tiling.workspace_sizes[i];
    body << "], \"ub_peak_bytes\": " << ub_peak;
    if (!result.blocks.empty()) body << ", \"init_buffers\": " << tw::buffers_json(result.blocks[0].buffers);
    body << ", \"outputs\": [";
    for (size_t i = 0; i < outputs.size(); ++i) {
        body << (i ? ", " : "") << "{\"name\": \"" << (i < out_names.size() ? out_names[i] : "") << "\", \"dtype\": "
             << static_cast<int>(outputs[i].dtype) << ", \"shape\": [";
        for (size_t k = 0; k < outputs[i].shape.size(); ++k) body << (k ? ", " : "") << outputs[i].shape[k];
        body << "]";
        if (!inferred[i].empty()) {  // the golden's shape replaced InferShape's: the caller reports it
            body << ", \"infer_shape\": [";
            for (size_t k = 0; k < inferred[i].size(); ++k) body << (k ? ", " : "") << inferred[i][k];
            body << "]";
        }
        if (alias[i] != kNoAlias) body << ", \"in_place\": \"" << json_escape(spec.input_names[alias[i]]) << "\"";
        body << "}";
    }
    body << "], " << tw::timing_json(timing, spec.timing.clock_ghz)
         << ", \"schedule_s\": " << std::chrono::duration<double>(t4 - t3).count()
         << ", \"host_s\": " << std::chrono::duration<double>(t1 - t0).count()
         << ", \"kernel_s\": " << std::chrono::duration<double>(t2 - t1).count();
    write_result(spec, body.str());
    return 0;
}
