# Tactical readers for the search's priors (not the playouts): the declared C
# interface of fastplay._tactics.  Ladders (GNU Go's simple ladder reader) and
# capturing races between strings of two to four liberties; node budgets
# bound every reading, and an unfinished reading counts as an escape.
from fastplay._rules cimport BoardState
cimport numpy as cnp

# Codes of tactics_flat (Python: TACTIC_*), and the nodes one reading may visit (a ladder
# across a 19x19 board takes about 40, plus the atari that fails at each
# step).
cdef enum:
    LADDER_BUDGET_C = 300
    TACTICS_BUDGET_C = 3000      # nodes for all the readings of one position
    TAC_NONE = 0
    TAC_BAD = 1        # the mover's string is left capturable (atari, or a working ladder)
    TAC_SAVE = 2       # rescues a mover's string in atari
    TAC_CAPTURE = 3    # ataris an enemy string that cannot escape


cdef enum:
    RACE_LIBS_C = 4              # strings read: two to this many liberties
    RACE_SAFE_C = 5              # liberties that end a reading as an escape
    RACE_BUDGET_C = 400          # nodes for one reading
    RACE_TOTAL_C = 6000          # nodes for all the race readings of one position


# Fill ``out`` (one byte per point, row-major, zeroed by the caller) with the
# TAC_* code of every legal move of ``color``; ``stakes`` (or NULL) gets the
# stones each code is about.  See CoreBoard.tactics_flat for the contract.
# ``release``: read a copy of the position with the GIL let go (for a search
# whose other threads go on meanwhile); the same codes either way.
cdef int tactics_codes(BoardState* b, int color, bint allow_suicide, cnp.int8_t* out,
                       cnp.int16_t* stakes, bint release) except -1
# The same for capturing races (CoreBoard.races_flat).
cdef int races_codes(BoardState* b, int color, cnp.int8_t* out, cnp.int16_t* stakes) except -1
# Whether the string on padded point ``p`` is captured by a ladder
# (CoreBoard.in_ladder_index).
cdef int ladder_read(BoardState* b, int p, bint attacker_first) except -1
