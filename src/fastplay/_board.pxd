# The Python-facing board: the declared C interface of fastplay._board.
#
# Other compiled modules (the playout engine, the search tree, an embedding
# extension) read a position through ``st`` and change it only through the
# methods below; the underscored fields are CoreBoard's own.
from libc.stdint cimport uint8_t
from fastplay._rules cimport BoardState, QSet, flat_move
cimport numpy as cnp


cdef class Position:
    # A position with its history (the base of CoreBoard, which adds the queries).
    cdef BoardState st          # the position; read-only outside CoreBoard
    cdef QSet* q                # the last move's update set (spec 6.3), for near_mask
    cdef int _to_move
    cdef readonly double komi   # set from Python through Board.komi's checks
    cdef bint _superko
    cdef bint _suicide
    cdef bint _scratch          # keeps no history (copy(history=False)) ...
    cdef int _last_color        # ... but its last move for near_mask: colour (0: none)
    cdef int _last_index        # and flat index (-1: a pass)
    cdef list _snapshots
    cdef list _moves
    cdef list _hashes
    cdef dict _hash_count

    # -- the C-level interface ------------------------------------------------
    cdef inline int mover(self) noexcept:
        """The colour code to move (WHITE_C or BLACK_C)."""
        return self._to_move

    cdef inline bint allows_suicide(self) noexcept:
        """Whether the rules allow multi-stone suicide."""
        return self._suicide

    cdef inline int pad(self, int v) noexcept:
        """Padded point of flat index ``v`` (0 <= v < size * size)."""
        return (v // self.st.size + 1) * self.st.W + v % self.st.size + 1

    cdef inline int flat(self, int p) noexcept:
        """Flat index of padded on-board point ``p``."""
        return flat_move(p, self.st.W, self.st.size)

    # LEGAL or the ILL_* code (fastplay._rules) of a move by ``color`` at
    # padded ``p`` (0: a pass), positional superko included when the board keeps it;
    # ValueError / InvalidVertexError for a bad colour or a p off the board.
    cdef int legal_code(self, int p, int color) except -1
    # Play a legal move (padded ``p``, flat ``i``; 0 and -1 for a pass) and record it;
    # the same errors, and ValueError when p and i disagree or p is occupied.
    cdef int commit(self, int p, int i, int color) except -1
    # ``color`` as a colour code; ValueError unless WHITE (1) or BLACK (2).
    cdef int check_color(self, color) except -1
    cdef int _check_move_args(self, int p, int color) except -1
    # This position into the scratch board ``target`` (Board.copy_into; the
    # tree search's descents call it from C).
    cpdef copy_into(self, Position target)

    # -- CoreBoard's own ----------------------------------------------------------
    cdef _reset(self, int size)
    cdef int _check_index(self, v) except -2
    cdef tuple _snapshot(self)
    cdef _restore(self, tuple snap)
    cdef _rebuild(self, list stones)
    cdef void _load_into(self, Position target)
    cdef object _last_move(self)
    cdef int _set_last(self, object last) except -1
    cdef tuple _stones(self)
    cdef int _set_state(self, tuple now) except -1
    cdef int _set_scratch(self, tuple extra) except -1


cdef class CoreBoard(Position):
    # The Python-facing board: Position plus the queries.
    # near_mask into ``out`` (``size*size`` flags, flat order), without numpy.
    cdef int near_flags(self, uint8_t* out) except -1
    cdef cnp.int16_t* _stakes(self, stakes) except? NULL


# The one board-size check of the core: TypeError for a non-integer,
# ValueError outside [MIN_SIZE, MAX_SIZE].
cdef int check_size(size) except -1
