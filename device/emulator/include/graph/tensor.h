// Alias: the gert tensor types.
#pragma once
#include "graph/types.h"
#include "exe_graph/runtime/tensor.h"
