// The emulator's runtime: one Launch per kernel run, one Core per block (a thread), sanitizer errors that carry the
// user's file and line, and the trace every API call appends to (the timing model replays it).
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tw/api/types.h"
#include "tw/runtime/out_of_line.h"

// Every public API takes these trailing defaults so errors and trace records name the user's call site.
#define TW_SRC const char *tw_file = __builtin_FILE(), int tw_line = __builtin_LINE()
#define TW_AT tw_file, tw_line

// Taking a public API's address with its documented type. The defaults above add two parameters to each form's
// function type, so generic code that takes `&Sub<half>` as a `void (*)(const LocalTensor<half>&, const
// LocalTensor<half>&, const LocalTensor<half>&, const int32_t&)` (a Foreach over Sub, Mul, Max) would find no
// match. Each such form therefore has a twin (TW_TWIN) with exactly the documented parameters and an empty trailing
// parameter pack, which calls the form with the site TW_PTR_AT. Taking the address matches the twin only (the
// form's own type has two parameters more); in a call both match equally, and the rule that prefers a template
// without a trailing parameter pack picks the form itself, so calls keep naming their line. A call through the
// pointer cannot name its line: its errors and trace records say so.
#define TW_PTR typename... TwPtr, std::enable_if_t<sizeof...(TwPtr) == 0, int> = 0
#define TW_PTR_AT "(a call through a function pointer)", 0
#define TW_UNPAREN(...) __VA_ARGS__
// TW_TWIN_M(PRE, RET, (template parameters), NAME, (template arguments), (parameters), (arguments), POST) is the twin
// of a function template; PRE is `static` for a static member (or empty), POST `const` for a const member. TW_TWIN_N
// is the twin of a function that is no template (the twin is one: a call prefers the non-template), TW_TWIN_M0 and
// TW_TWIN_N0 those of forms with no parameter but the call site's. TW_TWIN(...) is TW_TWIN_M for a free function
// returning void.
#define TW_TWIN_M(PRE, RET, TPL, NAME, TARGS, PARAMS, ARGS, POST)                                                  \
    template <TW_UNPAREN TPL, TW_PTR>                                                                              \
    PRE RET NAME(TW_UNPAREN PARAMS, TwPtr...) POST {                                                               \
        return NAME<TW_UNPAREN TARGS>(TW_UNPAREN ARGS, TW_PTR_AT);                                                 \
    }
#define TW_TWIN_M0(PRE, RET, TPL, NAME, TARGS, POST)                                                               \
    template <TW_UNPAREN TPL, TW_PTR>                                                                              \
    PRE RET NAME(TwPtr...) POST {                                                                                  \
        return NAME<TW_UNPAREN TARGS>(TW_PTR_AT);                                                                  \
    }
#define TW_TWIN_N(PRE, RET, NAME, PARAMS, ARGS, POST)                                                              \
    template <TW_PTR>                                                                                              \
    PRE RET NAME(TW_UNPAREN PARAMS, TwPtr...) POST {                                                               \
        return NAME(TW_UNPAREN ARGS, TW_PTR_AT);                                                                   \
    }
#define TW_TWIN_N0(PRE, RET, NAME, POST)                                                                           \
    template <TW_PTR>                                                                                              \
    PRE RET NAME(TwPtr...) POST {                                                                                  \
        return NAME(TW_PTR_AT);                                                                                    \
    }
#define TW_TWIN(TPL, NAME, TARGS, PARAMS, ARGS) TW_TWIN_M(, void, TPL, NAME, TARGS, PARAMS, ARGS, )
// The bit-mask forms: the reference declares `uint64_t mask[]` where the emulator's form takes `const uint64_t
// mask[]` (kernels pass const arrays too, which the device accepts). TW_TWIN_MASK, given the documented parameters
// and the arguments that pass the mask as const, adds the form for a non-const array, which keeps the call site
// (a non-const array would otherwise convert better to the twin), and the twin of the documented type.
#define TW_TWIN_MASK(PRE, RET, TPL, NAME, TARGS, PARAMS, ARGS, POST)                                               \
    template <TW_UNPAREN TPL>                                                                                      \
    PRE RET NAME(TW_UNPAREN PARAMS, TW_SRC) POST {                                                                 \
        return NAME<TW_UNPAREN TARGS>(TW_UNPAREN ARGS, TW_AT);                                                     \
    }                                                                                                              \
    TW_TWIN_M(PRE, RET, TPL, NAME, TARGS, PARAMS, ARGS, POST)

