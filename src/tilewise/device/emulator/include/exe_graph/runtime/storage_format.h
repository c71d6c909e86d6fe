// tilewise host emulation: gert::StorageFormat (origin and storage format of a tensor).
#pragma once
#include "graph/types.h"

namespace gert {

class StorageFormat {
public:
    StorageFormat() = default;
    StorageFormat(ge::Format origin, ge::Format storage) : origin_(origin), storage_(storage) {}

    ge::Format GetOriginFormat() const { return origin_; }
    ge::Format GetStorageFormat() const { return storage_; }
    void SetOriginFormat(ge::Format f) { origin_ = f; }
    void SetStorageFormat(ge::Format f) { storage_ = f; }
    // Lets `desc->GetFormat() == ge::FORMAT_ND` compile as well as `desc->GetFormat().GetStorageFormat()`:
    // public code uses both spellings.
    operator ge::Format() const { return storage_; }  // NOLINT

private:
    ge::Format origin_ = ge::FORMAT_ND;
    ge::Format storage_ = ge::FORMAT_ND;
};

}  // namespace gert
