// Kernel-invocation operators: the user's own host main launches `kernel<<<blockDim, l2ctrl, stream>>>(args)`.
// tilewise rewrites each launch, in place and on the same line, to `::tw::launcher_for(kernel, blockDim)(args)`,
// which runs the blocks as threads. Errors and the trace are written at exit to the files named by TW_RESULT and
// TW_TRACE, and a kernel error stops the program with status 3 so a host that ignores failures cannot hide them.
// With TW_CAPTURE set to a folder, the first launch also writes there the bytes of every pointer argument that lies
// in an aclrtMalloc'd region, before (arg<i>.in) and after (arg<i>.out) the kernel, and at exit capture.txt gives the
// number of launches and says which of them the host filled before it and read back after it (tw/runtime/acl_memory.h): how
// tilewise checks a program that draws its own inputs and writes no output file (device/emulator/device.py), which
// sets TW_CAPTURE only for a program whose host code names no output file of its own.
// With TW_TIMING naming a file of `timing KEY VALUE...` lines (the chip's constants, as a runner spec gives them),
// every launch is also timed by the pipeline model (tw/timing/model.h) and the result gets the launches' summed times.
#pragma once
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tw/runtime/acl_memory.h"
#include "tw/runtime/launcher.h"
#include "tw/timing/model.h"

namespace tw {

struct InvocationLog {
    std::mutex mu;
    std::vector<std::string> trace_lines;
    std::string result = "\"status\": \"ok\", \"error\": null";
    std::vector<Warning> warnings;  // every launch's
    uint32_t launches = 0;
    uint32_t block_dim = 0;
    uint64_t ub_peak = 0;
    struct CapturedArg {
        size_t index;
        long region;
        size_t bytes;
    };
    std::vector<CapturedArg> captured;  // the first launch's
    uint64_t capture_stamp = 0;
    bool timed = false;
    KernelTiming timing;  // summed over the launches: a host that launches twice waits for both
    double longest_us = 0;  // the longest launch, whose bottleneck and pipe ratios the sum reports

    ~InvocationLog() { flush(); }
    void flush() {
        const char* dir = std::getenv("TW_CAPTURE");
        if (dir != nullptr && capture_stamp != 0) {
            std::ofstream out(std::string(dir) + "/capture.txt");
            out << "launches " << launches << "\n";
            tw_acl::Memory& mem = tw_acl::memory();
            for (const CapturedArg& c : captured)
                out << "arg " << c.index << ' ' << c.bytes << ' ' << mem.filled_before(c.region, capture_stamp) << ' '
                    << mem.read_after(c.region, capture_stamp) << "\n";
        }
        if (const char* path = std::getenv("TW_RESULT")) {
            std::ofstream out(path);
            out << "{" << result << ", \"warnings\": " << warnings_json(warnings) << ", \"block_dim\": " << block_dim << ", \"tiling_key\": 0, \"launches\": " << launches
                << ", \"ub_peak_bytes\": " << ub_peak << (timed ? ", " + timing_json(timing, 0) : std::string()) << "}\n";
        }
        if (const char* path = std::getenv("TW_TRACE")) {
            std::ofstream out(path);
            for (auto& l : trace_lines) out << l << '\n';
        }
    }
};

inline InvocationLog& invocation_log() { static InvocationLog log; return log; }

// The timing constants named by TW_TIMING, read once; null when the run asked for no timing.
inline const TimingParams* invocation_timing() {
    static const std::unique_ptr<TimingParams> params = [] {
        const char* path = std::getenv("TW_TIMING");
        if (path == nullptr) return std::unique_ptr<TimingParams>();
        auto p = std::make_unique<TimingParams>();
        std::ifstream in(path);
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream ls(line);
            std::string word, key;
            if (ls >> word >> key && word == "timing") p->set(key, ls);
        }
        return p;
    }();
    return params.get();
}

// One launch's time added to the log's sum (cycles, launch overhead and pipe busy time add up; waves is the most
// any launch needed; the bottleneck and the pipe ratios are the longest launch's).
inline void add_launch_timing(InvocationLog& log, const KernelTiming& kt) {
    KernelTiming& sum = log.timing;
    if (!log.timed || kt.time_us > log.longest_us) {
        sum.bottleneck = kt.bottleneck;
        for (int k = 0; k < TP_COUNT; ++k) sum.ratio[k] = kt.ratio[k];
        log.longest_us = kt.time_us;
    }
    sum.cycles += kt.cycles;
    sum.launch_us += kt.launch_us;
    sum.time_us += kt.time_us;
    for (int k = 0; k < TP_COUNT; ++k) sum.busy_us[k] += kt.busy_us[k];
    sum.waves = std::max(log.timed ? sum.waves : 0, kt.waves);
    log.timed = true;
}

inline std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
    }
    return out;
}

inline void capture_bytes(const std::string& path, const void* p, size_t n) {
    std::ofstream(path, std::ios::binary).write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
}

template <typename A>
const void* pointer_of(const A& a) {
    if constexpr (std::is_pointer_v<A>) return reinterpret_cast<const void*>(a);
    else return nullptr;
}

template <typename F>
struct KernelLauncher {
    F* fn;
    uint32_t block_dim;

