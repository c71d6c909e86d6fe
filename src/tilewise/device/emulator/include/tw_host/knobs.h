// Host-side tiling knobs read at run time, so that a tuner can try a new value without recompiling the host.
// tilewise rewrites `constexpr uint32_t TILE = 4096;` in op_host/*.cpp to `const uint32_t TILE = tw_knob("TILE",
// 4096);`; the runner's environment carries TILEWISE_KNOBS="TILE=8192,BLOCK_DIM=40". Unset knobs keep their value.
#pragma once
#include <cstdlib>
#include <map>
#include <string>

namespace tw_host {
inline const std::map<std::string, long long>& knob_table() {
    static const std::map<std::string, long long> table = [] {
        std::map<std::string, long long> t;
        const char* env = std::getenv("TILEWISE_KNOBS");
        std::string s = env ? env : "";
        size_t pos = 0;
        while (pos < s.size()) {
            size_t comma = s.find(',', pos);
            std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
            size_t eq = item.find('=');
            if (eq != std::string::npos) t[item.substr(0, eq)] = std::strtoll(item.c_str() + eq + 1, nullptr, 0);
            if (comma == std::string::npos) break;
            pos = comma + 1;
        }
        return t;
    }();
    return table;
}
}  // namespace tw_host

template <typename T>
inline T tw_knob(const char* name, T value) {
    const auto& t = tw_host::knob_table();
    auto it = t.find(name);
    return it == t.end() ? value : static_cast<T>(it->second);
}
