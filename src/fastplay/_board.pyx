"""The Python-facing board of fastplay's compiled core (declared in ``_board.pxd``).

:class:`CoreBoard` keeps a :c:type:`BoardState` (``fastplay._rules``) with
its history for undo and positional superko, checks every argument at the
Python boundary, and answers the search's tactical questions through
``fastplay._tactics``.  :class:`fastplay.Board` subclasses it with vertex
parsing.  Other compiled modules use only what ``_board.pxd`` declares.
"""

from libc.stdint cimport uint8_t, int16_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

import numpy as np
cimport numpy as cnp

from fastplay._rules cimport *
from fastplay._tactics cimport tactics_codes, races_codes, ladder_read

from fastplay._rules import MIN_SIZE  # the Python name, for messages
from fastplay.color import Color
from fastplay.errors import InvalidVertexError
from fastplay.shown import shown_value
from fastplay._deprecation import renamed as _renamed

cnp.import_array()

_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


# Undo keeps a full snapshot every this many moves and replays the rest.
_CHECKPOINT_EVERY = 16


# ---------------------------------------------------------------------------
# Python-facing board
# ---------------------------------------------------------------------------

class IllegalMoveError(ValueError):
    """A move that breaks a rule of Go.  (A vertex that names no point of the
    board raises :class:`fastplay.InvalidVertexError` instead.)

    Attributes: ``rule`` -- ``"occupied"``, ``"suicide"``, ``"ko"`` or
    ``"superko"`` (:attr:`RULES` also lists the two names an earlier release
    used for vertices, now :class:`~fastplay.InvalidVertexError`'s);
    ``vertex`` -- the move as given (flat index, GTP text or tuple; the
    flat index from :meth:`CoreBoard.play_index`);
    ``color`` -- the colour that tried, a :class:`fastplay.Color` (an
    ``IntEnum``: equal to the core's code too).
    """

    RULES = ("occupied", "suicide", "ko", "superko", "off-board", "bad vertex")

    def __init__(self, message, rule, vertex=None, color=None):
        super().__init__(message)
        self.rule = rule
        self.vertex = vertex
        self.color = color

    def __reduce__(self):
        # Pickled through its own arguments (a process pool's worker raising
        # it: the default pickle calls the class with the message alone).
        return (type(self), (self.args[0] if self.args else "", self.rule, self.vertex,
                             self.color))


_RULE_TEXT = {
    ILL_OCCUPIED: ("occupied", "the point is already occupied"),
    ILL_SUICIDE: ("suicide", "the stone would have no liberty and capture nothing"),
    ILL_KO: ("ko", "retaking the ko at once is forbidden: simple ko"),
    ILL_SUPERKO: ("superko", "the position would repeat an earlier one"),
}


def _gtp(int v, int size):
    if v < 0:
        return "pass"
    return f"{_COLUMNS[v % size]}{size - v // size}"


