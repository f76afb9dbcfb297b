# fastplay's Cython API: ``from fastplay.capi cimport ...`` in an extension
# built with ``include_path=[fastplay.get_include()]`` and, for the C compiler,
# ``include_dirs=[numpy.get_include()]`` (these declarations cimport numpy)
# (examples/cython_embedding/setup.py).
#
# Positions are CoreBoard objects (fastplay.Board is one); their C state is
# ``board.st`` (read it, change it through ``legal_code``/``commit``;
# ``commit`` does not check legality: ask ``legal_code`` first).  The board's
# ``__init__`` and ``setup`` free and reallocate it: read it with the GIL
# held, or while no other thread can call them.  Points
# are padded: ``board.pad(flat)`` and ``board.flat(p)`` convert, 0 is a pass.
# Colours: BLACK_C (2), WHITE_C (1), EMPTY_C (0).  Every function below runs
# without the GIL unless it says ``except``.
from fastplay._rules cimport (BoardState, QSet, EMPTY_C, WHITE_C, BLACK_C, OFF_C, MIN_SIZE_C,
                              MAX_SIZE_C, LEGAL, ILL_OCCUPIED, ILL_SUICIDE, ILL_KO, ILL_SUPERKO,
                              board_alloc, board_free, board_copy, board_play, board_legality,
                              point_ctx, tromp_taylor_owner)
from fastplay._board cimport CoreBoard, Position
from fastplay._playout cimport (PState, PlayoutOutcome, PlayoutEngine, pstate_new, pstate_free,
                                playout_one, playout_cap)
from fastplay._rng cimport splitmix64, rng_next, rng_seed
