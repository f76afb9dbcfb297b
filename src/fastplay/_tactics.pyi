"""Type stub for ``fastplay._tactics`` (tactical readers; see ``_tactics.pyx``)."""

TACTIC_NONE: int
TACTIC_BAD: int
TACTIC_SAVE: int
TACTIC_CAPTURE: int
LADDER_BUDGET: int
TACTICS_BUDGET: int
RACE_LIBS: int
RACE_SAFE: int
RACE_BUDGET: int
RACE_TOTAL: int
