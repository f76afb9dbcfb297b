"""Tactical readers for the search's priors (declared in ``_tactics.pxd``).

Ladders and capturing races; the playouts do not read.  :class:`CoreBoard`
(``fastplay._board``) calls :c:func:`tactics_codes`, :c:func:`races_codes`
and :c:func:`ladder_read`, which take readers from a pool and run with the
GIL held (tactics_codes, when asked, reads a copy of the position with the GIL
let go).  Python sees the codes ``TACTIC_NONE``/``BAD``/``SAVE``/``CAPTURE``
and the limits ``LADDER_BUDGET``, ``TACTICS_BUDGET``, ``RACE_LIBS``,
``RACE_SAFE``, ``RACE_BUDGET``, ``RACE_TOTAL``.
"""

from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memcpy, memset

cimport numpy as cnp

from fastplay._rules cimport *

# ---------------------------------------------------------------------------
# 2b. Ladder reading (for the search's priors, not the playouts)
# ---------------------------------------------------------------------------
#
# Playouts do not read ladders: a string that can be chased to the edge looks
# alive to them for many moves.  The reader below answers the one question a
# ladder asks -- can a string with at most two liberties be captured when
# the attacker only ever plays atari? -- the way GNU Go's simple ladder
# reader does (Engine documentation, "Tactical reading"): the attacker tries
# both liberties, the defender extends or captures an attacker string in
# atari.  A node budget bounds the work; when it runs out the string counts
# as safe, so an uncertain answer never discourages a move.

TACTIC_NONE = TAC_NONE


TACTIC_BAD = TAC_BAD


TACTIC_SAVE = TAC_SAVE


TACTIC_CAPTURE = TAC_CAPTURE


cdef enum:
    READ_DEPTH = 2 * LADDER_BUDGET_C + 4   # deeper than any reading within budget
    READ_MOVES = 48                      # candidate moves kept at one node


# Node budgets and scratch boards by depth for the readings of a position.
# The boards are allocated on first use and kept (``_ReaderBox`` pools
# them between calls): a fresh malloc per node, or per call, cost page
# faults that made a 19x19 reading 60 times slower than a 13x13 one.
#
# A board of a reading is the position (``reader_root``) with the candidate
# move (``tactical_code``'s, or none) and the reading's moves on the path
# played; every string head of it is a head of the position or one of those
# moves (a merged string keeps one of its heads or the new stone), so a copy
# needs the liberty bitsets of those points only (board_copy_points): ``pts``
# holds the position's heads, then the candidate move (0, a point whose
# bitset is never read, when none), then the move played into each depth's
# block.  The full copy of 33 KB on 19x19 was most of a reading's time.
cdef struct Reader:
    int budget                 # nodes left for the current reading
    int total                  # nodes left for the position
    int depth
    size_t bsize               # size of every allocated block
    char* blocks[READ_DEPTH]
    int nheads                 # string heads of the position
    int16_t pts[MAX_PTS + 1 + READ_DEPTH]


cdef void reader_free(Reader* r) noexcept nogil:
    cdef int i
    for i in range(READ_DEPTH):
        free(r.blocks[i])
        r.blocks[i] = NULL


cdef void reader_start(Reader* r, size_t blocksize, int total) noexcept nogil:
    """Ready ``r`` for a position whose boards take ``blocksize`` bytes."""
    if r.bsize < blocksize:
        reader_free(r)         # blocks of a smaller board are too small
        r.bsize = blocksize
    r.total = total
    r.depth = 0
    r.budget = 0


cdef void reader_root(Reader* r, const BoardState* b) noexcept nogil:
    """Make ``b`` the position of the coming readings: its string heads, no
    candidate move (the Reader's comment)."""
    cdef int p, n = 0
    for p in range(b.npts):
        if (b.color[p] == WHITE_C or b.color[p] == BLACK_C) and b.sid[p] == p:
            r.pts[n] = p
            n += 1
    r.nheads = n
    r.pts[n] = 0


