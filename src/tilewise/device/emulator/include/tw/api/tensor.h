// Tensors and UB memory management: GlobalTensor over GM, LocalTensor over one core's UB, TPipe, TQue, TQueBind,
// TBuf. Every buffer a queue hands out is tracked so the sanitizer can name leaks, deadlocks and overruns.
#pragma once
#include <algorithm>
#include <cstdio>
#include <deque>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tw/runtime/racecheck.h"
#include "tw/runtime/launch_state.h"

namespace tw {

struct QueueState {
    int id = 0;
    AscendC::TPosition pos = AscendC::TPosition::VECIN;
    int num = 0;              // buffers
    uint32_t len = 0;         // bytes per buffer
    uint32_t asked = 0;       // the length InitBuffer was given, before the 32-byte rounding (lint's case facts)
    uint64_t offset = 0;      // first buffer's offset in UB
    std::vector<int> state;   // per buffer: 0 free, 1 allocated, 2 enqueued
    // Enqueued buffers, oldest first, as (id of the queue whose pool holds it, block index): a device queue records
    // buffer handles, so it may hold a block another queue allocated (see TQueBase::holder).
    std::deque<std::pair<int, int>> fifo;
    int next = 0;             // AscendC hands buffers out round-robin (ping-pong), not lowest-free-first
    const char* file = nullptr;
    int line = 0;
    bool is_buf = false;      // TBuf: no queue semantics
    uint64_t ub_size = 0;     // the core's UB: a pipe may lay buffers past its end (TPipe::alloc)

    // The bytes of block i that lie inside the UB, which its tensors may touch: the rest is past the memory's end.
    uint64_t inside(int i) const {
        const uint64_t start = offset + uint64_t(i) * len;
        return start >= ub_size ? 0 : std::min<uint64_t>(len, ub_size - start);
    }

    TW_RUNTIME_FN std::string where() const
#ifdef TW_RUNTIME_EXTERN
    ;  // in the runtime object (tw/runtime/out_of_line.h)
#else
    {
        return std::string(is_buf ? "buffer" : "queue") + " initialised at " + (file ? file : "?") + ":" +
               std::to_string(line);
    }
#endif
};

inline uint64_t align32(uint64_t n) { return (n + 31) & ~uint64_t(31); }

}  // namespace tw

namespace AscendC {

template <typename T>
class LocalTensor {
  public:
    using PrimType = T;  // the element type (the reference's PrimT of a plain type; TensorTrait is not modelled)
    LocalTensor() = default;
    LocalTensor(T* ptr, uint64_t cap, int queue, int buf, TPosition pos = TPosition::VECCALC)
        : ptr_(ptr), cap_(cap), size_(cap), queue_(queue), buf_(buf), pos_(pos) {}
    // Static tensor programming: `tileSize` elements at byte address `addr` of the core's UB, without TPipe. The
    // address must be 32-byte aligned and the tensor must end inside the UB.
    LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize, TW_SRC) : pos_(pos) {
        tw::Core& c = tw::cur();
        if (pos != TPosition::VECIN && pos != TPosition::VECOUT && pos != TPosition::VECCALC)
            tw::fail("unsupported", "LocalTensor(pos, addr, tileSize): the emulator models the Unified Buffer "
                     "(VECIN / VECOUT / VECCALC) only", TW_AT);
        if (addr % 32 != 0)
            tw::fail("misaligned", "LocalTensor(pos, addr, tileSize) at UB byte address " + std::to_string(addr) +
                     ", which is not 32-byte aligned", TW_AT);
        uint64_t end = uint64_t(addr) + uint64_t(tileSize) * sizeof(T);
        if (end > c.ub.size())
            tw::fail("ub_out_of_bounds", "LocalTensor(pos, addr, tileSize) spans UB bytes [" + std::to_string(addr) +
                     ", " + std::to_string(end) + "), past the " + std::to_string(c.ub.size()) + "-byte Unified Buffer",
                     TW_AT);
        if (end > c.ub_static_end) c.ub_static_end = end;
        ptr_ = reinterpret_cast<T*>(c.ub.data() + addr);
        cap_ = size_ = tileSize;
    }

