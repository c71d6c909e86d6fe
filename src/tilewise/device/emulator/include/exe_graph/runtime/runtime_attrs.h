// tilewise host emulation: gert::RuntimeAttrs, an operator's attribute values in OpDef declaration order.
// GetAttrPointer<T>(i) reinterprets the stored value as T, like the real runtime does: a Float attribute is a
// float, an Int attribute an int64_t, a Bool a bool, a String a NUL-terminated char array, a list a ContinuousVector.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "exe_graph/runtime/continuous_vector.h"

namespace gert {

class RuntimeAttrs {
public:
    enum class Kind { FLOAT, INT, BOOL, STR, LIST_INT, LIST_FLOAT, LIST_BOOL, ABSENT };

    // Builders used by the emulator's runner (not part of the operator-facing API).
    void AddFloat(float v) { Push(Kind::FLOAT).f = v; }
    void AddInt(int64_t v) { Push(Kind::INT).i = v; }
    void AddBool(bool v) { Push(Kind::BOOL).b = v; }
    void AddStr(const std::string& v) { Push(Kind::STR).s = v; }
    void AddListInt(const std::vector<int64_t>& v) { Push(Kind::LIST_INT).list = ContinuousVector::From(v); }
    void AddListFloat(const std::vector<float>& v) { Push(Kind::LIST_FLOAT).list = ContinuousVector::From(v); }
    void AddListBool(const std::vector<bool>& v) {
        Push(Kind::LIST_BOOL).list = ContinuousVector::From(std::vector<uint8_t>(v.begin(), v.end()));
    }
    void AddAbsent() { Push(Kind::ABSENT); }

    size_t GetAttrNum() const { return attrs_.size(); }

    // nullptr when the index is out of range or the attribute has no value (a required attr nobody set).
    template <typename T>
    const T* GetAttrPointer(size_t index) const {
        const void* p = Raw(index);
        return static_cast<const T*>(p);
    }

    const float* GetFloat(size_t index) const { return GetAttrPointer<float>(index); }
    const int64_t* GetInt(size_t index) const { return GetAttrPointer<int64_t>(index); }
    const bool* GetBool(size_t index) const { return GetAttrPointer<bool>(index); }
    const char* GetStr(size_t index) const { return GetAttrPointer<char>(index); }
    const TypedContinuousVector<int64_t>* GetListInt(size_t index) const {
        return GetAttrPointer<TypedContinuousVector<int64_t>>(index);
    }
    const TypedContinuousVector<float>* GetListFloat(size_t index) const {
        return GetAttrPointer<TypedContinuousVector<float>>(index);
    }
    const TypedContinuousVector<bool>* GetListBool(size_t index) const {
        return GetAttrPointer<TypedContinuousVector<bool>>(index);
    }

private:
    struct Attr {
        Kind kind = Kind::ABSENT;
        float f = 0.0f;
        int64_t i = 0;
        bool b = false;
        std::string s;
        // TypedContinuousVector adds no data members, so GetListInt & co. view this object through it, as the
        // real runtime views its raw attribute bytes.
        ContinuousVector list;
    };

    Attr& Push(Kind k) {
        attrs_.emplace_back();
        attrs_.back().kind = k;
        return attrs_.back();
    }

    const void* Raw(size_t index) const {
        if (index >= attrs_.size()) {
            return nullptr;
        }
        const Attr& a = attrs_[index];
        switch (a.kind) {
            case Kind::FLOAT: return &a.f;
            case Kind::INT: return &a.i;
            case Kind::BOOL: return &a.b;
            case Kind::STR: return a.s.c_str();
            case Kind::LIST_INT:
            case Kind::LIST_FLOAT:
            case Kind::LIST_BOOL: return &a.list;
            default: return nullptr;
        }
    }

    std::vector<Attr> attrs_;
};

}  // namespace gert
