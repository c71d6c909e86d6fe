// The L2 cache between the AI Cores' copies and HBM, as the timing model (tw/timing/model.h) sees it.
//
// Why: whether a copy is served by HBM or by L2 changes its time several-fold on A2 (the data_copy best-practice
// sample measures 828 us for four passes over a 302 MB matrix, which does not fit in the 192 MB L2, and 366 us when
// each 75 MB slice is read four times in a row), and SetL2CacheHint(CACHE_MODE_DISABLE) on inputs read once lets the
// outputs' writes stay in L2 (the Add sample: 264 us -> 188 us).
//
// What: an LRU over 4 KB pages, with a present and a dirty bit for each 128-byte sector (the smallest piece a GM
// transfer is split into; the data_copy sample's 128-byte reads of adjacent columns get no L2 hits).
// - A read is served by L2 for the sectors present and by HBM for the rest, which L2 then keeps unless the tensor
//   is marked DISABLE.
// - A write lands in L2 (write-back: it reaches HBM only when its page is evicted) unless the tensor is DISABLE,
//   in which case it goes straight to HBM.
// - Evicting a page with dirty sectors writes them back: HBM traffic that belongs to no copy but takes bandwidth
//   from all of them (the scheduler counts it in the HBM load).
// The cache starts empty: a first launch, inputs not yet in L2. Deterministic: the scheduler feeds it each block's
// copies in an interleaved order (see Scheduler::classify_copies).
#pragma once
#include <cstdint>
#include <list>
#include <unordered_map>

namespace tw {

class L2Cache {
  public:
    struct Traffic {
        double hbm = 0;        // bytes HBM serves for this copy: read misses and write-throughs
        double l2 = 0;         // bytes L2 serves: read hits and absorbed writes
        double writeback = 0;  // dirty bytes this copy's allocation evicted to HBM
    };

    explicit L2Cache(uint64_t capacity_bytes) : capacity_pages_(capacity_bytes / kPage) {
        pages_.reserve(static_cast<size_t>(capacity_pages_) + 1);  // no rehash while the cache fills
    }

    // One copy of `rows` rows of `row_bytes` bytes, `stride` bytes apart in GM, starting at `addr`.
    Traffic access(uint64_t addr, uint64_t row_bytes, uint32_t rows, uint64_t stride, bool write, bool keep) {
        Traffic t;
        for (uint32_t r = 0; r < rows; ++r) {
            uint64_t lo = addr + uint64_t(r) * stride, hi = lo + row_bytes;
            while (lo < hi) {
                const uint64_t page_end = (lo / kPage + 1) * kPage;
                const uint64_t end = hi < page_end ? hi : page_end;
                touch_page(lo, end, write, keep, t);
                lo = end;
            }
        }
        return t;
    }

  private:
    static constexpr uint64_t kPage = 4096, kSector = 128;
    struct Page {
        uint32_t present = 0, dirty = 0;  // one bit per sector
        std::list<uint64_t>::iterator at;
    };

    // The part [lo, hi) of one page.
    void touch_page(uint64_t lo, uint64_t hi, bool write, bool keep, Traffic& t) {
        const uint64_t id = lo / kPage;
        uint32_t sectors = 0;
        for (uint64_t s = (lo % kPage) / kSector; s <= ((hi - 1) % kPage) / kSector; ++s) sectors |= 1u << s;
        auto it = pages_.find(id);
        if (it != pages_.end()) {  // most recently used from now on
            lru_.splice(lru_.begin(), lru_, it->second.at);
        } else if (keep) {
            lru_.push_front(id);
            it = pages_.emplace(id, Page{0, 0, lru_.begin()}).first;
            if (pages_.size() > capacity_pages_) evict(t);
        }
        const double bytes = static_cast<double>(hi - lo);
        if (it == pages_.end()) {  // not kept and not present: straight to or from HBM
            t.hbm += bytes;
            return;
        }
        Page& p = it->second;
        if (write) {
            if (keep) {
                t.l2 += bytes;
                p.present |= sectors;
                p.dirty |= sectors;
            } else {
                t.hbm += bytes;  // a write-through also refreshes the copy L2 holds
            }
            return;
        }
        const double hit = static_cast<double>(__builtin_popcount(p.present & sectors)) /
                           __builtin_popcount(sectors);
        t.l2 += bytes * hit;
        t.hbm += bytes * (1 - hit);
        if (keep) p.present |= sectors;
    }

    void evict(Traffic& t) {
        const uint64_t victim = lru_.back();
        lru_.pop_back();
        auto it = pages_.find(victim);
        t.writeback += static_cast<double>(__builtin_popcount(it->second.dirty)) * kSector;
        pages_.erase(it);
    }

    uint64_t capacity_pages_;
    std::unordered_map<uint64_t, Page> pages_;
    std::list<uint64_t> lru_;  // front: most recently used
};

}  // namespace tw
