// Kernel-side tiling structs of AscendC's high-level APIs (matmul, softmax, ...). The emulator implements no API
// that reads them, so the header only has to exist for the operators that include it by habit.
#pragma once
#include <cstdint>
