"""What the compile probes (api_probe.py) fill in where a documented form leaves a choice to the caller: the
concrete class a member is probed on, the argument of a template parameter that is not a data type, a value for a
non-type parameter, and a use of each documented macro. Each choice is one the reference's own examples make
(a TQue<TPosition::VECIN, 1> for InitBuffer, a Cast from half to float), never one fitted to what the emulator
accepts: a probe that fails because of a hint here is a wrong hint, to be fixed from the reference.
"""

from __future__ import annotations

from tilewise.analysis.api_index import Api

# Template parameters that stand for an operand's data type: probed with the A2's documented type for them.
DTYPE_PARAMS = {
    "T",
    "U",
    "T1",
    "T2",
    "SrcT",
    "DstT",
    "srcT",
    "dstT",
    "SrcType",
    "DstType",
    "srcType",
    "dstType",
    "dataType",
    "TYPE",
    "DataType",
    "Tp",
    "PrimType",
    "scalarT",
    "ScalarT",
    "IndexT",
    "OffsetT",
    "inputT",
    "outputT",
}

_QUE = "::AscendC::TQue<::AscendC::TPosition::VECIN, 1>"
_BUF = "::AscendC::TBuf<::AscendC::TPosition::VECCALC>"

# The class each member is probed on, and its class template's parameters as the members' declarations name them.
OWNERS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "LocalTensor": ("::AscendC::LocalTensor<half>", [("T", "half")]),
    "GlobalTensor": ("::AscendC::GlobalTensor<half>", [("T", "half")]),
    "TQue": ("::AscendC::TQue<::AscendC::TPosition::VECIN, 1>", []),
    "TQueBind": ("::AscendC::TQueBind<::AscendC::TPosition::VECIN, ::AscendC::TPosition::VECOUT, 1>", []),
    "TBuf": (_BUF, []),
    "TBufPool": ("::AscendC::TBufPool<::AscendC::TPosition::VECCALC>", []),
    "TensorDesc": ("::AscendC::TensorDesc<half>", [("T", "half")]),
    "LocalMemAllocator": ("::AscendC::LocalMemAllocator<>", []),
    "TensorTrait": ("::AscendC::TensorTrait<half>", [("T", "half")]),
}

# Template arguments of a type-form probe for class templates with non-type parameters.
TYPE_ARGS: dict[str, str] = {
    "TQue": "::AscendC::TPosition::VECIN, 1",
    "TQueBind": "::AscendC::TPosition::VECIN, ::AscendC::TPosition::VECOUT, 1",
    "TBuf": "::AscendC::TPosition::VECCALC",
    "TBufPool": "::AscendC::TPosition::VECCALC",
    "integral_constant": "int, 1",
    "conditional": "true, int, float",
    "enable_if": "true, int",
    "TensorTrait": "half",
}

# (API name, template parameter) -> the argument a probe names for it.
_PARAM_HINTS: dict[tuple[str, str], str] = {
    ("InitBuffer", "T"): _QUE,
    ("InitBufPool", "T"): "::AscendC::TBufPool<::AscendC::TPosition::VECCALC>",
    ("InitBufPool", "U"): "::AscendC::TBufPool<::AscendC::TPosition::VECCALC>",
    ("Cast", "U"): "float",
    ("CastDeq", "U"): "int16_t",
    ("GetTilingData", "T"): "int32_t",
    ("GetCompileInfo", "T"): "int32_t",
    ("GetAttrPointer", "T"): "int64_t",
    ("GetInputValue", "T"): "int64_t",
}

# A non-type template parameter without a default, by its type: the value the reference's examples use.
VALUE_DEFAULTS: dict[str, str] = {
    "TPosition": "::AscendC::TPosition::VECCALC",
    "bool": "false",
    "HardEvent": "::AscendC::HardEvent::V_S",
    "pipe_t": "PIPE_V",
    "RoundMode": "::AscendC::RoundMode::CAST_NONE",
    "CMPMODE": "::AscendC::CMPMODE::LT",
    "SELMODE": "::AscendC::SELMODE::VSEL_CMPMASK_SPR",
    "MaskMode": "::AscendC::MaskMode::NORMAL",
    "ReduceMode": "::AscendC::ReduceMode{}",
    "int32_t": "1",
    "uint32_t": "1",
    "uint8_t": "1",
    "uint16_t": "1",
    "int": "1",
    "size_t": "1",
}