namespace tw {
// The call-site file of a form whose only parameters are the call site's and that overloads a form taking one
// integer (TBuf::Get() and Get(len)): a literal 0 converts to it only through a user-defined conversion, so
// `Get<T>(0)` is Get(len), not an ambiguity between the integer and the null pointer.
struct SiteFile {
    const char* name;
    SiteFile(const char* n) : name(n) {}  // NOLINT: implicit, as the default argument needs
    operator const char*() const { return name; }
};
}  // namespace tw
#define TW_SRC_NOT_INT tw::SiteFile tw_file = __builtin_FILE(), int tw_line = __builtin_LINE()

namespace tw {

struct KernelError : std::exception {
    std::string kind, message, file;
    int line;
    KernelError(std::string k, std::string m, std::string f, int l)
        : kind(std::move(k)), message(std::move(m)), file(std::move(f)), line(l) {}
    const char* what() const noexcept override { return message.c_str(); }
};

// Thrown into the other blocks once one block has failed, so that every thread unwinds promptly.
struct Aborted : std::exception {
    const char* what() const noexcept override { return "aborted"; }
};

// Thrown by the first data movement or vector instruction of a screening run (Launch::screening): the host tiling
// and the kernel's set-up (its InitBuffers) are all a screening looks at, so block 0 stops there, as if it ended.
struct ScreenStop : std::exception {
    const char* what() const noexcept override { return "screening stop"; }
};

// A sanitizer warning: something the device does without stopping (a DataCopy that drops its unaligned tail, an
// unsynchronised cross-pipe access) that usually makes the output wrong. The run goes on and the output check
// decides; the warning says where to look. One record per (kind, file, line), with how often it happened.
struct Warning {
    std::string kind, message, file;
    int line = 0;
    uint64_t count = 1;
};

[[noreturn]] TW_RUNTIME_FN void fail(const char* kind, const std::string& message, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    throw KernelError(kind, message, file ? file : "", line);
}
#endif

enum class Rec : uint8_t { Instr = 'I', Alloc = 'A', EnQue = 'E', DeQue = 'D', Free = 'F', SetFlag = 'S',
                           WaitFlag = 'W', Barrier = 'B', SyncAll = 'Y', Scalar = 'G' };

struct TraceRecord {
    Rec kind;
    uint8_t pipe;      // pipe_t
    uint8_t dtype;     // element size in bytes, 0 when not applicable
    uint8_t flags;     // bit 0: DataCopyPad, bit 1: atomic write, bit 2: counter/mask form, bit 3: GM side not
                       // kept in L2 (SetL2CacheHint CACHE_MODE_DISABLE)
    uint32_t op;       // interned API name
    uint32_t file;     // interned file name
    uint32_t line;
    uint64_t bytes;    // bytes moved (copies) or touched (vector)
    uint32_t elems;    // elements computed
    uint32_t repeats;  // vector repeats (ceil(bytes / 256) for count forms)
    int32_t a;         // queue id / event code / barrier pipe
    int32_t b;         // buffer index / event id
    // The GM side of a copy (see note_gm), for the timing model's L2 and GM-segment terms; 0 elsewhere.
    uint64_t gm = 0;         // address of the first GM row
    uint32_t gm_stride = 0;  // bytes between GM row starts (0: one row)
    uint32_t gm_extra = 0;   // 512-byte GM segments the rows touch beyond the fewest they could
};

// One GM allocation. `size` is what the device allocator hands out, which an access may touch: aclrtMalloc rounds a
// request up to a multiple of 32 bytes and adds 32 more, so a kernel reading a 4-byte scalar input with a 32-byte
// DataCopy works on hardware. `bytes` is the tensor's own length, which error messages quote. `guard` bytes of
// poison follow `size` (the runner's allocations; 0 where a test host allocates GM itself): see kGmGuard.
struct GmRegion {
    uint8_t* base;
    uint64_t size;
    std::string name;
    uint64_t bytes = 0;
    uint64_t guard = 0;
};

inline uint64_t device_alloc_size(uint64_t bytes) { return (bytes + 31) / 32 * 32 + 32; }

// The device does not bounds-check GM byte by byte: an access a little past a tensor's allocation reads whatever
// the caller's memory pool placed there (and a write corrupts it), while one far outside mapped memory is an AI
// Core exception. The emulator models "a little" as 4 KiB, one normal page: allocations of up to 1 MiB are mapped
// in normal pages (aclrtMemMallocPolicy), so memory within a page of a tensor's end is mapped in practice (a pool
// carves neighbouring tensors out of the same pages), whereas further out nothing says it is. The overruns public
// kernels make (a tile rounded up to 256 elements, a 32-byte block per row) are well inside it; an index that is
// wrong by a whole row or block of a real tensor is well outside. Accesses in the guard are sanitizer warnings and
// touch the guard's poison (reads see it, writes land in it and never reach an output); beyond it they are errors.
constexpr uint64_t kGmGuard = 4096;
constexpr uint8_t kGmPoison = 0xA5;  // neither 0 nor all ones: reads of the guard look like neither pad nor an output

struct QueueState;  // defined in tw/api/tensor.h

struct Core {
    int block_idx = 0;
    int block_num = 1;
    std::vector<uint8_t> ub;
    uint64_t ub_used = 0;
    uint64_t ub_static_end = 0;  // furthest UB byte a static-programming LocalTensor(pos, addr, size) covers
    std::vector<TraceRecord> trace;
    std::vector<QueueState*> queues;
    std::map<std::pair<int, int>, int> flags;  // (event code, id) -> SetFlag count not yet waited for
    std::map<std::pair<int, int>, std::pair<const char*, int>> flag_sites;
    int atomic = 0;        // 0 none, 1 add, 2 max, 3 min
    int atomic_dtype = 0;  // 1: half, 2: float, 3: int32, 4: int16, 5: int8, 6: bf16
    bool counter_mode = false;
    uint64_t vector_mask[2] = {~0ull, ~0ull};
    // The mask register was last written as an element count (SetVectorMask<T, MaskMode::COUNTER>, or a mask-form
    // call in counter mode), not as lanes: what a count-form call with isSetMask = false reads it as.
    bool mask_is_count = false;
    int next_event = 0;
    void* pipe = nullptr;  // the TPipe that GetTPipePtr() returns
    // TILING_KEY_IS: the first test's site, and whether any test matched. A kernel compiled per tiling key has no
    // binary for a key none of its branches name, so the launch fails on hardware.
    const char* key_test_file = nullptr;
    int key_test_line = 0;
    bool key_matched = false;
    std::vector<Warning> warnings;  // this block's, one per (kind, file, line)
    // Racecheck state (tw/runtime/racecheck.h): per UB byte range, the pipe that last wrote it and what ordered it since.
    void* race = nullptr;
    void (*race_free)(void*) = nullptr;
    // The 64-bit DEQSCALE register SetDeqScale writes (bits 0-15: the half scale of the int32 -> half Cast).
    uint64_t deq_reg = 0;
    bool deq_set = false;
    // The pad-value register SetPadValue writes (the value's bytes, low first): DataCopyPad's fill when isPad = false.
    uint64_t pad_reg = 0;
    bool pad_set = false;
    ~Core() { if (race_free != nullptr) race_free(race); }
};

class Barrier {
  public:
    explicit Barrier(int n) : n_(n) {}
    void arrive_and_wait(const std::atomic<bool>& abort) {
        std::unique_lock<std::mutex> lock(mu_);
        int gen = generation_;
        if (++count_ == n_) {
            count_ = 0;
            ++generation_;
            cv_.notify_all();
            return;
        }
        while (gen == generation_) {
            if (abort.load()) throw Aborted();
            cv_.wait_for(lock, std::chrono::milliseconds(20));
        }
    }
    void wake_all() { cv_.notify_all(); }

