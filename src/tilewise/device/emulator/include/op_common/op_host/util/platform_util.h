// Alias of util/platform_util.h (the path ops-math style operators include).
#pragma once
#include "util/platform_util.h"
