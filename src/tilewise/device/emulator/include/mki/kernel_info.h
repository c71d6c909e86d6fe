// tilewise host emulation of the mki framework: Mki::KernelInfo, what a tiling function fills in: the tiling bytes
// (a host buffer of the kernel's GetTilingSize), block dim, tiling id (the kernel's TILING_KEY), scratch
// (workspace) sizes, one kernel argument each, and which arguments the framework zeroes before the launch.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "mki/utils/SVector/SVector.h"

namespace Mki {

class KernelInfo {
public:
    // The framework allocates the buffer before InitImpl runs; it starts zeroed.
    void InitTilingHost(uint64_t bytes) { tiling_.assign(bytes, 0); usedSize_ = bytes; }
    uint8_t* GetTilingHostAddr() { return tiling_.empty() ? nullptr : tiling_.data(); }
    const uint8_t* GetTilingHostAddr() const { return tiling_.empty() ? nullptr : tiling_.data(); }
    uint64_t GetTilingSize() const { return tiling_.size(); }
    void SetTilingUsedSize(uint64_t n) { usedSize_ = n; }
    uint64_t GetTilingUsedSize() const { return usedSize_; }
    void SetBlockDim(uint32_t n) { blockDim_ = n; }
    uint32_t GetBlockDim() const { return blockDim_; }
    void SetTilingId(uint64_t id) { tilingId_ = id; }
    uint64_t GetTilingId() const { return tilingId_; }
    void SetTilingKey(uint64_t id) { tilingId_ = id; }
    uint64_t GetTilingKey() const { return tilingId_; }
    SVector<uint64_t>& GetScratchSizes() { return scratch_; }
    const SVector<uint64_t>& GetScratchSizes() const { return scratch_; }
    // Zero `size` bytes of kernel argument `argIdx` (inputs, outputs, scratches, tiling, counted from 0) before
    // the launch: kernels that accumulate atomically into a workspace or an output rely on it.
    void SetMemsetInfo(uint64_t argIdx, uint64_t size) { memset_.emplace_back(argIdx, size); }
    const std::vector<std::pair<uint64_t, uint64_t>>& GetMemsetInfo() const { return memset_; }

private:
    std::vector<uint8_t> tiling_;
    uint64_t usedSize_ = 0;
    uint32_t blockDim_ = 0;
    uint64_t tilingId_ = 0;
    SVector<uint64_t> scratch_;
    std::vector<std::pair<uint64_t, uint64_t>> memset_;
};

}  // namespace Mki