cdef int check_size(size) except -1:
    """The one board-size check of the core (boards, playout tallies, workers):
    TypeError for a non-integer, ValueError outside [MIN_SIZE, MAX_SIZE]."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"board size must be an integer, not {type(size).__name__}")
    if not MIN_SIZE <= size <= MAX_SIZE_C:
        raise ValueError(f"board size must be between {MIN_SIZE} and {MAX_SIZE_C}, "
                         f"not {shown_value(size)}")
    return 0


#: The largest komi (points, either sign) a board holds: the bound of the
#: playouts (fastplay._playout reads it), so that every board can be played out.
MAX_KOMI = 1e6


def checked_komi(komi):
    """``komi`` as a finite float within +-:data:`MAX_KOMI`: ``TypeError`` for
    a non-number (a bool or a string included), ``ValueError`` for NaN, an
    infinity or a komi beyond the bound."""
    if isinstance(komi, (bool, str, bytes)) or not isinstance(komi, (int, float, np.integer,
                                                                       np.floating)):
        raise TypeError(f"komi must be a number, not {komi!r}")
    given = komi
    try:
        komi = float(komi)
    except OverflowError:          # an int beyond any float
        komi = float("inf") if komi > 0 else float("-inf")
    if not -MAX_KOMI <= komi <= MAX_KOMI:
        raise ValueError(f"komi must be a finite number of points within +-{MAX_KOMI:g}, "
                         f"not {shown_value(given)}")
    return komi + 0.0       # -0.0 is 0.0: "komi -0" was shown and written as "-0"


cdef class Position:
    """A position with its history: the state, the rules, moves, undo, setup and copies.

    The base of :class:`CoreBoard`, which adds the queries (liberties, strings,
    contexts, tactics); other compiled modules read its C state through the
    interface ``_board.pxd`` declares.  Flat indices and colour codes as in
    :class:`CoreBoard`.
    """


    def __cinit__(self, *args, **kwargs):
        self.st.block = NULL
        self.q = <QSet*>calloc(1, sizeof(QSet))
        if self.q == NULL:
            raise MemoryError()
        self.q.lim = 2

    def __init__(self, size=19, komi=7.5, superko=False, suicide=False):
        check_size(size)
        komi = checked_komi(komi)
        self._reset(int(size))
        self.komi = komi
        self._superko = bool(superko)
        self._suicide = bool(suicide)

    def _set_komi(self, komi):
        """Set ``komi`` (``Board.komi``'s setter): a finite number, else
        ``TypeError``/``ValueError`` and the komi unchanged."""
        self.komi = checked_komi(komi)

    cdef _reset(self, int size):
        if size == 0:
            # The size of a board whose __init__ never ran (Board.__new__, a
            # subclass's __init__ without super()), copied: a tester's search
            # of one raised a bare MemoryError.
            raise RuntimeError("the board was not initialised (its __init__ did not run)")
        board_free(&self.st)
        if board_alloc(&self.st, size) != 0:
            raise MemoryError()
        self.q.n = 0
        self._to_move = BLACK_C
        self._snapshots = []
        self._moves = []
        self._hashes = [self.st.hash]
        self._hash_count = {self.st.hash: 1}
        self._last_color = 0
        self._last_index = -1

    def __dealloc__(self):
        board_free(&self.st)
        if self.q != NULL:
            free(self.q)
            self.q = NULL

    # -- conversions -------------------------------------------------------
    cdef int _check_index(self, v) except -2:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise InvalidVertexError(f"bad vertex {v!r}: expected an integer index", "bad vertex",
                                     v)
        if v == -1:
            return -1
        if not 0 <= v < self.st.size * self.st.size:
            raise InvalidVertexError(
                f"vertex index {v} is off the {self.st.size}x{self.st.size} board", "off-board", v)
        return v

    cdef int check_color(self, color) except -1:
        if (isinstance(color, bool) or not isinstance(color, (int, np.integer))
                or color not in (WHITE_C, BLACK_C)):
            raise ValueError(f"colour code must be WHITE (1) or BLACK (2), not {color!r}")
        return color

    # -- properties --------------------------------------------------------
    @property
    def size(self):
        """Points per side (int, 2..25)."""
        return self.st.size

    @property
    def superko(self):
        """Whether positional superko is enforced (bool)."""
        return self._superko

    @property
    def suicide(self):
        """Whether multi-stone suicide is allowed (bool)."""
        return self._suicide

    @property
    def to_move_code(self):
        """The side to move as a colour code (``WHITE`` 1, ``BLACK`` 2)."""
        return self._to_move

    @property
    def ko_index(self):
        """Flat index of the simple-ko point, or -1 when there is none."""
        return self.flat(self.st.ko) if self.st.ko else -1

    @property
    def zobrist_hash(self):
        """64-bit Zobrist hash of the stones (positional: colour to move excluded)."""
        return self.st.hash

    @property
    def move_number(self):
        """Moves, passes included, played since the starting position."""
        return len(self._moves)

    @property
    def consecutive_passes(self):
        """Passes played in a row at the end of the history."""
        return self.st.passes

    def captures_of(self, color):
        """Stones captured by ``color`` (a colour code) so far."""
        cdef int c = self.check_color(color)
        return self.st.captures[c]

    def get_index(self, v):
        """Colour code at flat index ``v`` (EMPTY 0, WHITE 1, BLACK 2): the fast path of
        :meth:`fastplay.Board.get`.  Raises :class:`~fastplay.InvalidVertexError` for an
        index off the board or -1 (a pass)."""
        cdef int i = self._check_index(v)
        if i < 0:
            raise InvalidVertexError("a pass has no colour", "bad vertex", v)
        return self.st.color[self.pad(i)]

    def ko_forbidden_for(self, color):
        """True when the ko point exists and ``color`` may not retake it now."""
        cdef int c = self.check_color(color)
        return self.st.ko != 0 and self.st.ko_color == c

    def set_to_move(self, color):
        """Set the side to move (colour code)."""
        cdef int c = self.check_color(color)
        self._to_move = c

    def history_indices(self):
        """``[(colour code, flat index or -1), ...]`` since the starting position: the fast
        path of :attr:`fastplay.Board.history`."""
        return list(self._moves)

    # -- moves -------------------------------------------------------------
    def legality_index(self, v, color):
        """The rule a move by ``color`` at flat index ``v`` would break, or None.

        Rules: ``"occupied"``, ``"suicide"``, ``"ko"``, ``"superko"``.  A pass is
        always legal.  Raises :class:`~fastplay.InvalidVertexError` for an
        index that is not on the board.
        """
        cdef int i = self._check_index(v)
        cdef int c = self.check_color(color)
        cdef int code = self.legal_code(0 if i < 0 else self.pad(i), c)
        return None if code == LEGAL else _RULE_TEXT[code][0]

    def is_legal_index(self, v, color):
        """Whether ``color`` may play at flat index ``v`` now (``legality_index(v, color) is
        None``): the fast path of :meth:`fastplay.Board.is_legal`."""
        cdef int i = self._check_index(v)
        cdef int c = self.check_color(color)
        return self.legal_code(0 if i < 0 else self.pad(i), c) == LEGAL

    def play_index(self, v, color):
        """Play ``color`` at flat index ``v`` (-1 = pass) and give the turn to the other colour.

        Raises :class:`IllegalMoveError` (a ``ValueError``) naming the rule:
        occupied, suicide, ko (simple ko), superko (positional);
        :class:`~fastplay.InvalidVertexError` for an index off the board.
        """
        cdef int i = self._check_index(v)
        cdef int c = self.check_color(color)
        cdef int p = 0 if i < 0 else self.pad(i)
        cdef int code = self.legal_code(p, c)
        if code != LEGAL:
            rule, why = _RULE_TEXT[code]
            raise IllegalMoveError(
                f"illegal move {'BW'[c == WHITE_C]} {_gtp(i, self.st.size)}: {rule} ({why})",
                rule, v, Color(c))
        self.commit(p, i, c)

    cdef int legal_code(self, int p, int color) except -1:
        """LEGAL or the rule a move at padded point ``p`` (0 = pass) breaks,
        positional superko included when this board enforces it.  Raises
        ``ValueError`` for a colour that is not WHITE_C or BLACK_C and
        :class:`InvalidVertexError` for a ``p`` that is no point of the board
        (the C interface's callers get its checks for two comparisons)."""
        self._check_move_args(p, color)
        if p == 0:
            return LEGAL
        cdef int code = board_legality(&self.st, p, color, self._suicide)
        if code == LEGAL and self._superko and self._hash_count.get(
                hash_after(&self.st, p, color, self._suicide), 0):
            return ILL_SUPERKO
        return code

    cdef int _check_move_args(self, int p, int color) except -1:
        if color != WHITE_C and color != BLACK_C:
            raise ValueError(f"colour code must be WHITE (1) or BLACK (2), not {color}")
        if p != 0 and not (0 < p < self.st.npts and self.st.color[p] != OFF_C):
            raise InvalidVertexError(f"padded point {p} is not on the "
                                     f"{self.st.size}x{self.st.size} board", "off-board", p)
        return 0

    cdef int commit(self, int p, int i, int color) except -1:
        """Play a legal move (padded ``p``, flat ``i``; 0 and -1 for a pass) and record it.
        Raises as :meth:`legal_code` for a bad colour or point, and ``ValueError``
        for an occupied point or an ``i`` that is not ``p``'s flat index; legality
        is the caller's (:meth:`legal_code`)."""
        self._check_move_args(p, color)
        if (p == 0) != (i < 0) or (p != 0 and (self.flat(p) != i or self.st.color[p] != EMPTY_C)):
            raise ValueError(f"commit: padded point {p} and flat index {i} do not name the "
                             "same empty point (or pass)")
        if self._scratch:
            board_play(&self.st, p, color, self.q)
            self._to_move = other(color)
            self._last_color = color     # C fields: no tuple a move in a tree's descent
            self._last_index = i
            return 0
        n = len(self._moves)
        if n % _CHECKPOINT_EVERY == 0 and (
                not self._snapshots or self._snapshots[len(self._snapshots) - 1][0] != n):
            self._snapshots.append((n, self._snapshot()))
        board_play(&self.st, p, color, self.q)
        self._moves.append((color, i))
        self._hashes.append(self.st.hash)
        self._hash_count[self.st.hash] = self._hash_count.get(self.st.hash, 0) + 1
        self._to_move = other(color)
        return 0

    cdef tuple _snapshot(self):
        return (self.st.block[:self.st.blocksize], self.st.ko, self.st.ko_color, self.st.passes,
                self.st.captures[1], self.st.captures[2], self.st.hash, self._to_move,
                (<char*>self.q.pts)[:self.q.n * sizeof(int16_t)])

    cdef _restore(self, tuple snap):
        cdef bytes block = snap[0]
        cdef bytes qpts = snap[8]
        memcpy(self.st.block, <char*>block, self.st.blocksize)
        self.st.ko, self.st.ko_color, self.st.passes = snap[1], snap[2], snap[3]
        self.st.captures[1], self.st.captures[2] = snap[4], snap[5]
        self.st.hash = snap[6]
        self._to_move = snap[7]
        q_reset(self.q)
        self.q.n = len(qpts) // sizeof(int16_t)
        memcpy(self.q.pts, <char*>qpts, len(qpts))

    def undo(self):
        """Take back the last move, restoring the exact previous state and hash.

        The board keeps a snapshot every 16 moves and replays at most 15
        moves from the latest one, so memory stays small on long games.
        Raises ``IndexError`` when there is no move to undo.
        """
        if not self._moves:
            raise IndexError("no move to undo")
        self._moves.pop()
        cdef int n = len(self._moves), start, color, v
        while self._snapshots[len(self._snapshots) - 1][0] > n:
            self._snapshots.pop()
        start, snap = self._snapshots[len(self._snapshots) - 1]
        self._restore(snap)
        # Replay the moves after the checkpoint; they were legal when played.
        for color, v in self._moves[start:n]:
            board_play(&self.st, 0 if v < 0 else self.pad(v), color, self.q)
            self._to_move = other(color)
        h = self._hashes.pop()
        n = self._hash_count[h] - 1
        if n:
            self._hash_count[h] = n
        else:
            del self._hash_count[h]

    def setup_indices(self, black, white):
        """Replace the position by the given stones (iterables of flat indices): the
        fast path of :meth:`fastplay.Board.setup`, which adds stones to the position.

        Clears the history, the ko point and the captures.  Raises ``ValueError``
        if a point is given twice or a string would have no liberty,
        :class:`~fastplay.InvalidVertexError` for an index off the board or -1.
        """
        stones = ([(self._check_index(v), BLACK_C) for v in black]
                  + [(self._check_index(v), WHITE_C) for v in white])
        seen = set()
        for v, _ in stones:
            if v < 0:
                raise InvalidVertexError("cannot place a stone on 'pass'", "bad vertex", v)
            if v in seen:
                raise ValueError(f"setup names point {_gtp(v, self.st.size)} twice")
            seen.add(v)
        self._rebuild(stones)

    cdef _rebuild(self, list stones):
        """Replace the position by ``stones`` ([(flat index, colour)]); on a
        string without liberties raise ``ValueError`` and keep the old one."""
        cdef int k, c, bad, n = len(stones)
        cdef Position tmp = Position.__new__(Position)
        cdef int[::1] pts = np.empty(max(n, 1), dtype=np.intc)
        cdef int[::1] cols = np.empty(max(n, 1), dtype=np.intc)
        tmp._reset(self.st.size)
        for k in range(n):
            pts[k] = self.pad(stones[k][0])
            cols[k] = stones[k][1]
        bad = board_setup(&tmp.st, &pts[0], &cols[0], n)
        if bad:
            raise ValueError(f"setup leaves the string at {_gtp(self.flat(bad), self.st.size)} "
                             "without a liberty")
        c = self._to_move
        self._reset(self.st.size)
        board_copy(&self.st, &tmp.st)
        self._to_move = c
        self._hashes = [self.st.hash]
        self._hash_count = {self.st.hash: 1}

    def set_ko_index(self, v, color):
        """Set the simple-ko point (flat index, -1 to clear) forbidden to ``color``."""
        cdef int i = self._check_index(v)
        cdef int c = self.check_color(color)
        if i < 0:
            self.st.ko = 0
            self.st.ko_color = 0
            return
        if self.st.color[self.pad(i)] != EMPTY_C:
            raise ValueError("the ko point must be empty")
        self.st.ko = self.pad(i)
        self.st.ko_color = c

    def copy(self, bint history=True):
        """An independent copy (same class), history and undo stack included.

        With ``history=False`` the copy is a scratch board, as a tree search
        wants one for each descent: the same position, side to move, komi
        and suicide rule, and the last move (for :meth:`near_mask`), but no
        history: :meth:`history_indices` is empty, ``move_number`` 0,
        :meth:`undo` raises ``IndexError``, and positional superko is not
        checked (a search checks it against the game's positions itself).
        Cheaper to make, and to play on, in a long game.  Any copy of a
        scratch board is a scratch board.
        """
        cdef Position other_b = type(self).__new__(type(self))
        other_b._reset(self.st.size)
        self._load_into(other_b)
        if history and not self._scratch:
            other_b._superko = self._superko
            other_b._snapshots = list(self._snapshots)
            other_b._moves = list(self._moves)
            other_b._hashes = list(self._hashes)
            other_b._hash_count = dict(self._hash_count)
        else:
            other_b._scratch = True
            other_b._hashes = [self.st.hash]
            other_b._hash_count = {self.st.hash: 1}
            other_b._set_last(self._last_move())
        other_b._copy_extra(self)
        return other_b

    cpdef copy_into(self, Position target):
        """Make ``target`` what :meth:`copy` with ``history=False`` returns,
        in ``target``'s own memory (a tree search reuses one scratch board
        per thread instead of allocating one per descent): the position,
        rules, side to move and last move.  Attributes a subclass copies in
        ``_copy_extra`` (:attr:`fastplay.Board.sgf_properties`) stay the
        target's: the hook costs more than the copy.

        Raises ``ValueError`` when ``target`` is not a scratch board (its
        history would be lost) or has another size, or is this board.
        """
        if target is None:
            raise TypeError("copy_into needs a board as target, not None")
        if not target._scratch:
            raise ValueError("copy_into needs a scratch board (copy(history=False)) as target")
        if target.st.size != self.st.size:
            raise ValueError(f"copy_into needs a {self.st.size}x{self.st.size} target, "
                             f"not {target.st.size}x{target.st.size}")
        if target is self:
            raise ValueError("copy_into needs another board as target")
        self._load_into(target)
        # A scratch board never reads its position hashes (no superko, no
        # undo): the ones it was made with stay (no list and dict a descent).
        target._set_last(self._last_move())

    cdef void _load_into(self, Position target):
        """Position, update set, side to move, komi and suicide rule into
        ``target`` (allocated for the same size); the history is the caller's."""
        board_copy(&target.st, &self.st)
        target.q.n = self.q.n
        memcpy(target.q.pts, self.q.pts, self.q.n * sizeof(int16_t))
        target._to_move = self._to_move
        target.komi = self.komi
        target._suicide = self._suicide

    cdef object _last_move(self):
        """(colour, flat index) of the last move, or None."""
        if self._scratch:
            return (self._last_color, self._last_index) if self._last_color else None
        return self._moves[len(self._moves) - 1] if self._moves else None

    cdef int _set_last(self, object last) except -1:
        """A scratch board's last move from :meth:`_last_move`'s answer."""
        if last is None:
            self._last_color, self._last_index = 0, -1
        else:
            self._last_color, self._last_index = last
        return 0

    def _copy_extra(self, source):
        """Hook for subclasses to copy their own attributes in :meth:`copy`."""

    def __reduce__(self):
        """Pickle the board as what it is made of: its rules, the position its
        history starts from (stones, side to move, ko), the moves since, and
        the side to move and ko now; a scratch board (:meth:`copy` with
        ``history=False``) its position, captures, passes, last move and
        update set instead of moves.  Loading replays the moves through the
        rules (:func:`_unpickle_position`), so the history, undo stack and
        positional-superko record are rebuilt exactly, and a corrupted
        pickle raises ``ValueError`` (an illegal move:
        :class:`IllegalMoveError`) or ``TypeError`` instead of loading a
        broken board.  A subclass adds its own attributes
        (:meth:`fastplay.Board.__reduce__`).  Raises ``TypeError`` for a
        board whose ``__init__`` never ran."""
        if self.st.block == NULL:
            raise TypeError("a board whose __init__ did not run cannot be pickled")
        cdef Position start = self
        if not self._scratch:
            start = self.copy()
            while start._moves:
                start.undo()
        rules = (self.st.size, self.komi, bool(self._superko), bool(self._suicide))
        now = (self._to_move, self.ko_index, self.st.ko_color)
        extra = None
        if self._scratch:
            extra = (self._last_color, self._last_index,
                     [self.flat(self.q.pts[k]) for k in range(self.q.n)],
                     self.st.captures[WHITE_C], self.st.captures[BLACK_C], self.st.passes)
        return (_unpickle_position, (type(self), _PICKLE_FORMAT, rules, start._stones(),
                                     (start._to_move, start.ko_index, start.st.ko_color),
                                     list(self._moves), now, extra))

    cdef tuple _stones(self):
        """(Black's flat indices, White's), board order."""
        cdef int i, c, n = self.st.size * self.st.size
        black, white = [], []
        for i in range(n):
            c = self.st.color[self.pad(i)]
            if c == BLACK_C:
                black.append(i)
            elif c == WHITE_C:
                white.append(i)
        return black, white

    cdef int _set_state(self, tuple now) except -1:
        """Side to move and ko point (flat index or -1, its colour) from a pickle."""
        to_move, ko, ko_color = now
        self.set_to_move(to_move)
        self.set_ko_index(ko, ko_color if ko >= 0 else to_move)     # -1 clears it
        return 0

    cdef int _set_scratch(self, tuple extra) except -1:
        """A scratch board's last move, update set, captures and passes from a pickle."""
        last_color, last_index, qpts, cap_w, cap_b, passes = extra
        cdef int n = self.st.size * self.st.size, k
        if last_color not in (0, WHITE_C, BLACK_C) or not -1 <= last_index < n:
            raise ValueError("the pickled last move is not a move of this board")
        if len(qpts) > n or any(not 0 <= v < n for v in qpts):
            raise ValueError("the pickled update set is not a set of this board's points")
        if min(cap_w, cap_b, passes) < 0 or max(cap_w, cap_b, passes) > 1 << 30:
            raise ValueError("the pickled captures or passes are out of range")
        self._scratch = True
        self._set_last((last_color, last_index) if last_color else None)
        q_reset(self.q)
        for k in range(len(qpts)):
            self.q.pts[k] = <int16_t>self.pad(qpts[k])
        self.q.n = len(qpts)
        self.st.captures[WHITE_C], self.st.captures[BLACK_C] = cap_w, cap_b
        self.st.passes = passes
        return 0


#: The layout of a pickled board (Position.__reduce__).
_PICKLE_FORMAT = 1


def _unpickle_position(cls, fmt, tuple rules, tuple stones, tuple start, list moves,
                       tuple now, extra):
    """A board of class ``cls`` from :meth:`Position.__reduce__`'s parts: the
    rules, the starting stones and state, the moves (replayed through the
    rules), the state now, and a scratch board's extras.

    Raises ``ValueError`` for another ``fmt`` or parts that make no board
    (:class:`IllegalMoveError` for a move against the rules), ``TypeError``
    for parts of the wrong type."""
    if fmt != _PICKLE_FORMAT:
        raise ValueError(f"this board was pickled in format {fmt!r}; this fastplay reads "
                         f"format {_PICKLE_FORMAT}: carry games between versions as SGF")
    cdef Position b = cls.__new__(cls)
    size, komi, superko, suicide = rules
    Position.__init__(b, size, komi, superko, suicide)
    b.setup_indices(*stones)
    b._set_state(start)
    for color, v in moves:
        b.play_index(v, color)
    b._set_state(now)
    if extra is not None:
        if moves:
            raise ValueError("a pickled scratch board has no moves")
        b._set_scratch(extra)
    return b


cdef class CoreBoard(Position):
    """The compiled board.  Use :class:`fastplay.Board`, which adds vertex parsing.

    Flat indices ``row * size + col`` (row 0 at the top), ``-1`` for a pass;
    colour codes ``WHITE`` = 1, ``BLACK`` = 2 (:class:`fastplay.Color`'s
    values).  These methods are the fast path of ``Board``'s vertex methods,
    named by one rule (``m_index``, ``m_indices``, ``m_flat`` for vertex
    method ``m``: see :class:`fastplay.Board`); an index off the board raises
    :class:`fastplay.InvalidVertexError`.  The names of earlier releases
    (``color_at``, ``liberty_count``, ...) are deprecated aliases at the end.
    """


    cdef cnp.int16_t* _stakes(self, stakes) except? NULL:
        """The buffer of a caller's ``stakes`` array (NULL for None)."""
        if stakes is None:
            return NULL
        cdef int n = self.st.size * self.st.size
        if not isinstance(stakes, np.ndarray) or stakes.dtype != np.int16 \
                or stakes.shape != (n,) or not stakes.flags.c_contiguous \
                or not stakes.flags.writeable or not stakes.flags.aligned:
            raise ValueError(f"stakes must be a writeable, aligned int16[{n}] numpy array")
        cdef cnp.int16_t[::1] view = stakes
        return &view[0]

    def tactics_flat(self, color, stakes=None):
        """Ladder-reading verdict on every point for a move by ``color``:
        ``int8[size * size]`` (flat; :meth:`fastplay.Board.tactics` is the same
        as ``int8[size, size]``), one of

        * 0 -- nothing found (also every illegal point);
        * 1 -- *bad*: the mover's string through the point is left in atari
          (two stones or more) or in a ladder that works, or commits suicide;
        * 2 -- *save*: joins a mover's string in atari into a safe one;
        * 3 -- *capture*: ataris an enemy string that cannot escape (ladder
          or net of ataris).

        The reading is GNU Go's simple ladder (Engine documentation,
        "Tactical reading"): the attacker only plays atari, the defender
        extends or captures an attacker string in atari; at most 300 nodes
        per reading and 3,000 per call, an unfinished reading counts as an
        escape (a ladder with a ko capture at each step can need more).
        Only the basic rules decide legality here (occupied, suicide, simple
        ko): a point that positional superko alone forbids still gets a
        code.  Runs with the GIL held: tens of microseconds on 9x9, a few
        hundred on 19x19.

        ``stakes``, an ``int16[size * size]`` array, receives at every point
        with a code the stones that code is about: the mover's string
        through the point (bad, save), or the string put in atari (capture).

        Raises ``ValueError`` for a colour other than the codes WHITE (1) or
        BLACK (2) of this module (:class:`fastplay.Board`'s wrappers take
        ``"B"``/``"W"``), or a ``stakes`` array that is not a writeable,
        aligned ``int16[size * size]``.
        """
        cdef int c_color = self.check_color(color)
        cdef cnp.int16_t* st = self._stakes(stakes)
        out = np.zeros(self.st.size * self.st.size, dtype=np.int8)
        cdef cnp.int8_t[::1] o = out
        # The GIL stays held, here and in every CoreBoard query: released, it
        # let another thread free this board's block (setup, __init__) in
        # the middle of a read (a fresh tester's segfault).
        tactics_codes(&self.st, c_color, self._suicide, &o[0], st, False)
        return out

    def races_flat(self, color, stakes=None):
        """Capturing-race verdict on every point for a move by ``color``:
        ``int8[size * size]`` (flat; :meth:`fastplay.Board.races` is the same
        as ``int8[size, size]``), one of

        * 0 -- nothing found (also every illegal point);
        * 2 -- *save*: keeps alive a string of ``color`` (two stones or
          more, two to four liberties) that the opponent, moving first,
          would capture;
        * 3 -- *capture*: captures an enemy string (two stones or more, two
          to four liberties) that its owner, moving first, would keep alive.

        The reading follows GNU Go's tactical reading (Engine documentation,
        "Tactical reading") restricted to liberties: the attacker fills a
        liberty of the string or rescues one of its own strings beside it
        in atari; the defender captures an attacker string beside it in
        atari, fills a liberty of one with at most one liberty more than
        the string (the race move), or extends.  A string with five
        liberties has escaped; at most 400 nodes per reading and 6,000 per
        call, an unfinished reading counts as an escape.  Legality as in
        :meth:`tactics_flat` (superko not checked).  Runs with the GIL
        held: 0.16 ms on average over random 9x9 positions, at most a few
        milliseconds, 20 ms on 25x25 (benchmarks/RESULTS.md).

        ``stakes``, an ``int16[size * size]`` array, receives at every point
        with a code the stones of the largest string the move decides (and
        keeps its value elsewhere).  The defender's race moves fill the
        liberties of attacker strings with at most one liberty more than
        its own string.

        Raises ``ValueError`` for a colour other than the codes WHITE (1) or
        BLACK (2) of this module (:class:`fastplay.Board`'s wrappers take
        ``"B"``/``"W"``), or a ``stakes`` array that is not a writeable,
        aligned ``int16[size * size]``.
        """
        cdef int c_color = self.check_color(color)
        cdef cnp.int16_t* st = self._stakes(stakes)
        out = np.zeros(self.st.size * self.st.size, dtype=np.int8)
        cdef cnp.int8_t[::1] o = out
        races_codes(&self.st, c_color, &o[0], st)
        return out

    def in_ladder_index(self, v, bint attacker_first=True):
        """Whether the string at flat index ``v`` (at most two liberties) is
        captured by a ladder (the fast path of :meth:`fastplay.Board.in_ladder`):
        the attacker plays only ataris, the defender
        extends or captures (see :meth:`tactics_flat`).  With
        ``attacker_first`` the string's opponent moves next, otherwise its
        owner does (and a two-liberty string then counts as safe).  Returns
        ``False`` for strings with three or more liberties.  Raises
        :class:`~fastplay.InvalidVertexError` for an empty point or a pass.
        """
        cdef int i = self._check_index(v)
        if i < 0 or self.st.color[self.pad(i)] == EMPTY_C:
            raise InvalidVertexError(f"no string at vertex index {v}", "bad vertex", v)
        return bool(ladder_read(&self.st, self.pad(i), attacker_first))

    def legal_indices(self, color):
        """Flat indices of the legal non-pass moves of ``color``: ``int32[k]``, board order."""
        color = self.check_color(color)
        cdef int i, n = self.st.size * self.st.size
        out = []
        for i in range(n):
            if self.legality_index(i, color) is None:
                out.append(i)
        return np.asarray(out, dtype=np.int32)

    # -- queries -----------------------------------------------------------
    def liberties_index(self, v):
        """Exact liberties of the string at flat index ``v`` (0 for an empty point): the
        fast path of :meth:`fastplay.Board.liberties`."""
        cdef int i = self._check_index(v)
        if i < 0:
            raise InvalidVertexError("a pass has no liberties", "bad vertex", v)
        cdef int p = self.pad(i)
        if self.st.color[p] == EMPTY_C:
            return 0
        return self.st.nlibs[self.st.sid[p]]

    def string_indices(self, v):
        """Flat indices of the string at ``v``, sorted: ``int32[k]`` (empty for an empty point)."""
        cdef int i = self._check_index(v)
        if i < 0:
            raise InvalidVertexError("a pass has no string", "bad vertex", v)
        cdef int p = self.pad(i), s
        out = []
        if self.st.color[p] != EMPTY_C:
            s = p
            while True:
                out.append(self.flat(s))
                s = self.st.nxt[s]
                if s == p:
                    break
        return np.sort(np.asarray(out, dtype=np.int32))

    def string_liberty_indices(self, v):
        """Flat indices of the liberties of the string at ``v``, sorted: ``int32[k]``."""
        cdef int i = self._check_index(v)
        if i < 0:
            raise InvalidVertexError("a pass has no liberties", "bad vertex", v)
        cdef int p = self.pad(i), x
        if self.st.color[p] == EMPTY_C:
            return np.zeros(0, dtype=np.int32)
        h = self.st.sid[p]
        return np.asarray([self.flat(x) for x in range(self.st.npts) if lib_test(&self.st, h, x)],
                          dtype=np.int32)

    def liberty_array(self):
        """Liberties of the string on each point: ``int16[size, size]``, 0 where empty."""
        cdef int n = self.st.size, i, j, p
        out = np.zeros((n, n), dtype=np.int16)
        cdef int16_t[:, :] o = out
        for i in range(n):
            for j in range(n):
                p = (i + 1) * self.st.W + j + 1
                if self.st.color[p] != EMPTY_C:
                    o[i, j] = self.st.nlibs[self.st.sid[p]]
        return out

    def to_numpy(self):
        """The stones as ``int8[size, size]``: 1 Black, -1 White, 0 empty; row 0 is the top row."""
        cdef int n = self.st.size, i, j, c
        out = np.zeros((n, n), dtype=np.int8)
        cdef cnp.int8_t[:, :] o = out
        for i in range(n):
            for j in range(n):
                c = self.st.color[(i + 1) * self.st.W + j + 1]
                o[i, j] = 1 if c == BLACK_C else (-1 if c == WHITE_C else 0)
        return out

    def area_counts(self):
        """Tromp-Taylor area ``(black, white)``: stones plus empty regions that reach only that colour."""
        out = np.zeros(self.st.size * self.st.size, dtype=np.int8)
        cdef cnp.int8_t[:] o = out
        cdef int nb, nw
        tromp_taylor_owner(&self.st, &o[0], &nb, &nw)
        return nb, nw

    def area_owner(self):
        """Tromp-Taylor owner per point: ``int8[size, size]``, 1 Black, -1 White, 0 neutral."""
        out = np.zeros(self.st.size * self.st.size, dtype=np.int8)
        cdef cnp.int8_t[:] o = out
        cdef int nb, nw
        tromp_taylor_owner(&self.st, &o[0], &nb, &nw)
        return out.reshape(self.st.size, self.st.size)

    def contexts(self):
        """GNU Go's 24-bit local context of every point: ``int64[size*size]``, -1 on stones.

        Bits 0-15 neighbourhood code (White's view), 16-17 / 18-19 stones a
        White / Black move here captures (capped at 3), 20 / 21 White / Black
        self-atari, 22 / 23 White / Black suicide (oracle README, spec 4.3).
        """
        cdef int n = self.st.size, i, p
        out = np.full(n * n, -1, dtype=np.int64)
        cdef cnp.int64_t[:] o = out
        for i in range(n * n):
            p = self.pad(i)
            if self.st.color[p] == EMPTY_C:
                o[i] = point_ctx(&self.st, p)
        return out

    def near_mask(self):
        """1 where a point is "near" the last move for the side to move: ``uint8[size*size]``.

        The update set of the last move (spec 6.3), restricted to empty points
        that are not suicide for the side to move (6.4).  All zero after a
        pass, at the start of a history, or when the last move was not played
        by the opponent of the side to move.
        """
        out = np.zeros(self.st.size * self.st.size, dtype=np.uint8)
        cdef cnp.uint8_t[::1] o = out
        self.near_flags(&o[0])
        return out

    cdef int near_flags(self, uint8_t* out) except -1:
        cdef int n = self.st.size, k, p
        memset(out, 0, n * n)
        last = self._last_move()
        if last is None:
            return 0
        last_color, last_index = last
        if last_index < 0 or last_color == self._to_move:
            return 0
        for k in range(self.q.n):
            p = self.q.pts[k]
            if self.st.color[p] == EMPTY_C and not would_be_suicide(&self.st, p, self._to_move):
                out[self.flat(p)] = 1
        return 0

    def check_integrity(self):
        """Recount every string and liberty from scratch; raise ``AssertionError`` on a mismatch."""
        cdef int p, h, s, d, n, k
        cdef BoardState* b = &self.st
        for p in range(b.npts):
            if b.color[p] != OFF_C:
                assert b.code[p] == sum(b.color[p + b.nbr[k]] << (2 * k) for k in range(8)), \
                    "neighbourhood code"
        for p in range(b.npts):
            if b.color[p] != WHITE_C and b.color[p] != BLACK_C:
                continue
            h = b.sid[p]
            assert b.color[h] == b.color[p], "string head colour"
            if h != p:
                continue
            libs = set()
            stones = 0
            s = p
            while True:
                assert b.sid[s] == h, "stone labelled with another head"
                stones += 1
                for d in (b.W, -1, -b.W, 1):
                    if b.color[s + d] == EMPTY_C:
                        libs.add(s + d)
                    elif b.color[s + d] == b.color[h]:
                        assert b.sid[s + d] == h, "adjacent stones in different strings"
                s = b.nxt[s]
                if s == h:
                    break
            assert stones == b.ssize[h], "string size"
            assert len(libs) == b.nlibs[h], "liberty count"
            for n in range(b.npts):
                assert bool(lib_test(b, h, n)) == (n in libs), "liberty bitset"

    # -- the names of earlier releases (deprecated) -------------------------------
    # Each warns at its caller (DeprecationWarning, once per call site) and
    # calls the method of the naming rule; the new names pay nothing for them.
    def color_at(self, v):
        """Deprecated name of :meth:`get_index`."""
        _renamed("color_at", "get_index", type(self).__name__)
        return self.get_index(v)

    def liberty_count(self, v):
        """Deprecated name of :meth:`liberties_index`."""
        _renamed("liberty_count", "liberties_index", type(self).__name__)
        return self.liberties_index(v)

    def legality(self, v, color):
        """Deprecated name of :meth:`legality_index`."""
        _renamed("legality", "legality_index", type(self).__name__)
        return self.legality_index(v, color)

    def ladder_captures(self, v, attacker_first=True):
        """Deprecated name of :meth:`in_ladder_index`."""
        _renamed("ladder_captures", "in_ladder_index", type(self).__name__)
        return self.in_ladder_index(v, attacker_first)

    def tactical_moves(self, color, stakes=None):
        """Deprecated name of :meth:`tactics_flat`."""
        _renamed("tactical_moves", "tactics_flat", type(self).__name__)
        return self.tactics_flat(color, stakes)

    def race_moves(self, color, stakes=None):
        """Deprecated name of :meth:`races_flat`."""
        _renamed("race_moves", "races_flat", type(self).__name__)
        return self.races_flat(color, stakes)

    def setup_stones(self, black, white):
        """Deprecated name of :meth:`setup_indices`."""
        _renamed("setup_stones", "setup_indices", type(self).__name__)
        return self.setup_indices(black, white)

    def history_moves(self):
        """Deprecated name of :meth:`history_indices`."""
        _renamed("history_moves", "history_indices", type(self).__name__)
        return self.history_indices()

