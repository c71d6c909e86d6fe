"""`python -m tilewise`: the `tilewise` command without the console script (editors run the server this way)."""

import sys

from tilewise.cli import main

sys.exit(main())