  private:
    std::mutex mu_;
    std::condition_variable cv_;
    int n_, count_ = 0, generation_ = 0;
};

struct Launch {
    std::vector<GmRegion> regions;
    uint8_t* workspace = nullptr;
    uint64_t workspace_size = 0;
    uint64_t system_workspace = 16 * 1024 * 1024;
    uint64_t tiling_key = 0;
    uint64_t ub_bytes = 196608;
    int block_num = 1;
    bool screening = false;  // run block 0 only, up to its first copy or vector instruction (ScreenStop)
    std::atomic<bool> abort{false};
    Barrier* barrier = nullptr;
    std::mutex atomic_mu;
    std::mutex intern_mu;
    std::vector<std::string> names;
    std::unordered_map<std::string, uint32_t> name_ids;

    uint32_t intern(const char* s) {
        std::lock_guard<std::mutex> lock(intern_mu);
        auto it = name_ids.find(s);
        if (it != name_ids.end()) return it->second;
        uint32_t id = static_cast<uint32_t>(names.size());
        names.emplace_back(s);
        name_ids.emplace(s, id);
        return id;
    }
};

inline Launch*& launch() { static Launch* l = nullptr; return l; }
inline Core*& core() { static thread_local Core* c = nullptr; return c; }

inline Core& cur() {
    Core* c = core();
    if (c == nullptr) throw std::runtime_error("AscendC API called outside a kernel launch");
    if (launch()->abort.load(std::memory_order_relaxed)) throw Aborted();
    return *c;
}

// Racecheck (tw/runtime/racecheck.h): every record moves the pipes' clocks or claims a vector instruction's operands.
TW_RUNTIME_FN void race_on_record(Core& c, Rec kind, uint8_t pipe, int32_t a, int32_t b, const char* file, int line);

TW_RUNTIME_FN void record(Rec kind, AscendC::pipe_t pipe, const char* op, const char* file, int line, uint64_t bytes = 0,
                   uint32_t elems = 0, uint32_t repeats = 0, int32_t a = 0, int32_t b = 0, uint8_t dtype = 0,
                   uint8_t flags = 0)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    Core& c = cur();
    Launch& l = *launch();
    // A screening has seen what it needs once the kernel moves data or computes: the set-up before is complete.
    if (l.screening && kind == Rec::Instr && pipe != PIPE_S) throw ScreenStop();
    // Interning under a lock is cheap next to the work each call does; names repeat, so the maps stay small.
    static thread_local std::unordered_map<const char*, uint32_t> cache;
    auto id_of = [&](const char* s) {
        auto it = cache.find(s);
        if (it != cache.end()) return it->second;
        uint32_t id = l.intern(s ? s : "");
        cache.emplace(s, id);
        return id;
    };
    c.trace.push_back(TraceRecord{kind, static_cast<uint8_t>(pipe), dtype, flags, id_of(op), id_of(file),
                                  static_cast<uint32_t>(line), bytes, elems, repeats, a, b});
    race_on_record(c, kind, static_cast<uint8_t>(pipe), a, b, file, line);
}
#endif

