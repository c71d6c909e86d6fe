// The files a timed run writes besides its result: the pipeline trace (Chrome trace-event JSON, which Perfetto and
// chrome://tracing open, and device/trace.py reads for the report's timeline) and the per-call-site table.
//
// The trace: one process per block, one thread per timed pipe. Each instruction is an "X" event named
// "API @ file:line" with args {api, file (the path as compiled: the user's, by the build's #line markers), line,
// bytes, repeats}; each idle gap of a pipe is an "X" event of category "wait" with args {cause, on, via}
// (tw/timing/model.h TimedWait: what held it, the pipe it waited on or "", and "SCALAR" when the scalar unit stalled on
// it). Times are kernel-relative microseconds (launch excluded; a later wave's blocks start after the waves before).
// At most `max_events` events and gaps are written, in block order (the block that reaches the cap keeps its
// earliest ones); the top-level "tilewise" object, written last, says whether the cap cut the trace, so a reader
// also knows the file is whole.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "tw/runtime/launcher.h"
#include "tw/timing/model.h"

namespace tw {

inline void write_chrome_trace(const std::string& path, const KernelTiming& kt, const std::vector<std::string>& names,
                               double clock_ghz, size_t max_events = 400000) {
    std::ofstream out(path);
    std::vector<std::string> escaped(names.size()), base(names.size());  // interned names, escaped once
    for (size_t i = 0; i < names.size(); ++i) {
        escaped[i] = json_escape(names[i]);
        const size_t slash = escaped[i].find_last_of('/');
        base[i] = slash == std::string::npos ? escaped[i] : escaped[i].substr(slash + 1);
    }
    const double us_per_cycle = 1e-3 / clock_ghz;
    // Start and end rounded alike, so an event that ends where the next begins does not overlap it once printed.
    auto span = [&](double offset, double start, double dur) {
        const double a = std::round((offset + start) * us_per_cycle * 1e4) / 1e4;
        const double b = std::round((offset + start + dur) * us_per_cycle * 1e4) / 1e4;
        char buf[96];
        std::snprintf(buf, sizeof(buf), "\"ts\": %.4f, \"dur\": %.4f", a, b - a);
        return std::string(buf);
    };
    out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
    bool first = true;
    auto sep = [&] { if (!first) out << ",\n"; first = false; };
    size_t written = 0, cores_written = 0;
    bool truncated = false;
    for (size_t c = 0; c < kt.cores.size() && !truncated; ++c) {
        const CoreTiming& core = kt.cores[c];
        ++cores_written;
        sep();
        out << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << c << ", \"args\": {\"name\": \"core " << c
            << "\"}}";
        for (int p = 0; p < TP_COUNT; ++p) {
            sep();
            out << "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << c << ", \"tid\": " << p
                << ", \"args\": {\"name\": \"" << timed_pipe_name(p) << "\"}}";
        }
        // The block that reaches the cap keeps what started before its `room`-th earliest start.
        const size_t room = max_events - written, total = core.events.size() + core.waits.size();
        double cutoff = INFINITY;
        if (total > room) {
            truncated = true;
            std::vector<double> starts;
            starts.reserve(total);
            for (const auto& e : core.events) starts.push_back(e.start);
            for (const auto& w : core.waits) starts.push_back(w.start);
            std::nth_element(starts.begin(), starts.begin() + room, starts.end());
            cutoff = starts[room];
        }
        for (const auto& e : core.events) {
            if (e.start >= cutoff || written >= max_events) continue;
            ++written;
            sep();
            out << "{\"ph\": \"X\", \"pid\": " << c << ", \"tid\": " << int(e.pipe) << ", "
                << span(core.offset, e.start, e.dur)
                << ", \"name\": \"" << escaped[e.op] << " @ " << base[e.file] << ":" << e.line << "\", \"cat\": \""
                << timed_pipe_name(e.pipe) << "\", \"args\": {\"api\": \"" << escaped[e.op] << "\", \"file\": \""
                << escaped[e.file] << "\", \"line\": " << e.line << ", \"bytes\": " << e.bytes
                << ", \"repeats\": " << e.repeats << "}}";
        }
        for (const auto& w : core.waits) {
            if (w.start >= cutoff || written >= max_events) continue;
            ++written;
            const char* on = w.cause.on < 0 ? "" : timed_pipe_name(w.cause.on);
            sep();
            out << "{\"ph\": \"X\", \"pid\": " << c << ", \"tid\": " << int(w.pipe) << ", "
                << span(core.offset, w.start, w.dur)
                << ", \"name\": \"wait: " << wait_kind_name(w.cause.kind) << (*on ? " (" : "") << on << (*on ? ")" : "")
                << "\", \"cat\": \"wait\", \"args\": {\"cause\": \"" << wait_kind_name(w.cause.kind)
                << "\", \"on\": \"" << on << "\", \"via\": \"" << (w.cause.scalar ? "SCALAR" : "") << "\"}}";
        }
    }
    out << "\n],\n\"tilewise\": {\"version\": 1, \"clock_ghz\": " << clock_ghz << ", \"cores\": " << kt.cores.size()
        << ", \"truncated\": " << (truncated ? "true" : "false") << ", \"max_events\": " << max_events
        << ", \"ends_us\": [";
    for (size_t c = 0; c < cores_written; ++c) {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%s%.4f", c ? ", " : "", (kt.cores[c].offset + kt.cores[c].end) * us_per_cycle);
        out << buf;
    }
    out << "]}}\n";
}

// Per block and call site, one tab-separated line: block, pipe, calls, bytes, min and max bytes per call, repeats,
// min and max repeats per call, busy cycles, API, line, file (last, as a path may hold any other character).
inline void write_site_uses(const std::string& path, const KernelTiming& kt, const std::vector<std::string>& names) {
    std::ofstream out(path);
    char buf[64];
    for (size_t c = 0; c < kt.cores.size(); ++c) {
        for (const auto& [key, u] : kt.cores[c].sites) {
            std::snprintf(buf, sizeof(buf), "%.3f", u.cycles);
            out << c << '\t' << timed_pipe_name(std::get<3>(key)) << '\t' << u.calls << '\t' << u.bytes << '\t'
                << u.min_bytes << '\t' << u.max_bytes << '\t' << u.repeats << '\t' << u.min_repeats << '\t'
                << u.max_repeats << '\t' << buf << '\t' << names[std::get<0>(key)] << '\t' << std::get<2>(key)
                << '\t' << names[std::get<1>(key)] << '\n';
        }
    }
}

}  // namespace tw
