"""``python -m zengine_jupyter.cli``."""

import sys

from zengine_jupyter.cli import main

sys.exit(main())