    // Indices are the reference's `const uint32_t` (every integer type converts to it; a UB index fits), so the
    // address of each has its documented type.
    T GetValue(const uint32_t i, TW_SRC) const {
        check(i, 1, "GetValue", TW_AT);
        tw::record(tw::Rec::Scalar, PIPE_S, "GetValue", TW_AT, sizeof(T), 1, 0, 0, 0, sizeof(T));
        return ptr_[i];
    }
    TW_TWIN_N(, T, GetValue, (const uint32_t i), (i), const)
    template <typename U>
    void SetValue(const uint32_t i, const U v, TW_SRC) const {
        check(i, 1, "SetValue", TW_AT);
        tw::record(tw::Rec::Scalar, PIPE_S, "SetValue", TW_AT, sizeof(T), 1, 0, 0, 1, sizeof(T));
        ptr_[i] = static_cast<T>(v);
    }
    TW_TWIN_M(, void, (typename U), SetValue, (U), (const uint32_t i, const U v), (i, v), const)
    T& operator()(const uint32_t i) const { check(i, 1, "operator()", nullptr, 0); return ptr_[i]; }

    // The view keeps its real address even past the buffer's end (UB is one memory on the device: such a view
    // reaches the neighbouring buffers); an access through it is checked, with a location, when it happens.
    LocalTensor operator[](const uint32_t offset) const {
        LocalTensor t = *this;
        t.ptr_ = ptr_ + offset;
        t.cap_ = offset > cap_ ? 0 : cap_ - offset;
        t.size_ = size_ > offset ? size_ - offset : 0;
        t.overrun_ = overrun_ + (offset > cap_ ? offset - cap_ : 0);
        return t;
    }

    template <typename U>
    LocalTensor<U> ReinterpretCast() const {
        LocalTensor<U> t(reinterpret_cast<U*>(ptr_), cap_ * sizeof(T) / sizeof(U), queue_, buf_, pos_);
        t.SetSize(static_cast<uint32_t>(size_ * sizeof(T) / sizeof(U)));
        t.set_overrun(overrun_ * sizeof(T) / sizeof(U));
        return t;
    }

    uint32_t GetSize() const { return static_cast<uint32_t>(size_); }
    uint32_t GetLength() const { return static_cast<uint32_t>(size_ * sizeof(T)); }
    void SetSize(uint32_t n) { size_ = n; }
    TPosition GetPosition() const { return pos_; }
    uint64_t GetPhyAddr() const { return reinterpret_cast<uint64_t>(ptr_) - reinterpret_cast<uint64_t>(ub_base()); }
    T* GetPhyAddr(uint32_t offset) const { return ptr_ + offset; }
    void SetUserTag(const TTagType tag) { tag_ = tag; }
    TTagType GetUserTag() const { return tag_; }
    void SetShapeInfo(const ShapeInfo& shapeInfo) { shape_ = shapeInfo; }
    ShapeInfo GetShapeInfo() const { return shape_; }
    // The length in elements a view made with operator[] should take (SetBufferLen.md: for the compiler's
    // memory and sync analysis); here it is the tensor's size, so GetSize and the count forms see it.
    void SetBufferLen(uint32_t dataLen) { size_ = dataLen; }
    // This tensor becomes a view of `src`'s buffer `offset` of src's elements from its start (SetAddrWithOffset.md),
    // of this tensor's element type: the same buffer, so the same checks at its end.
    template <typename S>
    void SetAddrWithOffset(LocalTensor<S>& src, uint32_t offset) {
        LocalTensor<S> at = src[offset];
        *this = at.template ReinterpretCast<T>();
    }
    // CPU debugging (Print.md): the elements one 32-byte data block to a line, each line led by its first index.
    void Print() { Print(static_cast<uint32_t>(size_)); }
    void Print(uint32_t len) {
        const uint32_t per = std::max<uint32_t>(1, 32 / sizeof(T));
        const uint64_t n = std::min<uint64_t>(len, cap_);
        for (uint64_t i = 0; i < n; ++i) {
            if (i % per == 0) std::printf(i ? "\n%04llu:" : "%04llu:", static_cast<unsigned long long>(i));
            if constexpr (std::is_integral_v<T>)
                std::printf(" %lld", static_cast<long long>(ptr_[i]));
            else
                std::printf(" %g", static_cast<double>(static_cast<float>(ptr_[i])));
        }
        std::printf("\n");
    }

