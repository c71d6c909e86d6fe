// tilewise host emulation of the mki framework (Ascend Transformer Boost): Mki::SVector, the framework's small
// vector of dims, strides and scratch sizes. Its fixed inline capacity is an allocation detail with no effect on
// what a tiling function computes, so a std::vector carries the same semantics here.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <vector>

// The OpParam structs include only this header and compare their float fields with Utils::Compare in operator==.
#include "mki/utils/compare/compare.h"

namespace Mki {

template <typename T, std::size_t MAX_SIZE = 64>
class SVector : public std::vector<T> {
public:
    using Base = std::vector<T>;
    using Base::Base;
    using Base::operator=;
    SVector() = default;
    SVector(std::initializer_list<T> values) : Base(values) {}
};

}  // namespace Mki
