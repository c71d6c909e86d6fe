// tilewise: calling an mki (ATB) kernel entry. The framework passes a kernel its input and output tensors, then one
// pointer per scratch size the tiling asked for (none when it asked for none), then the tiling data; the runner
// hands every layout the same list (tensors, one workspace, tiling), so this cuts the workspace into the scratch
// buffers, in order, and drops it when the entry takes none.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tw/runtime/kernel_entry.h"
#include "tw/runtime/mki_launch.h"

namespace tw_mki {

template <typename... A, size_t... I>
inline void call_with(void (*f)(A...), uint8_t* const* args, std::index_sequence<I...>) {
    f(::tw::entry_arg<A>(args[I])...);
}

// `gm` holds n pointers: the tensors (n - 2 of them), the workspace (the scratch sizes back to back), the tiling.
template <typename... A>
inline void invoke_entry(void (*f)(A...), uint8_t** gm, size_t n) {
    constexpr size_t params = sizeof...(A);
    const size_t tensors = n >= 2 ? n - 2 : 0;
    if (params < tensors + 1) {
        ::tw::fail("entry_mismatch", "the kernel entry takes " + std::to_string(params) + " parameters but the case "
                   "gives " + std::to_string(tensors) + " tensors and the tiling", "", 0);
    }
    LaunchExtras& extras = launch_extras();
    const size_t scratches = params - tensors - 1;
    if (scratches > 1 && scratches != extras.scratch_sizes.size()) {
        ::tw::fail("entry_mismatch", "the kernel entry takes " + std::to_string(scratches) + " scratch buffers but the "
                   "tiling asked for " + std::to_string(extras.scratch_sizes.size()), "", 0);
    }
    std::vector<uint8_t*> args(gm, gm + tensors);
    uint64_t offset = 0;
    for (size_t k = 0; k < scratches; ++k) {
        args.push_back(gm[n - 2] == nullptr ? nullptr : gm[n - 2] + offset);
        offset += k < extras.scratch_sizes.size() ? extras.scratch_sizes[k] : 0;
    }
    args.push_back(gm[n - 1]);
    std::call_once(extras.memset_once, [&] {
        for (const auto& [index, bytes] : extras.memsets) {
            if (index < args.size() && args[index] != nullptr) std::memset(args[index], 0, bytes);
        }
    });
    call_with(f, args.data(), std::index_sequence_for<A...>{});
}

}  // namespace tw_mki
