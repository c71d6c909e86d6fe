// Reads a run spec's `timing` lines (stdin) into the emulator's TimingParams, as the runner does, and prints every
// constant's field back as `NAME VALUE...` (tests/emulator/test_timing_constants.py compares them with the chip file),
// then `vcost OP BYTES HEAD PER_REPEAT` per vector table row. A line TimingParams does not read is an error.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "tw/timing/model.h"

static void print_value(const char* name, double v) { std::printf("%s %.17g\n", name, v); }
static void print_value(const char* name, int v) { std::printf("%s %d\n", name, v); }
static void print_value(const char* name, const tw::TimingRow& v) {
    std::printf("%s %.17g %.17g\n", name, v.first, v.second);
}

int main() {
    tw::TimingParams params;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string word, key;
        in >> word >> key;
        if (word != "timing" || !params.set(key, in)) {
            std::fprintf(stderr, "bad timing line: %s\n", line.c_str());
            return 2;
        }
    }
#define TW_PRINT(type, name, value) print_value(#name, params.name);
    TW_TIMING_CONSTANTS(TW_PRINT)
#undef TW_PRINT
    for (const auto& [op, row] : params.vector16) std::printf("vcost %s 2 %.17g %.17g\n", op.c_str(), row.first, row.second);
    for (const auto& [op, row] : params.vector32) std::printf("vcost %s 4 %.17g %.17g\n", op.c_str(), row.first, row.second);
    return 0;
}
