// An include path of a library tiling struct, which host and kernel share.
#pragma once
#include "tw/tiling/softmax.h"
