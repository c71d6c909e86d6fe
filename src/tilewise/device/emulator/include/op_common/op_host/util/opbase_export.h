// tilewise host emulation: opbase's export macro (symbol visibility of the shared library); nothing to export here.
#pragma once
#ifndef OPBASE_API
#define OPBASE_API
#endif
