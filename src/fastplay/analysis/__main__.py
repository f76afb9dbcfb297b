"""``python -m fastplay.analysis``: the same as ``fastplay analysis`` (through
the command line's entry, which checks the standard streams)."""

import sys

from fastplay.cli import main

sys.exit(main(["analysis", *sys.argv[1:]]))
