// tilewise stand-in for the `data_utils.h` helper that Huawei's kernel-invocation samples include from their own
// folder (often not committed): binary file I/O for the sample's input/ and output/ directories, the CHECK_ACL
// macro, and a debug printer. A project's own data_utils.h beside its sources takes precedence (quoted includes
// search the including file's folder first).
#pragma once
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "acl/acl.h"

#ifndef CHECK_ACL
#define CHECK_ACL(x)                                                                                   \
    do {                                                                                               \
        aclError tw_check_acl_ret = (x);                                                               \
        if (tw_check_acl_ret != ACL_SUCCESS) {                                                         \
            std::cerr << __FILE__ << ":" << __LINE__ << " aclError:" << tw_check_acl_ret << std::endl; \
        }                                                                                              \
    } while (0)
#endif

// Reads `fileSize` bytes of `filePath` into `buffer` (at most `bufferSize`); false if the file is missing or short.
inline bool ReadFile(const std::string& filePath, size_t fileSize, void* buffer, size_t bufferSize) {
    std::ifstream in(filePath, std::ios::binary);
    if (!in) {
        std::cerr << "ReadFile: cannot open " << filePath << std::endl;
        return false;
    }
    in.seekg(0, std::ios::end);
    const size_t size = static_cast<size_t>(in.tellg());
    in.seekg(0, std::ios::beg);
    if (size < fileSize || bufferSize < fileSize) {
        std::cerr << "ReadFile: " << filePath << " has " << size << " bytes, " << fileSize << " wanted" << std::endl;
        return false;
    }
    in.read(static_cast<char*>(buffer), static_cast<std::streamsize>(fileSize));
    return static_cast<bool>(in);
}

// Writes `size` bytes of `buffer` to `filePath`; false on failure.
inline bool WriteFile(const std::string& filePath, const void* buffer, size_t size) {
    std::ofstream out(filePath, std::ios::binary | std::ios::trunc);
    if (!out) {
        std::cerr << "WriteFile: cannot open " << filePath << std::endl;
        return false;
    }
    out.write(static_cast<const char*>(buffer), static_cast<std::streamsize>(size));
    return static_cast<bool>(out);
}

// Prints `size` bytes of `data` as elements of T, `column` per line (the samples' debugging aid).
template <typename T>
inline void DoPrintData(const T* data, size_t count, size_t column) {
    for (size_t i = 0; i < count; ++i) {
        std::cout << +data[i] << ((i + 1) % column == 0 ? "\n" : " ");
    }
    std::cout << std::endl;
}
