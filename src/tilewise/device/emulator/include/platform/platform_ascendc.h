// Alias of tiling/platform/platform_ascendc.h: CANN installs the same header under both paths.
#pragma once
#include "tiling/platform/platform_ascendc.h"
