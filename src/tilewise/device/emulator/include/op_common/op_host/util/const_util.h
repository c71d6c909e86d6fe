// Alias of util/const_util.h (the path ops-math style operators include).
#pragma once
#include "util/const_util.h"