    // ---- emulator internals ----
    T* data() const { return ptr_; }
    uint64_t capacity() const { return cap_; }
    int queue_id() const { return queue_; }
    int buffer_index() const { return buf_; }

    void set_overrun(uint64_t n) { overrun_ = n; }

    // Elements [first, first + n) should lie inside the buffer this tensor views (see check).
    T* span(uint64_t first, uint64_t n, const char* what, const char* file, int line) const {
        check(first, n, what, file, line);
        tw::race_touch(ptr_ + first, n * sizeof(T));  // the call's record says which pipe used it
        return ptr_ + first;
    }

    // An access past the buffer's end but inside the Unified Buffer is what the device does too: UB is one memory
    // with no per-buffer protection, so the instruction reads or writes the neighbouring bytes. It is a sanitizer
    // warning at the call, and the access happens. Only an access reaching outside the physical UB (or through a
    // tensor never allocated) is an error.
    void check(uint64_t first, uint64_t n, const char* what, const char* file, int line) const {
        if (ptr_ == nullptr)
            tw::fail("ub_out_of_bounds", std::string(what) + " uses a LocalTensor that was never allocated", file,
                     line);
        if (overrun_ == 0 && first + n <= cap_) return;
        std::string msg = std::string(what) + " touches elements [" + std::to_string(first) + ", " +
                          std::to_string(first + n) + ") of " +
                          (overrun_ ? "a tensor that starts " + std::to_string(overrun_) +
                                          " elements past the end of its UB buffer"
                                    : "a UB buffer holding " + std::to_string(cap_) +
                                          " elements from this tensor's start");
        const tw::Core* c = tw::core();
        const uintptr_t lo = reinterpret_cast<uintptr_t>(ptr_) + first * sizeof(T);  // wraps below UB if negative
        const uintptr_t ub = c ? reinterpret_cast<uintptr_t>(c->ub.data()) : 0;
        if (c != nullptr && lo >= ub && lo - ub <= c->ub.size() && n * sizeof(T) <= c->ub.size() - (lo - ub)) {
            tw::warn("ub_out_of_bounds", msg + ": the device reads or overwrites whatever the neighbouring UB bytes "
                     "hold there", file, line);
            return;
        }
        tw::fail("ub_out_of_bounds",
                 msg + ", reaching outside the " + std::to_string(c ? c->ub.size() : 0) + "-byte Unified Buffer",
                 file, line);
    }

  private:
    static const uint8_t* ub_base() { return tw::core() ? tw::core()->ub.data() : nullptr; }
    T* ptr_ = nullptr;
    uint64_t cap_ = 0;
    uint64_t size_ = 0;
    uint64_t overrun_ = 0;
    int queue_ = -1;
    int buf_ = -1;
    TPosition pos_ = TPosition::VECCALC;
    TTagType tag_ = 0;
    ShapeInfo shape_;
};

