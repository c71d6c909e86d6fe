"""The one bound every constant folder applies: C++ (and its preprocessor) computes in at most 64 bits.

A value past them is unknown to tilewise, never an error: folding constants that square each other level after level
(the LSP fuzzer's macro storm, benchmarks/fuzz_lsp.py) would otherwise make integers of millions of digits, which
hang the server or fail when printed (Python refuses to convert one of more than 4300 digits to a string). Refusing
each value past 64 bits as it is made keeps every later product small.
"""

from __future__ import annotations

INT64_MIN = -(2**63)
UINT64_END = 2**64  # one past the largest uint64_t


def within_64_bits(value: int | None) -> int | None:
    """`value` when a 64-bit integer (signed or unsigned) holds it, else None (unknown)."""
    return value if value is not None and INT64_MIN <= value < UINT64_END else None


def shift_count(count: int) -> bool:
    """Whether a shift by `count` bits is defined on a 64-bit integer (C++: 0 <= count < 64)."""
    return 0 <= count < 64