cdef inline void reading_copy(Reader* r, BoardState* dst, const BoardState* src) noexcept nogil:
    """Copy into ``dst`` (its block of ``src``'s size) ``src``, a board of the
    current reading at ``r.depth`` (the position, the candidate, the moves
    of the blocks below)."""
    board_copy_points(dst, src, r.pts, r.nheads + 1 + r.depth)


cdef int scratch(Reader* r, BoardState* dst, const BoardState* src) noexcept nogil:
    """``dst``: a copy of ``src`` in the reader's block for the current
    depth; -1 when too deep or out of memory."""
    if r.depth >= READ_DEPTH:
        return -1
    if r.blocks[r.depth] == NULL:
        r.blocks[r.depth] = <char*>malloc(r.bsize)
        if r.blocks[r.depth] == NULL:
            return -1
    dst[0] = src[0]
    dst.block = r.blocks[r.depth]
    board_layout(dst)
    reading_copy(r, dst, src)
    return 0


cdef int try_move(Reader* r, BoardState* c, BoardState* b, int p, int color) noexcept nogil:
    """Play ``color`` at ``p`` on ``c``, made a copy of ``b`` in the reader's
    block for the current depth: 0 played, 1 illegal (suicide included:
    readings never sacrifice a whole string), -1 too deep or out of memory."""
    if board_legality(b, p, color, False) != LEGAL:
        return 1
    if scratch(r, c, b) != 0:
        return -1
    board_play(c, p, color, NULL)
    r.pts[r.nheads + 1 + r.depth] = p
    return 0


cdef int add_atari_libs(BoardState* b, int h, int color, int* moves, int nm) noexcept nogil:
    """Append to ``moves[:nm]`` (``add_move``) the liberty of every string of
    ``color`` in atari beside string ``h``; the new count."""
    cdef int t = h, d, n
    while True:
        for d in range(4):
            n = t + b.nbr[d]
            if b.color[n] == color and b.nlibs[b.sid[n]] == 1:
                nm = add_move(moves, nm, string_other_lib(b, b.sid[n], 0))
        t = b.nxt[t]
        if t == h:
            return nm


cdef int ladder_attack(BoardState* b, int s, Reader* r) noexcept nogil:
    """1 if the attacker, to move, captures the string at ``s`` by ataris alone."""
    cdef int h = b.sid[s], n = b.nlibs[h], att = other(b.color[s]), i, found, tried
    cdef int lib[2]
    cdef BoardState c
    if n == 1:
        return board_legality(b, string_other_lib(b, h, 0), att, False) == LEGAL
    if n != 2 or r.budget <= 0:
        return 0
    r.budget -= 1
    lib[0] = string_other_lib(b, h, 0)
    lib[1] = string_other_lib(b, h, lib[0])
    for i in range(2):
        if extends_out(b, h, lib[i], lib[1 - i], r):
            continue
        tried = try_move(r, &c, b, lib[i], att)
        if tried > 0:
            continue
        if tried < 0:
            return 0
        r.depth += 1
        found = c.nlibs[c.sid[s]] == 1 and not ladder_defend(&c, s, r)
        r.depth -= 1
        if found:
            return 1
    return 0


cdef bint extends_out(BoardState* b, int h, int a, int e, Reader* r) noexcept nogil:
    """Whether ladder_attack's branch "atari at ``a``" on string ``h`` (two
    liberties, ``a`` and ``e``) is sure to fail without playing it: the
    atari is legal and captures nothing, and the defender's extension at
    ``e`` -- ladder_defend's first move -- gives at least three liberties
    (counted on this board, without ``a``, ``e`` and the liberties captures
    would add; so the true count is no lower).  Then ladder_defend would
    take one node of the budget (none when it is spent) and answer
    "saved", which this charges; the readings, budgets included, are the
    same as with the two board copies it saves."""
    cdef int me = b.color[h], att = other(me), d, n
    if r.depth + 1 >= READ_DEPTH or board_legality(b, a, att, False) != LEGAL:
        return False          # the copy's path: too deep, or an illegal atari
    for d in range(4):
        n = a + b.nbr[d]
        if b.color[n] == me and b.nlibs[b.sid[n]] == 1:
            return False      # the atari captures: the string may gain liberties
    if libs_after(b, e, me, a) < 3:
        return False
    if r.budget > 0:
        r.budget -= 1
    return True


