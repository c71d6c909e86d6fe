// tilewise host emulation of the mki framework: MKI_LOG(LEVEL) << ... . Warnings and errors go to stderr; the
// last error is also kept (LastError) so that the runner can say why a kernel refused a case or a tiling failed.
#pragma once
#include <iostream>
#include <sstream>
#include <string>

#include "tw_host/host_error.h"

namespace Mki {

enum class LogLevel { DEBUG, INFO, WARN, ERROR, FATAL };

inline std::string& LastError() {
    static std::string last;
    return last;
}

class LogStream {
public:
    LogStream(LogLevel level, const char* file, int line) : level_(level), file_(file), line_(line) {}
    ~LogStream() {
        if (level_ < LogLevel::WARN) return;  // INFO/DEBUG are the framework's tracing: not printed
        if (level_ >= LogLevel::ERROR) {
            LastError() = out_.str();
            tw_host::note_host_error("", out_.str());  // for the run's error message
        }
        std::cerr << "[mki] " << file_ << ":" << line_ << ": " << out_.str() << "\n";
    }
    template <typename T>
    LogStream& operator<<(const T& v) {
        if (level_ >= LogLevel::WARN) out_ << v;
        return *this;
    }

private:
    LogLevel level_;
    const char* file_;
    int line_;
    std::ostringstream out_;
};

}  // namespace Mki

#define MKI_LOG(level) ::Mki::LogStream(::Mki::LogLevel::level, __FILE__, __LINE__)
#define MKI_FLOG_ERROR(...) ::Mki::LogStream(::Mki::LogLevel::ERROR, __FILE__, __LINE__) << __VA_ARGS__
