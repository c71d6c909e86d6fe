// tilewise host emulation of the mki framework: Mki::Status, what tiling functions and InitImpl return.
#pragma once
#include <cstdint>
#include <string>

namespace Mki {

enum ErrorType : int32_t {
    NO_ERROR = 0,
    ERROR_INVALID_VALUE,
    ERROR_OPERATION_NOT_EXIST,
    ERROR_TACTIC_NOT_EXIST,
    ERROR_KERNEL_NOT_EXIST,
    ERROR_ATTR_NOT_EXIST,
    ERROR_ATTR_INVALID_TYPE,
    ERROR_LAUNCH_KERNEL_ERROR,
    ERROR_SYNC_STREAM_ERROR,
    ERROR_INFERSHAPE_ERROR,
    ERROR_NOT_CONSISTANT,
    ERROR_ALLOC_HOST,
    ERROR_MEMERY_COPY_ERROR,
    ERROR_RUN_TIME_ERROR,
};

class Status {
public:
    Status() = default;
    static Status OkStatus() { return Status(); }
    static Status FailStatus(int32_t code, const std::string& message = "") { return Status(code, message); }
    bool Ok() const { return code_ == NO_ERROR; }
    int32_t Code() const { return code_; }
    const std::string& Message() const { return message_; }
    std::string ToString() const { return "code " + std::to_string(code_) + (message_.empty() ? "" : ": " + message_); }

private:
    Status(int32_t code, std::string message) : code_(code), message_(std::move(message)) {}
    int32_t code_ = NO_ERROR;
    std::string message_;
};

}  // namespace Mki
