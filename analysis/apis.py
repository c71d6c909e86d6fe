"""The AscendC API surface the analysis recognises, with the pipe each call runs on.

Names only, gathered from the public API reference; the emulator implements their semantics in device/.
"""

from __future__ import annotations

VECTOR_BINARY = ("Add", "Sub", "Mul", "Div", "Max", "Min", "And", "Or")
VECTOR_SCALAR = ("Adds", "Muls", "Maxs", "Mins", "ShiftLeft", "ShiftRight", "LeakyRelu")
VECTOR_UNARY = ("Exp", "Ln", "Sqrt", "Rsqrt", "Abs", "Relu", "Reciprocal", "Not")
VECTOR_REDUCE = ("ReduceSum", "ReduceMax", "ReduceMin", "WholeReduceSum", "WholeReduceMax", "WholeReduceMin",
                 "BlockReduceSum", "BlockReduceMax", "BlockReduceMin", "PairReduceSum")
VECTOR_OTHER = ("Cast", "Duplicate", "Compare", "CompareScalar", "Select", "Gather", "GatherMask", "Brcb", "Axpy",
                "Copy", "CastDeq", "Transpose", "SetVectorMask", "ResetMask", "SetMaskCount", "SetMaskNorm")
COPIES = ("DataCopy", "DataCopyPad")
SYNC = ("SetFlag", "WaitFlag", "PipeBarrier", "SyncAll", "CrossCoreSetFlag", "CrossCoreWaitFlag")
ATOMIC = ("SetAtomicAdd", "SetAtomicNone", "SetAtomicMax", "SetAtomicMin")
SYSTEM = ("GetBlockIdx", "GetBlockNum", "GetUserWorkspace", "GetSysWorkSpacePtr", "GetTPipePtr", "TILING_KEY_IS",
          "GET_TILING_DATA", "InitGlobalMemory", "Fill")

FREE_APIS = frozenset(VECTOR_BINARY + VECTOR_SCALAR + VECTOR_UNARY + VECTOR_REDUCE + VECTOR_OTHER + COPIES + SYNC
                      + ATOMIC + SYSTEM)
MEMBER_APIS = frozenset((
    "SetGlobalBuffer", "InitBuffer", "AllocTensor", "EnQue", "DeQue", "FreeTensor", "Get", "GetWithOffset",
    "GetValue", "SetValue", "ReinterpretCast", "GetSize", "FetchEventID", "ReleaseEventID", "AllocEventID",
    "SetL2CacheHint", "Destroy",
))

PIPES = {
    **{n: "vector" for n in VECTOR_BINARY + VECTOR_SCALAR + VECTOR_UNARY + VECTOR_REDUCE + VECTOR_OTHER},
    "GetValue": "scalar", "SetValue": "scalar",
}


def pipe_of(name: str, args: list[str] | None = None, receiver_is_global: bool | None = None) -> str:
    """The pipe an API call runs on: copies depend on direction (GM->UB is MTE2, UB->GM is MTE3)."""
    if name in COPIES:
        if receiver_is_global is None:
            return "mte2/mte3"
        return "mte3" if receiver_is_global else "mte2"
    return PIPES.get(name, "scalar")
