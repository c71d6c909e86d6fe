// tilewise host emulation: gert::StorageShape, the pair (origin shape, storage shape) a tiling function reads.
// On the emulator the two are always equal (no private formats), but both are kept so code may set either.
#pragma once
#include <initializer_list>

#include "exe_graph/runtime/shape.h"

namespace gert {

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(std::initializer_list<int64_t> origin, std::initializer_list<int64_t> storage)
        : origin_(origin), storage_(storage) {}
    StorageShape(const Shape& origin, const Shape& storage) : origin_(origin), storage_(storage) {}

    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }
    // Newer toolkits also name the origin shape plainly (MutableShape is documented as the writable origin).
    const Shape& GetShape() const { return origin_; }
    Shape& MutableShape() { return origin_; }

    bool operator==(const StorageShape& o) const { return origin_ == o.origin_ && storage_ == o.storage_; }
    bool operator!=(const StorageShape& o) const { return !(*this == o); }

private:
    Shape origin_;
    Shape storage_;
};

}  // namespace gert
