// tilewise host emulation: a CPU stand-in for the ACL runtime calls of kernel-invocation hosts
// (aclInit ... aclrtMalloc/aclrtMemcpy ... aclFinalize). "Device" memory is ordinary host memory aligned to
// 32 bytes, copies in any direction are memcpy, streams and contexts are tokens, and every call succeeds
// unless its arguments are invalid.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "tw/runtime/acl_memory.h"

using aclError = int;
using aclrtStream = void*;
using aclrtContext = void*;
using aclrtEvent = void*;

constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_INVALID_PARAM = 100000;
constexpr aclError ACL_ERROR_BAD_ALLOC = 200000;

enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
};

enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
};

enum aclDataType {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_BF16 = 27,
};

// Tensor formats (aclFormat), with the values of the ACL reference.
enum aclFormat {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
};

namespace tw_acl {
// Any non-null token will do for streams and contexts; one static byte gives a stable address.
inline void* token() {
    static char t;
    return &t;
}
inline aclError alloc(void** p, size_t size) {
    if (p == nullptr) {
        return ACL_ERROR_INVALID_PARAM;
    }
    // aligned_alloc wants a size that is a multiple of the alignment; 0 bytes still yields a usable pointer.
    const size_t rounded = (size + 31) / 32 * 32;
    *p = std::aligned_alloc(32, rounded == 0 ? 32 : rounded);
    return *p == nullptr ? ACL_ERROR_BAD_ALLOC : ACL_SUCCESS;
}
}  // namespace tw_acl

inline aclError aclInit(const char* /*configPath*/) { return ACL_SUCCESS; }
inline aclError aclFinalize() { return ACL_SUCCESS; }
inline const char* aclGetRecentErrMsg() { return ""; }

inline aclError aclrtSetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtResetDevice(int32_t) { return ACL_SUCCESS; }
inline aclError aclrtGetDevice(int32_t* id) {
    if (id != nullptr) *id = 0;
    return ACL_SUCCESS;
}
inline aclError aclrtGetDeviceCount(uint32_t* n) {
    if (n != nullptr) *n = 1;
    return ACL_SUCCESS;
}
inline aclError aclrtCreateContext(aclrtContext* ctx, int32_t) {
    if (ctx == nullptr) return ACL_ERROR_INVALID_PARAM;
    *ctx = tw_acl::token();
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtSetCurrentContext(aclrtContext) { return ACL_SUCCESS; }
inline aclError aclrtGetCurrentContext(aclrtContext* ctx) {
    if (ctx != nullptr) *ctx = tw_acl::token();
    return ACL_SUCCESS;
}
inline aclError aclrtCreateStream(aclrtStream* s) {
    if (s == nullptr) return ACL_ERROR_INVALID_PARAM;
    *s = tw_acl::token();
    return ACL_SUCCESS;
}
inline aclError aclrtDestroyStream(aclrtStream) { return ACL_SUCCESS; }
// Kernels run synchronously on the emulator, so there is never anything to wait for.
inline aclError aclrtSynchronizeStream(aclrtStream) { return ACL_SUCCESS; }
inline aclError aclrtSynchronizeDevice() { return ACL_SUCCESS; }

inline aclError aclrtMalloc(void** p, size_t size, aclrtMemMallocPolicy) {
    aclError e = tw_acl::alloc(p, size);
    if (e == ACL_SUCCESS) tw_acl::memory().allocated(*p, size);
    return e;
}
inline aclError aclrtMallocHost(void** p, size_t size) { return tw_acl::alloc(p, size); }
inline aclError aclrtFree(void* p) {
    tw_acl::memory().freed(p);
    std::free(p);
    return ACL_SUCCESS;
}
inline aclError aclrtFreeHost(void* p) {
    std::free(p);
    return ACL_SUCCESS;
}
inline aclError aclrtMemcpy(void* dst, size_t destMax, const void* src, size_t count, aclrtMemcpyKind kind) {
    if (count == 0) return ACL_SUCCESS;
    if (dst == nullptr || src == nullptr || count > destMax) return ACL_ERROR_INVALID_PARAM;
    tw_acl::memory().copied(dst, src, kind);
    std::memmove(dst, src, count);
    return ACL_SUCCESS;
}
inline aclError aclrtMemset(void* dst, size_t destMax, int32_t value, size_t count) {
    if (count == 0) return ACL_SUCCESS;
    if (dst == nullptr || count > destMax) return ACL_ERROR_INVALID_PARAM;
    std::memset(dst, value, count);
    return ACL_SUCCESS;
}

// ACL's half-precision scalar type (the raw IEEE binary16 bits) and its conversions, which sample hosts use to
// prepare fp16 inputs; ACL_ERROR_NONE is the older name of ACL_SUCCESS.
#include "tw/api/half.h"
using aclFloat16 = uint16_t;
constexpr aclError ACL_ERROR_NONE = 0;
inline float aclFloat16ToFloat(aclFloat16 value) { return tw::half_bits_to_float(value); }
inline aclFloat16 aclFloatToFloat16(float value) { return tw::float_to_half_bits(value); }
