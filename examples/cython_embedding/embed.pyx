"""Playouts run from C through fastplay's Cython API (``fastplay.capi``).

``play`` sets up a position through the board's C interface; ``playouts``
plays playout ``0 .. n-1`` of a seed's stream without the GIL and returns
each one's result.
"""

import numpy as np

from fastplay.capi cimport (CoreBoard, PlayoutEngine, PState, PlayoutOutcome, LEGAL, BLACK_C,
                            WHITE_C, pstate_new, pstate_free, playout_one)


def play(CoreBoard board not None, moves):
    """Play ``moves`` ([(colour code, flat index or -1)]) on ``board`` from C;
    ``ValueError`` names the first illegal one."""
    cdef int color, v, p
    for color, v in moves:
        if color != BLACK_C and color != WHITE_C:
            raise ValueError(f"bad colour code {color}")
        p = 0 if v < 0 else board.pad(v)
        if board.legal_code(p, color) != LEGAL:
            raise ValueError(f"illegal move {v} for colour {color}")
        board.commit(p, v, color)


def playouts(CoreBoard board not None, PlayoutEngine engine not None, unsigned long long key,
             int n, double komi, int max_moves=600):
    """Scores (Black - White - komi, float64), winners (2 Black, 1 White, 0 draw; int8) and
    lengths (moves, int32) of playouts ``0 .. n-1`` of stream ``key`` from ``board``."""
    cdef PState* tmpl = pstate_new(board.st.size)
    cdef PState* work = pstate_new(board.st.size)
    cdef PlayoutOutcome out
    cdef int i, color = board.mover()
    scores = np.zeros(n, dtype=np.float64)
    winners = np.zeros(n, dtype=np.int8)
    lengths = np.zeros(n, dtype=np.int32)
    cdef double[::1] s = scores
    cdef signed char[::1] w = winners
    cdef int[::1] length = lengths
    try:
        if tmpl == NULL or work == NULL:
            raise MemoryError()
        engine.prepare(tmpl, board, False)
        with nogil:
            for i in range(n):
                playout_one(work, tmpl, engine.T, engine.G, color, key, i, max_moves, komi,
                            False, &out)
                s[i] = out.score
                w[i] = out.winner
                length[i] = out.length
    finally:
        pstate_free(tmpl)
        pstate_free(work)
    return scores, winners, lengths
