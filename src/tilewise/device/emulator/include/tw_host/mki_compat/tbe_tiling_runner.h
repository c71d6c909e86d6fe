// tilewise: ATB's TBE tiling runner header, which some mki tilings include without using. Calls into it are not
// emulated; an operator that needs them fails to compile at the call, naming it.
#pragma once
