// The include path tiling/template_argument.h under which the Ascend C reference documents tiling-template
// programming (ASCENDC_TPL_ARGS_DECL, ASCENDC_TPL_SEL, GET_TPL_TILING_KEY): operators include it as
// ascendc/host_api/tiling/template_argument.h, where the emulator's host side of it lives.
#pragma once
#include "ascendc/host_api/tiling/template_argument.h"
