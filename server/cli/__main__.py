"""`python -m server.cli`: the `tilewise` command without the console script (editors run it this way)."""

import sys

from server.cli import main

sys.exit(main())
