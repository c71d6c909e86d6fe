// ACL's msproftx tensor reporting (acl/acl_prof.h), as sample hosts call it around a `<<<>>>` launch:
//
//   aclprofStr2Id(name)          an id for a string (equal strings, equal ids)
//   aclprofRangePushEx(&attrs)   opens a profiling range carrying the launch's tensor information
//   aclprofRangePop()            closes the range the last push opened
//
// The reference documents these as records for the profiler (msprof caches the tensor information and shows it
// beside the kernel in its op summary); they do not affect the launch. The emulator has no msprof to hand them to,
// so a range emits nothing: the functions check their documented contract (an attribute pointer, a tensor-info
// message, push and pop paired on the thread) and return ACL_SUCCESS or ACL_ERROR_INVALID_PARAM. The structures are
// laid out as the reference gives them.
#pragma once
#include <cstdint>

#include "acl/acl.h"

struct aclprofTensor {
    uint32_t type;      // 0 input, 1 output
    uint32_t format;    // aclFormat
    uint32_t dataType;  // aclDataType
    uint32_t shapeDim;  // at most 8
    uint32_t shape[8];
};

struct aclprofTensorInfo {
    uint64_t opNameId;  // from aclprofStr2Id
    uint64_t opTypeId;
    uint32_t resv;
    uint32_t tensorNum;  // at most 5 per message
    uint32_t kernelType;
    uint32_t blockNums;
    void* stream;
    aclprofTensor* tensors;
};

struct aclprofEventAttributes {
    uint16_t version;
    uint16_t size;
    uint32_t messageType;
    union Message {
        aclprofTensorInfo* tensorInfo;
    } message;
};

enum aclprofMessageType : uint32_t { MESSAGE_TYPE_TENSOR_INFO = 0, ACL_PROF_MESSAGE_TYPE_TENSOR_INFO = 0 };
// The reference does not give the version's value; the emulator accepts any.
constexpr uint16_t ACL_PROF_EVENT_ATTR_VERSION = 1;

namespace tw_acl {
inline int& prof_range_depth() {
    static thread_local int depth = 0;  // ranges are per thread
    return depth;
}
}  // namespace tw_acl

// FNV-1a over the bytes: a stable id, equal for equal strings.
inline uint64_t aclprofStr2Id(const char* message) {
    if (message == nullptr) return 0;
    uint64_t h = 1469598103934665603ull;
    for (const char* p = message; *p != '\0'; ++p) h = (h ^ static_cast<uint8_t>(*p)) * 1099511628211ull;
    return h;
}

inline aclError aclprofRangePushEx(aclprofEventAttributes* attr) {
    if (attr == nullptr || attr->messageType != MESSAGE_TYPE_TENSOR_INFO || attr->message.tensorInfo == nullptr)
        return ACL_ERROR_INVALID_PARAM;
    if (attr->message.tensorInfo->tensorNum > 0 && attr->message.tensorInfo->tensors == nullptr)
        return ACL_ERROR_INVALID_PARAM;
    ++tw_acl::prof_range_depth();
    return ACL_SUCCESS;
}

inline aclError aclprofRangePop() {
    if (tw_acl::prof_range_depth() == 0) return ACL_ERROR_INVALID_PARAM;  // no range to close
    --tw_acl::prof_range_depth();
    return ACL_SUCCESS;
}
