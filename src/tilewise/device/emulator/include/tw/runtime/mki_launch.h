// tilewise: what an mki (ATB) kernel launch needs beyond the runner's pointers, handed from the host adapter
// (tw_host/mki_adapter.h, after the tiling) to the kernel caller (tw/runtime/mki_entry.h) in the same process: the scratch
// sizes the tiling asked for (one kernel argument each) and the arguments to zero before the kernel runs.
#pragma once
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace tw_mki {

struct LaunchExtras {
    std::vector<uint64_t> scratch_sizes;
    std::vector<std::pair<uint64_t, uint64_t>> memsets;  // (kernel argument index, bytes)
    std::once_flag memset_once;                          // every block waits for the zeroing, done once
};

inline LaunchExtras& launch_extras() {
    static LaunchExtras extras;
    return extras;
}

}  // namespace tw_mki
