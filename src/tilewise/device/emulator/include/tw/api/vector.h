// Vector instructions of the AscendC API for the CPU emulation, written from the public API reference.
//
//   vector/core.h            conversions, mask / repeat / stride iteration, bounds checks, trace records
//   vector/arith.h           Add Sub Mul Div Max Min And Or; Adds Muls Maxs Mins LeakyRelu ShiftLeft ShiftRight;
//                            Exp Ln Sqrt Rsqrt Reciprocal Abs Relu Not; Duplicate; Axpy; Copy (+ CopyRepeatParams)
//   vector/cast.h            Cast with every RoundMode
//   vector/reduce.h          ReduceSum/Max/Min, WholeReduceSum/Max/Min, BlockReduceSum/Max/Min, PairReduceSum
//   vector/compare_select.h  Compare, CompareScalar, GetCmpMask, SetCmpMask, Select
//   vector/gather.h          Gather, GatherMask, Brcb, Transpose
//   library/math.h           high-level library: Sigmoid, Sum, ArithProgression and the other math functions
//
// Every API has the count form `Op(dst, src..., count)` and, where the reference has them, the mask/repeat forms
// with a continuous mask (`uint64_t mask`) or a bit mask (`const uint64_t mask[]`) and repeat parameters; the
// template flag isSetMask = false takes the mask from SetVectorMask, and counter mode (SetMaskCount) is honoured.
#pragma once

#include "tw/api/vector/core.h"
#include "tw/api/vector/arith.h"
#include "tw/api/vector/cast.h"
#include "tw/api/vector/reduce.h"
#include "tw/api/vector/compare_select.h"
#include "tw/api/vector/gather.h"
#include "tw/api/library/math.h"