cdef int ladder_defend(BoardState* b, int s, Reader* r) noexcept nogil:
    """1 if the defender, to move, saves the string at ``s`` (in atari):
    by extending on its liberty or capturing an attacker string in atari."""
    cdef int h = b.sid[s], me = b.color[s], att = other(me), i, n, nm = 1
    cdef int found, tried
    cdef int moves[READ_MOVES]
    cdef BoardState c
    if r.budget <= 0:
        return 1
    r.budget -= 1
    moves[0] = string_other_lib(b, h, 0)
    nm = add_atari_libs(b, h, att, moves, nm)
    for i in range(nm):
        tried = try_move(r, &c, b, moves[i], me)
        if tried > 0:
            continue
        if tried < 0:
            return 1
        n = c.nlibs[c.sid[s]]
        r.depth += 1
        found = n >= 3 or (n == 2 and not ladder_attack(&c, s, r))
        r.depth -= 1
        if found:
            return 1
    return 0


ctypedef int (*reading_fn)(BoardState*, int, Reader*) noexcept nogil


cdef int read_within(reading_fn read, BoardState* b, int s, Reader* r, int nodes) noexcept nogil:
    """``read(b, s, r)`` with at most ``nodes`` nodes, taken from the
    position's remaining total."""
    r.budget = nodes if r.total > nodes else r.total
    cdef int start = r.budget, found = read(b, s, r)
    r.total -= start - r.budget
    return found


cdef inline int read_attack(BoardState* b, int s, Reader* r) noexcept nogil:
    return read_within(ladder_attack, b, s, r, LADDER_BUDGET_C)


cdef inline int read_defend(BoardState* b, int s, Reader* r) noexcept nogil:
    return read_within(ladder_defend, b, s, r, LADDER_BUDGET_C)


cdef inline int libs_after(BoardState* b, int p, int me, int gone) noexcept nogil:
    """Liberties of the string a ``me`` stone at ``p`` would join, not
    counting those its captures would free, nor the point ``gone`` (0: none;
    a point another stone will have filled)."""
    cdef uint64_t words[MAX_WORDS]
    cdef int w, d, n, h, count = 0
    for w in range(b.nwords):
        words[w] = 0
    for d in range(4):
        n = p + b.nbr[d]
        if b.color[n] == EMPTY_C:
            words[n >> 6] |= (<uint64_t>1) << (n & 63)
        elif b.color[n] == me:
            h = b.sid[n]
            for w in range(b.nwords):
                words[w] |= b.libs[(h << b.wshift) + w]
    words[p >> 6] &= ~((<uint64_t>1) << (p & 63))
    words[gone >> 6] &= ~((<uint64_t>1) << (gone & 63))
    for w in range(b.nwords):
        count += fp_popcount64(words[w])
    return count


