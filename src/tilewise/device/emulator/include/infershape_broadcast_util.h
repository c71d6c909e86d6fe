// Alias of op_common/op_host/infershape_broadcast_util.h (operators include it by its bare name).
#pragma once
#include "op_common/op_host/infershape_broadcast_util.h"
