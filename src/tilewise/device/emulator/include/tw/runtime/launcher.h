// Run a kernel over blockDim blocks, one thread each, and collect the first error and every block's trace.
// Used by the generated runner (and by kernel-invocation hosts through the <<<>>> rewrite).
#pragma once
#include <new>
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tw/runtime/launch_state.h"
#include "tw/api/sync.h"
#include "tw/api/tensor.h"

namespace tw {

// One TPipe::InitBuffer as it ran: where, how many buffers, and the length asked for (before rounding).
struct BufferUse {
    std::string file;
    int line = 0;
    int num = 0;
    uint32_t len = 0;
    bool operator==(const BufferUse& o) const { return line == o.line && num == o.num && len == o.len && file == o.file; }
};

struct BlockResult {
    std::vector<TraceRecord> trace;
    uint64_t ub_peak = 0;
    std::vector<Warning> warnings;
    std::vector<BufferUse> buffers;  // block 0 only: the UB layout lint rules check a second buffer against
};

struct LaunchResult {
    bool ok = true;
    std::string kind, message, file;
    int line = 0;
    std::vector<BlockResult> blocks;
    std::vector<Warning> warnings;  // every block's, merged per (kind, file, line), first block's message
};

// Adds one block's warnings to the launch's, merging repeats of a site across blocks.
inline void merge_warnings(std::vector<Warning>& into, const std::vector<Warning>& from, int block) {
    for (const Warning& w : from) {
        bool seen = false;
        for (Warning& v : into) {
            if (v.line == w.line && v.kind == w.kind && v.file == w.file) { v.count += w.count; seen = true; break; }
        }
        if (!seen) {
            into.push_back(w);
            into.back().message = "block " + std::to_string(block) + ": " + w.message;
        }
    }
}

// A JSON string's contents: quotes and backslashes escaped, control characters (invalid in JSON strings) as spaces.
inline std::string json_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') { out += '\\'; out += c; }
        else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
        else out += c;
    }
    return out;
}

// The warnings as a JSON array: [{"kind", "message", "file", "line", "count"}].
inline std::string warnings_json(const std::vector<Warning>& ws) {
    const auto esc = json_escape;
    std::string out = "[";
    for (size_t i = 0; i < ws.size(); ++i) {
        out += (i ? ", " : "");
        out += "{\"kind\": \"" + esc(ws[i].kind) + "\", \"message\": \"" + esc(ws[i].message) + "\", \"file\": \"" +
               esc(ws[i].file) + "\", \"line\": " + std::to_string(ws[i].line) + ", \"count\": " +
               std::to_string(ws[i].count) + "}";
    }
    return out + "]";
}

// The InitBuffers as a JSON array: [{"file", "line", "num", "len"}].
inline std::string buffers_json(const std::vector<BufferUse>& bs) {
    std::string out = "[";
    for (size_t i = 0; i < bs.size(); ++i) {
        std::string file;
        for (char c : bs[i].file) {
            if (c == '"' || c == '\\') file += '\\';
            if (static_cast<unsigned char>(c) >= 0x20) file += c;
        }
        out += (i ? ", " : "");
        out += "{\"file\": \"" + file + "\", \"line\": " + std::to_string(bs[i].line) + ", \"num\": " +
               std::to_string(bs[i].num) + ", \"len\": " + std::to_string(bs[i].len) + "}";
    }
    return out + "]";
}

// After a block returns: every queue buffer must be free, every SetFlag waited for, and a kernel that branches
// on TILING_KEY_IS must have had a branch for the launch's key.
inline void check_block_end(Core& c) {
    if (c.key_test_file != nullptr && !c.key_matched)
        fail("bad_tiling_key",
             "the tiling key is " + std::to_string(launch()->tiling_key) +
                 ", which none of the kernel's TILING_KEY_IS branches names: the host must SetTilingKey to one of "
                 "them (on hardware the launch finds no kernel for this key)",
             c.key_test_file, c.key_test_line);
    for (QueueState* q : c.queues) {
        if (q->is_buf) continue;
        int live = 0;
        for (int s : q->state) live += s != 0;
        if (live)
            fail("tensor_leak",
                 std::to_string(live) + " tensor(s) of the " + q->where() +
                     " were never freed when the kernel ended (FreeTensor every AllocTensor/DeQue)",
                 q->file, q->line);
    }
    for (auto& kv : c.flags) {
        if (kv.second > 0) {
            auto site = c.flag_sites[kv.first];
            fail("unpaired_flag",
                 "SetFlag<HardEvent::" + std::string(event_name(static_cast<AscendC::HardEvent>(kv.first.first))) +
                     ">(" + std::to_string(kv.first.second) + ") was never waited for with a matching WaitFlag",
                 site.first, site.second);
        }
    }
}

