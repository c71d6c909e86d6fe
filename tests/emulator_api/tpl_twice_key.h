// A tiling-key header with no include guard, as some public operators ship it: gaps_driver.cpp includes it twice.
#include "ascendc/host_api/tiling/template_argument.h"

ASCENDC_TPL_ARGS_DECL(TwTwice, ASCENDC_TPL_UINT_DECL(mode, 2, ASCENDC_TPL_UI_LIST, 0, 1, 2),
                      ASCENDC_TPL_BOOL_DECL(flag, 0, 1));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(mode, ASCENDC_TPL_UI_LIST, 0, 2),
                                     ASCENDC_TPL_BOOL_SEL(flag, 1)), );
