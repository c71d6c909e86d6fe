// tilewise host emulation: platform/soc_spec.h, the header CANN's tiling/platform/platform_ascendc.h includes for
// the chip architecture numbers (tiling code also includes it by this path).
#pragma once
#include <cstdint>

// The chip architecture numbers PlatformAscendC::GetCurNpuArch() answers: DAV_<__NPU_ARCH__>.
#ifndef TW_NPU_ARCH_DEFINED
#define TW_NPU_ARCH_DEFINED
enum class NpuArch : uint32_t {
    DAV_1001 = 1001,  // Atlas training series
    DAV_2002 = 2002,  // Atlas inference series (310P)
    DAV_2201 = 2201,  // Atlas A2 / A3 (910B, 910_93)
    DAV_3002 = 3002,  // Atlas 200I/500 A2 (310B)
    DAV_3102 = 3102,  // architectures tiling code names that the emulator does not model (each DAV_<__NPU_ARCH__>)
    DAV_3510 = 3510,  // Ascend 950
    DAV_5102 = 5102,  // (likewise)
    DAV_RESV = 0xFFFFFFFFU,
};
#endif
