// The minimum sharedTmpBuffer sizes (bytes) of Mean, SwiGLU, GeGLU, ReGlu and CumSum that the library's host queries
// report (tw_host/library_tmp_sizes.h, A2 formulas), and the byte-mask Select's (the emulator's model, see below;
// tw_host/tmp_size_queries.h); the kernels check a caller's buffer against them.
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

// The byte-mask Select's scratch (tw/api/library/select.h; the host's GetSelect*TmpSize): the mask widened to half
// for the compare, the compare's bit mask, and, when the mask's rows are longer than the source's and the mask may
// not be modified (isReuseMask false), the mask gathered to the source's row length. The least is one 128-element
// repeat of the first two and one gathered row; the most, all of the source's n elements.
inline uint32_t select_bytes_mask_tmp(uint64_t n, uint32_t src_last, uint32_t mask_last, uint32_t mask_size,
                                      bool reuse_mask, bool most) {
    const uint64_t count = most ? n : 128;
    uint64_t bytes = (count * 2 + 31) / 32 * 32 + ((count + 7) / 8 + 31) / 32 * 32;
    if (src_last != mask_last && !reuse_mask) {
        const uint64_t gathered = most ? n : src_last;
        bytes += (gathered * mask_size + 31) / 32 * 32;
    }
    return static_cast<uint32_t>(bytes);
}
inline uint32_t select_bytes_mask_min_tmp(uint32_t src_last, uint32_t mask_last, uint32_t mask_size, bool reuse_mask) {
    return select_bytes_mask_tmp(0, src_last, mask_last, mask_size, reuse_mask, false);
}

}  // namespace tw
