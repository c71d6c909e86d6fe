// Alias: the gert tensor types.
#pragma once
// The standard headers CANN's counterpart of this header brings in through its own includes (operators use
// them without including them).
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include "graph/types.h"
#include "exe_graph/runtime/tensor.h"
