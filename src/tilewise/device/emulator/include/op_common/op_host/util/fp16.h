// Alias of util/fp16.h (the path ops-math style operators include).
#pragma once
#include "util/fp16.h"