template <typename T>
class GlobalTensor {
  public:
    using PrimType = T;
    void SetShapeInfo(const ShapeInfo& shapeInfo) { shape_ = shapeInfo; }
    ShapeInfo GetShapeInfo() const { return shape_; }
    void SetGlobalBuffer(T* buffer, uint64_t size = 0) { ptr_ = buffer; size_ = size; }
    GlobalTensor operator[](uint64_t offset) const {
        GlobalTensor g = *this;
        g.ptr_ = ptr_ + offset;
        g.size_ = size_ > offset ? size_ - offset : 0;
        return g;
    }
    T GetValue(uint64_t i, TW_SRC) const {
        tw::gm_check(ptr_ + i, sizeof(T), "GlobalTensor::GetValue", TW_AT);
        tw::record(tw::Rec::Scalar, PIPE_S, "GetValue(GM)", TW_AT, sizeof(T), 1, 0, 1, 0, sizeof(T));
        return ptr_[i];
    }
    TW_TWIN_N(, T, GetValue, (uint64_t i), (i), const)
    template <typename U>
    void SetValue(uint64_t i, U v, TW_SRC) const {
        tw::gm_check(ptr_ + i, sizeof(T), "GlobalTensor::SetValue", TW_AT);
        tw::record(tw::Rec::Scalar, PIPE_S, "SetValue(GM)", TW_AT, sizeof(T), 1, 0, 1, 1, sizeof(T));
        ptr_[i] = static_cast<T>(v);
    }
    TW_TWIN_M(, void, (typename U), SetValue, (U), (uint64_t i, U v), (i, v), const)
    T& operator()(uint64_t i) const { return ptr_[i]; }
    uint64_t GetSize() const { return size_; }
    T* GetPhyAddr() const { return ptr_; }
    T* GetPhyAddr(uint64_t offset) const { return ptr_ + offset; }
    // The timing model's L2 keeps what a copy moves unless the tensor was marked CACHE_MODE_DISABLE (data read once).
    template <CacheRwMode rwMode = CacheRwMode::RW>
    void SetL2CacheHint(CacheMode mode) { l2_mode_ = mode; }
    bool keeps_in_l2() const { return l2_mode_ != CacheMode::CACHE_MODE_DISABLE; }
    T* address_() const { return ptr_; }
    T* data() const { return ptr_; }

  private:
    T* ptr_ = nullptr;
    uint64_t size_ = 0;
    CacheMode l2_mode_ = CacheMode::CACHE_MODE_NORMAL;
    ShapeInfo shape_;
};

class TPipe;
inline TPipe* GetTPipePtr();

// TQue's third parameter (TQue简介.md): an int mask of ND/NZ conversion bits (the cube side's), or a pointer to a
// TQueConfig whose bufferLen / bufferNumber, when not 0, must be what InitBuffer gives.
struct TQueConfig {
    bool nd2nz = false;
    bool nz2nd = false;
    bool scmBlockGroup = false;
    uint32_t bufferLen = 0;
    uint32_t bufferNumber = 0;
    uint32_t consumerSize = 0;
    TPosition consumer[8] = {};
    bool enableStaticEvtId = false;
    bool enableLoopQueue = false;
};

template <TPosition pos, int32_t depth = 1, auto mask = 0>
class TQue;
template <TPosition src, TPosition dst, int32_t depth = 1, auto mask = 0>
class TQueBind;
template <TPosition pos = TPosition::VECCALC>
class TBuf;

class TQueBase {
  public:
    template <typename T>
    LocalTensor<T> AllocTensor(TW_SRC) {
        tw::QueueState& q = state(TW_AT, "AllocTensor");
        for (int k = 0; k < q.num; ++k) {
            int i = (q.next + k) % q.num;
            if (q.state[i] == 0) {
                q.state[i] = 1;
                q.next = (i + 1) % q.num;
                tw::record(tw::Rec::Alloc, PIPE_S, "AllocTensor", TW_AT, 0, 0, 0, q.id, i);
                return LocalTensor<T>(reinterpret_cast<T*>(ub() + q.offset + uint64_t(i) * q.len),
                                      q.inside(i) / sizeof(T), q.id, i, q.pos);
            }
        }
        tw::fail("deadlock",
                 "AllocTensor on the " + q.where() + " waits forever: all " + std::to_string(q.num) +
                     " of its buffers are in use (FreeTensor one first, or InitBuffer more)",
                 TW_AT);
    }

    // The in-place forms: `que.AllocTensor<T>(t)` and `que.DeQue<T>(t)` assign the tensor instead of returning it.
    template <typename T>
    void AllocTensor(LocalTensor<T>& t, TW_SRC) { t = AllocTensor<T>(TW_AT); }
    TW_TWIN_M(, void, (typename T), AllocTensor, (T), (LocalTensor<T>& t), (t), )
    template <typename T>
    void DeQue(LocalTensor<T>& t, TW_SRC) { t = DeQue<T>(TW_AT); }
    TW_TWIN_M(, void, (typename T), DeQue, (T), (LocalTensor<T>& t), (t), )

