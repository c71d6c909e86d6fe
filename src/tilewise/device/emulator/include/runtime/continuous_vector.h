// Alias of exe_graph/runtime/continuous_vector.h (metadef puts exe_graph/ on the include path too).
#pragma once
#include "exe_graph/runtime/continuous_vector.h"
