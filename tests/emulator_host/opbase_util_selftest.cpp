// Self-test of the emulator's opbase helpers (op_host/tiling_base_util.h, util/shape_util.h, op_kernel/math_util.h,
// op_kernel/platform_util.h) on values worked out by hand. Prints "all checks passed".
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "infershape_broadcast_util.h"
#include "log/log.h"
#include "op_host/infershape_elewise_util.h"
#include "op_host/tiling_base_util.h"
#include "op_host/util/bfloat16.h"
#include "op_host/util/fp16.h"
#include "op_host/util/shape_util.h"
#include "op_kernel/math_util.h"
#include "op_kernel/platform_util.h"
#include "op_common/op_host/util/opbase_export.h"
#include "platform/platform_ascendc.h"
#include "runtime/continuous_vector.h"

// the export macro of opbase's declarations compiles away
OPBASE_API int ExportedAnswer() { return 42; }

static int failures = 0;
#define CHECK(cond)                                                 \
    do {                                                            \
        if (!(cond)) {                                              \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond);  \
            ++failures;                                             \
        }                                                           \
    } while (0)

int main() {
    // EnsureNotScalar: a scalar is [1], anything else itself (the same object)
    gert::Shape scalar;
    const gert::Shape& s1 = Ops::Base::EnsureNotScalar(scalar);
    CHECK(s1.GetDimNum() == 1 && s1.GetDim(0) == 1);
    gert::Shape m{3, 5};
    CHECK(&Ops::Base::EnsureNotScalar(m) == &m);

    // IsRegbaseSocVersion follows the chip the platform information names
    fe::PlatFormInfos a2;
    a2.soc_version = "Ascend910B2";
    fe::PlatFormInfos arch35;
    arch35.soc_version = "Ascend910_9591";
    CHECK(!Ops::Base::IsRegbaseSocVersion(&a2));
    CHECK(Ops::Base::IsRegbaseSocVersion(&arch35));

    // axis bounds and the unknown-shape encoding
    CHECK(Ops::Base::CheckAxisBounds(4, -4) && Ops::Base::CheckAxisBounds(4, 3));
    CHECK(!Ops::Base::CheckAxisBounds(4, 4) && !Ops::Base::CheckAxisBounds(4, -5));
    CHECK(Ops::Base::CheckAxisBounds(0, 0) && !Ops::Base::CheckAxisBounds(0u, 1));
    gert::Shape u{2, 3};
    CHECK(!Ops::Base::IsUnknownRank(u) && !Ops::Base::IsUnknownShape(u));
    Ops::Base::SetUnknownRank(u);
    CHECK(Ops::Base::IsUnknownRank(u) && u.GetDimNum() == 1 && u.GetDim(0) == -2);
    Ops::Base::SetUnknownShape(3, u);
    CHECK(u.GetDimNum() == 3 && Ops::Base::IsUnknownShape(u) && !Ops::Base::IsUnknownRank(u));
    Ops::Base::SetUnknownShape(-1, u);
    CHECK(u.GetDimNum() == 3);

    // the kernel's integer helpers: a + b - 1 formed wide, so no wrap at the type's top
    CHECK(Ops::Base::CeilDiv<uint32_t>(10, 4) == 3 && Ops::Base::CeilDiv<int64_t>(8, 4) == 2);
    CHECK(Ops::Base::CeilDiv<uint32_t>(0xFFFFFFFFu, 2u) == 0x80000000u);
    CHECK(Ops::Base::CeilDiv<uint16_t>(65535, 2) == 32768);
    CHECK(Ops::Base::CeilAlign<uint32_t>(33, 32) == 64 && Ops::Base::CeilAlign<uint32_t>(64, 32) == 64);
    CHECK(Ops::Base::FloorDiv<int32_t>(7, 2) == 3 && Ops::Base::FloorAlign<uint32_t>(70, 32) == 64);
    static_assert(Ops::Base::GetUbBlockSize() == 32 && Ops::Base::GetVRegSize() == 256, "A2 vector unit sizes");

    // broadcasting: aligned at the last dimension, 1 stretches, -1 takes the known size, -2 is an unknown rank
    gert::Shape out;
    gert::Shape b1{4, 1, 3}, b2{5, 1}, b3{-1, 3}, b4{2, 3}, unknown_rank{-2};
    CHECK(Ops::Base::BroadcastShape(&b1, &b2, &out) && Ops::Base::ToString(out) == "[4, 5, 3]");
    CHECK(Ops::Base::BroadcastShape(&b3, &b4, &out) && Ops::Base::ToString(out) == "[2, 3]");
    CHECK(!Ops::Base::BroadcastShape(&b4, &b2, &out));
    CHECK(Ops::Base::BroadcastShape({&b1, &b2, &b4}, &out) == false);
    gert::Shape b5{1, 3};
    CHECK(Ops::Base::BroadcastShape({&b1, &b2, &b5}, &out) && Ops::Base::ToString(out) == "[4, 5, 3]");
    CHECK(Ops::Base::BroadcastShape(&b1, &unknown_rank, &out) && Ops::Base::IsUnknownRank(out));
    gert::Shape zero{0, 1}, one{1, 7};
    CHECK(Ops::Base::BroadcastShape(&zero, &one, &out) && Ops::Base::ToString(out) == "[0, 7]");
    CHECK(Ops::Base::ToString(std::vector<const gert::Shape*>{&b2, &b5}) == "[[5, 1], [1, 3]]");
    CHECK(Ops::Base::ToString(ge::DT_FLOAT) == "DT_FLOAT");

    // fp16_t: uint16_t is raw bits, other values convert with round-to-nearest-even
    using Ops::Base::fp16_t;
    CHECK(fp16_t(1.0f).val == 0x3C00 && fp16_t(-2).val == 0xC000 && fp16_t(0.0).val == 0);
    CHECK(fp16_t(65504.0f).val == 0x7BFF && fp16_t(65520.0f).val == 0x7C00 && fp16_t(1e6f).IsInf());
    CHECK(fp16_t(1.0f / 3.0f).val == 0x3555);
    CHECK(fp16_t(std::ldexp(1.0f, -24)).val == 0x0001 && fp16_t(std::ldexp(3.0f, -26)).val == 0x0001);
    CHECK(fp16_t(std::ldexp(1.0f, -25)).val == 0x0000);  // a tie rounds to the even neighbour, zero
    CHECK(fp16_t(std::ldexp(1.0f, -14)).val == 0x0400 && fp16_t(std::nanf("")).val == 0x7E00);
    CHECK(float(fp16_t(static_cast<uint16_t>(0x3C00))) == 1.0f && float(fp16_t(static_cast<uint16_t>(0x0001))) ==
          std::ldexp(1.0f, -24));
    CHECK(float(fp16_t(static_cast<uint16_t>(0xFC00))) == -INFINITY && float(fp16_t(2.5f) * fp16_t(2)) == 5.0f);
    const uint16_t raw = 0x4248;  // 3.140625 stored as a tensor's fp16 element
    CHECK(float(*reinterpret_cast<const fp16_t*>(&raw)) == 3.140625f);
    // bfloat16: through float, round-to-nearest-even, NaN is 0x7fc0
    using Ops::Base::bfloat16;
    CHECK(bfloat16(1.0f).value == 0x3F80 && bfloat16(1.00390625f).value == 0x3F80);
    CHECK(bfloat16(1.01171875f).value == 0x3F82);
    CHECK(bfloat16(std::nanf("")).value == 0x7FC0 && float(bfloat16(3)) == 3.0f);
    CHECK(float(bfloat16(0x4049, bfloat16::from_bits())) == 3.140625f);

    OP_LOGE("a message alone");  // CANN's log macros take the format among their variadic arguments
    OP_LOGE("node", "with %s", "a format");
    CHECK(ExportedAnswer() == 42 && sizeof(gert::ContinuousVector) > 0);

    if (failures == 0) {
        std::printf("all checks passed\n");
    }
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
