// Alias of log/log.h (the path older operator samples include).
#pragma once
#include "log/log.h"
