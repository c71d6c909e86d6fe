// Test driver for the AscendC C API (c_api/asc_simd.h): small kernels written for this test that take UB memory as
// `__ubuf__` arrays, move data with asc_copy_*, compute with asc_* vector instructions and order the pipes with
// asc_sync*. The test rewrites the `__ubuf__` declarations as the emulator's build does (ubuf_arrays.py) before
// compiling this file.
//
//   capi_driver <case>
//
// Each case runs as a one-block launch over two GM buffers (gm0: float 0.5 * i at element i; gm1: zeroed). It prints
// `key value...` lines that test_c_api.py checks against the reference, then `result ok` or `result error <kind>
// <line> ...`, `warning <kind> <line>` per sanitizer warning, and `trace <name> <pipe> <bytes>` per instruction.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "c_api/asc_simd.h"
#include "tw/runtime/launcher.h"

namespace {

std::vector<std::vector<uint8_t>> gm;

template <typename T>
T* G(size_t i) { return reinterpret_cast<T*>(gm[i].data()); }

template <typename T>
void print(const char* key, const T* p, int n) {
    std::printf("%s", key);
    for (int i = 0; i < n; ++i) std::printf(" %.9g", static_cast<double>(static_cast<float>(p[i])));
    std::printf("\n");
}

int64_t ub_offset(const void* p) { return static_cast<const uint8_t*>(p) - tw::cur().ub.data(); }

// The count form on the first 40 of 64 floats, with the _sync forms ordering every step.
void case_sync_add() {
    asc_init();
    __ubuf__ float x[64];
    __ubuf__ float y[64];
    __ubuf__ float z[64];
    asc_copy_gm2ub_sync((__ubuf__ void*)x, (__gm__ void*)G<float>(0), 64 * sizeof(float));
    asc_duplicate_sync(y, 2.0f, 64);
    asc_duplicate_sync(z, -1.0f, 64);
    asc_add_sync(z, x, y, 40);
    asc_copy_ub2gm_sync((__gm__ void*)G<float>(1), (__ubuf__ void*)z, 64 * sizeof(float));
    std::printf("mode %d\n", tw::cur().counter_mode ? 1 : 0);
    std::printf("offsets %lld %lld %lld\n", (long long)ub_offset(x), (long long)ub_offset(y), (long long)ub_offset(z));
}

// The reference's masking example: int32 lanes selected by 0b0101...01, one repeat, continuous strides.
void case_repeat_mask() {
    asc_init();
    __ubuf__ int32_t s0[64];
    __ubuf__ int32_t s1[64];
    __ubuf__ int32_t d[64];
    for (int i = 0; i < 64; ++i) {
        s0[i] = i + 1;
        s1[i] = i + 1;
        d[i] = 0;
    }
    asc_set_vector_mask(0, 6148914691236517205ULL);
    asc_add(d, s0, s1, 1, 1, 1, 1, 8, 8, 8);
    print("dst", d, 8);
}

// Burst copies and explicit events between the pipes.
void case_events() {
    asc_init();
    __ubuf__ float x[16];
    __ubuf__ float y[16];
    asc_copy_gm2ub(x, G<float>(0) + 16, 1, 2, 0, 0);  // 2 blocks: 16 floats from element 16
    asc_sync_notify(PIPE_MTE2, PIPE_V, EVENT_ID0);
    asc_sync_wait(PIPE_MTE2, PIPE_V, EVENT_ID0);
    asc_mul_scalar(y, x, 3.0f, 16);
    asc_sync_notify(PIPE_V, PIPE_MTE3, EVENT_ID1);
    asc_sync_wait(PIPE_V, PIPE_MTE3, EVENT_ID1);
    asc_copy_ub2gm(G<float>(1), y, 1, 2, 0, 0);
    asc_sync();
}

// The same without the MTE2 -> V event: the vector pipe may read x before the copy lands.
void case_missing_event() {
    asc_init();
    __ubuf__ float x[16];
    __ubuf__ float y[16];
    asc_copy_gm2ub(x, G<float>(0), 16 * sizeof(float));
    asc_mul_scalar(y, x, 3.0f, 16);  // line checked by the test: the racecheck's warning
    asc_sync();
    asc_copy_ub2gm(G<float>(1), y, 16 * sizeof(float));
    asc_sync();
}

// A wait with no notify before it hangs the pipe.
void case_wait_without_notify() {
    asc_init();
    asc_sync_wait(PIPE_V, PIPE_MTE3, EVENT_ID2);
}

// UB layout: 32-byte aligned from address 0 in declaration order; a declaration in a loop keeps its address; a
// struct of arrays declared with {} is value-initialised.
struct Pair {
    float a[8];
    half b[16];
};
void case_layout() {
    __ubuf__ uint8_t first[5];
    __ubuf__ half second[3];
    int64_t loop[3];
    for (int i = 0; i < 3; ++i) {
        __ubuf__ float inner[8];
        loop[i] = ub_offset(inner);
    }
    __ubuf__ Pair pair{};
    std::printf("layout %lld %lld %lld %lld %lld %lld\n", (long long)ub_offset(first), (long long)ub_offset(second),
                (long long)loop[0], (long long)loop[1], (long long)loop[2], (long long)ub_offset(&pair));
    std::printf("pair %g %g\n", static_cast<double>(pair.a[7]), static_cast<double>(static_cast<float>(pair.b[15])));
}

// More __ubuf__ arrays than the 192 KiB UB holds.
void case_ub_overflow() {
    __ubuf__ float big[40000];
    __ubuf__ float more[10000];  // line checked by the test
    big[0] = more[0] = 0.0f;
}

// A size form with a size that is not a multiple of 32 bytes drops the tail (a sanitizer warning).
void case_unaligned_size() {
    asc_init();
    __ubuf__ float x[32];
    asc_duplicate_sync(x, 7.0f, 32);
    asc_copy_gm2ub_sync(x, G<float>(0), 40);  // line checked by the test
    print("x", x, 10);
}

// Unary, scalar-operand and fused forms, and the byte-granular _align copies.
void case_math() {
    asc_init();
    __ubuf__ float a[64];
    __ubuf__ float b[64];
    __ubuf__ float c[64];
    for (int i = 0; i < 64; ++i) a[i] = static_cast<float>(i) - 2.0f;
    asc_relu_sync(b, a, 64);
    print("relu", b, 4);
    asc_max_scalar_sync(b, a, 1.5f, 64);
    print("maxs", b, 4);
    asc_exp_sync(b, a, 4);
    print("exp", b, 4);
    asc_duplicate_sync(b, 2.0f, 64);
    asc_duplicate_sync(c, 10.0f, 64);
    asc_mul_add_sync(c, a, b, 4);  // c = a * c + b
    print("muladd", c, 4);
    asc_duplicate_sync(c, 10.0f, 64);
    asc_fma_sync(c, a, b, 4);  // c = a * b + c
    print("fma", c, 4);
    __ubuf__ int16_t s[16];
    for (int i = 0; i < 16; ++i) s[i] = static_cast<int16_t>(i + 1);
    __ubuf__ int16_t t[16];
    asc_shiftleft_sync(t, s, 2, 16);
    print("shl", t, 4);
    // 12 bytes in (padded to a 32-byte row in UB), 12 bytes out.
    asc_copy_gm2ub_align_sync(c, G<float>(0) + 1, 12);
    asc_copy_ub2gm_align_sync(G<float>(1), c, 12);
    print("align", G<float>(1), 4);
    std::printf("scalar %lld %lld %lld %lld %lld\n", (long long)asc_popc(0xF0F0ULL), (long long)asc_ffz(33),
                (long long)asc_ffs(40), (long long)asc_clz(1), (long long)asc_sflbits(-1));
    std::printf("ids %lld %lld %lld %lld\n", (long long)asc_get_block_idx(), (long long)asc_get_block_num(),
                (long long)asc_get_sub_block_id(), (long long)asc_get_sub_block_num());
}

// asc_sync_mte2 / asc_sync_mte3 set and wait their events themselves: nothing is left unpaired.
void case_sync_mte() {
    asc_init();
    __ubuf__ float x[8];
    asc_copy_gm2ub(x, G<float>(0), 32);
    asc_sync_mte2(3);
    asc_sync_pipe(PIPE_V);
    asc_copy_ub2gm(G<float>(1), x, 32);
    asc_sync_mte3(3);
    asc_sync_data_barrier(mem_dsb_t::DSB_ALL);
}

// Atomic add: the copy out accumulates into GM.
void case_atomic_add() {
    asc_init();
    __ubuf__ float x[8];
    asc_duplicate_sync(x, 1.5f, 8);
    asc_set_atomic_add_float();
    asc_copy_ub2gm_sync(G<float>(0), x, 32);
    asc_set_atomic_none();
    asc_copy_ub2gm_sync(G<float>(1), x, 32);
    print("acc", G<float>(0), 3);
}

const std::map<std::string, std::function<void()>> CASES = {
    {"sync_add", case_sync_add},
    {"repeat_mask", case_repeat_mask},
    {"events", case_events},
    {"missing_event", case_missing_event},
    {"wait_without_notify", case_wait_without_notify},
    {"layout", case_layout},
    {"ub_overflow", case_ub_overflow},
    {"unaligned_size", case_unaligned_size},
    {"math", case_math},
    {"sync_mte", case_sync_mte},
    {"atomic_add", case_atomic_add},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || CASES.count(argv[1]) == 0) {
        std::fprintf(stderr, "usage: capi_driver <case>\n");
        return 2;
    }
    tw::Launch l;
    gm.assign(2, std::vector<uint8_t>(1024, 0));
    for (size_t i = 0; i < 256; ++i) G<float>(0)[i] = 0.5f * static_cast<float>(i);
    for (size_t i = 0; i < gm.size(); ++i)
        l.regions.push_back(tw::GmRegion{gm[i].data(), gm[i].size(), "gm" + std::to_string(i), gm[i].size()});
    auto r = tw::run_blocks(l, 1, CASES.at(argv[1]));
    print("gm1", G<float>(1), 48);
    if (r.ok) std::printf("result ok\n");
    else std::printf("result error %s %d %s\n", r.kind.c_str(), r.line, r.message.c_str());
    for (const tw::Warning& w : r.warnings) std::printf("warning %s %d\n", w.kind.c_str(), w.line);
    for (const tw::TraceRecord& t : r.blocks[0].trace)
        if (t.kind == tw::Rec::Instr)
            std::printf("trace %s %d %llu\n", l.names[t.op].c_str(), int(t.pipe),
                        static_cast<unsigned long long>(t.bytes));
    return 0;
}
