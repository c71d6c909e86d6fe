// UB bank conflicts of a vector instruction (NPU architecture 2201: Atlas A2 / A3), worked out when the instruction
// runs, from its operands' UB addresses, strides and mask, and handed to the timing model (tw/timing/model.h) in the
// instruction's trace record field `a`. Why: the same instruction can take several times longer when its operands
// are laid out badly in UB (the best-practice guide measures 1.57x to 6.7x), and only the run knows the addresses.
//
// The hardware, as the Ascend C best-practice guide ("avoid UB bank conflicts", arch 2201) and its bank_conflict_ub
// and bank_conflict_nd2nz samples describe it: UB is 48 banks of 4 KB (128 rows of 32 bytes), in 16 bank groups of
// 3 banks. A byte address splits as {bank id [17:16], row [15:9], bank group [8:5], offset [4:0]}; the global bank
// is group + 16 x bank id. The vector unit moves one 32-byte block per bank group per beat, so
//  - read-read: the blocks a repeat reads (from every source) that fall in one bank group take a beat each; a block
//    read twice (two sources at the same address, a block stride of 0) is read once;
//  - write-write: the same for the blocks a repeat writes;
//  - read-write: a read and a write in the same bank in one beat collide. The hardware delays the write by one repeat
//    when the destination lies bank for bank on a source (its block k in the same bank as that source's block k, for
//    every k; a destination equal to the source is the common case), so that pairing costs nothing.
// Measured on A2 (bank_conflict_ub, Add float, 64 repeats): two sources in the same groups 1.74x; dst one block off
// src0's bank alignment 1.57x; dst aligned with src0, or equal to src1, no slower. The timing model charges a repeat
// max(read beats, write beats) times the instruction's per-repeat cost, plus a chip constant for a read-write
// conflict (tw/timing/model.h, cost_of).
//
// Which repeats are examined: the first min(repeats, 16). A block's bank group in repeat r is its group in repeat 0
// plus r x the repeat stride in 32-byte units, mod 16, so every operand's group pattern repeats within 16 repeats and
// the mean over the first 16 is the mean over the whole instruction (exactly when the repeat count is a multiple of
// the pattern's period). The bank id changes only every 64 KB; it is taken as those repeats see it. This bounds the
// work to a few hundred integer operations a call, small next to the elements the call computes.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "tw/api/vector/core.h"