    template <typename T>
    bool EnQue(const LocalTensor<T>& t, TW_SRC) {
        tw::QueueState& q = state(TW_AT, "EnQue");
        tw::QueueState& h = holder(q, t, "EnQue", TW_AT);
        int b = t.buffer_index();
        if (h.state[b] != 1)
            tw::fail("queue_misuse", "EnQue of a tensor that is not allocated from the " + h.where(), TW_AT);
        h.state[b] = 2;
        q.fifo.push_back({h.id, b});
        tw::record(tw::Rec::EnQue, PIPE_S, "EnQue", TW_AT, 0, 0, 0, h.id, b);
        return true;
    }
    TW_TWIN_M(, bool, (typename T), EnQue, (T), (const LocalTensor<T>& t), (t), )
    template <TPosition, TPosition, typename T>
    bool EnQue(const LocalTensor<T>& t, TW_SRC) { return EnQue<T>(t, TW_AT); }
    TW_TWIN_M(, bool, (TPosition TwT0, TPosition TwT1, typename T), EnQue, (TwT0, TwT1, T), (const LocalTensor<T>& t),
            (t), )

    template <typename T>
    LocalTensor<T> DeQue(TW_SRC) {
        tw::QueueState& q = state(TW_AT, "DeQue");
        if (q.fifo.empty())
            tw::fail("deadlock",
                     "DeQue on the empty " + q.where() + " waits forever: nothing was EnQue'd before it", TW_AT);
        auto [id, b] = q.fifo.front();
        q.fifo.pop_front();
        tw::QueueState& h = *tw::cur().queues[id];  // the block's own pool: its address, size and state
        h.state[b] = 1;
        tw::record(tw::Rec::DeQue, PIPE_S, "DeQue", TW_AT, 0, 0, 0, h.id, b);
        return LocalTensor<T>(reinterpret_cast<T*>(ub() + h.offset + uint64_t(b) * h.len), h.inside(b) / sizeof(T), h.id,
                              b, h.pos);
    }
    TW_TWIN_M0(, LocalTensor<T>, (typename T), DeQue, (T), )
    template <TPosition, TPosition, typename T>
    LocalTensor<T> DeQue(TW_SRC) { return DeQue<T>(TW_AT); }
    TW_TWIN_M0(, LocalTensor<T>, (TPosition TwT0, TPosition TwT1, typename T), DeQue, (TwT0, TwT1, T), )

    template <typename T>
    void FreeTensor(LocalTensor<T>& t, TW_SRC) {
        tw::QueueState& q = state(TW_AT, "FreeTensor");
        tw::QueueState& h = holder(q, t, "FreeTensor", TW_AT);
        int b = t.buffer_index();
        if (h.state[b] == 0) tw::fail("queue_misuse", "FreeTensor of a buffer already free in the " + h.where(), TW_AT);
        h.state[b] = 0;
        for (auto it = q.fifo.begin(); it != q.fifo.end(); ++it) {
            if (*it == std::make_pair(h.id, b)) { q.fifo.erase(it); break; }
        }
        tw::record(tw::Rec::Free, PIPE_S, "FreeTensor", TW_AT, 0, 0, 0, h.id, b);
    }
    TW_TWIN_M(, void, (typename T), FreeTensor, (T), (LocalTensor<T>& t), (t), )
    template <typename T>
    void FreeTensor(LocalTensor<T>&& t, TW_SRC) { LocalTensor<T> c = t; FreeTensor(c, TW_AT); }
    TW_TWIN_M(, void, (typename T), FreeTensor, (T), (LocalTensor<T>&& t), (t), )

    bool VacantInQue() const { const tw::QueueState& q = *st_; for (int s : q.state) if (s == 0) return true; return false; }
    bool HasTensorInQue() const { return st_ && !st_->fifo.empty(); }
    int32_t GetTensorCountInQue() const { return st_ ? static_cast<int32_t>(st_->fifo.size()) : 0; }
    bool HasIdleBuffer() const { return VacantInQue(); }
    void FreeAllEvent() {}
    void InitStartBufHandle(void*, uint8_t, uint32_t) {}

    // ---- emulator internals ----
    tw::QueueState* st_ = nullptr;
    TPosition pos_ = TPosition::VECIN;

