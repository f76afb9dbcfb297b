"""``python -m fastplay.analysis``: the same as ``fastplay analysis``."""

import sys

from fastplay.analysis import main

sys.exit(main())
