// Arrays a kernel declares in the Unified Buffer: `__ubuf__ float x[256];` (and `__ubuf__ Buffers b{};` for a struct
// of arrays), the C API's way of taking UB memory. The device compiler gives each such declaration a fixed,
// 32-byte-aligned UB address, laid out from address 0 in declaration order; g++ would put it on the host stack,
// where no UB check sees it. So the emulator's build rewrites each declaration (device/emulator/ubuf_arrays.py) into
// a pointer taken from tw::ub_array / tw::ub_object here: the storage is the emulated core's UB, so the C API, the
// raw-address intrinsics, the bounds checks, the racecheck and the UB peak all see it as on the device.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <new>
#include <string>

#include "tw/runtime/launch_state.h"

namespace tw {

// Per block: the UB range each declaration site got, and the next free byte. A declaration in a loop body runs
// many times but names one array, so sites are keyed by (file, line, name) and keep their first address.
struct UbArrays {
    const Core* owner = nullptr;
    uint64_t next = 0;
    std::map<std::string, uint64_t> sites;  // "file:line:name" -> byte offset in UB
};

inline UbArrays& ub_arrays() {
    thread_local UbArrays a;  // every block runs on a thread of its own
    const Core* c = core();
    if (a.owner != c) {
        a = UbArrays();
        a.owner = c;
    }
    return a;
}

// The UB bytes of the declaration at (file, line) named `name`, `bytes` long.
inline uint8_t* ub_site(uint64_t bytes, const char* name, const char* file, int line) {
    Core& c = cur();
    UbArrays& a = ub_arrays();
    const std::string key = std::string(file ? file : "?") + ":" + std::to_string(line) + ":" + name;
    auto it = a.sites.find(key);
    if (it != a.sites.end()) return c.ub.data() + it->second;
    const uint64_t off = (a.next + 31) & ~uint64_t(31);
    const uint64_t end = off + bytes;
    if (end > c.ub.size())
        fail("ub_out_of_bounds",
             std::string("the __ubuf__ array '") + name + "' (" + std::to_string(bytes) + " bytes) would end at UB byte " +
                 std::to_string(end) + ", past the " + std::to_string(c.ub.size()) +
                 "-byte Unified Buffer: the kernel's __ubuf__ arrays together must fit in the UB",
             file, line);
    a.next = end;
    a.sites.emplace(key, off);
    if (end > c.ub_static_end) c.ub_static_end = end;
    return c.ub.data() + off;
}

// `__ubuf__ T name[n];` -> `T* const name = tw::ub_array<T>(n, ...)`: uninitialised, as a device array is.
template <typename T>
inline T* ub_array(uint64_t n, const char* name, const char* file, int line) {
    return reinterpret_cast<T*>(ub_site(n * sizeof(T), name, file, line));
}

// `__ubuf__ S name{};` -> `S& name = tw::ub_object<S>(...)`: value-initialised each time the declaration runs.
template <typename S>
inline S& ub_object(const char* name, const char* file, int line) {
    return *new (ub_site(sizeof(S), name, file, line)) S{};
}

// What a `(__ubuf__ T*)` cast converts (the build inserts it: `(__ubuf__ T*)(::tw::UbAddress)x`, see
// device/emulator/ubuf_arrays.py). On the device a `__ubuf__` pointer is a UB address, so a kernel may cast
// LocalTensor::GetPhyAddr() (a UB byte address, 0 for the first buffer) to one and dereference it. A number inside
// the UB becomes the pointer to that byte of the emulated UB; a pointer, or a number outside the UB, stays as it is.
class UbAddress {
  public:
    UbAddress(uint64_t v) : number_(v), is_number_(true) {}  // NOLINT: every integer a kernel casts
    template <typename P>
    UbAddress(P* p) : pointer_(const_cast<void*>(static_cast<const volatile void*>(p))) {}  // NOLINT
    UbAddress(std::nullptr_t) {}  // NOLINT
    template <typename T>
    explicit operator T*() const {
        if (!is_number_) return static_cast<T*>(pointer_);
        const Core* c = core();
        if (c != nullptr && number_ < c->ub.size())
            return reinterpret_cast<T*>(const_cast<uint8_t*>(c->ub.data()) + number_);
        return reinterpret_cast<T*>(number_);
    }

  private:
    void* pointer_ = nullptr;
    uint64_t number_ = 0;
    bool is_number_ = false;
};

}  // namespace tw