namespace tw {

// One operand as the bank model sees it: where its repeat 0 block 0 starts in UB, how far apart its blocks and
// repeats are, and how many bytes one block covers (32, or less for the narrower operand of a conversion).
struct BankOperand {
    uint64_t addr = 0;
    uint64_t blk_bytes = 32;
    uint64_t rep_bytes = 256;
    uint64_t len = 32;
    bool valid = false;  // false: the pointer is not in this core's UB (no bank information then)
};

// The UB byte address of `p` in the current core's Unified Buffer, as an operand laid out by `L`.
inline BankOperand bank_operand(const void* p, const Lay& L) {
    BankOperand o;
    const Core* c = core();
    if (c == nullptr || c->ub.empty()) return o;
    const uint8_t* base = c->ub.data();
    const uint8_t* q = static_cast<const uint8_t*>(p);
    if (q < base || q >= base + c->ub.size()) return o;
    o.addr = static_cast<uint64_t>(q - base);
    o.blk_bytes = L.blk_bytes;
    o.rep_bytes = L.rep_bytes;
    o.len = uint64_t(L.EB) * L.es;
    o.valid = true;
    return o;
}

// The layout of a count-form operand of element type X in an instruction whose repeat is driven by `wide`-byte
// elements: contiguous blocks of 32 / wide elements, repeats of 256 / wide elements.
template <typename X>
inline Lay count_lay(uint32_t wide = sizeof(X)) {
    return lay<X>(1, 8 * sizeof(X) / wide, wide);
}

// What the record's `a` carries: bit 30 set (0 = no information), then three 10-bit fields in 1/16 units: the mean
// read beats per repeat (bits 0-9), the mean write beats (10-19) and the share of repeats with a read-write
// conflict (20-29).
constexpr int32_t kBankInfoFlag = 1 << 30;

struct BankBeats {
    double read = 1, write = 1, rw = 0;  // beats per repeat; share of repeats with a read-write conflict
};

inline int32_t pack_bank_beats(const BankBeats& b) {
    auto q = [](double v) { return static_cast<int32_t>(std::min(1023.0, std::max(0.0, v * 16.0 + 0.5))); };
    return kBankInfoFlag | q(b.read) | (q(b.write) << 10) | (q(b.rw) << 20);
}

inline bool unpack_bank_beats(int32_t a, BankBeats& b) {
    if (a <= 0 || !(a & kBankInfoFlag)) return false;
    b.read = (a & 1023) / 16.0;
    b.write = ((a >> 10) & 1023) / 16.0;
    b.rw = ((a >> 20) & 1023) / 16.0;
    return true;
}

namespace banks_detail {

constexpr uint32_t kMaxBlocks = 64;  // blocks a repeat may touch (Copy's counter mode: up to 256 slots of 4 bytes)
constexpr uint32_t kExamined = 16;   // repeats examined (see the header comment)

inline uint64_t row_of(uint64_t addr) { return addr >> 5; }
inline uint32_t group_of_row(uint64_t row) { return static_cast<uint32_t>(row & 15); }
inline uint32_t bank_of(uint64_t addr) { return static_cast<uint32_t>(((addr >> 5) & 15) | (((addr >> 16) & 3) << 4)); }

// Beats to move the distinct 32-byte rows in `rows` (n of them, may repeat): the most rows any bank group holds.
TW_RUNTIME_FN uint32_t beats_of(uint64_t* rows, uint32_t n)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    std::sort(rows, rows + n);
    n = static_cast<uint32_t>(std::unique(rows, rows + n) - rows);
    uint32_t per_group[16] = {0};
    uint32_t most = 1;
    for (uint32_t i = 0; i < n; ++i) most = std::max(most, ++per_group[group_of_row(rows[i])]);
    return most;
}
#endif

// Appends the rows block `k` of repeat `r` of `o` covers (one, or two when the block straddles a row boundary).
inline void add_rows(const BankOperand& o, uint32_t r, uint32_t k, uint64_t* rows, uint32_t& n) {
    const uint64_t start = o.addr + uint64_t(r) * o.rep_bytes + uint64_t(k) * o.blk_bytes;
    const uint64_t first = row_of(start), last = row_of(start + (o.len ? o.len : 1) - 1);
    for (uint64_t row = first; row <= last && row < first + 2; ++row) rows[n++] = row;
}

inline uint32_t bank_at(const BankOperand& o, uint32_t r, uint32_t k) {
    return bank_of(o.addr + uint64_t(r) * o.rep_bytes + uint64_t(k) * o.blk_bytes);
}

// Whether writing `dst` while reading `src` in repeat r collides: they share a bank, and dst is not laid bank for
// bank on src (the layout the hardware resolves by delaying the write a repeat).
inline bool rw_conflict(const BankOperand& dst, const BankOperand& src, uint32_t r, const uint32_t* blocks,
                        uint32_t nb) {
    bool shared = false, aligned = true;
    uint64_t dst_banks = 0;  // one bit per global bank (48 of 64)
    for (uint32_t i = 0; i < nb; ++i) dst_banks |= 1ull << bank_at(dst, r, blocks[i]);
    for (uint32_t i = 0; i < nb; ++i) {
        const uint32_t sb = bank_at(src, r, blocks[i]);
        if ((dst_banks >> sb) & 1) shared = true;
        if (sb != bank_at(dst, r, blocks[i])) aligned = false;
    }
    return shared && !aligned;
}

// What an instruction's beats depend on, as a memo key: the operands (dst first), the blocks a normal-mode repeat
// touches, the repeats (normal mode) or elements (counter mode), and the slots per repeat and per block. All fields
// are 64 or 32 bits wide, in that order, so the struct has no padding and compares with memcmp.
struct BankKey {
    uint64_t op[4][4];  // addr, blk_bytes, rep_bytes, len
    uint64_t blocks;    // normal mode: bit k set when block k holds a selected slot
    uint64_t count;     // normal mode: repeats; counter mode: elements
    uint32_t nops, E, EB, counter;
};

// The beats for `key`, computed (see the header comment for the rules and the repeats examined).
TW_RUNTIME_FN int32_t compute_beats(const BankKey& key)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    const uint32_t issued =
        key.counter ? static_cast<uint32_t>((key.count + key.E - 1) / key.E) : static_cast<uint32_t>(key.count);
    const uint32_t examined = std::min(issued, kExamined);
    BankOperand ops[4];
    for (uint32_t i = 0; i < key.nops; ++i) {
        ops[i].addr = key.op[i][0];
        ops[i].blk_bytes = key.op[i][1];
        ops[i].rep_bytes = key.op[i][2];
        ops[i].len = key.op[i][3];
    }
    const BankOperand& dst = ops[0];
    const BankOperand* srcs = ops + 1;
    const uint32_t nsrc = key.nops - 1;
    uint32_t fixed[kMaxBlocks], nfixed = 0;
    for (uint32_t k = 0; k < kMaxBlocks; ++k)
        if ((key.blocks >> k) & 1) fixed[nfixed++] = k;
    uint64_t rows[4 * kMaxBlocks * 2];
    double read = 0, write = 0, rw = 0;
    for (uint32_t r = 0; r < examined; ++r) {
        uint32_t counted[kMaxBlocks], nb = 0;
        const uint32_t* blocks = fixed;
        if (key.counter) {  // slots 0..k-1 of this repeat's chunk of E elements
            const uint64_t left = key.count - uint64_t(r) * key.E;
            const uint64_t k = std::min<uint64_t>(left, key.E);
            nb = static_cast<uint32_t>(std::min<uint64_t>((k + key.EB - 1) / key.EB, kMaxBlocks));
            for (uint32_t i = 0; i < nb; ++i) counted[i] = i;
            blocks = counted;
        } else {
            nb = nfixed;
        }
        uint32_t n = 0;
        for (uint32_t j = 0; j < nsrc; ++j)
            for (uint32_t i = 0; i < nb; ++i) add_rows(srcs[j], r, blocks[i], rows, n);
        read += nsrc ? beats_of(rows, n) : 1;
        n = 0;
        for (uint32_t i = 0; i < nb; ++i) add_rows(dst, r, blocks[i], rows, n);
        write += beats_of(rows, n);
        bool clash = false;
        for (uint32_t j = 0; j < nsrc && !clash; ++j) clash = rw_conflict(dst, srcs[j], r, blocks, nb);
        rw += clash ? 1 : 0;
    }
    BankBeats b;
    b.read = read / examined;
    b.write = write / examined;
    b.rw = rw / examined;
    return pack_bank_beats(b);
}
#endif

}  // namespace banks_detail

