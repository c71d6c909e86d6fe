// Configuration types of the AscendC library that the host's scratch-size queries and the kernel's library calls
// share (Sin.md, Cos.md, the pattern reductions' pages), kernel- and host-safe.
#pragma once
#include <cstdint>

namespace AscendC {

// Sin's and Cos's algorithm: the polynomial approximation (inputs in [-65504, 65504], the default) or a full
// period reduction (any input). On the A2 only the default exists; the config reaches the host queries.
enum class SinAlgo { POLYNOMIAL_APPROXIMATION = 0, RADIAN_REDUCTION };
struct SinConfig {
    SinAlgo algo = SinAlgo::POLYNOMIAL_APPROXIMATION;
};
inline constexpr SinConfig defaultSinConfig{};
enum class CosAlgo { POLYNOMIAL_APPROXIMATION = 0, RADIAN_REDUCTION };
struct CosConfig {
    CosAlgo algo = CosAlgo::POLYNOMIAL_APPROXIMATION;
};
inline constexpr CosConfig defaultCosConfig{};

// Which axes a pattern reduction reduces (R) and keeps (A), outermost first; the A2 supports AR and RA.
enum class ReducePattern : uint32_t {
    AR = 0,
    RA = 1,
    R,
    ARA,
    ARAR,
    ARARA,
    ARARAR,
    ARARARA,
    ARARARAR,
    ARARARARA,
    RAR,
    RARA,
    RARAR,
    RARARA,
    RARARAR,
    RARARARA,
};

}  // namespace AscendC
