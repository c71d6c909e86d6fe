// The minimum sharedTmpBuffer sizes (bytes) of Mean, SwiGLU, GeGLU, ReGlu and CumSum that the library's host queries
// report (tw_host/library_tmp_sizes.h, A2 formulas); the kernels check a caller's buffer against them.
#pragma once
#include <cstdint>

namespace tw {

inline uint32_t mean_min_tmp(uint32_t n, uint32_t src_size, uint32_t acc_size) {
    const uint32_t widen = src_size == 2 && acc_size == 4;
    const uint32_t per_rep = 256 / (widen ? 4 : src_size);
    const uint32_t reps = (n + per_rep - 1) / per_rep;
    uint32_t size = (reps + 31) / 32 * 32;
    if (widen) size += (n * src_size + 31) / 32 * 32 / src_size * 4;
    return size;
}

// SwiGLU (6) and GeGLU (4) keep that many live copies of the input for half and none for float: their scratch is that
// many times the input's bytes, at least one 256-byte repeat each.
inline uint32_t glu_live_nodes(uint32_t type_size, uint32_t half_nodes) { return type_size == 4 ? 0 : half_nodes; }
inline uint32_t glu_min_tmp(uint32_t type_size, uint32_t half_nodes) {
    return glu_live_nodes(type_size, half_nodes) * 256;
}

inline uint32_t reglu_min_tmp(uint32_t type_size) { return type_size == 4 ? 256 : 6 * 256; }

inline uint32_t cumsum_min_tmp(uint32_t inner, uint32_t type_size, bool last_axis, uint32_t outter) {
    if (!last_axis) return type_size == 2 ? outter * inner * 4 : 0;
    return (type_size == 2 ? inner * 16 * 2 : 0) + 16 * inner * type_size * 2;
}

}  // namespace tw
