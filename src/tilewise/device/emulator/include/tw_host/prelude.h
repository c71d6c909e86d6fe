// tilewise host emulation: what the emulator's build pre-includes (`-include`) into an op_host source that includes
// register/op_def_registry.h anyway, in place of the bare knobs.h every host source gets. It is precompiled once per
// installation (device/emulator/prebuilt.py), so such a source no longer parses the host API itself; which sources
// take it is device/emulator/host_prelude.py's rule. Nothing here may be added that such a source would not include
// anyway: the prelude must only move the parse, never change what the source sees.
#pragma once
#include "knobs.h"
#include "register/op_def_registry.h"
