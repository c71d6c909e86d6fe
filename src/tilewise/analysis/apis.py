"""The AscendC API surface the analysis recognises, with the pipe each call runs on.

Names only, gathered from the public API reference; the emulator implements their semantics in device/.
"""

from __future__ import annotations

VECTOR_BINARY = ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or")
VECTOR_SCALAR = ("Adds", "Muls", "Maxs", "Mins", "ShiftLeft", "ShiftRight", "LeakyRelu")
VECTOR_UNARY = ("Exp", "Ln", "Sqrt", "Rsqrt", "Abs", "Relu", "Reciprocal", "Not")
VECTOR_REDUCE = (
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "WholeReduceSum",
    "WholeReduceMax",
    "WholeReduceMin",
    "BlockReduceSum",
    "BlockReduceMax",
    "BlockReduceMin",
    "PairReduceSum",
)
VECTOR_OTHER = (
    "Cast",
    "Duplicate",
    "Compare",
    "CompareScalar",
    "Select",
    "Gather",
    "GatherMask",
    "Brcb",
    "Axpy",
    "FusedMulAdd",
    "MulAddDst",
    "Copy",
    "CastDeq",
    "Transpose",
    "SetVectorMask",
    "ResetMask",
    "SetMaskCount",
    "SetMaskNorm",
)
COPIES = ("DataCopy", "DataCopyPad")
SYNC = ("SetFlag", "WaitFlag", "PipeBarrier", "SyncAll", "CrossCoreSetFlag", "CrossCoreWaitFlag")
ATOMIC = ("SetAtomicAdd", "SetAtomicNone", "SetAtomicMax", "SetAtomicMin")
SYSTEM = (
    "GetBlockIdx",
    "GetBlockNum",
    "GetUserWorkspace",
    "GetSysWorkSpacePtr",
    "GetTPipePtr",
    "TILING_KEY_IS",
    "GET_TILING_DATA",
    "InitGlobalMemory",
    "Fill",
)

FREE_APIS = frozenset(
    VECTOR_BINARY + VECTOR_SCALAR + VECTOR_UNARY + VECTOR_REDUCE + VECTOR_OTHER + COPIES + SYNC + ATOMIC + SYSTEM
)
MEMBER_APIS = frozenset(
    (
        "SetGlobalBuffer",
        "InitBuffer",
        "AllocTensor",
        "EnQue",
        "DeQue",
        "FreeTensor",
        "Get",
        "GetWithOffset",
        "GetValue",
        "SetValue",
        "ReinterpretCast",
        "GetSize",
        "FetchEventID",
        "ReleaseEventID",
        "AllocEventID",
        "SetL2CacheHint",
        "Destroy",
    )
)

PIPES = {
    **{n: "vector" for n in VECTOR_BINARY + VECTOR_SCALAR + VECTOR_UNARY + VECTOR_REDUCE + VECTOR_OTHER},
    "GetValue": "scalar",
    "SetValue": "scalar",
}


def pipe_of(name: str, args: list[str] | None = None, receiver_is_global: bool | None = None) -> str:
    """The pipe an API call runs on: copies depend on direction (GM->UB is MTE2, UB->GM is MTE3)."""
    if name in COPIES:
        if receiver_is_global is None:
            return "mte2/mte3"
        return "mte3" if receiver_is_global else "mte2"
    return PIPES.get(name, "scalar")


# One line each, for hovers: what the call does.
DOCS = {
    "DataCopy": "Copies between GM and UB (or UB to UB); the length must be a multiple of 32 bytes.",
    "DataCopyPad": "Copies rows of any byte length between GM and UB, padding each UB row to 32 bytes.",
    "Add": "dst = src0 + src1, element-wise.",
    "Sub": "dst = src0 - src1, element-wise.",
    "Mul": "dst = src0 * src1, element-wise.",
    "Div": "dst = src0 / src1, element-wise.",
    "Max": "dst = max(src0, src1), element-wise.",
    "Min": "dst = min(src0, src1), element-wise.",
    "Adds": "dst = src + scalar.",
    "Muls": "dst = src * scalar.",
    "Maxs": "dst = max(src, scalar).",
    "Mins": "dst = min(src, scalar).",
    "Duplicate": "Fills dst with a scalar.",
    "Exp": "dst = exp(src).",
    "Ln": "dst = ln(src).",
    "Sqrt": "dst = sqrt(src).",
    "Rsqrt": "dst = 1 / sqrt(src).",
    "Abs": "dst = |src|.",
    "Relu": "dst = max(src, 0).",
    "Reciprocal": "dst = 1 / src.",
    "Cast": "Converts between dtypes with the given rounding mode.",
    "ReduceSum": "Sums `count` elements into dst[0].",
    "ReduceMax": "Maximum (and optionally its index) into dst.",
    "ReduceMin": "Minimum (and optionally its index) into dst.",
    "WholeReduceSum": "One sum per repeat (256 bytes) of src.",
    "WholeReduceMax": "One maximum per repeat.",
    "BlockReduceSum": "One sum per 32-byte block.",
    "Compare": "Writes a bit mask: one bit per element comparison.",
    "CompareScalar": "Bit mask of src compared with a scalar.",
    "Select": "Picks src0 or src1 per element by a mask.",
    "Gather": "dst[i] = src at byte offset offsets[i].",
    "GatherMask": "Keeps the elements a pattern selects.",
    "Brcb": "Broadcasts each of 8 elements to a 32-byte block.",
    "Axpy": "dst = src * scalar + dst.",
    "FusedMulAdd": "dst = src0 * dst + src1, element-wise.",
    "MulAddDst": "dst = src0 * src1 + dst, element-wise.",
    "SetFlag": "Signals an event from one pipe to another.",
    "WaitFlag": "Makes a pipe wait for an event.",
    "PipeBarrier": "Waits for a pipe (PIPE_ALL: every pipe) to drain.",
    "SyncAll": "Barrier across all cores.",
    "GetValue": "Reads one element on the scalar unit (waits for the pipes writing it).",
    "SetValue": "Writes one element on the scalar unit.",
    "AllocTensor": "Takes a free buffer of the queue.",
    "EnQue": "Hands a buffer to the consuming pipe.",
    "DeQue": "Waits for and takes an enqueued buffer.",
    "FreeTensor": "Returns a buffer to its queue.",
    "InitBuffer": "Carves UB buffers for a queue or TBuf.",
    "SetAtomicAdd": "Makes MTE3 writes to GM accumulate.",
    "SetAtomicNone": "Ends atomic accumulation.",
    "GetBlockIdx": "This core's block index.",
    "GetBlockNum": "The number of blocks launched.",
}
