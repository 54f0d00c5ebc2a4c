"""``python -m update``: build what the lake's new inputs change (see the package's docstring)."""

import sys

from update import main

sys.exit(main())
