// Alias of util/math_util.h (the path ops-math style operators include).
#pragma once
#include "util/math_util.h"
