// Alias of util/bfloat16.h (the path ops-math style operators include).
#pragma once
#include "util/bfloat16.h"