# A use of each macro at namespace scope ({n} names what it declares apart from the other probes).
MACRO_USES: dict[str, str] = {
    "BEGIN_TILING_DATA_DEF": """namespace optiling {{
BEGIN_TILING_DATA_DEF(TwProbe{n}TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
END_TILING_DATA_DEF;
}}""",
    "TILING_DATA_FIELD_DEF_ARR": """namespace optiling {{
BEGIN_TILING_DATA_DEF(TwProbe{n}TilingData)
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, lengths);
END_TILING_DATA_DEF;
}}""",
    "TILING_DATA_FIELD_DEF_STRUCT": """namespace optiling {{
BEGIN_TILING_DATA_DEF(TwProbe{n}Inner)
TILING_DATA_FIELD_DEF(uint32_t, a);
END_TILING_DATA_DEF;
BEGIN_TILING_DATA_DEF(TwProbe{n}TilingData)
TILING_DATA_FIELD_DEF_STRUCT(TwProbe{n}Inner, inner);
END_TILING_DATA_DEF;
}}""",
    "REGISTER_TILING_DATA_CLASS": """namespace optiling {{
BEGIN_TILING_DATA_DEF(TwProbe{n}TilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(TwProbe{n}Op, TwProbe{n}TilingData)
}}""",
    "GET_TILING_DATA_WITH_STRUCT": """struct TwProbe{n}Tiling {{ uint32_t totalLength; }};
inline void tw_probe_{n}(GM_ADDR tiling) {{
GET_TILING_DATA_WITH_STRUCT(TwProbe{n}Tiling, tw_t, tiling); (void)tw_t.totalLength; }}""",
    "GET_TILING_DATA_PTR_WITH_STRUCT": """struct TwProbe{n}Tiling {{ uint32_t totalLength; }};
inline void tw_probe_{n}(GM_ADDR tiling) {{
GET_TILING_DATA_PTR_WITH_STRUCT(TwProbe{n}Tiling, tw_t, tiling); (void)tw_t; }}""",
    "GET_TILING_DATA_MEMBER": """struct TwProbe{n}Tiling {{ uint32_t totalLength; }};
inline void tw_probe_{n}(GM_ADDR tiling) {{
GET_TILING_DATA_MEMBER(TwProbe{n}Tiling, totalLength, tw_v, tiling); (void)tw_v; }}""",
    "TILING_KEY_IS": """inline void tw_probe_{n}() {{ if (TILING_KEY_IS(1)) {{ }} }}""",
    "REGISTER_TILING_DEFAULT": """struct TwProbe{n}Tiling {{ uint32_t totalLength; }};
inline void tw_probe_{n}() {{ REGISTER_TILING_DEFAULT(TwProbe{n}Tiling); }}""",
    "REGISTER_TILING_FOR_TILINGKEY": """struct TwProbe{n}Tiling {{ uint32_t totalLength; }};
inline void tw_probe_{n}() {{ REGISTER_TILING_FOR_TILINGKEY("TILING_KEY_VAR == 1", TwProbe{n}Tiling); }}""",
    "KERNEL_TASK_TYPE_DEFAULT": """inline void tw_probe_{n}() {{ KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY); }}""",
    "KERNEL_TASK_TYPE": """inline void tw_probe_{n}() {{ KERNEL_TASK_TYPE(1, KERNEL_TYPE_AIV_ONLY); }}""",
}


# A template parameter of any API, by its name: "pattern ... 当前用户需要显式指定pattern为AscendC::Pattern::Reduce::AR"
_NAME_HINTS: dict[str, str] = {
    "pattern": "::AscendC::Pattern::Reduce::AR",
}


def hint_for(api: Api, param: str) -> str | None:
    """The argument a probe names for `api`'s template parameter `param`, when the reference's examples fix one."""
    return _PARAM_HINTS.get((api.name, param)) or _NAME_HINTS.get(param)
