// TW_RUNTIME_FN: how the runtime's larger non-template functions (sanitizer findings, racecheck, GM bounds, UB
// allocation, trace records, the bank-conflict count) are compiled.
//
// Why: as inline functions in the headers they were compiled again, optimised at the kernel's level, into every
// kernel object: a large part of a small kernel's compile. The build (device/emulator/prebuilt.py) compiles them once
// per installation into a runtime object, from kernel_operator.h with TW_RUNTIME_DEFINE (each emitted even where
// unused), and compiles kernels with TW_RUNTIME_EXTERN, where each is only declared, so the kernel calls the runtime
// object's copy. Each such function is written
//
//   TW_RUNTIME_FN void warn(...)
//   #ifdef TW_RUNTIME_EXTERN
//   ;
//   #else
//   { ... }
//   #endif
//
// so the code is the same in every mode; without either macro (host and runner units, kernel-invocation programs,
// and the build's fallback when the runtime object is unavailable) they are ordinary inline functions.
#pragma once

#if defined(TW_RUNTIME_EXTERN)
#define TW_RUNTIME_FN
#elif defined(TW_RUNTIME_DEFINE)
#define TW_RUNTIME_FN inline __attribute__((used))
#else
#define TW_RUNTIME_FN inline
#endif