// Runs every block on its own thread; a screening (l.screening) runs block 0 alone, still told there are
// `block_dim` blocks, and stops it at its first copy or vector instruction (ScreenStop) without the end-of-block
// checks, which a kernel stopped half-way would fail.
inline LaunchResult run_blocks(Launch& l, int block_dim, const std::function<void()>& kernel) {
    LaunchResult result;
    result.blocks.resize(block_dim);
    std::mutex mu;
    l.block_num = block_dim;
    const int running = l.screening ? std::min(block_dim, 1) : block_dim;
    Barrier barrier(running);  // a SyncAll waits only for the blocks that run
    l.barrier = &barrier;
    launch() = &l;
    auto body = [&](int idx) {
        auto c = std::make_unique<Core>();
        c->block_idx = idx;
        c->block_num = block_dim;
        c->ub.assign(l.ub_bytes, 0);
        core() = c.get();
        auto report = [&](const std::string& kind, const std::string& msg, const std::string& file, int line) {
            std::lock_guard<std::mutex> lock(mu);
            if (result.ok) {
                result.ok = false;
                result.kind = kind;
                result.message = "block " + std::to_string(idx) + ": " + msg;
                result.file = file;
                result.line = line;
            }
            l.abort.store(true);
            barrier.wake_all();
        };
        try {
            kernel();
            check_block_end(*c);
        } catch (const KernelError& e) {
            report(e.kind, e.message, e.file, e.line);
        } catch (const Aborted&) {
        } catch (const ScreenStop&) {
        } catch (const std::bad_alloc&) {
            // Most often the trace itself: a launch of millions of tiny steps (a tile of 0 or 1 element, a tile
            // count far past the data) records an instruction each. Free it first, so the report can be made.
            const size_t records = c->trace.size();
            std::vector<TraceRecord>().swap(c->trace);
            report("out_of_memory",
                   "the emulator ran out of memory after recording " + std::to_string(records) +
                       " instructions of this block: the launch issues more steps than it can emulate; check the "
                       "tiling for tiles of 0 or a few elements, or a loop count past the data",
                   "", 0);
        } catch (const std::exception& e) {
            report("kernel_exception", e.what(), "", 0);
        }
        result.blocks[idx].warnings = std::move(c->warnings);
        result.blocks[idx].trace = std::move(c->trace);
        // The peak is the furthest byte any buffer reached: a TPipe gives its UB back when destroyed or Reset.
        uint64_t peak = c->ub_used > c->ub_static_end ? c->ub_used : c->ub_static_end;
        for (QueueState* q : c->queues) peak = std::max<uint64_t>(peak, q->offset + uint64_t(q->len) * q->num);
        result.blocks[idx].ub_peak = peak;
        if (idx == 0) {  // a pipe made per row (or Reset) repeats its InitBuffers: each distinct one once
            for (QueueState* q : c->queues) {
                BufferUse u{q->file ? q->file : "", q->line, q->num, q->asked};
                auto& bs = result.blocks[idx].buffers;
                if (std::find(bs.begin(), bs.end(), u) == bs.end()) bs.push_back(u);
            }
        }
        for (QueueState* q : c->queues) delete q;
        core() = nullptr;
    };
    std::vector<std::thread> threads;
    threads.reserve(running);
    for (int i = 0; i < running; ++i) threads.emplace_back(body, i);
    for (auto& t : threads) t.join();
    l.barrier = nullptr;
    // Merged in block order once every block is done, so the report does not depend on thread scheduling.
    for (int i = 0; i < block_dim; ++i) merge_warnings(result.warnings, result.blocks[i].warnings, i);
    return result;
}

}  // namespace tw
