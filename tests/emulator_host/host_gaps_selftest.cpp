// Host-side headers public operators needed (issue 12), in a program written for test_host_gaps.py. It includes only
// CANN header names, never a standard header, so every std:: name below must come the way CANN's headers bring it.
#include "register/op_impl_registry.h"
#include "graph/utils/type_utils.h"
#include "tiling/tiling_api.h"
#include "graph/c_types.h"
#include "acl/acl_prof.h"
#include "ascendc/host_api/tiling/template_argument.h"  // brings <sstream> and <iomanip>, as CANN's does

using namespace AscendC;  // tiling_api.h declares the namespace, as CANN's does

namespace optiling {
BEGIN_TILING_DATA_DEF(GapsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmaxTilingData);
END_TILING_DATA_DEF;
}  // namespace optiling

static int failures = 0;
#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond);               \
            ++failures;                                                         \
        }                                                                       \
    } while (0)

int main() {
    // The standard library names operators use without including their headers.
    std::set<int> s{3, 1, 3};
    std::map<std::string, int> m{{"a", 1}};
    std::unordered_map<int, int> um{{1, 2}};
    std::unordered_set<int> us{4};
    std::function<int(int)> twice = [](int x) { return 2 * x; };
    std::vector<int> v{1, 2};
    CHECK(s.size() == 2 && m["a"] == 1 && um[1] == 2 && us.count(4) == 1 && twice(3) == 6 && v.size() == 2);
    CHECK(std::ceil(2.5) == 3.0 && std::max(1, 2) == 2);
    std::ostringstream os;
    os << std::setw(3) << 7;
    CHECK(os.str() == "  7");

    // graph/c_types.h: C_DataType values equal ge::DataType's.
    CHECK(C_DT_FLOAT == static_cast<int>(ge::DT_FLOAT) && C_DT_FLOAT16 == static_cast<int>(ge::DT_FLOAT16));
    CHECK(C_DT_BF16 == 27 && C_DT_INT64 == 9);

    // SoftMax host tiling over [2, 5, 64] half: m = 10 rows of k = 64.
    const ge::Shape shape({2, 5, 64});
    const uint32_t minSize = GetSoftMaxMinTmpSize(shape, 2, false);
    const uint32_t maxSize = GetSoftMaxMaxTmpSize(shape, 2, false);
    CHECK(minSize == (16 + 64 + 64) * 4);       // one row: its block, its elements and the basic unit, in floats
    CHECK(maxSize == 10 * (16 + 64 + 64) * 4);  // every row
    optiling::GapsTilingData tiling;
    tiling.set_rows(10);
    SoftMaxTilingFunc(shape, 2, 4 * minSize, tiling.softmaxTilingData);  // room for 4 rows
    const auto& t = tiling.get_softmaxTilingData();
    CHECK(t.srcM == 10 && t.srcK == 64 && t.srcSize == 640);
    CHECK(t.outMaxM == 10 && t.outMaxK == 16 && t.outMaxSize == 160);
    CHECK(t.splitM == 4 && t.splitK == 64 && t.splitSize == 256);
    CHECK(t.reduceM == 4 && t.reduceK == 16 && t.reduceSize == 64);
    CHECK(t.rangeM == 2 && t.tailM == 2 && t.tailSplitSize == 128 && t.tailReduceSize == 32);
    // Basic blocks: 16 rows (a multiple of 8) of 64 floats with room for 12 rows: 8 rows, which divide 16.
    AscendC::tiling::SoftMaxTiling basic;
    const ge::Shape shape2({16, 64});
    SoftMaxTilingFunc(shape2, 4, 12 * GetSoftMaxMinTmpSize(shape2, 4, false), basic);
    CHECK(basic.splitM == 8 && basic.rangeM == 2 && basic.tailM == 0);
    // The tiling struct embeds by value and serialises with the rest.
    CHECK(tiling.GetDataSize() == sizeof(uint32_t) + 16 * sizeof(uint32_t));
    uint8_t buf[128] = {};
    tiling.SaveToBuffer(buf, sizeof(buf));
    uint32_t splitM = 0;
    std::memcpy(&splitM, buf + 4 + 6 * 4, 4);  // rows, then srcM .. splitM (the 7th field)
    CHECK(splitM == 4);
    CHECK(GetSoftMaxMinTmpSize(shape, 3, false) == 0);  // half or float only

    // acl_prof.h: ids stable per string, ranges paired.
    CHECK(aclprofStr2Id("vector_add") == aclprofStr2Id("vector_add"));
    CHECK(aclprofStr2Id("vector_add") != aclprofStr2Id("VectorAdd"));
    aclprofTensor tensors[1] = {{0, 2, 0, 1, {64}}};
    aclprofTensorInfo info = {aclprofStr2Id("op"), aclprofStr2Id("Op"), 0, 1, 0, 8, nullptr, tensors};
    aclprofEventAttributes attrs = {ACL_PROF_EVENT_ATTR_VERSION, sizeof(aclprofEventAttributes::message),
                                    ACL_PROF_MESSAGE_TYPE_TENSOR_INFO, &info};
    CHECK(aclprofRangePop() == ACL_ERROR_INVALID_PARAM);  // nothing pushed yet
    CHECK(aclprofRangePushEx(&attrs) == ACL_SUCCESS);
    CHECK(aclprofRangePop() == ACL_SUCCESS);
    CHECK(aclprofRangePushEx(nullptr) == ACL_ERROR_INVALID_PARAM);
    CHECK(ACL_FORMAT_ND == 2 && ACL_FORMAT_FRACTAL_NZ == 29);  // the formats tensors report

    if (failures == 0) std::printf("all checks passed\n");
    return failures == 0 ? 0 : 1;
}
