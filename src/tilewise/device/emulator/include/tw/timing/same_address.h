// Same-address serialisation of GM requests across cores (the A2/A3 best-practice guide's "避免同地址访问"):
// MTE2, MTE3 and scalar GM requests are handled in 512-byte aligned windows, and requests that different cores
// make at the same time into the same window are served one after another, for data consistency; the more cores
// meet in a window, the worse. The timing model (tw/timing/model.h) replays the blocks of a wave in rounds, every
// block's k-th copy before any block's (k+1)-th, as SPMD blocks run close to lockstep. Within a round this counts,
// for each copy, how many of the round's copies share each 512-byte window it touches; the copy's GM time then
// grows by a fitted share per extra core in its windows (chip constant same_address_serial).
#pragma once
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tw {

class SameAddress {
  public:
    // One copy of the round: its GM rows, as the trace records them.
    void add(uint64_t gm, uint64_t row_bytes, uint32_t rows, uint64_t stride) {
        std::vector<uint64_t> windows;
        rows = std::min<uint32_t>(rows, kMaxRows);  // (a bound on the work; the windows of the first rows decide)
        for (uint32_t r = 0; r < rows; ++r) {
            const uint64_t lo = gm + uint64_t(r) * stride, hi = lo + row_bytes;
            for (uint64_t w = lo / kWindow; w <= (hi - 1) / kWindow; ++w) windows.push_back(w);
        }
        std::sort(windows.begin(), windows.end());
        windows.erase(std::unique(windows.begin(), windows.end()), windows.end());
        for (uint64_t w : windows) ++count_[w];
        copies_.push_back(std::move(windows));
    }

    // For the i-th copy added: the mean number of the round's copies in its windows, itself included (1: alone).
    double sharers(size_t i) const {
        const std::vector<uint64_t>& windows = copies_[i];
        if (windows.empty()) return 1.0;
        double sum = 0;
        for (uint64_t w : windows) sum += static_cast<double>(count_.at(w));
        return sum / static_cast<double>(windows.size());
    }

    void clear() {
        count_.clear();
        copies_.clear();
    }

  private:
    static constexpr uint64_t kWindow = 512;
    static constexpr uint32_t kMaxRows = 4096;
    std::unordered_map<uint64_t, uint32_t> count_;
    std::vector<std::vector<uint64_t>> copies_;
};

}  // namespace tw
