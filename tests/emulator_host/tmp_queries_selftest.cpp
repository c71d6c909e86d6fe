// The host-side library queries and names of issue 32's list, in a program written for test_tmp_queries.py: the
// Get<Api>MaxMinTmpSize / Get<Api>TmpBufferFactorSize queries of the math, activation and reduction APIs and the
// byte-mask Select's, called with the reference's signatures (and taken as pointers of those types), on the model
// tw_host/tmp_size_queries.h states; AscendC::TensorShape and TensorDataType; gert::TilingParseContext through
// register/tilingdata_base.h; error/ops_error.h; tiling/tiling_type.h; the library's host include paths.
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"
#include "tiling/tiling_type.h"
#include "error/ops_error.h"
#include "lib/math/sin_tiling.h"
#include "adv_api/activation/sigmoid_tiling.h"
#include "tiling/math/power_tiling.h"
#include "adv_api/reduce/sum_tiling.h"
#include "lib/select/selectwithbytesmask_tiling.h"

namespace optiling {
// A TilingParse declared where only tilingdata_base.h is included, as tiling headers do.
struct ParseInfo {
    int64_t cores = 0;
};
inline ge::graphStatus ParseForTest(gert::TilingParseContext* context) {
    ParseInfo* info = context->GetCompiledInfo<ParseInfo>();
    OPS_ERR_IF(info == nullptr, OPS_LOG_E("ParseForTest", "no compile info"), return ge::GRAPH_FAILED);
    info->cores = 40;
    void* same = *context->GetOutputPointer<void**>(0);
    OPS_LOG_E_IF_NULL(context, same, return ge::GRAPH_FAILED);
    return same == info ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
}
}  // namespace optiling

static int failures = 0;
#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        if (!(cond)) {                                                                                             \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond);                                                  \
            ++failures;                                                                                            \
        }                                                                                                          \
    } while (0)

// The documented function types: generic tiling code can hold the queries as pointers.
using MaxMin = void (*)(const AscendC::TensorShape&, const uint32_t, const bool, uint32_t&, uint32_t&);
using Factor = void (*)(const uint32_t, uint32_t&, uint32_t&);
using PatternMaxMin = void (*)(const AscendC::TensorShape&, const AscendC::TensorDataType, AscendC::ReducePattern,
                               bool, bool, uint32_t&, uint32_t&);

