"""Type stub for ``fastplay._rules`` (board and rules; see ``_rules.pyx``)."""

EMPTY: int
WHITE: int
BLACK: int
OFFBOARD: int
PASS: int
MIN_SIZE: int
MAX_SIZE: int