    template <typename... Args>
    void operator()(Args... args) const {
        // the arguments in aclrtMalloc'd memory, saved before and after the kernel when TW_CAPTURE asks for them:
        // the first launch's only, since tilewise judges a capture only when the program launched once (a later
        // launch's inputs may be an earlier one's outputs, which no golden of the case describes)
        const char* dir = std::getenv("TW_CAPTURE");
        if (dir != nullptr) {
            InvocationLog& log = invocation_log();
            std::lock_guard<std::mutex> lock(log.mu);
            if (log.capture_stamp != 0 || log.launches != 0) dir = nullptr;
        }
        std::vector<InvocationLog::CapturedArg> captured;
        uint64_t stamp = 0;
        if (dir != nullptr) {
            const void* ptrs[] = {pointer_of(args)..., nullptr};
            tw_acl::Memory& mem = tw_acl::memory();
            {
                std::lock_guard<std::mutex> lock(mem.mu);
                for (size_t i = 0; i < sizeof...(Args); ++i) {
                    long r = ptrs[i] ? mem.find(ptrs[i]) : -1;
                    if (r < 0) continue;
                    const uint8_t* p = static_cast<const uint8_t*>(ptrs[i]);
                    captured.push_back({i, r, static_cast<size_t>(mem.regions[r].base + mem.regions[r].size - p)});
                }
            }
            stamp = mem.stamp();
            for (const auto& c : captured)
                capture_bytes(std::string(dir) + "/arg" + std::to_string(c.index) + ".in", ptrs[c.index], c.bytes);
            InvocationLog& log = invocation_log();
            std::lock_guard<std::mutex> lock(log.mu);
            log.captured = captured;
            log.capture_stamp = stamp;
        }
        Launch l;
        if (const char* ub = std::getenv("TW_UB_BYTES")) l.ub_bytes = std::strtoull(ub, nullptr, 10);
        l.tiling_key = 0;
        // The host allocated GM itself (malloc, vectors or the ACL stub), so bounds are not known here.
        LaunchResult r = run_blocks(l, static_cast<int>(block_dim), [&] { fn(args...); });
        if (dir != nullptr) {
            const void* ptrs[] = {pointer_of(args)..., nullptr};
            for (const auto& c : captured)
                capture_bytes(std::string(dir) + "/arg" + std::to_string(c.index) + ".out", ptrs[c.index], c.bytes);
        }
        const TimingParams* timing = r.ok ? invocation_timing() : nullptr;
        KernelTiming kt;
        if (timing != nullptr) kt = Scheduler(*timing, l.names, static_cast<int>(block_dim), false).run(r.blocks);
        InvocationLog& log = invocation_log();
        std::lock_guard<std::mutex> lock(log.mu);
        ++log.launches;
        if (timing != nullptr) add_launch_timing(log, kt);
        for (const Warning& w : r.warnings) {  // launches repeat sites: merge them like blocks
            bool seen = false;
            for (Warning& v : log.warnings) {
                if (v.line == w.line && v.kind == w.kind && v.file == w.file) { v.count += w.count; seen = true; break; }
            }
            if (!seen) log.warnings.push_back(w);
        }
        log.block_dim = block_dim > log.block_dim ? block_dim : log.block_dim;
        std::string names = "names";
        for (auto& n : l.names) names += "\t" + n;
        log.trace_lines.push_back(names);
        for (size_t b = 0; b < r.blocks.size(); ++b) {
            log.ub_peak = r.blocks[b].ub_peak > log.ub_peak ? r.blocks[b].ub_peak : log.ub_peak;
            for (const auto& t : r.blocks[b].trace) {
                log.trace_lines.push_back(
                    std::to_string(b) + ' ' + static_cast<char>(t.kind) + ' ' + std::to_string(int(t.pipe)) + ' ' +
                    std::to_string(t.op) + ' ' + std::to_string(t.file) + ' ' + std::to_string(t.line) + ' ' +
                    std::to_string(t.bytes) + ' ' + std::to_string(t.elems) + ' ' + std::to_string(t.repeats) + ' ' +
                    std::to_string(t.a) + ' ' + std::to_string(t.b) + ' ' + std::to_string(int(t.dtype)) + ' ' +
                    std::to_string(int(t.flags)));
            }
        }
        if (!r.ok) {
            log.result = "\"status\": \"error\", \"error\": {\"kind\": \"" + escape(r.kind) + "\", \"message\": \"" +
                         escape(r.message) + "\", \"file\": \"" + escape(r.file) + "\", \"line\": " +
                         std::to_string(r.line) + "}";
            log.flush();
            std::_Exit(3);
        }
    }
};

template <typename F>
KernelLauncher<F> launcher_for(F* fn, uint32_t block_dim) {
    return KernelLauncher<F>{fn, block_dim};
}

// Argument I of a generated aclrtlaunch_<kernel> (device/emulator/launch_header.py) as the kernel's parameter I: the
// void* of a GM pointer cast back to the kernel's pointer type, a scalar or a (dereferenced) structure as itself.
template <size_t I, typename... P, typename A>
std::tuple_element_t<I, std::tuple<P...>> launch_arg(void (*)(P...), A a) {
    using T = std::tuple_element_t<I, std::tuple<P...>>;
    if constexpr (std::is_pointer_v<T>) return reinterpret_cast<T>(a);
    else return static_cast<T>(a);
}

}  // namespace tw
