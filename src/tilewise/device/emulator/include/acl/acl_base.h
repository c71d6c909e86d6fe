// Alias of acl/acl.h.
#pragma once
#include "acl/acl.h"
