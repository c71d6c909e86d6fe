// tilewise host emulation: gert::Tensor (what GetInputTensor returns) and gert::CompileTimeTensorDesc (what
// GetInputDesc returns). A Tensor carries data only for inputs the runner was given values for (value-depend
// inputs such as a paddings tensor); otherwise GetData() is nullptr, as for a device tensor seen from the host.
#pragma once
#include <cstddef>
#include <cstdint>

#include "exe_graph/runtime/shape.h"
#include "exe_graph/runtime/storage_format.h"
#include "exe_graph/runtime/storage_shape.h"
#include "graph/types.h"

namespace gert {

class CompileTimeTensorDesc {
public:
    ge::DataType GetDataType() const { return dtype_; }
    void SetDataType(ge::DataType dt) { dtype_ = dt; }
    const StorageFormat& GetFormat() const { return format_; }
    void SetFormat(const StorageFormat& f) { format_ = f; }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    void SetOriginFormat(ge::Format f) { format_.SetOriginFormat(f); }
    void SetStorageFormat(ge::Format f) { format_.SetStorageFormat(f); }

private:
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
};

class Tensor {
public:
    const StorageShape& GetShape() const { return shape_; }
    StorageShape& MutableShape() { return shape_; }
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    Shape& MutableOriginShape() { return shape_.MutableOriginShape(); }
    Shape& MutableStorageShape() { return shape_.MutableStorageShape(); }
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }

    ge::DataType GetDataType() const { return dtype_; }
    void SetDataType(ge::DataType dt) { dtype_ = dt; }
    const StorageFormat& GetFormat() const { return format_; }
    ge::Format GetOriginFormat() const { return format_.GetOriginFormat(); }
    ge::Format GetStorageFormat() const { return format_.GetStorageFormat(); }
    void SetFormat(const StorageFormat& f) { format_ = f; }

    template <typename T>
    const T* GetData() const { return static_cast<const T*>(data_); }
    const void* GetAddr() const { return data_; }
    // Bytes of data the tensor holds (0 when it carries no host data).
    size_t GetSize() const { return size_; }
    void SetData(const void* data, size_t size) {
        data_ = data;
        size_ = size;
    }

private:
    StorageShape shape_;
    ge::DataType dtype_ = ge::DT_UNDEFINED;
    StorageFormat format_;
    const void* data_ = nullptr;
    size_t size_ = 0;
};

}  // namespace gert