int main() {
    static_assert(std::is_same<AscendC::TensorShape, ge::Shape>::value, "TensorShape is ge::Shape");
    static_assert(std::is_same<AscendC::TensorDataType, ge::DataType>::value, "TensorDataType is ge::DataType");
    uint32_t mx = 0, mn = 0, nodes = 0, extra = 7;

    // The reference's example: GetSigmoidMaxMinTmpSize({1024}, half) (1 float intermediate: 2 x 1 + 2 = 4 nodes of
    // the half input: at most 4 x 2048 bytes, at least 4 x 256).
    std::vector<int64_t> shape_vec = {1024};
    ge::Shape shape(shape_vec);
    AscendC::GetSigmoidMaxMinTmpSize(shape, 2, false, mx, mn);
    CHECK(mx == 4 * 2048 && mn == 4 * 256);
    AscendC::GetSigmoidMaxMinTmpSize(shape, 4, false, mx, mn);
    CHECK(mx == 4096 && mn == 256);
    AscendC::GetSigmoidMaxMinTmpSize(shape, 4, true, mx, mn);  // the float source holds the one intermediate
    CHECK(mx == 0 && mn == 0);

    // Sin: 3 intermediates (4 with RADIAN_REDUCTION); its factor query agrees with the sizes.
    AscendC::GetSinMaxMinTmpSize(shape, 4, false, mx, mn);
    CHECK(mx == 3 * 4096 && mn == 3 * 256);
    AscendC::SinConfig radian;
    radian.algo = AscendC::SinAlgo::RADIAN_REDUCTION;
    AscendC::GetSinMaxMinTmpSize(radian, shape, 4, false, mx, mn);
    CHECK(mx == 4 * 4096 && mn == 4 * 256);
    AscendC::GetSinTmpBufferFactorSize(2, nodes, extra);
    CHECK(nodes == 8 && extra == 0);  // (3 floats + the float input) as halves: 2 x 3 + 2
    AscendC::GetCosTmpBufferFactorSize(AscendC::CosConfig{}, 4, nodes, extra);
    CHECK(nodes == 3);

    // Every element-wise query of the list, through pointers of the documented types: an odd size rounds up to
    // 32 bytes, the most is never below the least, and the factor query's count gives the sizes.
    const struct {
        const char* name;
        MaxMin sizes;
        Factor factor;
    } apis[] = {
        {"Tanh", AscendC::GetTanhMaxMinTmpSize, AscendC::GetTanhTmpBufferFactorSize},
        {"Sinh", AscendC::GetSinhMaxMinTmpSize, AscendC::GetSinhTmpBufferFactorSize},
        {"Cosh", AscendC::GetCoshMaxMinTmpSize, AscendC::GetCoshTmpBufferFactorSize},
        {"Sin", AscendC::GetSinMaxMinTmpSize, AscendC::GetSinTmpBufferFactorSize},
        {"Cos", AscendC::GetCosMaxMinTmpSize, AscendC::GetCosTmpBufferFactorSize},
        {"Tan", AscendC::GetTanMaxMinTmpSize, AscendC::GetTanTmpBufferFactorSize},
        {"Asin", AscendC::GetAsinMaxMinTmpSize, AscendC::GetAsinTmpBufferFactorSize},
        {"Acos", AscendC::GetAcosMaxMinTmpSize, AscendC::GetAcosTmpBufferFactorSize},
        {"Atan", AscendC::GetAtanMaxMinTmpSize, AscendC::GetAtanTmpBufferFactorSize},
        {"Asinh", AscendC::GetAsinhMaxMinTmpSize, AscendC::GetAsinhTmpBufferFactorSize},
        {"Acosh", AscendC::GetAcoshMaxMinTmpSize, AscendC::GetAcoshTmpBufferFactorSize},
        {"Atanh", AscendC::GetAtanhMaxMinTmpSize, AscendC::GetAtanhTmpBufferFactorSize},
        {"Erf", AscendC::GetErfMaxMinTmpSize, AscendC::GetErfTmpBufferFactorSize},
        {"Erfc", AscendC::GetErfcMaxMinTmpSize, AscendC::GetErfcTmpBufferFactorSize},
        {"Digamma", AscendC::GetDigammaMaxMinTmpSize, AscendC::GetDigammaTmpBufferFactorSize},
        {"Lgamma", AscendC::GetLgammaMaxMinTmpSize, AscendC::GetLgammaTmpBufferFactorSize},
        {"Log", AscendC::GetLogMaxMinTmpSize, AscendC::GetLogTmpBufferFactorSize},
        {"Log2", AscendC::GetLog2MaxMinTmpSize, AscendC::GetLog2TmpBufferFactorSize},
        {"Log10", AscendC::GetLog10MaxMinTmpSize, AscendC::GetLog10TmpBufferFactorSize},
        {"Floor", AscendC::GetFloorMaxMinTmpSize, AscendC::GetFloorTmpBufferFactorSize},
        {"Ceil", AscendC::GetCeilMaxMinTmpSize, AscendC::GetCeilTmpBufferFactorSize},
        {"Trunc", AscendC::GetTruncMaxMinTmpSize, AscendC::GetTruncTmpBufferFactorSize},
        {"Frac", AscendC::GetFracMaxMinTmpSize, AscendC::GetFracTmpBufferFactorSize},
        {"Sign", AscendC::GetSignMaxMinTmpSize, AscendC::GetSignTmpBufferFactorSize},
        {"Fmod", AscendC::GetFmodMaxMinTmpSize, AscendC::GetFmodTmpBufferFactorSize},
        {"Axpy", AscendC::GetAxpyMaxMinTmpSize, AscendC::GetAxpyTmpBufferFactorSize},
        {"Xor", AscendC::GetXorMaxMinTmpSize, AscendC::GetXorTmpBufferFactorSize},
    };
    ge::Shape odd(std::vector<int64_t>{3, 7});  // 21 elements
    for (const auto& api : apis) {
        for (uint32_t size : {2u, 4u}) {
            api.sizes(odd, size, false, mx, mn);
            api.factor(size, nodes, extra);
            const uint32_t bytes = (21 * size + 31) / 32 * 32;
            if (!(mn == nodes * 256 && mx == std::max(nodes * bytes, mn) && extra == 0 && nodes > 0))
                std::printf("FAILED %s (type size %u): max %u min %u nodes %u\n", api.name, size, mx, mn, nodes),
                    ++failures;
        }
    }
    AscendC::GetXorMaxMinTmpSize(shape, 2, false, mx, mn);  // an integer API: computed in its own type
    CHECK(mx == 2048 && mn == 256);

    // The forms of their own: Exp answers whether it can, Round takes the platform, Power two shapes, Gelu three
    // queries, Silu and Swish Get<Api>TmpSize.
    CHECK(AscendC::GetExpMaxMinTmpSize(shape, 4, false, mx, mn) && mx == 4096 && mn == 256);
    CHECK(!AscendC::GetExpMaxMinTmpSize(shape, 1, false, mx, mn));
    platform_ascendc::PlatformAscendC platform(nullptr);
    AscendC::GetRoundMaxMinTmpSize(platform, shape, 2, false, mx, mn);
    CHECK(mx == 4 * 2048 && mn == 4 * 256);
    AscendC::GetPowerMaxMinTmpSize(shape, ge::Shape(std::vector<int64_t>{1}), false, 4, false, mx, mn);
    CHECK(mx == 3 * 4096 && mn == 3 * 256);
    AscendC::GetPowerMaxMinTmpSize(shape, shape, true, 4, false, mx, mn);
    CHECK(mx == 2 * 4096 && mn == 2 * 256);
    AscendC::GetPowerTmpBufferFactorSize(true, false, false, 2, nodes, extra);
    CHECK(nodes == 8 && extra == 0);
    CHECK(AscendC::GetGeluMaxTmpSize(shape, 4) == 2 * 4096 && AscendC::GetGeluMinTmpSize(shape, 4) == 512);
    AscendC::GetSiluTmpSize(shape, 2, false, mx, mn);
    CHECK(mx == 4 * 2048 && mn == 1024);
    AscendC::GetSwishTmpSize(shape, 4, false, mx, mn);
    CHECK(mx == 4096 && mn == 256);

    // The pattern reductions (the reference's example: [16, 32] float, AR), through a pointer of their type.
    PatternMaxMin reduce_sum = AscendC::GetReduceSumMaxMinTmpSize;
    auto rows = AscendC::TensorShape({16, 32});
    reduce_sum(rows, AscendC::TensorDataType::DT_FLOAT, AscendC::ReducePattern::AR, true, false, mx, mn);
    CHECK(mn == 128 && mx == 16 * 128);
    AscendC::GetReduceSumMaxMinTmpSize(rows, ge::DT_FLOAT16, AscendC::ReducePattern::RA, true, false, mx, mn);
    CHECK(mn == 128 && mx == 128);  // a row of 32 accumulated in float
    AscendC::GetReduceMaxMaxMinTmpSize(rows, ge::DT_FLOAT16, AscendC::ReducePattern::AR, true, false, mx, mn);
    CHECK(mn == 64 && mx == 16 * 64);
    for (PatternMaxMin q : {AscendC::GetReduceAllMaxMinTmpSize, AscendC::GetReduceAnyMaxMinTmpSize,
                            AscendC::GetReduceMeanMaxMinTmpSize, AscendC::GetReduceMinMaxMinTmpSize,
                            AscendC::GetReduceProdMaxMinTmpSize}) {
        q(rows, ge::DT_FLOAT, AscendC::ReducePattern::RA, true, false, mx, mn);
        CHECK(mn == 128 && mx == 128);
    }
    AscendC::GetReduceSumMaxMinTmpSize(rows, ge::DT_FLOAT, AscendC::ReducePattern::ARA, true, false, mx, mn);
    CHECK(mx == 0 && mn == 0);  // not an A2 pattern: reported on stderr
    AscendC::GetReduceXorSumMaxMinTmpSize(shape, 2, false, mx, mn);
    CHECK(mx == 2 * 2048 && mn == 512);
    AscendC::GetSumMaxMinTmpSize(1024, 2, false, mx, mn);  // 8 repeats of partial sums, rounded up to 32
    CHECK(mx == 32 && mn == 32);

    // The byte-mask Select (the reference's example: src0 [64, 128] half, src1 a scalar, mask [64, 128] bool): the
    // mask widened to half and the compare's bits; a longer mask row adds the gathered mask unless it may be reused.
    std::vector<int64_t> s0 = {64, 128}, s1 = {1}, m0 = {64, 128}, m1 = {64, 160};
    AscendC::GetSelectMaxMinTmpSize(ge::Shape(s0), ge::Shape(s1), 2, ge::Shape(m0), 1, false, mx, mn);
    CHECK(mx == 8192 * 2 + 1024 && mn == 256 + 32);
    CHECK(AscendC::GetSelectMinTmpSize(ge::Shape(s0), ge::Shape(s1), 2, ge::Shape(m0), 1, false) == mn);
    CHECK(AscendC::GetSelectMaxTmpSize(ge::Shape(s0), ge::Shape(s1), 2, ge::Shape(m0), 1, false) == mx);
    AscendC::GetSelectWithBytesMaskMaxMinTmpSize(ge::Shape(s1), ge::Shape(s0), 2, ge::Shape(m1), 1, false, mx, mn);
    CHECK(mx == 8192 * 2 + 1024 + 8192 && mn == 256 + 32 + 128);
    AscendC::GetSelectMaxMinTmpSize(ge::Shape(s0), ge::Shape(s1), 2, ge::Shape(m1), 1, true, mx, mn);
    CHECK(mn == 256 + 32);

    // TilingParse through tilingdata_base.h's gert::TilingParseContext.
    tw_host::NodeData node;
    optiling::ParseInfo info;
    gert::TilingParseContext ctx(&node, &info);
    CHECK(optiling::ParseForTest(&ctx) == ge::GRAPH_SUCCESS && info.cores == 40);
    gert::TilingParseContext none(&node, nullptr);
    CHECK(optiling::ParseForTest(&none) == ge::GRAPH_FAILED);

    if (failures == 0) std::printf("all checks passed\n");
    return failures == 0 ? 0 : 1;
}