cdef int tactical_code(BoardState* b, BoardState* c, int p, int me, Reader* total) noexcept nogil:
    """Tactical code of the legal move ``me`` at ``p`` (``c``: scratch board;
    ``total``: the position's reader, whose node budget keeps one call
    bounded on a big board full of short strings)."""
    cdef int opp = other(me), d, n, h, code = TAC_NONE
    cdef int16_t nl
    cdef int empties = 0, short = 0, wide = 0, endangered = 0
    for d in range(4):
        n = p + b.nbr[d]
        if b.color[n] == EMPTY_C:
            empties += 1
        elif b.color[n] != OFF_C:
            short |= b.nlibs[b.sid[n]] <= 2
            wide |= b.color[n] == me and b.nlibs[b.sid[n]] >= 4
        # Our strings in atari beside p: p joins them to its string.  (Also
        # counting two-liberty strings in a working ladder played worse:
        # RESULTS.md, "ladder knowledge".)
        endangered |= b.color[n] == me and b.nlibs[b.sid[n]] == 1
    # Nothing to read when no string beside p is short of liberties and the
    # new string keeps three or more (captures only add liberties).
    if not short and (empties >= 3 or wide):
        return TAC_NONE
    # No copy of the board (33 kB on 19x19) when the move captures nothing,
    # puts no enemy string in atari and leaves its own string three
    # liberties or more: then it is neither bad nor a capture.
    cdef int takes = 0, squeezes = 0
    for d in range(4):
        n = p + b.nbr[d]
        if b.color[n] == opp:
            takes |= b.nlibs[b.sid[n]] == 1
            squeezes |= b.nlibs[b.sid[n]] == 2
    if not takes and not squeezes and libs_after(b, p, me, 0) >= 3:
        return TAC_SAVE if endangered else TAC_NONE
    total.pts[total.nheads] = 0           # b is the position itself
    reading_copy(total, c, b)
    board_play(c, p, me, NULL)
    total.pts[total.nheads] = p           # the readings' boards hold it
    if c.color[p] != me:
        return TAC_BAD         # multi-stone suicide, where the rules allow it
    h = c.sid[p]
    nl = c.nlibs[h]
    if nl == 1 and c.ssize[h] >= 2:
        return TAC_BAD
    if nl == 2 and read_attack(c, p, total):
        return TAC_BAD
    if endangered:
        code = TAC_SAVE        # they are part of h now, and h is safe
    for d in range(4):
        n = p + c.nbr[d]
        if c.color[n] == opp and c.nlibs[c.sid[n]] == 1 and not read_defend(c, n, total):
            return TAC_CAPTURE
    return code


# ---------------------------------------------------------------------------
# 2c. Capturing races (for the search's priors, not the playouts)
# ---------------------------------------------------------------------------
#
# A ladder is a race the defender has already lost; the lost games after
# ladder reading came in (RESULTS.md) were mostly races between strings of
# three or four liberties, where whoever fills the other's liberties first
# wins.  The reader below is a small version of GNU Go's tactical reading
# for such strings (Engine documentation, "Tactical reading": attack and
# defend functions that only consider liberties and the captures they
# allow): the attacker fills a liberty of the string or rescues one of its
# own strings beside it in atari; the defender captures an attacker string
# beside it in atari, extends on one of its own liberties, or fills a
# liberty of an attacker string beside it with at most one liberty more
# than the string itself -- the race move.  A string that reaches
# RACE_SAFE_C liberties has escaped; so has one whose reading ran out of
# nodes.

cdef int string_libs(BoardState* b, int h, int* out, int room) noexcept nogil:
    """Fill ``out`` with up to ``room`` liberties of string ``h``, board order."""
    cdef int w, k = 0
    cdef uint64_t word
    for w in range(b.nwords):
        word = b.libs[(h << b.wshift) + w]
        while word and k < room:
            out[k] = (w << 6) + fp_ctz64(word)
            k += 1
            word &= word - 1
    return k


cdef inline int add_move(int* moves, int nm, int m) noexcept nogil:
    """Append ``m`` to ``moves[:nm]`` unless present or full; the new count."""
    cdef int k
    for k in range(nm):
        if moves[k] == m:
            return nm
    if nm < READ_MOVES:
        moves[nm] = m
        nm += 1
    return nm


cdef void sort_moves(int* moves, int start, int end) noexcept nogil:
    """Insertion sort of ``moves[start:end]`` (a handful of points)."""
    cdef int k, j, m
    for k in range(start + 1, end):
        m = moves[k]
        j = k - 1
        while j >= start and moves[j] > m:
            moves[j + 1] = moves[j]
            j -= 1
        moves[j + 1] = m


cdef int race_defences(BoardState* b, int s, int* moves) noexcept nogil:
    """Candidate moves for the owner of the string at ``s``, best first:
    captures of attacker strings beside it in atari, race moves on the
    attacker strings beside it with at most one liberty more than it has
    (fewest first; one more, because an eye or a shared liberty the
    attacker cannot fill makes a longer string lose), then its own
    liberties.  Board order within each group, so that the order (and where
    a node budget runs out) does not depend on how the strings were built."""
    cdef int h = b.sid[s], me = b.color[s], att = other(me), d, t, n, k, j, nm = 0, nn = 0
    cdef int nl = b.nlibs[h], want, start
    cdef int nbrs[READ_MOVES]
    cdef int libs[RACE_SAFE_C]
    t = h
    while True:            # the attacker strings beside s
        for d in range(4):
            n = t + b.nbr[d]
            if b.color[n] == att:
                nn = add_move(nbrs, nn, b.sid[n])
        t = b.nxt[t]
        if t == h:
            break
    for want in range(1, nl + 2 if nl >= 2 else 2):
        start = nm
        for k in range(nn):
            if b.nlibs[nbrs[k]] == want:
                for j in range(string_libs(b, nbrs[k], libs, RACE_SAFE_C)):
                    nm = add_move(moves, nm, libs[j])
        sort_moves(moves, start, nm)
    for j in range(string_libs(b, h, libs, RACE_SAFE_C)):
        nm = add_move(moves, nm, libs[j])
    return nm


