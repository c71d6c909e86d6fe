// tilewise host emulation: the bounded memory functions of Huawei's secure C library that op_host code calls.
// They fail (return non-zero) instead of overflowing when the destination is too small.
#pragma once
#include <cstddef>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET 162
#endif

typedef int errno_t;

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
    if (dest == nullptr || count > destMax) {
        return ERANGE_AND_RESET;
    }
    std::memset(dest, c, count);
    return EOK;
}

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (dest == nullptr || src == nullptr || count > destMax) {
        return ERANGE_AND_RESET;
    }
    std::memcpy(dest, src, count);
    return EOK;
}

inline errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (dest == nullptr || src == nullptr || count > destMax) {
        return ERANGE_AND_RESET;
    }
    std::memmove(dest, src, count);
    return EOK;
}

inline errno_t strcpy_s(char* dest, size_t destMax, const char* src) {
    if (dest == nullptr || src == nullptr || std::strlen(src) + 1 > destMax) {
        return ERANGE_AND_RESET;
    }
    std::memcpy(dest, src, std::strlen(src) + 1);
    return EOK;
}