  protected:
    static uint8_t* ub() { return tw::cur().ub.data(); }
    tw::QueueState& state(const char* file, int line, const char* what) {
        tw::cur();
        if (st_ == nullptr)
            tw::fail("queue_misuse", std::string(what) + " on a queue that TPipe::InitBuffer never initialised", file,
                     line);
        return *st_;
    }
    // The queue whose pool holds t's block: q itself, or another queue's. On the device a queue keeps buffer
    // handles and the block's state lives with the block, so EnQue/FreeTensor of another queue's tensor does what it
    // says (DeQue then returns that block); only Huawei's CPU debug build asserts that the block is the queue's own.
    // That is a warning here. A tensor from no queue (a TBuf, a static address) has no handle: an error.
    template <typename T>
    static tw::QueueState& holder(tw::QueueState& q, const LocalTensor<T>& t, const char* what, const char* file,
                                  int line) {
        if (t.queue_id() == q.id && t.buffer_index() >= 0 && t.buffer_index() < q.num) return q;
        std::vector<tw::QueueState*>& all = tw::cur().queues;
        tw::QueueState* h = t.queue_id() >= 0 && t.queue_id() < static_cast<int>(all.size()) ? all[t.queue_id()]
                                                                                              : nullptr;
        if (h == nullptr || h->is_buf || t.buffer_index() < 0 || t.buffer_index() >= h->num)
            tw::fail("queue_misuse", std::string(what) + " of a tensor that does not belong to the " + q.where(), file,
                     line);
        tw::warn("queue_misuse", std::string(what) + " on the " + q.where() + " of a tensor allocated from the " +
                 h->where() + ": the device acts on that queue's block, but Huawei's CPU debug mode stops here; use "
                 "the queue the tensor came from", file, line);
        return *h;
    }
};

template <TPosition pos, int32_t depth, auto mask>
class TQue : public TQueBase {
  public:
    TQue() { pos_ = pos; }
};

template <TPosition src, TPosition dst, int32_t depth, auto mask>
class TQueBind : public TQueBase {
  public:
    TQueBind() { pos_ = src; }
};

template <TPosition pos>
class TBuf {
  public:
    template <typename T>
    LocalTensor<T> Get(uint32_t len, TW_SRC) {
        check(TW_AT);
        // The device does not check the length here: only an access past the buffer is wrong (every UB access is
        // checked against the buffer itself, see LocalTensor::check), so an over-long Get is a warning.
        if (uint64_t(len) * sizeof(T) > st_->len)
            tw::warn("ub_get_past_end",
                     "TBuf::Get of " + std::to_string(len) + " elements (" + std::to_string(uint64_t(len) * sizeof(T)) +
                         " bytes) from a " + st_->where() + " of " + std::to_string(st_->len) +
                         " bytes; an access past the buffer's end reaches the neighbouring UB bytes",
                     TW_AT);
        // Accesses are checked against what the buffer holds; GetSize() answers the length asked, as on the device.
        uint64_t cap = std::min<uint64_t>(len, st_->inside(0) / sizeof(T));
        LocalTensor<T> t(reinterpret_cast<T*>(tw::cur().ub.data() + st_->offset), cap, st_->id, 0, pos);
        t.SetSize(len);
        return t;
    }
    template <typename T>
    LocalTensor<T> Get(TW_SRC_NOT_INT) {
        check(TW_AT);
        return LocalTensor<T>(reinterpret_cast<T*>(tw::cur().ub.data() + st_->offset), st_->inside(0) / sizeof(T),
                              st_->id, 0, pos);
    }
    TW_TWIN_M0(, LocalTensor<T>, (typename T), Get, (T), )
    template <typename T>
    LocalTensor<T> GetWithOffset(uint32_t len, uint32_t offset, TW_SRC) {
        check(TW_AT);
        if (offset + uint64_t(len) * sizeof(T) > st_->len)
            tw::warn("ub_get_past_end", "TBuf::GetWithOffset runs past the end of the " + st_->where() +
                                            "; an access past the buffer's end reaches the neighbouring UB bytes",
                     TW_AT);
        // A tensor starting past the buffer is only an address, as on the device: its accesses are checked.
        uint64_t cap = offset > st_->inside(0) ? 0 : std::min<uint64_t>(len, (st_->inside(0) - offset) / sizeof(T));
        LocalTensor<T> t(reinterpret_cast<T*>(tw::cur().ub.data() + st_->offset + offset), cap, st_->id, 0, pos);
        if (offset > st_->len) t.set_overrun((offset - st_->len) / sizeof(T));
        t.SetSize(len);
        return t;
    }
    TW_TWIN_M(, LocalTensor<T>, (typename T), GetWithOffset, (T), (uint32_t len, uint32_t offset), (len, offset), )
    // TBuf derives from TQueBind on the device and exposes its queue calls, reduced to what a TBuf means: a single
    // block with no queue behind it. AllocTensor and DeQue hand out the whole buffer as Get() does; FreeTensor and
    // EnQue do nothing (a TBuf's tensor needs no release), so code written for a queue also runs on a TBuf.
    template <typename T>
    LocalTensor<T> AllocTensor(TW_SRC) {
        return Get<T>(TW_AT);
    }
    TW_TWIN_M0(, LocalTensor<T>, (typename T), AllocTensor, (T), )
    template <typename T>
    void FreeTensor(LocalTensor<T>&) {}
    template <typename T>
    void EnQue(const LocalTensor<T>&) {}
    template <typename T>
    LocalTensor<T> DeQue(TW_SRC) {
        return Get<T>(TW_AT);
    }
    TW_TWIN_M0(, LocalTensor<T>, (typename T), DeQue, (T), )

