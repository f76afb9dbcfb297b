"""``python -m fastplay`` is the ``fastplay`` command line."""

from fastplay.cli import main

raise SystemExit(main())
