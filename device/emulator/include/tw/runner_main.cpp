// The emulator's runner: read a run spec, run the operator's real host tiling, launch the kernel over blockDim
// threads, write outputs, the trace and a result JSON. Linked with the operator's host objects, its kernel object and
// a small generated entry shim (tw_call_kernel).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "tw/launcher.h"
#include "tw/timing.h"
#include "tw_host/host_api.h"

void tw_call_kernel(uint8_t** gm);  // generated: calls the kernel entry with gm[0..n)
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
    std::string trace_path, result_path, chrome_path;
    tw::TimingParams timing;
    uint64_t system_workspace = 16 * 1024 * 1024;
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
            for (int k = 0; k < ndim; ++k) { int64_t v; ls >> v; s.output_shapes[i].push_back(v); }
        } else if (key == "trace") ls >> s.trace_path;
        else if (key == "result") ls >> s.result_path;
        else if (key == "system_workspace") ls >> s.system_workspace;
        else if (key == "chrome_trace") ls >> s.chrome_path;
        else if (key == "timing") { std::string k; ls >> k; s.timing.set(k, ls); }
    }
    return s;
}

uint64_t bytes_of(const tw_host::TensorDesc& d) {
    uint64_t n = 1;
    for (int64_t v : d.shape) n *= static_cast<uint64_t>(v);
    return n * static_cast<uint64_t>(ge::GetSizeByDataType(d.dtype));
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
    auto t0 = std::chrono::steady_clock::now();
    std::vector<tw_host::TensorDesc> outputs;
    tw_host::TilingResult tiling;
    try {
        outputs = tw_host::infer_outputs(*op, spec.inputs, spec.attrs);
        // An aclnn caller allocates outputs with shapes it knows; an InferShape that never sets one (dim count 0)
        // gets the golden's shape, as such a caller would pass it. A shape InferShape did set is never overridden.
        for (size_t i = 0; i < outputs.size() && i < spec.output_shapes.size(); ++i)
            if (outputs[i].shape.empty() && !spec.output_shapes[i].empty()) outputs[i].shape = spec.output_shapes[i];
        tiling = tw_host::run_tiling(*op, spec.inputs, outputs, spec.attrs, spec.platform);
    } catch (const std::exception& e) {
        write_result(spec, error_json("tiling_exception", std::string("the tiling function threw: ") + e.what(), "", 0));
        return 0;
    }
    if (tiling.status != ge::GRAPH_SUCCESS) {
        write_result(spec, error_json("tiling_failed", "the tiling function returned GRAPH_FAILED", "", 0));
        return 0;
    }
    if (tiling.block_dim == 0) {
        write_result(spec, error_json("tiling_failed", "the tiling function set blockDim 0 (or never called SetBlockDim)", "", 0));
        return 0;
    }

    // GM: inputs, outputs, workspace, tiling, each its own allocation so bounds errors can name it.
    std::vector<std::vector<uint8_t>> gm;
    tw::Launch launch;
    launch.ub_bytes = spec.platform.ub_bytes;
    launch.tiling_key = tiling.tiling_key;
    launch.system_workspace = spec.system_workspace;
    std::vector<uint8_t*> args;
    for (size_t i = 0; i < spec.inputs.size(); ++i) {
        std::vector<uint8_t> buf(bytes_of(spec.inputs[i]));
        std::ifstream f(spec.input_paths[i], std::ios::binary);
        f.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
        gm.push_back(std::move(buf));
    }
    for (auto& o : outputs) gm.emplace_back(bytes_of(o), 0);
    uint64_t ws = 0;
    for (size_t w : tiling.workspace_sizes) ws += w;
    gm.emplace_back(ws, 0);
    gm.emplace_back(tiling.tiling_data);
    for (size_t i = 0; i < gm.size(); ++i) {
        std::string name;
        if (i < spec.inputs.size()) name = "input " + spec.input_names[i];
        else if (i < spec.inputs.size() + outputs.size())
            name = "output " + (i - spec.inputs.size() < op->outputs.size() ? op->outputs[i - spec.inputs.size()] : std::string("?"));
        else if (i + 2 == gm.size()) name = "workspace";
        else name = "tiling data";
        uint8_t* base = gm[i].empty() ? nullptr : gm[i].data();
        if (base) launch.regions.push_back({base, gm[i].size(), name});
        args.push_back(base);
    }
    launch.workspace = args[args.size() - 2];
    launch.workspace_size = ws;

    auto t1 = std::chrono::steady_clock::now();
    tw::LaunchResult result = tw::run_blocks(launch, static_cast<int>(tiling.block_dim), [&] { tw_call_kernel(args.data()); });
    auto t2 = std::chrono::steady_clock::now();

    for (size_t i = 0; i < outputs.size() && i < spec.output_paths.size(); ++i) {
        std::ofstream f(spec.output_paths[i], std::ios::binary);
        const auto& buf = gm[spec.inputs.size() + i];
        f.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    }
    uint64_t ub_peak = 0;
    auto t3 = std::chrono::steady_clock::now();
    tw::Scheduler scheduler(spec.timing, launch.names, static_cast<int>(tiling.block_dim), !spec.chrome_path.empty());
    tw::KernelTiming timing = scheduler.run(result.blocks);
    auto t4 = std::chrono::steady_clock::now();
    if (!spec.chrome_path.empty()) tw::write_chrome_trace(spec.chrome_path, timing, launch.names, spec.timing.clock_ghz);
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
    body << ", \"block_dim\": " << tiling.block_dim << ", \"tiling_key\": " << tiling.tiling_key
         << ", \"tiling_size\": " << tiling.tiling_data.size() << ", \"workspace\": [";
    for (size_t i = 0; i < tiling.workspace_sizes.size(); ++i) body << (i ? ", " : "") << tiling.workspace_sizes[i];
    body << "], \"ub_peak_bytes\": " << ub_peak << ", \"outputs\": [";
    for (size_t i = 0; i < outputs.size(); ++i) {
        body << (i ? ", " : "") << "{\"name\": \"" << (i < op->outputs.size() ? op->outputs[i] : "") << "\", \"dtype\": "
             << static_cast<int>(outputs[i].dtype) << ", \"shape\": [";
        for (size_t k = 0; k < outputs[i].shape.size(); ++k) body << (k ? ", " : "") << outputs[i].shape[k];
        body << "]}";
    }
    body << "], " << tw::timing_json(timing, spec.timing.clock_ghz)
         << ", \"schedule_s\": " << std::chrono::duration<double>(t4 - t3).count()
         << ", \"host_s\": " << std::chrono::duration<double>(t1 - t0).count()
         << ", \"kernel_s\": " << std::chrono::duration<double>(t2 - t1).count();
    write_result(spec, body.str());
    return 0;
}