cdef int race_attack(BoardState* b, int s, Reader* r) noexcept nogil:
    """1 if the attacker, to move, captures the string at ``s``: by filling
    one of its liberties, or by first saving an attacker string beside it in
    atari (the race move a filler-only reader would let win)."""
    cdef int h = b.sid[s], n = b.nlibs[h], me = b.color[s], att = other(me), i, nm, tried
    cdef int found, start
    cdef int moves[READ_MOVES]
    cdef BoardState c
    if n == 1:
        return board_legality(b, string_other_lib(b, h, 0), att, False) == LEGAL
    if n >= RACE_SAFE_C or r.budget <= 0:
        return 0
    r.budget -= 1
    nm = string_libs(b, h, moves, RACE_SAFE_C)
    start = nm
    nm = add_atari_libs(b, h, att, moves, nm)
    sort_moves(moves, start, nm)
    for i in range(nm):
        tried = try_move(r, &c, b, moves[i], att)
        if tried > 0:
            continue
        if tried < 0:
            return 0
        # A stone left in atari is taken at once unless the string is then
        # in atari itself (a throw-in): not worth a node otherwise.
        if c.nlibs[c.sid[moves[i]]] == 1 and c.nlibs[c.sid[s]] > 1:
            continue
        r.depth += 1
        found = not race_defend(&c, s, r)
        r.depth -= 1
        if found:
            return 1
    return 0


cdef int race_defend(BoardState* b, int s, Reader* r) noexcept nogil:
    """1 if the owner of the string at ``s``, to move, keeps it alive."""
    cdef int me = b.color[s], i, nm, n, found, tried
    cdef int moves[READ_MOVES]
    cdef BoardState c
    if r.budget <= 0:
        return 1
    r.budget -= 1
    nm = race_defences(b, s, moves)
    for i in range(nm):
        tried = try_move(r, &c, b, moves[i], me)
        if tried > 0:
            continue
        if tried < 0:
            return 1
        n = c.nlibs[c.sid[s]]
        if n >= RACE_SAFE_C:
            return 1
        if n == 1:
            continue
        r.depth += 1
        found = not race_attack(&c, s, r)
        r.depth -= 1
        if found:
            return 1
    return 0


cdef inline int race_read(BoardState* b, int s, bint attacker, Reader* r) noexcept nogil:
    """``race_attack`` (``attacker``) or ``race_defend`` within the budget."""
    return read_within(race_attack if attacker else race_defend, b, s, r, RACE_BUDGET_C)


cdef inline void mark(cnp.int8_t* out, cnp.int16_t* stakes, int x, int code, int stones) noexcept nogil:
    """Give point ``x`` the larger of its code and ``code``; ``stakes`` (or
    NULL) keeps the largest string of the codes given at ``x`` in this call."""
    if stakes != NULL and (out[x] == TAC_NONE or stakes[x] < stones):
        stakes[x] = stones
    if out[x] < code:
        out[x] = code


