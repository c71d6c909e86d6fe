// What a kernel-invocation host does with device memory: each aclrtMalloc'd region and the host copies into and out
// of it, stamped in program order (acl/acl.h records them). A sample host that draws its own inputs and checks its
// own results reads and writes no data files; with these records the launcher (tw/runtime/invocation.h) can hand tilewise
// the arguments the kernel got and left: inputs are the regions the host copied to the device before the launch,
// outputs those it copied back after it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace tw_acl {

struct Region {
    const uint8_t* base = nullptr;  // null once freed
    size_t size = 0;
};

struct Copy {
    size_t region;
    bool to_device;  // host -> device, else device -> host
    uint64_t stamp;
};

struct Memory {
    std::mutex mu;
    std::vector<Region> regions;
    std::vector<Copy> copies;
    uint64_t clock = 0;

    // The region holding p, or -1 (the caller holds mu).
    long find(const void* p) const {
        const uint8_t* q = static_cast<const uint8_t*>(p);
        for (size_t i = regions.size(); i-- > 0;) {
            if (regions[i].base != nullptr && q >= regions[i].base && q < regions[i].base + regions[i].size)
                return static_cast<long>(i);
        }
        return -1;
    }
    void allocated(const void* p, size_t size) {
        std::lock_guard<std::mutex> lock(mu);
        regions.push_back(Region{static_cast<const uint8_t*>(p), size});
    }
    void freed(const void* p) {
        std::lock_guard<std::mutex> lock(mu);
        long r = find(p);
        if (r >= 0) regions[r].base = nullptr;
    }
    // A copy of any kind: the region on the device side decides its direction (a default-kind copy has one side).
    void copied(const void* dst, const void* src, int kind) {
        std::lock_guard<std::mutex> lock(mu);
        long d = find(dst), s = find(src);
        bool to_device = kind == 1 || (kind != 2 && d >= 0 && s < 0);
        long r = to_device ? d : s;
        if (r >= 0 && (kind == 1 || kind == 2 || (d >= 0) != (s >= 0)))
            copies.push_back(Copy{static_cast<size_t>(r), to_device, ++clock});
    }
    uint64_t stamp() {
        std::lock_guard<std::mutex> lock(mu);
        return ++clock;
    }
    // Whether the host copied region r to the device before `stamp` / back from it after.
    bool filled_before(size_t r, uint64_t stamp) {
        std::lock_guard<std::mutex> lock(mu);
        for (const Copy& c : copies) if (c.region == r && c.to_device && c.stamp < stamp) return true;
        return false;
    }
    bool read_after(size_t r, uint64_t stamp) {
        std::lock_guard<std::mutex> lock(mu);
        for (const Copy& c : copies) if (c.region == r && !c.to_device && c.stamp > stamp) return true;
        return false;
    }
};

inline Memory& memory() {
    static Memory m;
    return m;
}

}  // namespace tw_acl