// Records a warning at the user's call site; repeats of the same (kind, file, line) only count.
TW_RUNTIME_FN void warn(const char* kind, const std::string& message, const char* file, int line);

// The GM region [p, p + n) lies in. An access reaching into a region's guard is a warning (the device goes on, see
// kGmGuard); one beyond the guard, or outside every region, is a sanitizer error naming what was hit.
TW_RUNTIME_FN const GmRegion& gm_check(const void* p, uint64_t n, const char* what, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    const uint8_t* q = static_cast<const uint8_t*>(p);
    static const GmRegion unknown{nullptr, 0, "host memory", 0};
    if (launch()->regions.empty()) return unknown;  // kernel-invocation hosts allocate GM themselves
    const GmRegion* below = nullptr;  // the allocation the access starts in, or the nearest one before it
    for (const GmRegion& r : launch()->regions) {
        if (r.base <= q && (below == nullptr || r.base > below->base)) below = &r;
    }
    if (below != nullptr && q + n <= below->base + below->size) return *below;
    auto overrun = [&](const char* beyond) {
        const uint64_t len = below->bytes ? below->bytes : below->size;
        return std::string(what) + " reads or writes " + std::to_string(n) + " bytes at byte offset " +
               std::to_string(q - below->base) + " of " + below->name + ", which has only " + std::to_string(len) +
               " bytes (" + std::to_string(q + n - (below->base + len)) + " bytes past its end, " + beyond + ")";
    };
    if (below != nullptr && q + n <= below->base + below->size + below->guard) {
        warn("gm_out_of_bounds",
             overrun("beyond the 32-byte rounding and padding its device allocation has; on a device this reads or "
                     "overwrites whatever memory lies there"),
             file, line);
        return *below;
    }
    if (below != nullptr && q <= below->base + below->size + (uint64_t(1) << 30)) {
        fail("gm_out_of_bounds",
             overrun(below->guard ? ("beyond the " + std::to_string(below->guard) +
                                     " bytes after its allocation that are plausibly mapped memory on a device: an AI "
                                     "Core exception there").c_str()
                                  : "beyond the 32-byte rounding and padding its device allocation has"),
             file, line);
    }
    fail("gm_out_of_bounds", std::string(what) + " touches global memory outside every input, output and workspace",
         file, line);
}
#endif

