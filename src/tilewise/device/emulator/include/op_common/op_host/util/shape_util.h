// Alias of util/shape_util.h (the path ops-math style operators include).
#pragma once
#include "util/shape_util.h"
