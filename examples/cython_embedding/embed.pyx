"""Playouts run from C through fastplay's Cython API (``fastplay.capi``).

``play`` sets up a position through the board's C interface; ``playouts``
plays playout ``0 .. n-1`` of a seed's stream without the GIL and returns
each one's result.
"""

import numpy as np

from fastplay.capi cimport (CoreBoard, PlayoutEngine, PState, PlayoutOutcome, LEGAL, BLACK_C,
                            WHITE_C, pstate_new, pstate_free, playout_one, playout_cap)


def play(CoreBoard board not None, moves):
    """Play ``moves`` ([(colour code, flat index or -1 for a pass)]) on ``board``
    from C; ``ValueError`` names the first bad or illegal one.  ``pad`` trusts
    its index, so the range is checked first; ``legal_code`` and ``commit``
    check colours and points themselves."""
    cdef int color, v, p, points = board.st.size * board.st.size
    for color, v in moves:
        if not -1 <= v < points:
            raise ValueError(f"flat index {v} is not on the board (or -1, a pass)")
        p = 0 if v < 0 else board.pad(v)
        if board.legal_code(p, color) != LEGAL:
            raise ValueError(f"illegal move {v} for colour {color}")
        board.commit(p, v, color)


def playouts(CoreBoard board not None, PlayoutEngine engine not None, unsigned long long key,
             int n, double komi, cap=None):
    """Scores (Black - White - komi, float64), winners (2 Black, 1 White, 0 draw; int8) and
    lengths (moves, int32) of playouts ``0 .. n-1`` of stream ``key`` from ``board``, each
    capped at ``cap`` moves (``None``: ``playout_cap`` of the board's size, as
    ``fastplay.playouts``)."""
    cdef int max_moves = playout_cap(board.st.size) if cap is None else cap
    # Both states for the board's size: playout_one refuses (-1) a work state
    # of another size.  The engine must outlive tmpl (tmpl reads its tables).
    cdef PState* tmpl = pstate_new(board.st.size)
    cdef PState* work = pstate_new(board.st.size)
    cdef PlayoutOutcome out
    cdef int i, refused = 0, color = board.mover()
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
                refused = playout_one(work, tmpl, engine.T, engine.G, color, key, i,
                                      max_moves, komi, False, &out)
                if refused:
                    break
                s[i] = out.score
                w[i] = out.winner
                length[i] = out.length
    finally:
        pstate_free(tmpl)
        pstate_free(work)
    if refused:
        raise ValueError("playout_one refused its arguments (max_moves < 0?)")
    return scores, winners, lengths
