// Vector instructions of the AscendC API for the CPU emulation, written from the public API reference.
//
//   vector_core.h    conversions, mask / repeat / stride iteration, bounds checks, trace records
//   vector_arith.h   Add Sub Mul Div Max Min And Or; Adds Muls Maxs Mins LeakyRelu ShiftLeft ShiftRight;
//                    Exp Ln Sqrt Rsqrt Reciprocal Abs Relu Not; Duplicate; Axpy; Copy (+ CopyRepeatParams)
//   vector_cast.h    Cast with every RoundMode
//   vector_reduce.h  ReduceSum/Max/Min, WholeReduceSum/Max/Min, BlockReduceSum/Max/Min, PairReduceSum
//   vector_cmp.h     Compare, CompareScalar, GetCmpMask, SetCmpMask, Select
//   vector_gather.h  Gather, GatherMask, Brcb, Transpose
//   vector_math.h    high-level library: Sigmoid, Sum, ArithProgression
//
// Every API has the count form `Op(dst, src..., count)` and, where the reference has them, the mask/repeat forms
// with a continuous mask (`uint64_t mask`) or a bit mask (`const uint64_t mask[]`) and repeat parameters; the
// template flag isSetMask = false takes the mask from SetVectorMask, and counter mode (SetMaskCount) is honoured.
#pragma once

#include "tw/vector_core.h"
#include "tw/vector_arith.h"
#include "tw/vector_cast.h"
#include "tw/vector_reduce.h"
#include "tw/vector_cmp.h"
#include "tw/vector_gather.h"
#include "tw/vector_math.h"
