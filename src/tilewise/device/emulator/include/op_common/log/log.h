// Alias of log/log.h (the path ops-math style operators include).
#pragma once
#include "log/log.h"