    tw::QueueState* st_ = nullptr;

  private:
    void check(const char* file, int line) {
        tw::cur();
        if (st_ == nullptr) tw::fail("queue_misuse", "TBuf::Get on a buffer TPipe::InitBuffer never initialised", file, line);
    }
};

class TPipe {
  public:
    TPipe() {
        if (tw::core()) {
            tw::core()->pipe = this;
            base_ = end_ = tw::core()->ub_used;
        }
    }
    ~TPipe() {
        release();
        if (tw::core() && tw::core()->pipe == this) tw::core()->pipe = nullptr;
    }

    template <TPosition pos, int32_t depth, auto mask>
    bool InitBuffer(TQue<pos, depth, mask>& que, uint8_t num, uint32_t len, TW_SRC) {
        check_config<mask>(num, len, TW_AT);
        que.st_ = alloc(num, len, pos, false, TW_AT);
        return true;
    }
    TW_TWIN_M(, bool, (TPosition pos, int32_t depth, auto mask), InitBuffer, (pos, depth, mask),
            (TQue<pos, depth, mask>& que, uint8_t num, uint32_t len), (que, num, len), )
    template <TPosition src, TPosition dst, int32_t depth, auto mask>
    bool InitBuffer(TQueBind<src, dst, depth, mask>& que, uint8_t num, uint32_t len, TW_SRC) {
        check_config<mask>(num, len, TW_AT);
        que.st_ = alloc(num, len, src, false, TW_AT);
        return true;
    }
    TW_TWIN_M(, bool, (TPosition src, TPosition dst, int32_t depth, auto mask), InitBuffer, (src, dst, depth,
            mask), (TQueBind<src, dst, depth, mask>& que, uint8_t num, uint32_t len), (que, num, len), )
    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, uint32_t len, TW_SRC) {
        buf.st_ = alloc(1, len, pos, true, TW_AT);
        return true;
    }
    TW_TWIN_M(, bool, (TPosition pos), InitBuffer, (pos), (TBuf<pos>& buf, uint32_t len), (buf, len), )
    // The queue form on a TBuf (releases before the TBuf-only static_assert accepted it): num blocks of len bytes,
    // each rounded up to 32 bytes and laid end to end; the TBuf spans them all (Get() sees num * len bytes).
    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, uint8_t num, uint32_t len, TW_SRC) {
        if (num == 0) tw::fail("queue_misuse", "InitBuffer of a TBuf with 0 blocks", TW_AT);
        buf.st_ = alloc(1, static_cast<uint32_t>(tw::align32(len) * num), pos, true, TW_AT);
        return true;
    }
    TW_TWIN_M(, bool, (TPosition pos), InitBuffer, (pos), (TBuf<pos>& buf, uint8_t num, uint32_t len), (buf, num,
            len), )

    TEventID FetchEventID(HardEvent) { return static_cast<TEventID>(tw::cur().next_event++ % 8); }
    template <HardEvent e>
    TEventID FetchEventID() { return FetchEventID(e); }
    TEventID AllocEventID(HardEvent e) { return FetchEventID(e); }
    template <HardEvent e>
    TEventID AllocEventID() { return FetchEventID(e); }
    void ReleaseEventID(TEventID, HardEvent = HardEvent::V_S) {}
    template <HardEvent e>
    void ReleaseEventID(TEventID) {}
    // Documented: the UB that InitBuffer took goes back when the TPipe is destroyed, and Reset lets InitBuffer
    // allocate it again. A kernel that builds a fresh TPipe per sample (or Resets one) reuses the same UB.
    void Reset() { release(); }
    void Destroy() { release(); }
    void Init() {}

  private:
    // A queue's TQueConfig (its third template argument when that is a `const TQueConfig*`): a bufferNumber or
    // bufferLen that is not 0 states at compile time what InitBuffer gives, and must equal it (TQue简介.md).
    template <auto mask>
    static void check_config(uint8_t num, uint32_t len, const char* file, int line) {
        if constexpr (std::is_pointer<decltype(mask)>::value) {
            static_assert(std::is_same<decltype(mask), const TQueConfig*>::value,
                          "a queue's third template argument is an int mask or a const TQueConfig*");
            if (mask == nullptr) return;
            if ((mask->bufferNumber != 0 && mask->bufferNumber != num) || (mask->bufferLen != 0 && mask->bufferLen != len))
                tw::fail("invalid_argument",
                         "InitBuffer of " + std::to_string(num) + " x " + std::to_string(len) +
                             " bytes on a queue whose TQueConfig says bufferNumber " +
                             std::to_string(mask->bufferNumber) + ", bufferLen " + std::to_string(mask->bufferLen) +
                             ": a value that is not 0 must be what InitBuffer gives",
                         file, line);
        } else {
            (void)num, (void)len, (void)file, (void)line;
        }
    }
    uint64_t base_ = 0;  // the core's UB use when this pipe was made: its InitBuffers start there
    uint64_t end_ = 0;   // and end here
    void release() {
        // Only a pipe whose buffers are the last allocated gives them back: another pipe made after it and still
        // alive keeps its own, which must not be handed out twice.
        tw::Core* c = tw::core();
        if (c != nullptr && c->ub_used == end_) c->ub_used = base_;
        end_ = base_;
    }
    TW_RUNTIME_FN tw::QueueState* alloc(int num, uint32_t len, TPosition pos, bool is_buf, const char* file, int line)