// The beats of an instruction over the repeats `m` issues (E slots a repeat, EB slots a block; up to 3 sources),
// packed for the trace record; 0 when an operand is not in UB or the instruction does nothing. A kernel issues the
// same instruction on the same buffers over and over (a tile loop, ping-pong buffers), so each thread keeps the last
// few answers: a hit costs a key comparison instead of the few microseconds the 16 repeats take.
TW_RUNTIME_FN int32_t bank_info(const VMask& m, uint32_t E, uint32_t EB, const BankOperand& dst,
                         std::initializer_list<BankOperand> srcs)
#ifdef TW_RUNTIME_EXTERN
;  // in the runtime object (tw/runtime/out_of_line.h)
#else
{
    using namespace banks_detail;
    if (!dst.valid || EB == 0 || srcs.size() > 3) return 0;
    for (const BankOperand& s : srcs)
        if (!s.valid) return 0;
    if (m.issued(E) == 0 || m.elements() == 0) return 0;

    BankKey key;
    std::memset(&key, 0, sizeof(key));
    auto add = [&key](const BankOperand& o) {
        uint64_t* v = key.op[key.nops++];
        v[0] = o.addr;
        v[1] = o.blk_bytes;
        v[2] = o.rep_bytes;
        v[3] = o.len;
    };
    add(dst);
    for (const BankOperand& o : srcs) add(o);
    key.counter = m.counter;
    key.count = m.counter ? m.n : m.repeats;
    key.E = E;
    key.EB = EB;
    if (!m.counter)
        for (uint32_t i = 0; i < m.nslots; ++i)
            if (m.slots[i] / EB < kMaxBlocks) key.blocks |= 1ull << (m.slots[i] / EB);

    struct Entry {
        BankKey key;
        int32_t value = -1;
    };
    static thread_local Entry memo[8];
    static thread_local uint32_t next = 0;
    for (Entry& e : memo)
        if (e.value >= 0 && std::memcmp(&e.key, &key, sizeof(key)) == 0) return e.value;
    Entry& slot = memo[next++ % 8];
    slot.key = key;
    slot.value = compute_beats(key);
    return slot.value;
}
#endif

// A count-form instruction over `count` elements (contiguous operands, as in counter mode): dst of type D, sources
// x and y (may be null) of type S, and dst itself when the instruction reads it (Axpy).
template <typename D, typename S>
inline int32_t count_banks(int64_t count, const D* d, const S* x, const S* y = nullptr, bool reads_dst = false) {
    if (count <= 0) return 0;
    constexpr uint32_t W = sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S);
    VMask m;
    m.counter = true;
    m.n = static_cast<uint64_t>(count);
    const BankOperand od = bank_operand(d, count_lay<D>(W)), ox = bank_operand(x, count_lay<S>(W));
    if (y == nullptr && !reads_dst) return bank_info(m, 256 / W, 32 / W, od, {ox});
    if (y == nullptr) return bank_info(m, 256 / W, 32 / W, od, {ox, od});
    const BankOperand oy = bank_operand(y, count_lay<S>(W));
    return reads_dst ? bank_info(m, 256 / W, 32 / W, od, {ox, oy, od}) : bank_info(m, 256 / W, 32 / W, od, {ox, oy});
}

}  // namespace tw
