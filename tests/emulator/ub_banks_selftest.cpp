// Self-test of the UB bank model's rules (tw/timing/ub_banks.h) on operands given by hand, for test_ub_banks.py: the mask's
// active blocks, a block stride of 0, the narrow operand of a conversion, an unaligned operand, and the per-thread
// memo answering each layout for itself. Prints `all checks passed`.
#include <cstdio>

#include "kernel_operator.h"
#include "tw/timing/ub_banks.h"

static int failures = 0;
#define CHECK(cond)                                               \
    do {                                                          \
        if (!(cond)) {                                            \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond); \
            ++failures;                                           \
        }                                                         \
    } while (0)

namespace {

tw::BankOperand op(uint64_t addr, uint64_t blk = 32, uint64_t rep = 256, uint64_t len = 32) {
    tw::BankOperand o;
    o.addr = addr;
    o.blk_bytes = blk;
    o.rep_bytes = rep;
    o.len = len;
    o.valid = true;
    return o;
}

// A normal-mode mask of the first `slots` slots, `repeats` times.
tw::VMask first(uint32_t slots, uint32_t repeats, uint32_t E) {
    tw::VMask m;
    m.repeats = repeats;
    tw::mask_first(m, slots, E);
    return m;
}

tw::BankBeats beats(int32_t a) {
    tw::BankBeats b;
    CHECK(tw::unpack_bank_beats(a, b));
    return b;
}

}  // namespace

int main() {
    // float, 64 slots a repeat, 8 a block. src1 four blocks (128 B) after src0: with the full mask src1's blocks 0-3
    // share groups 4-7 with src0's blocks 4-7 (two beats); with the first 32 slots only blocks 0-3 are read (one).
    const tw::BankOperand dst = op(0x20000), src0 = op(0x0), src1 = op(0x10080);
    CHECK(beats(tw::bank_info(first(64, 8, 64), 64, 8, dst, {src0, src1})).read == 2);
    CHECK(beats(tw::bank_info(first(32, 8, 64), 64, 8, dst, {src0, src1})).read == 1);

    // Block stride 0: the repeat's eight blocks are one block, read once, whatever else shares its group.
    CHECK(beats(tw::bank_info(first(64, 8, 64), 64, 8, dst, {op(0x0, 0, 256), op(0x10100)})).read == 1);
    // Destination block stride 16 (512 B): all eight writes in one group.
    CHECK(beats(tw::bank_info(first(64, 8, 64), 64, 8, op(0x20000, 512, 32), {src0})).write == 8);

    // float -> half conversion: the half destination's "blocks" are 16 B, two to a 32-byte row, so its eight blocks
    // fill four rows of four groups: one write beat.
    CHECK(beats(tw::bank_info(first(64, 8, 64), 64, 8, op(0x20000, 16, 128, 16), {src0})).write == 1);

    // A source 16 B off the 32-byte grid covers two rows a block: nine rows in 9 groups, overlapping src0's 8 groups.
    CHECK(beats(tw::bank_info(first(64, 8, 64), 64, 8, dst, {src0, op(0x10010)})).read == 2);

    // Read-write: dst one block off src0's banks clashes; dst bank for bank on src0, or in other banks, does not.
    CHECK(beats(tw::bank_info(first(64, 8, 64), 64, 8, op(0x4020), {src0})).rw == 1);
    CHECK(beats(tw::bank_info(first(64, 8, 64), 64, 8, op(0x4000), {src0})).rw == 0);
    CHECK(beats(tw::bank_info(first(64, 8, 64), 64, 8, op(0x14020), {src0})).rw == 0);

    // The memo answers each layout for itself, in any order.
    for (int round = 0; round < 3; ++round) {
        CHECK(beats(tw::bank_info(first(64, 64, 64), 64, 8, op(0x10000), {op(0x0), op(0x4000)})).read == 2);
        CHECK(beats(tw::bank_info(first(64, 64, 64), 64, 8, op(0x20000), {op(0x0), op(0x10100)})).read == 1);
        CHECK(beats(tw::bank_info(first(64, 64, 64), 64, 8, op(0x10100), {op(0x0, 0, 32), op(0x10100)})).read ==
              1.5);
    }

    // No information: an operand outside UB, or nothing to do.
    CHECK(tw::bank_info(first(64, 8, 64), 64, 8, tw::BankOperand{}, {src0}) == 0);
    CHECK(tw::bank_info(first(64, 0, 64), 64, 8, dst, {src0}) == 0);

    if (failures == 0) std::printf("all checks passed\n");
    return failures == 0 ? 0 : 1;
}
