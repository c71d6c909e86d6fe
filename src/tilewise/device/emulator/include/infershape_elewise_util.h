// Alias of op_common/op_host/infershape_elewise_util.h (operators include it by its bare name).
#pragma once
#include "op_common/op_host/infershape_elewise_util.h"