cdef void race_codes(BoardState* b, int me, Reader* r, cnp.int8_t* out,
                     cnp.int16_t* stakes) noexcept nogil:
    """Mark in ``out`` (flat, one byte per point, TAC_NONE where nothing is
    found) the moves of ``me`` that decide a race: TAC_SAVE for the moves
    that keep alive a string of ``me`` which the opponent, moving first,
    would capture; TAC_CAPTURE for the moves that capture an enemy string
    which its owner, moving first, would keep alive.  A point marked for
    two strings keeps the larger code.  ``stakes`` (or NULL): the stones of
    the largest string each marked point decides."""
    cdef int size = b.size, p, q, h, owner, i, nm, k, tried
    cdef int moves[READ_MOVES]
    cdef BoardState c
    for p in range(b.npts):
        if b.color[p] != WHITE_C and b.color[p] != BLACK_C:
            continue
        h = b.sid[p]
        if p != h or b.ssize[h] < 2 or b.nlibs[h] < 2 or b.nlibs[h] > RACE_LIBS_C:
            continue
        owner = b.color[p]
        if owner == me:
            # Ours: urgent when the opponent, moving first, captures it.
            if not race_read(b, p, True, r):
                continue
            nm = race_defences(b, p, moves)
            for i in range(nm):
                q = moves[i]
                tried = try_move(r, &c, b, q, me)
                if tried > 0:
                    continue
                if tried < 0:
                    return
                k = c.nlibs[c.sid[p]]
                r.depth += 1
                if k >= RACE_SAFE_C or (k >= 2 and not race_read(&c, p, True, r)):
                    mark(out, stakes, (q // b.W - 1) * size + q % b.W - 1, TAC_SAVE, b.ssize[h])
                r.depth -= 1
        else:
            # Theirs: urgent when its owner, moving first, saves it.
            if not race_read(b, p, False, r) or not race_read(b, p, True, r):
                continue
            nm = string_libs(b, h, moves, RACE_SAFE_C)
            for i in range(nm):
                q = moves[i]
                tried = try_move(r, &c, b, q, me)
                if tried > 0:
                    continue
                if tried < 0:
                    return
                r.depth += 1
                if c.color[p] != owner or not race_read(&c, p, False, r):
                    mark(out, stakes, (q // b.W - 1) * size + q % b.W - 1, TAC_CAPTURE, b.ssize[h])
                r.depth -= 1


cdef int tactic_stake(BoardState* b, int p, int me, int code) noexcept nogil:
    """Stones at stake in the move ``me`` at ``p`` with tactical ``code``:
    for a capture, the largest enemy string beside ``p`` with at most two
    liberties (the one put in atari); otherwise the mover's string through
    ``p`` (the new stone and the strings it joins)."""
    cdef int d, n, h, k, total = 1, best = 0, nseen = 0
    cdef int seen[4]
    for d in range(4):
        n = p + b.nbr[d]
        h = b.sid[n]
        if b.color[n] == other(me) and b.nlibs[h] <= 2 and b.ssize[h] > best:
            best = b.ssize[h]
        elif b.color[n] == me:
            k = add_move(seen, nseen, h)     # at most 4: never full
            if k > nseen:
                total += b.ssize[h]
                nseen = k
    return best if code == TAC_CAPTURE else total


cdef class _ReaderBox:
    """A :c:type:`Reader` plus the candidate move's board and a private copy
    of the position (``own``), kept between calls."""
    cdef Reader* r
    cdef char* cand
    cdef char* own
    cdef size_t cand_size

    def __cinit__(self):
        self.r = <Reader*>calloc(1, sizeof(Reader))
        if self.r == NULL:
            raise MemoryError("no memory for a ladder reader")

    def __dealloc__(self):
        if self.r != NULL:
            reader_free(self.r)
            free(self.r)
        free(self.cand)
        free(self.own)

    cdef int start(self, size_t blocksize, int total) except -1:
        if self.cand_size < blocksize:
            free(self.cand)
            free(self.own)
            self.cand = <char*>malloc(blocksize)
            self.own = <char*>malloc(blocksize)
            self.cand_size = blocksize if self.cand != NULL and self.own != NULL else 0
            if self.cand_size == 0:
                raise MemoryError("no memory for a scratch board")
        reader_start(self.r, blocksize, total)
        return 0


# Idle readers; list.pop and list.append are atomic under the GIL, so
# threads never share one.
_READERS = []


_MAX_IDLE_READERS = 4


cdef _ReaderBox _take_reader():
    try:
        return _READERS.pop()
    except IndexError:
        return _ReaderBox()


cdef void _give_back(_ReaderBox box) noexcept:
    if len(_READERS) < _MAX_IDLE_READERS:
        _READERS.append(box)

LADDER_BUDGET = LADDER_BUDGET_C
TACTICS_BUDGET = TACTICS_BUDGET_C
RACE_LIBS = RACE_LIBS_C
RACE_SAFE = RACE_SAFE_C
RACE_BUDGET = RACE_BUDGET_C
RACE_TOTAL = RACE_TOTAL_C

cdef int tactics_codes(BoardState* b, int color, bint allow_suicide, cnp.int8_t* out,
                       cnp.int16_t* stakes, bint release) except -1:
    cdef BoardState c, o
    cdef _ReaderBox box = _take_reader()
    try:
        box.start(b.blocksize, TACTICS_BUDGET_C)
        reader_root(box.r, b)
        if not release:
            c = b[0]
            c.block = box.cand            # the candidate move's board
            board_layout(&c)
            _codes(b, &c, color, allow_suicide, out, stakes, box.r)
            return 0
        # A copy of the position (the liberty bitsets of its heads:
        # reader_root's points) that no Python code can change while the GIL
        # is let go, and codes and stakes in buffers of the call's own (the
        # caller's arrays could be freed meanwhile).
        o = b[0]
        o.block = box.own
        board_layout(&o)
        board_copy_points(&o, b, box.r.pts, box.r.nheads)
        c = o
        c.block = box.cand
        board_layout(&c)
        _released_codes(&o, &c, color, allow_suicide, out, stakes, box.r)
    finally:
        _give_back(box)
    return 0


cdef void _codes(BoardState* b, BoardState* c, int color, bint allow_suicide,
                 cnp.int8_t* out, cnp.int16_t* stakes, Reader* r) noexcept nogil:
    """tactics_codes's work on ``b`` (``c``: the candidate move's board)."""
    cdef int n = b.size * b.size, i, p
    for i in range(n):
        p = (i // b.size + 1) * b.W + i % b.size + 1
        if board_legality(b, p, color, allow_suicide) == LEGAL:
            out[i] = tactical_code(b, c, p, color, r)
            if stakes != NULL and out[i] != TAC_NONE:
                stakes[i] = tactic_stake(b, p, color, out[i])


cdef int _released_codes(BoardState* b, BoardState* c, int color, bint allow_suicide,
                         cnp.int8_t* out, cnp.int16_t* stakes, Reader* r) except -1:
    """_codes with the GIL let go, on a board of the caller's own, through
    buffers of the call's own for ``out`` and ``stakes``."""
    cdef int n = b.size * b.size
    cdef cnp.int8_t codes[MAX_SIZE_C * MAX_SIZE_C]
    cdef cnp.int16_t sts[MAX_SIZE_C * MAX_SIZE_C]
    memcpy(codes, out, n * sizeof(cnp.int8_t))
    if stakes != NULL:
        memcpy(sts, stakes, n * sizeof(cnp.int16_t))
    with nogil:
        _codes(b, c, color, allow_suicide, codes, sts if stakes != NULL else NULL, r)
    memcpy(out, codes, n * sizeof(cnp.int8_t))
    if stakes != NULL:
        memcpy(stakes, sts, n * sizeof(cnp.int16_t))
    return 0


cdef int races_codes(BoardState* b, int color, cnp.int8_t* out, cnp.int16_t* stakes) except -1:
    cdef _ReaderBox box = _take_reader()
    box.start(b.blocksize, RACE_TOTAL_C)
    reader_root(box.r, b)
    try:
        race_codes(b, color, box.r, out, stakes)
    finally:
        _give_back(box)
    return 0


cdef int ladder_read(BoardState* b, int p, bint attacker_first) except -1:
    cdef int n = b.nlibs[b.sid[p]], found
    cdef _ReaderBox box = _take_reader()
    box.start(b.blocksize, LADDER_BUDGET_C)
    reader_root(box.r, b)
    try:
        if attacker_first:
            found = read_attack(b, p, box.r)
        else:
            found = n == 1 and not read_defend(b, p, box.r)
    finally:
        _give_back(box)
    return found