#ifdef TW_RUNTIME_EXTERN
    ;  // in the runtime object (tw/runtime/out_of_line.h)
#else
    {
        tw::Core& c = tw::cur();
        uint64_t bytes = tw::align32(len);
        uint64_t need = c.ub_used + bytes * uint64_t(num);
        // The device's InitBuffer only lays buffers end to end (its capacity check is an assert of the CPU debug
        // build): a kernel that over-asks runs as long as it never touches the part past the UB's end, which is an
        // error at the access here (the tensors' extent stops at the UB's end, see QueueState::inside).
        if (need > c.ub.size())
            tw::warn("ub_overflow",
                     "InitBuffer of " + std::to_string(num) + " x " + std::to_string(len) +
                         " bytes exceeds the Unified Buffer: " + std::to_string(need) + " bytes needed, " +
                         std::to_string(c.ub.size()) + " available (" + std::to_string(need - c.ub.size()) +
                         " bytes over); an access to the part past the UB's end fails",
                     file, line);
        auto* q = new tw::QueueState();
        q->id = static_cast<int>(c.queues.size());
        q->pos = pos;
        q->num = num;
        q->len = static_cast<uint32_t>(bytes);
        q->asked = len;
        q->offset = c.ub_used;
        q->state.assign(num, 0);
        q->file = file;
        q->line = line;
        q->is_buf = is_buf;
        q->ub_size = c.ub.size();
        c.ub_used = need;
        end_ = need;
        c.queues.push_back(q);
        return q;
    }
#endif
};

inline TPipe* GetTPipePtr() { return static_cast<TPipe*>(tw::cur().pipe); }

}  // namespace AscendC
