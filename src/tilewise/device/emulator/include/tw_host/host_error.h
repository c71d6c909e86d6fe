// tilewise host emulation: the last error-level line the operator's host code logged (OP_LOGE and its family,
// MKI_LOG(ERROR), a failed MKI_CHECK), kept so that the runner can say why a tiling function failed instead of only
// that it did. One store per runner executable (an inline function's static), shared by every host unit.
#pragma once
#include <string>

namespace tw_host {

inline std::string& last_host_error() {
    static std::string last;
    return last;
}

inline void note_host_error(const std::string& who, const std::string& message) {
    last_host_error() = who.empty() ? message : who + ": " + message;
}

}  // namespace tw_host
