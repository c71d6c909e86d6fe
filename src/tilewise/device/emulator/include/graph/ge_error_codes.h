// Alias of graph/types.h (status codes live there).
#pragma once
#include "graph/types.h"
