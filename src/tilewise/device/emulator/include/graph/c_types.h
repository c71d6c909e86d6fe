// tilewise host emulation: graph/c_types.h, the C spelling of the graph data types (C_DataType). Tiling-key headers
// include it for the C_DT_* constants of ASCENDC_TPL_DATATYPE_DECL; the values are those of ge::DataType, as the
// reference's C_DataType table gives them, so a host may pass static_cast<uint32_t>(dtype) where a C_DT_* is meant.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    C_DT_FLOAT = 0,
    C_DT_FLOAT16 = 1,
    C_DT_INT8 = 2,
    C_DT_INT32 = 3,
    C_DT_UINT8 = 4,
    C_DT_INT16 = 6,  // 5 is reserved
    C_DT_UINT16 = 7,
    C_DT_UINT32 = 8,
    C_DT_INT64 = 9,
    C_DT_UINT64 = 10,
    C_DT_DOUBLE = 11,
    C_DT_BOOL = 12,
    C_DT_STRING = 13,
    C_DT_DUAL_SUB_INT8 = 14,
    C_DT_DUAL_SUB_UINT8 = 15,
    C_DT_COMPLEX64 = 16,
    C_DT_COMPLEX128 = 17,
    C_DT_QINT8 = 18,
    C_DT_QINT16 = 19,
    C_DT_QINT32 = 20,
    C_DT_QUINT8 = 21,
    C_DT_QUINT16 = 22,
    C_DT_RESOURCE = 23,
    C_DT_STRING_REF = 24,
    C_DT_DUAL = 25,
    C_DT_VARIANT = 26,
    C_DT_BF16 = 27,
    C_DT_UNDEFINED = 28,
    C_DT_INT4 = 29,
    C_DT_UINT1 = 30,
    C_DT_INT2 = 31,
    C_DT_UINT2 = 32,
    C_DT_COMPLEX32 = 33,
    C_DT_HIFLOAT8 = 34,
    C_DT_FLOAT8_E5M2 = 35,
    C_DT_FLOAT8_E4M3FN = 36,
    C_DT_FLOAT8_E8M0 = 37,
    C_DT_FLOAT6_E3M2 = 38,
    C_DT_FLOAT6_E2M3 = 39,
    C_DT_FLOAT4_E2M1 = 40,
    C_DT_FLOAT4_E1M2 = 41,
    C_DT_MAX
} C_DataType;

#ifdef __cplusplus
}
#endif