// GM serves copy requests in 512-byte segments (best practices: "avoid same-address access" handles requests at
// 512 B granularity; the data_copy sample keeps each row's bytes 512 B-aligned on A2/A3). A row that starts inside a
// segment touches one more than an aligned row of the same length: the timing model charges those as extra bytes.
constexpr uint64_t kGmSegment = 512;
inline uint32_t extra_segments(const GmRegion& region, const void* row, uint64_t len) {
    if (len == 0 || region.base == nullptr) return 0;  // unknown allocation (a kernel-invocation host's): no guess
    const uint64_t off = static_cast<uint64_t>(static_cast<const uint8_t*>(row) - region.base);
    const uint64_t touched = (off + len - 1) / kGmSegment - off / kGmSegment + 1;
    return static_cast<uint32_t>(touched - (len + kGmSegment - 1) / kGmSegment);
}

// Completes the copy just recorded with its GM side: first row, distance between rows, extra segments, and whether
// L2 keeps what it moves (false after SetL2CacheHint(CACHE_MODE_DISABLE) on the GlobalTensor). The address is kept
// as the allocation's number and the offset in it: device allocations start aligned, the runner's host ones need
// not, and L2 sectors and GM segments are counted from the allocation's start.
inline void note_gm(const GmRegion& region, const void* first_row, uint64_t stride, uint32_t extra, bool keep_in_l2) {
    TraceRecord& t = cur().trace.back();
    const auto& regions = launch()->regions;
    const uint64_t at = reinterpret_cast<uint64_t>(first_row);
    if (region.base != nullptr && !regions.empty() && &region >= &regions.front() && &region <= &regions.back())
        t.gm = (uint64_t(&region - &regions.front()) + 1) << 40 | (at - reinterpret_cast<uint64_t>(region.base));
    else
        t.gm = at;
    t.gm_stride = static_cast<uint32_t>(stride);
    t.gm_extra = extra;
    if (!keep_in_l2) t.flags |= 8;
}

TW_RUNTIME_FN void warn(const char* kind, const std::string& message, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    Core& c = cur();
    const std::string f = file ? file : "";
    for (Warning& w : c.warnings) {
        if (w.line == line && w.kind == kind && w.file == f) { ++w.count; return; }
    }
    c.warnings.push_back(Warning{kind, message, f, line, 1});
}
#endif

inline int block_idx() { return cur().block_idx; }
inline int block_num() { return cur().block_num; }
inline uint64_t tiling_key() { return launch()->tiling_key; }

inline bool tiling_key_is(uint64_t k, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    Core& c = cur();
    if (c.key_test_file == nullptr) { c.key_test_file = file; c.key_test_line = line; }
    bool hit = launch()->tiling_key == k;
    c.key_matched |= hit;
    return hit;
}

}  // namespace tw
