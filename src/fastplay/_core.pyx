# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, binding=False
"""fastplay's compiled core: the board, local contexts and the playout engine.

A tour, top to bottom:

1. **Board** (``BoardState``): a padded one-dimensional board (one off-board
   frame around the ``size x size`` points, row stride ``W = size + 2``).
   Strings are circular linked lists of stones with a head point; each head
   keeps the string's size, its exact liberty count and a liberty bitset, so
   merging is a bitwise OR and captures add liberties bit by bit.  Nothing is
   flood-filled per move.  A Zobrist hash of the stones is kept up to date.
2. **Local contexts** (``point_ctx``): GNU Go 3.8's 24-bit context of an empty
   point -- the 3x3 neighbourhood code plus capture counts, self-atari and
   suicide for both colours (spec ``mc-patterns.md`` section 4.3, oracle README).
3. **Update set** (``QSet``): the points whose context a move can change,
   exactly GNU Go's update queue (spec 6.3).  It is also what "near the
   previous move" means (spec 6.4).  Tables whose values depend on neither
   properties nor the near bit (``mc_uniform``) keep a smaller one.
4. **Playout engine** (``PState``, ``PlayoutEngine``): per-colour move values
   kept under partition sums of 64-bit block totals, updated only on the
   update set; near re-weighting and ko zeroing planned in the same pass and
   applied to one draw only (spec 6.4-6.6); geometry-only contexts when a
   table ignores every property bit (``mc_uniform``); three
   consecutive passes or the move cap end a playout (6.7); GNU Go's scoring
   (6.8) or Tromp-Taylor area scoring.  Each playout ``i`` draws from its own
   xoshiro256** stream seeded from ``(seed, i)``, so results do not depend
   on the number of threads.  All of it runs without the GIL.
5. **Search tree** (``TreeNode``, ``tree_descend``, ``tree_backup``,
   ``_tree.pxi``): the statistics and inner loops of ``fastplay.mcts``'s
   tree search -- selection, back-up with AMAF tallies, a new node's
   candidate moves -- which decides what they compute.

Everything below the Python classes trusts its arguments: ``CoreBoard`` and
``PlayoutEngine`` check them once at the boundary.

The hot paths avoid data-dependent branches (masks, unconditional stores):
profiles with ``valgrind --tool=cachegrind --branch-sim=yes`` showed
mispredicted branches, not instructions, setting the time per playout move.
"""

from libc.stdint cimport uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memcpy, memset

import threading
import time

import numpy as np
cimport numpy as cnp

cnp.import_array()

cdef extern from *:
    """
    static inline int fp_ctz64(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int fp_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
    static inline unsigned long long fp_mulhi64(unsigned long long a, unsigned long long b) {
        return (unsigned long long)(((unsigned __int128)a * b) >> 64);
    }
    """
    int fp_ctz64(unsigned long long x) nogil
    int fp_popcount64(unsigned long long x) nogil
    unsigned long long fp_mulhi64(unsigned long long a, unsigned long long b) nogil

EMPTY = EMPTY_C
WHITE = WHITE_C
BLACK = BLACK_C
OFFBOARD = OFF_C
PASS = -1
MIN_SIZE = 2
MAX_SIZE = MAX_SIZE_C

_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"

# Undo keeps a full snapshot every this many moves and replays the rest.
_CHECKPOINT_EVERY = 16

# Zobrist keys for (colour, padded point); filled once from a fixed seed so
# hashes are the same in every process.
cdef uint64_t ZOBRIST[3][MAX_PTS]


cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef void _init_zobrist():
    cdef uint64_t s = 0x66617374706C6179  # "fastplay"
    cdef int c, p
    for c in range(3):
        for p in range(MAX_PTS):
            ZOBRIST[c][p] = splitmix64(&s)


_init_zobrist()


# ---------------------------------------------------------------------------
# 1. Board
# ---------------------------------------------------------------------------

cdef inline int other(int c) noexcept nogil:
    return 3 - c


cdef inline bint lib_test(BoardState* b, int h, int p) noexcept nogil:
    return (b.libs[(h << b.wshift) + (p >> 6)] >> (p & 63)) & 1


cdef inline void lib_set(BoardState* b, int h, int p) noexcept nogil:
    b.libs[(h << b.wshift) + (p >> 6)] |= (<uint64_t>1) << (p & 63)


cdef inline void lib_clear(BoardState* b, int h, int p) noexcept nogil:
    b.libs[(h << b.wshift) + (p >> 6)] &= ~((<uint64_t>1) << (p & 63))


cdef void board_layout(BoardState* b) noexcept nogil:
    cdef size_t off = 0
    b.libs = <uint64_t*>(b.block + off)
    off += sizeof(uint64_t) * (<size_t>b.npts << b.wshift)
    b.sid = <int16_t*>(b.block + off)
    off += sizeof(int16_t) * b.npts
    b.nxt = <int16_t*>(b.block + off)
    off += sizeof(int16_t) * b.npts
    b.ssize = <int16_t*>(b.block + off)
    off += sizeof(int16_t) * b.npts
    b.nlibs = <int16_t*>(b.block + off)
    off += sizeof(int16_t) * b.npts
    b.code = <uint16_t*>(b.block + off)
    off += sizeof(uint16_t) * b.npts
    b.color = <uint8_t*>(b.block + off)


cdef void board_compute_codes(BoardState* b) noexcept nogil:
    """Neighbourhood code of every on-board point from scratch (spec 4.1 order)."""
    cdef int W = b.W, i, j, p
    for i in range(b.size):
        for j in range(b.size):
            p = (i + 1) * W + j + 1
            b.code[p] = (b.color[p + W] | (b.color[p - 1] << 2) | (b.color[p - W] << 4)
                         | (b.color[p + 1] << 6) | (b.color[p + W - 1] << 8)
                         | (b.color[p - W - 1] << 10) | (b.color[p - W + 1] << 12)
                         | (b.color[p + W + 1] << 14))


cdef inline void set_color(BoardState* b, int p, int c) noexcept nogil:
    """Change the colour of on-board point ``p`` and the codes of its 8 neighbours.

    Neighbour ``k`` of point ``q`` is ``q + off[k]``, so ``p`` is neighbour
    ``k`` of ``p - off[k]``; those writes stay inside the padded board.
    """
    cdef int W = b.W
    b.color[p] = c
    b.code[p - W] = (b.code[p - W] & ~0x0003) | c
    b.code[p + 1] = (b.code[p + 1] & ~0x000C) | (c << 2)
    b.code[p + W] = (b.code[p + W] & ~0x0030) | (c << 4)
    b.code[p - 1] = (b.code[p - 1] & ~0x00C0) | (c << 6)
    b.code[p - W + 1] = (b.code[p - W + 1] & ~0x0300) | (c << 8)
    b.code[p + W + 1] = (b.code[p + W + 1] & ~0x0C00) | (c << 10)
    b.code[p + W - 1] = (b.code[p + W - 1] & ~0x3000) | (c << 12)
    b.code[p - W - 1] = (b.code[p - W - 1] & ~0xC000) | (c << 14)


cdef inline uint32_t colour_mask(uint32_t g8, uint32_t col) noexcept nogil:
    """Bit 2k set where direction k of the orthogonal code ``g8`` has colour ``col``."""
    cdef uint32_t x = g8 ^ (col * 0x55)
    return ~(x | (x >> 1)) & 0x55


cdef int board_alloc(BoardState* b, int size) noexcept nogil:
    """Allocate an empty board; returns -1 when out of memory."""
    b.size = size
    b.W = size + 2
    b.npts = b.W * b.W
    b.nwords = (b.npts + 63) >> 6
    b.nbr[0] = b.W
    b.nbr[1] = -1
    b.nbr[2] = -b.W
    b.nbr[3] = 1
    b.nbr[4] = b.W - 1
    b.nbr[5] = -b.W - 1
    b.nbr[6] = -b.W + 1
    b.nbr[7] = b.W + 1
    # A power-of-two stride makes a string's bitset a shift away, not a multiply.
    b.wshift = 0
    while (1 << b.wshift) < b.nwords:
        b.wshift += 1
    b.blocksize = (sizeof(uint64_t) * (<size_t>b.npts << b.wshift) + 5 * sizeof(int16_t) * b.npts
                   + b.npts)
    b.block = <char*>calloc(b.blocksize, 1)
    if b.block == NULL:
        return -1
    board_layout(b)
    cdef int p, i, j
    for p in range(b.npts):
        b.color[p] = OFF_C
    for i in range(size):
        for j in range(size):
            b.color[(i + 1) * b.W + j + 1] = EMPTY_C
    board_compute_codes(b)
    b.ko = 0
    b.ko_color = 0
    b.passes = 0
    b.captures[0] = b.captures[1] = b.captures[2] = 0
    b.hash = 0
    return 0


cdef void board_free(BoardState* b) noexcept nogil:
    if b.block != NULL:
        free(b.block)
        b.block = NULL


cdef void board_copy(BoardState* dst, const BoardState* src) noexcept nogil:
    """Copy a position into ``dst``, allocated for the same size."""
    memcpy(dst.block, src.block, src.blocksize)
    dst.ko = src.ko
    dst.ko_color = src.ko_color
    dst.passes = src.passes
    dst.captures[0] = src.captures[0]
    dst.captures[1] = src.captures[1]
    dst.captures[2] = src.captures[2]
    dst.hash = src.hash


cdef inline void add_lib(BoardState* b, int h, int p) noexcept nogil:
    if not lib_test(b, h, p):
        lib_set(b, h, p)
        b.nlibs[h] += 1


cdef int string_other_lib(BoardState* b, int h, int p) noexcept nogil:
    """A liberty of string ``h`` other than ``p`` (0 if none)."""
    cdef int w
    cdef uint64_t word
    for w in range(b.nwords):
        word = b.libs[(h << b.wshift) + w]
        if (p >> 6) == w:
            word &= ~((<uint64_t>1) << (p & 63))
        if word:
            return (w << 6) + fp_ctz64(word)
    return 0


cdef int merge_strings(BoardState* b, int ha, int hb) noexcept nogil:
    """Merge two distinct strings; returns the surviving head."""
    cdef int big = ha, small = hb, s, t, w
    if b.ssize[ha] < b.ssize[hb]:
        big = hb
        small = ha
    s = small
    while True:
        b.sid[s] = big
        s = b.nxt[s]
        if s == small:
            break
    t = b.nxt[big]
    b.nxt[big] = b.nxt[small]
    b.nxt[small] = t
    b.ssize[big] += b.ssize[small]
    cdef int n = 0
    for w in range(b.nwords):
        b.libs[(big << b.wshift) + w] |= b.libs[(small << b.wshift) + w]
        n += fp_popcount64(b.libs[(big << b.wshift) + w])
    b.nlibs[big] = n
    return big


cdef int remove_string(BoardState* b, int h, int16_t* kbuf, int nk) noexcept nogil:
    """Remove string ``h``; freed points go to ``kbuf[nk:]``; returns the new nk."""
    cdef int s = h, c = b.color[h], d, q
    while True:
        set_color(b, s, EMPTY_C)
        b.hash ^= ZOBRIST[c][s]
        if kbuf != NULL:
            kbuf[nk] = s
            nk += 1
        s = b.nxt[s]
        if s == h:
            break
    # Every string next to a removed stone gains that point as a liberty.
    s = h
    while True:
        for d in range(4):
            q = s + b.nbr[d]
            if b.color[q] == WHITE_C or b.color[q] == BLACK_C:
                add_lib(b, b.sid[q], s)
        s = b.nxt[s]
        if s == h:
            break
    return nk


cdef inline void q_reset(QSet* q) noexcept nogil:
    q.n = 0
    q.stamp += 1
    if q.stamp == 0:
        memset(q.mark, 0, sizeof(q.mark))
        q.stamp = 1


cdef inline void q_add_if(QSet* q, int p, uint32_t cond) noexcept nogil:
    """Add ``p`` (once) when ``cond`` is 1, and mark it seen either way.

    Without a branch: which neighbours are empty is as good as random in a
    playout, and mispredicted branches, not instructions, cost the most
    time there (cachegrind --branch-sim).  ``q.pts`` has room for every
    point, so the unconditional store stays inside it.  Marking a point
    that was not added is only right where it could not be added later in
    the same move (see q_add_empty_ring).
    """
    cdef uint32_t add = cond & (q.mark[p] != q.stamp)
    q.pts[q.n] = p
    q.n += add
    q.mark[p] = q.stamp


cdef inline void q_add(QSet* q, int p) noexcept nogil:
    q_add_if(q, p, 1)


cdef void q_add_libs(QSet* q, BoardState* b, int h) noexcept nogil:
    cdef int w
    cdef uint64_t word
    for w in range(b.nwords):
        word = b.libs[(h << b.wshift) + w]
        while word:
            q_add(q, (w << 6) + fp_ctz64(word))
            word &= word - 1


cdef void q_add_empty_ring(QSet* q, BoardState* b, int p) noexcept nogil:
    """Add the empty points of the 8-neighbourhood of ``p`` (colours from its code).

    Runs after the captures of the move, so a point occupied now stays
    occupied, and the rest of the update set adds only empty points:
    marking the occupied ones too is harmless.
    """
    cdef uint32_t g = b.code[p]
    cdef int W = b.W
    q_add_if(q, p + W, (g & 0x0003) == 0)
    q_add_if(q, p - 1, (g & 0x000C) == 0)
    q_add_if(q, p - W, (g & 0x0030) == 0)
    q_add_if(q, p + 1, (g & 0x00C0) == 0)
    q_add_if(q, p + W - 1, (g & 0x0300) == 0)
    q_add_if(q, p - W - 1, (g & 0x0C00) == 0)
    q_add_if(q, p - W + 1, (g & 0x3000) == 0)
    q_add_if(q, p + W + 1, (g & 0xC000) == 0)


cdef bint would_be_suicide(BoardState* b, int p, int c) noexcept nogil:
    """True when a ``c`` stone at empty ``p`` would have no liberty and capture nothing."""
    cdef int d, n, col
    for d in range(4):
        n = p + b.nbr[d]
        col = b.color[n]
        if col == EMPTY_C:
            return False
        if col == c:
            if b.nlibs[b.sid[n]] > 1:
                return False
        elif col == other(c):
            if b.nlibs[b.sid[n]] == 1:
                return False
    return True


cdef bint has_friendly_neighbour(BoardState* b, int p, int c) noexcept nogil:
    cdef int W = b.W
    return (b.color[p + W] == c or b.color[p - 1] == c or b.color[p - W] == c
            or b.color[p + 1] == c)


cdef int board_play(BoardState* b, int p, int c, QSet* q) noexcept nogil:
    """Play ``c`` at ``p`` (0 = pass); the caller has checked legality.

    Multi-stone suicide (allowed only when the caller says so) removes the
    string.  When ``q`` is given it receives GNU Go's update set of the move
    (spec 6.3, clauses Q1-Q7).  Returns the number of stones captured.
    """
    cdef int W = b.W, o = other(c), d, n, h, s, k, i, j, nk = 0, captured = 0
    cdef int16_t kbuf[MAX_PTS]
    cdef int caps[4]
    cdef int ncaps = 0
    cdef int q6[MAX_PTS]
    cdef int nq6 = 0
    cdef int opp[4]
    cdef int nopp = 0
    b.ko = 0
    b.ko_color = 0
    if q != NULL:
        q_reset(q)
    if p == 0:
        b.passes += 1
        return 0
    b.passes = 0
    if q != NULL:
        q_add(q, p)                                          # Q1
    # The neighbours' colours are the low byte of p's code.
    cdef uint32_t g = b.code[p]
    set_color(b, p, c)
    b.hash ^= ZOBRIST[c][p]
    b.sid[p] = p
    b.nxt[p] = p
    b.ssize[p] = 1
    b.nlibs[p] = 0
    for i in range(b.nwords):
        b.libs[(p << b.wshift) + i] = 0
    # Its own liberties, branch-free over the four directions; then the
    # strings beside it, friends and enemies, by bit masks of directions
    # (even bits, one per direction) taken from the code.
    cdef uint32_t e, fm, om
    for d in range(4):
        n = p + b.nbr[d]
        e = ((g >> (2 * d)) & 3) == EMPTY_C
        b.libs[(p << b.wshift) + (n >> 6)] |= (<uint64_t>e) << (n & 63)
        b.nlibs[p] += e
    fm = colour_mask(g & 0xFF, c)
    om = colour_mask(g & 0xFF, o)
    h = p
    while fm:
        n = p + b.nbr[fp_ctz64(fm) >> 1]
        fm &= fm - 1
        s = b.sid[n]
        if s == h:
            continue
        if q != NULL and q.lim == 2 and b.nlibs[s] == 2:    # Q4, on B0
            q_add(q, string_other_lib(b, s, p))
        lib_clear(b, s, p)
        b.nlibs[s] -= 1
        h = merge_strings(b, h, s)
    while om:
        n = p + b.nbr[fp_ctz64(om) >> 1]
        om &= om - 1
        s = b.sid[n]
        if lib_test(b, s, p):
            lib_clear(b, s, p)
            b.nlibs[s] -= 1
            if b.nlibs[s] == 0:
                caps[ncaps] = s
                ncaps += 1
            else:
                opp[nopp] = s
                nopp += 1
    if q != NULL and ncaps > 0:
        # Q6 needs liberty counts on B1: our strings touching a captured stone.
        for i in range(ncaps):
            s = caps[i]
            while True:
                for d in range(4):
                    n = s + b.nbr[d]
                    if b.color[n] == c and b.nlibs[b.sid[n]] <= q.lim:
                        for j in range(nq6):
                            if q6[j] == b.sid[n]:
                                break
                        else:
                            if nq6 < MAX_PTS:
                                q6[nq6] = b.sid[n]
                                nq6 += 1
                s = b.nxt[s]
                if s == caps[i]:
                    break
    for i in range(ncaps):
        k = nk
        nk = remove_string(b, caps[i], kbuf, nk)
        captured += nk - k
    b.captures[c] += captured
    h = b.sid[p]
    if captured == 1 and b.ssize[h] == 1 and b.nlibs[h] == 1:
        b.ko = kbuf[0]
        b.ko_color = o
    if b.nlibs[h] == 0:
        # Multi-stone suicide (only reached when the rules allow it).
        s = b.ssize[h]
        remove_string(b, h, NULL, 0)
        b.captures[o] += s
        return captured
    if q != NULL:
        q_add_empty_ring(q, b, p)                            # Q2
        for i in range(nk):                                  # Q3
            q_add(q, kbuf[i])
            q_add_empty_ring(q, b, kbuf[i])
        for i in range(nopp):                                # Q5
            if b.color[opp[i]] == o and b.nlibs[b.sid[opp[i]]] <= q.lim:
                q_add_libs(q, b, b.sid[opp[i]])
        for i in range(nq6):                                 # Q6
            q_add_libs(q, b, b.sid[q6[i]])
        if b.nlibs[h] <= q.lim:                              # Q7
            q_add_libs(q, b, h)
    return captured


cdef uint64_t strings_hash(BoardState* b, int p, int color, bint atari_only,
                           int* stones) noexcept nogil:
    """XOR of the Zobrist keys of the distinct ``color`` strings next to ``p``
    (only those in atari when ``atari_only``); their stone count into ``stones``."""
    cdef int d, n, s, k, seen_n = 0
    cdef int seen[4]
    cdef uint64_t hsh = 0
    stones[0] = 0
    for d in range(4):
        n = p + b.nbr[d]
        if b.color[n] != color or (atari_only and b.nlibs[b.sid[n]] != 1):
            continue
        s = b.sid[n]
        for k in range(seen_n):
            if seen[k] == s:
                break
        else:
            seen[seen_n] = s
            seen_n += 1
            while True:
                hsh ^= ZOBRIST[color][s]
                stones[0] += 1
                s = b.nxt[s]
                if s == seen[seen_n - 1]:
                    break
    return hsh


cdef uint64_t hash_after(BoardState* b, int p, int c, bint allow_suicide) noexcept nogil:
    """The Zobrist hash of the position after a legal move, without playing it."""
    cdef int captured, own
    cdef uint64_t hsh = b.hash ^ ZOBRIST[c][p] ^ strings_hash(b, p, other(c), True, &captured)
    if captured == 0 and allow_suicide and would_be_suicide(b, p, c):
        # The whole string, new stone included, leaves the board.
        hsh ^= ZOBRIST[c][p] ^ strings_hash(b, p, c, False, &own)
    return hsh


# Legality codes of board_legality.
cdef enum:
    LEGAL = 0
    ILL_OCCUPIED = 1
    ILL_SUICIDE = 2
    ILL_KO = 3
    ILL_SUPERKO = 4            # checked by CoreBoard (it keeps the history), not here


cdef int board_legality(BoardState* b, int p, int c, bint allow_suicide) noexcept nogil:
    if b.color[p] != EMPTY_C:
        return ILL_OCCUPIED
    if p == b.ko and c == b.ko_color:
        return ILL_KO
    if would_be_suicide(b, p, c):
        if not (allow_suicide and has_friendly_neighbour(b, p, c)):
            return ILL_SUICIDE
    return LEGAL


# ---------------------------------------------------------------------------
# 2. Local contexts (spec 4.3)
# ---------------------------------------------------------------------------

cdef int exact_liberties(BoardState* b, int p, int d, const int* nh, int nn) noexcept nogil:
    """min(2, liberties of a ``d`` stone at empty ``p`` after its captures),
    counted exactly: the union of the friends' liberties, the empty
    neighbours, and captured stones that touch the new string.  ``nh``: the
    string heads of the occupied orthogonal neighbours (``nn`` of them)."""
    cdef int k, m, h, s, t, w, cnt = 0
    cdef uint64_t acc[MAX_WORDS]
    for w in range(b.nwords):
        acc[w] = 0
    for k in range(4):
        t = p + b.nbr[k]
        if b.color[t] == EMPTY_C:
            acc[t >> 6] |= (<uint64_t>1) << (t & 63)
    for k in range(nn):
        h = nh[k]
        if b.color[h] == d:
            for w in range(b.nwords):
                acc[w] |= b.libs[(h << b.wshift) + w]
        elif b.nlibs[h] == 1:
            # A captured stone frees its point if it touches p or a friend.
            s = h
            while True:
                for m in range(4):
                    t = s + b.nbr[m]
                    if t == p:
                        break
                    if b.color[t] == d:
                        h = b.sid[t]
                        if (nn > 0 and nh[0] == h) or (nn > 1 and nh[1] == h) or \
                           (nn > 2 and nh[2] == h) or (nn > 3 and nh[3] == h):
                            break
                else:
                    s = b.nxt[s]
                    if s == nh[k]:
                        break
                    continue
                acc[s >> 6] |= (<uint64_t>1) << (s & 63)
                s = b.nxt[s]
                if s == nh[k]:
                    break
    acc[p >> 6] &= ~((<uint64_t>1) << (p & 63))
    # Only "0, 1 or at least 2" matters, so no full population count.
    for w in range(b.nwords):
        if acc[w]:
            cnt += 1 if (acc[w] & (acc[w] - 1)) == 0 else 2
            if cnt >= 2:
                return 2
    return cnt


cdef inline void lib_seen(int* cnt, int* first, int t) noexcept nogil:
    """Count liberty ``t`` towards a "0, 1 or at least 2" tally, duplicates once."""
    if cnt[0] == 0:
        first[0] = t
        cnt[0] = 1
    elif cnt[0] == 1 and t != first[0]:
        cnt[0] = 2


cdef inline uint32_t point_ctx(BoardState* b, int p) noexcept nogil:
    """GNU Go's 24-bit local context of the empty point ``p`` (oracle README)."""
    cdef int k, m, t, h, col, nl, o, nempty, nn = 0
    cdef uint32_t g = b.code[p]
    cdef int npt[4]
    cdef int nh[4]
    # Per colour (index WHITE_C / BLACK_C): liberties after a stone of that
    # colour at p ("0, 1, 2 or more" and the first one seen), stones and
    # strings it would capture.
    cdef int cnt[3]
    cdef int first[3]
    cdef int cap[3]
    cdef int ncap[3]
    cdef int W = b.W
    # Orthogonal neighbours S, W, N, E are the low 8 bits of the code; masks
    # with bit 2k for direction k.  The stale sid of an empty or off-board
    # point is a valid index; its answer is masked out.
    cdef uint32_t em = colour_mask(g & 0xFF, EMPTY_C)
    cdef uint32_t occ = colour_mask(g & 0xFF, WHITE_C) | colour_mask(g & 0xFF, BLACK_C)
    cdef int l0 = b.nlibs[b.sid[p + W]], l1 = b.nlibs[b.sid[p - 1]]
    cdef int l2 = b.nlibs[b.sid[p - W]], l3 = b.nlibs[b.sid[p + 1]]
    cdef uint32_t at = ((<uint32_t>(l0 == 1)) | (<uint32_t>(l1 == 1) << 2)
                        | (<uint32_t>(l2 == 1) << 4) | (<uint32_t>(l3 == 1) << 6)) & occ
    cdef uint32_t big, two, wm
    # Most points have two empty neighbours and no string in atari beside
    # them: a stone there keeps two liberties and captures nothing, whatever
    # its colour, so every property bit is 0.
    if (em & (em - 1)) and not at:
        return g
    if not at:
        # At most one empty neighbour and nothing to capture: each colour
        # has that liberty and what its friends keep besides p.
        big = ((<uint32_t>(l0 >= 3)) | (<uint32_t>(l1 >= 3) << 2)
               | (<uint32_t>(l2 >= 3) << 4) | (<uint32_t>(l3 >= 3) << 6)) & occ
        two = ((<uint32_t>(l0 == 2)) | (<uint32_t>(l1 == 2) << 2)
               | (<uint32_t>(l2 == 2) << 4) | (<uint32_t>(l3 == 2) << 6)) & occ
        wm = colour_mask(g & 0xFF, WHITE_C)
        # Branch-free: with no empty neighbour the 0x100 guard picks a
        # harmless offset, and a tally of 3 means "at least 2" as 2 does.
        first[1] = first[2] = p + b.nbr[fp_ctz64(em | 0x100) >> 1]
        cnt[1] = (em != 0) | ((wm & big != 0) << 1)
        cnt[2] = (em != 0) | (((occ & ~wm) & big != 0) << 1)
        while two:
            k = fp_ctz64(two) >> 1
            two &= two - 1
            t = p + b.nbr[k]
            col = BLACK_C - ((wm >> (2 * k)) & 1)
            if cnt[col] < 2:
                lib_seen(&cnt[col], &first[col], string_other_lib(b, b.sid[t], p))
        return (g | (<uint32_t>(cnt[WHITE_C] <= 1) << 20) | (<uint32_t>(cnt[BLACK_C] <= 1) << 21)
                | (<uint32_t>(cnt[WHITE_C] == 0) << 22) | (<uint32_t>(cnt[BLACK_C] == 0) << 23))
    nempty = 2 if em & (em - 1) else (em != 0)
    if em:
        first[1] = first[2] = p + b.nbr[fp_ctz64(em) >> 1]
    while occ:
        t = p + b.nbr[fp_ctz64(occ) >> 1]
        occ &= occ - 1
        npt[nn] = t
        nh[nn] = b.sid[t]
        nn += 1
    cap[1] = cap[2] = ncap[1] = ncap[2] = 0
    cnt[1] = cnt[2] = 2 if nempty >= 2 else nempty
    # One pass serves both colours: a neighbour string is a friend of its
    # own colour and, in atari, a capture for the other.
    for k in range(nn):
        h = nh[k]
        col = b.color[h]
        nl = b.nlibs[h]
        if nl == 1:
            for m in range(k):
                if nh[m] == h:
                    break
            else:
                o = 3 - col
                cap[o] += b.ssize[h]
                ncap[o] += 1
            # The captured stone next to p becomes a liberty.
            lib_seen(&cnt[3 - col], &first[3 - col], npt[k])
        elif nl == 2:
            if cnt[col] < 2:
                lib_seen(&cnt[col], &first[col], string_other_lib(b, h, p))
        else:
            cnt[col] = 2
    # Captured stones away from p can free more liberties: count exactly.
    if cnt[WHITE_C] < 2 and ncap[WHITE_C]:
        cnt[WHITE_C] = exact_liberties(b, p, WHITE_C, nh, nn)
    if cnt[BLACK_C] < 2 and ncap[BLACK_C]:
        cnt[BLACK_C] = exact_liberties(b, p, BLACK_C, nh, nn)
    if cap[WHITE_C] > 3:
        cap[WHITE_C] = 3
    if cap[BLACK_C] > 3:
        cap[BLACK_C] = 3
    g |= (<uint32_t>cap[WHITE_C] << 16) | (<uint32_t>cap[BLACK_C] << 18)
    if cnt[WHITE_C] <= 1:
        g |= 1 << 20
    if cnt[BLACK_C] <= 1:
        g |= 1 << 21
    if cnt[WHITE_C] == 0:
        g |= 1 << 22
    if cnt[BLACK_C] == 0:
        g |= 1 << 23
    return g


cdef inline uint32_t point_ctx_light(BoardState* b, int p) noexcept nogil:
    """The context without capture and self-atari bits, for databases whose
    values ignore them (``mc_uniform``): neighbourhood code and suicide only.

    Branch-free (see ``q_add_if``), with direction masks; ``sid`` of an
    empty or off-board point is a stale but valid index, masked out.
    """
    cdef uint32_t g = b.code[p], g8 = g & 0xFF, em, wm, bm, at, w_ok, b_ok
    at = ((<uint32_t>(b.nlibs[b.sid[p + b.nbr[0]]] == 1))
          | (<uint32_t>(b.nlibs[b.sid[p + b.nbr[1]]] == 1) << 2)
          | (<uint32_t>(b.nlibs[b.sid[p + b.nbr[2]]] == 1) << 4)
          | (<uint32_t>(b.nlibs[b.sid[p + b.nbr[3]]] == 1) << 6))
    em = colour_mask(g8, EMPTY_C)
    wm = colour_mask(g8, WHITE_C)
    bm = colour_mask(g8, BLACK_C)
    # A stone may go here if a neighbour is empty, a friend keeps a
    # liberty, or an enemy string in atari is captured.
    w_ok = em | (wm & ~at) | (bm & at)
    b_ok = em | (bm & ~at) | (wm & at)
    return g | (<uint32_t>(w_ok == 0) << 22) | (<uint32_t>(b_ok == 0) << 23)


ctypedef uint32_t (*ctx_func)(BoardState* b, int p) noexcept nogil


# Property byte of a move (spec 4.2) from bits 16-23 of its context, for a
# White mover (row 0) and a Black mover (row 1): the oracle README's formula.
cdef uint8_t PROPS[2][256]


cdef void _init_props():
    cdef uint32_t x, ctx
    for x in range(256):
        ctx = x << 16
        PROPS[0][x] = (((ctx >> 18) & 3) << 1 | ((ctx >> 16) & 3) << 3 | ((ctx >> 21) & 1) << 5
                       | ((ctx >> 20) & 1) << 6 | ((ctx >> 23) & 1) << 7)
        PROPS[1][x] = (((ctx >> 16) & 3) << 1 | ((ctx >> 18) & 3) << 3 | ((ctx >> 20) & 1) << 5
                       | ((ctx >> 21) & 1) << 6 | ((ctx >> 22) & 1) << 7)


_init_props()


cdef inline uint32_t ctx_index(const uint16_t* geometry, uint32_t ctx, int c) noexcept nogil:
    """Table index (near bit clear) of a move by ``c`` from its context."""
    cdef uint32_t g = ctx & 0xFFFF
    if c == BLACK_C:
        # Black to move sees its own stones as "1": swap the colour bits.
        g = ((g & 0x5555) << 1) | ((g & 0xAAAA) >> 1)
        return (<uint32_t>geometry[g] << 8) | PROPS[1][(ctx >> 16) & 0xFF]
    return (<uint32_t>geometry[g] << 8) | PROPS[0][(ctx >> 16) & 0xFF]


cdef inline bint ctx_suicide(uint32_t ctx, int c) noexcept nogil:
    if c == WHITE_C:
        return (ctx >> 22) & 1
    return (ctx >> 23) & 1



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

# Codes of tactical_moves, and the nodes one reading may visit (a ladder
# across a 19x19 board takes about 40, plus the atari that fails at each
# step).
cdef enum:
    LADDER_BUDGET = 300
    TACTICS_BUDGET = 3000      # nodes for all the readings of one position
    TAC_NONE = 0
    TAC_BAD = 1        # the mover's string is left capturable (atari, or a working ladder)
    TAC_SAVE = 2       # rescues a mover's string in atari
    TAC_CAPTURE = 3    # ataris an enemy string that cannot escape

TACTIC_NONE = TAC_NONE
TACTIC_BAD = TAC_BAD
TACTIC_SAVE = TAC_SAVE
TACTIC_CAPTURE = TAC_CAPTURE


cdef enum:
    READ_DEPTH = 2 * LADDER_BUDGET + 4   # deeper than any reading within budget
    READ_MOVES = 48                      # candidate moves kept at one node


# Node budgets and scratch boards by depth for the readings of a position.
# The boards are allocated on first use and kept (``_ReaderBox`` pools
# them between calls): a fresh malloc per node, or per call, cost page
# faults that made a 19x19 reading 60 times slower than a 13x13 one.
cdef struct Reader:
    int budget                 # nodes left for the current reading
    int total                  # nodes left for the position
    int depth
    size_t bsize               # size of every allocated block
    char* blocks[READ_DEPTH]


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
    memcpy(dst.block, src.block, src.blocksize)
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
    return read_within(ladder_attack, b, s, r, LADDER_BUDGET)


cdef inline int read_defend(BoardState* b, int s, Reader* r) noexcept nogil:
    return read_within(ladder_defend, b, s, r, LADDER_BUDGET)


cdef int libs_after(BoardState* b, int p, int me) noexcept nogil:
    """Liberties of the string a ``me`` stone at ``p`` would join, not
    counting those its captures would free."""
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
    if not takes and not squeezes and libs_after(b, p, me) >= 3:
        return TAC_SAVE if endangered else TAC_NONE
    memcpy(c.block, b.block, b.blocksize)
    c.ko, c.ko_color, c.passes, c.hash = b.ko, b.ko_color, b.passes, b.hash
    board_play(c, p, me, NULL)
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
# RACE_SAFE liberties has escaped; so has one whose reading ran out of
# nodes.

cdef enum:
    RACE_LIBS = 4              # strings read: two to this many liberties
    RACE_SAFE = 5              # liberties that end a reading as an escape
    RACE_BUDGET = 400          # nodes for one reading
    RACE_TOTAL = 6000          # nodes for all the race readings of one position


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
    cdef int libs[RACE_SAFE]
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
                for j in range(string_libs(b, nbrs[k], libs, RACE_SAFE)):
                    nm = add_move(moves, nm, libs[j])
        sort_moves(moves, start, nm)
    for j in range(string_libs(b, h, libs, RACE_SAFE)):
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
    if n >= RACE_SAFE or r.budget <= 0:
        return 0
    r.budget -= 1
    nm = string_libs(b, h, moves, RACE_SAFE)
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
        if n >= RACE_SAFE:
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
    return read_within(race_attack if attacker else race_defend, b, s, r, RACE_BUDGET)


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
        if p != h or b.ssize[h] < 2 or b.nlibs[h] < 2 or b.nlibs[h] > RACE_LIBS:
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
                if k >= RACE_SAFE or (k >= 2 and not race_read(&c, p, True, r)):
                    mark(out, stakes, (q // b.W - 1) * size + q % b.W - 1, TAC_SAVE, b.ssize[h])
                r.depth -= 1
        else:
            # Theirs: urgent when its owner, moving first, saves it.
            if not race_read(b, p, False, r) or not race_read(b, p, True, r):
                continue
            nm = string_libs(b, h, moves, RACE_SAFE)
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
    """A :c:type:`Reader` plus the candidate move's board, kept between calls."""
    cdef Reader* r
    cdef char* cand
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

    cdef int start(self, size_t blocksize, int total) except -1:
        if self.cand_size < blocksize:
            free(self.cand)
            self.cand = <char*>malloc(blocksize)
            self.cand_size = blocksize if self.cand != NULL else 0
            if self.cand == NULL:
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


# ---------------------------------------------------------------------------
# Python-facing board
# ---------------------------------------------------------------------------

class IllegalMoveError(ValueError):
    """A move that breaks a rule of Go, or that names no point of the board.

    Attributes: ``rule`` -- one of :attr:`RULES`; ``vertex`` -- the move as
    given (flat index, GTP text or tuple); ``color`` -- the colour that tried.
    """

    RULES = ("occupied", "suicide", "ko", "superko", "off-board", "bad vertex")

    def __init__(self, message, rule, vertex=None, color=None):
        super().__init__(message)
        self.rule = rule
        self.vertex = vertex
        self.color = color


_RULE_TEXT = {
    ILL_OCCUPIED: ("occupied", "the point is already occupied"),
    ILL_SUICIDE: ("suicide", "the stone would have no liberty and capture nothing"),
    ILL_KO: ("ko", "retaking the ko at once is forbidden (simple ko)"),
    ILL_SUPERKO: ("superko", "the position would repeat an earlier one"),
}


def _gtp(int v, int size):
    if v < 0:
        return "pass"
    return f"{_COLUMNS[v % size]}{size - v // size}"


cdef int _check_size(size) except -1:
    """The one board-size check of the core (boards, playout tallies, workers):
    TypeError for a non-integer, ValueError outside [MIN_SIZE, MAX_SIZE]."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"board size must be an integer, not {type(size).__name__}")
    if not MIN_SIZE <= size <= MAX_SIZE_C:
        raise ValueError(f"board size must be between {MIN_SIZE} and {MAX_SIZE_C}, not {size}")
    return 0


cdef class CoreBoard:
    """The compiled board.  Use :class:`fastplay.Board`, which adds vertex parsing.

    Flat indices ``row * size + col`` (row 0 at the top), ``-1`` for a pass;
    colour codes ``WHITE`` = 1, ``BLACK`` = 2.
    """

    cdef BoardState st
    cdef QSet* q
    cdef int _to_move
    cdef public double komi
    cdef bint _superko
    cdef bint _suicide
    cdef bint _scratch          # keeps no history (copy(history=False)) ...
    cdef object _scratch_last   # ... but its last move, (colour, index) or None, for near_mask
    cdef list _snapshots
    cdef list _moves
    cdef list _hashes
    cdef dict _hash_count

    def __cinit__(self, *args, **kwargs):
        self.st.block = NULL
        self.q = <QSet*>calloc(1, sizeof(QSet))
        if self.q == NULL:
            raise MemoryError()
        self.q.lim = 2

    def __init__(self, size=19, komi=7.5, superko=False, suicide=False):
        _check_size(size)
        if isinstance(komi, (bool, str, bytes)) or not isinstance(komi, (int, float, np.integer,
                                                                           np.floating)):
            raise TypeError(f"komi must be a number, not {komi!r}")
        komi = float(komi)
        if komi != komi or komi in (float("inf"), float("-inf")):
            raise ValueError("komi must be finite")
        self._reset(int(size))
        self.komi = komi
        self._superko = bool(superko)
        self._suicide = bool(suicide)

    cdef _reset(self, int size):
        board_free(&self.st)
        if board_alloc(&self.st, size) != 0:
            raise MemoryError()
        self.q.n = 0
        self._to_move = BLACK_C
        self._snapshots = []
        self._moves = []
        self._hashes = [self.st.hash]
        self._hash_count = {self.st.hash: 1}
        self._scratch_last = None

    def __dealloc__(self):
        board_free(&self.st)
        if self.q != NULL:
            free(self.q)
            self.q = NULL

    # -- conversions -------------------------------------------------------
    cpdef int _pad(self, int v) noexcept:
        return (v // self.st.size + 1) * self.st.W + v % self.st.size + 1

    cdef inline int _flat(self, int p) noexcept:
        return (p // self.st.W - 1) * self.st.size + p % self.st.W - 1

    cdef int _check_index(self, v) except -2:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise IllegalMoveError(f"bad vertex {v!r}: expected an integer index", "bad vertex", v)
        if v == -1:
            return -1
        if not 0 <= v < self.st.size * self.st.size:
            raise IllegalMoveError(
                f"vertex index {v} is off the {self.st.size}x{self.st.size} board", "off-board", v)
        return v

    cdef int _check_color(self, color) except -1:
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
        return self._flat(self.st.ko) if self.st.ko else -1

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

    def captures_of(self, int color):
        """Stones captured by ``color`` (a colour code) so far."""
        self._check_color(color)
        return self.st.captures[color]

    def color_at(self, v):
        """Colour code at flat index ``v`` (EMPTY 0, WHITE 1, BLACK 2)."""
        cdef int i = self._check_index(v)
        if i < 0:
            raise IllegalMoveError("a pass has no colour", "bad vertex", v)
        return self.st.color[self._pad(i)]

    def ko_forbidden_for(self, int color):
        """True when the ko point exists and ``color`` may not retake it now."""
        self._check_color(color)
        return self.st.ko != 0 and self.st.ko_color == color

    def set_to_move(self, int color):
        """Set the side to move (colour code)."""
        self._check_color(color)
        self._to_move = color

    def history_moves(self):
        """``[(colour code, flat index or -1), ...]`` since the starting position."""
        return list(self._moves)

    # -- moves -------------------------------------------------------------
    def legality(self, v, int color):
        """The rule a move by ``color`` at flat index ``v`` would break, or None.

        Rules: ``"occupied"``, ``"suicide"``, ``"ko"``, ``"superko"``.  A pass is
        always legal.  Raises :class:`IllegalMoveError` for an index that is
        not on the board.
        """
        cdef int i = self._check_index(v)
        self._check_color(color)
        cdef int code = self._legal_code(0 if i < 0 else self._pad(i), color)
        return None if code == LEGAL else _RULE_TEXT[code][0]

    def play_index(self, v, int color):
        """Play ``color`` at flat index ``v`` (-1 = pass) and give the turn to the other colour.

        Raises :class:`IllegalMoveError` (a ``ValueError``) naming the rule:
        occupied, suicide, ko (simple ko), superko (positional), off-board.
        """
        cdef int i = self._check_index(v)
        self._check_color(color)
        cdef int p = 0 if i < 0 else self._pad(i)
        cdef int code = self._legal_code(p, color)
        if code != LEGAL:
            rule, why = _RULE_TEXT[code]
            raise IllegalMoveError(
                f"illegal move {'BW'[color == WHITE_C]} {_gtp(i, self.st.size)}: {rule} ({why})",
                rule, v, color)
        self._commit(p, i, color)

    cdef int _legal_code(self, int p, int color) except -1:
        """LEGAL or the rule a move at padded point ``p`` (0 = pass) breaks,
        positional superko included when this board enforces it."""
        if p == 0:
            return LEGAL
        cdef int code = board_legality(&self.st, p, color, self._suicide)
        if code == LEGAL and self._superko and self._hash_count.get(
                hash_after(&self.st, p, color, self._suicide), 0):
            return ILL_SUPERKO
        return code

    cdef int _commit(self, int p, int i, int color) except -1:
        """Play a legal move (padded ``p``, flat ``i``; 0 and -1 for a pass) and record it."""
        if self._scratch:
            board_play(&self.st, p, color, self.q)
            self._to_move = other(color)
            self._scratch_last = (color, i)
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
            board_play(&self.st, 0 if v < 0 else self._pad(v), color, self.q)
            self._to_move = other(color)
        h = self._hashes.pop()
        n = self._hash_count[h] - 1
        if n:
            self._hash_count[h] = n
        else:
            del self._hash_count[h]

    def setup_stones(self, black, white):
        """Replace the position by the given stones (iterables of flat indices).

        Clears the history, the ko point and the captures.  Raises ``ValueError``
        if a point is given twice or a string would have no liberty.
        """
        stones = [(int(v), BLACK_C) for v in black] + [(int(v), WHITE_C) for v in white]
        seen = set()
        for v, _ in stones:
            self._check_index(v)
            if v < 0:
                raise IllegalMoveError("cannot place a stone on 'pass'", "bad vertex", v)
            if v in seen:
                raise ValueError(f"setup names point {_gtp(v, self.st.size)} twice")
            seen.add(v)
        self._rebuild(stones)

    cdef _rebuild(self, list stones):
        """Replace the position by ``stones`` ([(flat index, colour)]); on a
        string without liberties raise ``ValueError`` and keep the old one."""
        cdef int v, c, p, d
        cdef CoreBoard tmp = CoreBoard.__new__(CoreBoard)
        cdef BoardState* b
        tmp._reset(self.st.size)
        b = &tmp.st
        # Place each stone as its own string, then merge and count liberties
        # once everything is down (setup stones capture nothing).
        for v, c in stones:
            p = self._pad(v)
            b.color[p] = c
            b.hash ^= ZOBRIST[c][p]
            b.sid[p] = p
            b.nxt[p] = p
            b.ssize[p] = 1
        board_compute_codes(b)
        for p in range(b.npts):
            if b.color[p] == WHITE_C or b.color[p] == BLACK_C:
                for d in (b.W, 1):
                    if b.color[p + d] == b.color[p] and b.sid[p + d] != b.sid[p]:
                        merge_strings(b, b.sid[p], b.sid[p + d])
        for p in range(b.npts):
            if b.color[p] == WHITE_C or b.color[p] == BLACK_C:
                for d in (b.W, -1, -b.W, 1):
                    if b.color[p + d] == EMPTY_C:
                        add_lib(b, b.sid[p], p + d)
        for p in range(b.npts):
            if (b.color[p] == WHITE_C or b.color[p] == BLACK_C) and b.nlibs[b.sid[p]] == 0:
                raise ValueError(f"setup leaves the string at {_gtp(self._flat(p), b.size)} "
                                 "without a liberty")
        c = self._to_move
        self._reset(self.st.size)
        board_copy(&self.st, b)
        self._to_move = c
        self._hashes = [self.st.hash]
        self._hash_count = {self.st.hash: 1}

    def set_ko_index(self, v, int color):
        """Set the simple-ko point (flat index, -1 to clear) forbidden to ``color``."""
        cdef int i = self._check_index(v)
        self._check_color(color)
        if i < 0:
            self.st.ko = 0
            self.st.ko_color = 0
            return
        if self.st.color[self._pad(i)] != EMPTY_C:
            raise ValueError("the ko point must be empty")
        self.st.ko = self._pad(i)
        self.st.ko_color = color

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

    def tactical_moves(self, color, stakes=None):
        """Ladder-reading verdict on every point for a move by ``color``:
        ``int8[size * size]`` (flat), one of

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
        cdef int c_color = self._check_color(color)
        cdef int n = self.st.size * self.st.size, i, p
        cdef cnp.int16_t* st = self._stakes(stakes)
        cdef BoardState c
        cdef _ReaderBox box = _take_reader()
        box.start(self.st.blocksize, TACTICS_BUDGET)
        out = np.zeros(n, dtype=np.int8)
        cdef cnp.int8_t[:] o = out
        c = self.st
        c.block = box.cand            # the candidate move's board
        board_layout(&c)
        # The GIL stays held, here and in every CoreBoard query: released, it
        # let another thread free this board's block (setup, __init__) in
        # the middle of a read (a fresh tester's segfault).
        try:
            for i in range(n):
                p = (i // self.st.size + 1) * self.st.W + i % self.st.size + 1
                if board_legality(&self.st, p, c_color, self._suicide) == LEGAL:
                    o[i] = tactical_code(&self.st, &c, p, c_color, box.r)
                    if st != NULL and o[i] != TAC_NONE:
                        st[i] = tactic_stake(&self.st, p, c_color, o[i])
        finally:
            _give_back(box)
        return out

    def race_moves(self, color, stakes=None):
        """Capturing-race verdict on every point for a move by ``color``:
        ``int8[size * size]`` (flat), one of

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
        :meth:`tactical_moves` (superko not checked).  Runs with the GIL
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
        cdef int c_color = self._check_color(color)
        cdef cnp.int16_t* st = self._stakes(stakes)
        cdef int n = self.st.size * self.st.size
        cdef _ReaderBox box = _take_reader()
        box.start(self.st.blocksize, RACE_TOTAL)
        out = np.zeros(n, dtype=np.int8)
        cdef cnp.int8_t[:] o = out
        try:
            race_codes(&self.st, c_color, box.r, &o[0], st)
        finally:
            _give_back(box)
        return out

    def ladder_captures(self, v, bint attacker_first=True):
        """Whether the string at flat index ``v`` (at most two liberties) is
        captured by a ladder: the attacker plays only ataris, the defender
        extends or captures (see :meth:`tactical_moves`).  With
        ``attacker_first`` the string's opponent moves next, otherwise its
        owner does (and a two-liberty string then counts as safe).  Returns
        ``False`` for strings with three or more liberties.  Raises
        ``IllegalMoveError`` for an empty point or a pass.
        """
        cdef int i = self._check_index(v)
        if i < 0 or self.st.color[self._pad(i)] == EMPTY_C:
            raise IllegalMoveError(f"no string at vertex index {v}", "bad vertex", v)
        cdef int p = self._pad(i), n = self.st.nlibs[self.st.sid[p]], found
        cdef _ReaderBox box = _take_reader()
        box.start(self.st.blocksize, LADDER_BUDGET)
        try:
            if attacker_first:
                found = read_attack(&self.st, p, box.r)
            else:
                found = n == 1 and not read_defend(&self.st, p, box.r)
        finally:
            _give_back(box)
        return bool(found)

    def legal_indices(self, color):
        """Flat indices of the legal non-pass moves of ``color``: ``int32[k]``, board order."""
        color = self._check_color(color)
        cdef int i, n = self.st.size * self.st.size
        out = []
        for i in range(n):
            if self.legality(i, color) is None:
                out.append(i)
        return np.asarray(out, dtype=np.int32)

    def copy(self, bint history=True):
        """An independent copy (same class), history and undo stack included.

        With ``history=False`` the copy is a scratch board, as a tree search
        wants one for each descent: the same position, side to move, komi
        and suicide rule, and the last move (for :meth:`near_mask`), but no
        history: :meth:`history_moves` is empty, ``move_number`` 0,
        :meth:`undo` raises ``IndexError``, and positional superko is not
        checked (a search checks it against the game's positions itself).
        Cheaper to make, and to play on, in a long game.  Any copy of a
        scratch board is a scratch board.
        """
        cdef CoreBoard other_b = type(self).__new__(type(self))
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
            other_b._scratch_last = self._last_move()
        other_b._copy_extra(self)
        return other_b

    def copy_into(self, CoreBoard target not None):
        """Make ``target`` what :meth:`copy` with ``history=False`` returns,
        in ``target``'s own memory (a tree search reuses one scratch board
        per thread instead of allocating one per descent): the position,
        rules, side to move and last move.  Attributes a subclass copies in
        ``_copy_extra`` (:attr:`fastplay.Board.sgf_properties`) stay the
        target's: the hook costs more than the copy.

        Raises ``ValueError`` when ``target`` is not a scratch board (its
        history would be lost) or has another size, or is this board.
        """
        if not target._scratch:
            raise ValueError("copy_into needs a scratch board (copy(history=False)) as target")
        if target.st.size != self.st.size:
            raise ValueError(f"copy_into needs a {self.st.size}x{self.st.size} target, "
                             f"not {target.st.size}x{target.st.size}")
        if target is self:
            raise ValueError("copy_into needs another board as target")
        self._load_into(target)
        target._hashes = [self.st.hash]
        target._hash_count = {self.st.hash: 1}
        target._scratch_last = self._last_move()

    cdef void _load_into(self, CoreBoard target):
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
            return self._scratch_last
        return self._moves[len(self._moves) - 1] if self._moves else None

    def _copy_extra(self, source):
        """Hook for subclasses to copy their own attributes in :meth:`copy`."""

    # -- queries -----------------------------------------------------------
    def liberty_count(self, v):
        """Exact liberties of the string at flat index ``v`` (0 for an empty point)."""
        cdef int i = self._check_index(v)
        if i < 0:
            raise IllegalMoveError("a pass has no liberties", "bad vertex", v)
        cdef int p = self._pad(i)
        if self.st.color[p] == EMPTY_C:
            return 0
        return self.st.nlibs[self.st.sid[p]]

    def string_indices(self, v):
        """Flat indices of the string at ``v``, sorted: ``int32[k]`` (empty for an empty point)."""
        cdef int i = self._check_index(v)
        if i < 0:
            raise IllegalMoveError("a pass has no string", "bad vertex", v)
        cdef int p = self._pad(i), s
        out = []
        if self.st.color[p] != EMPTY_C:
            s = p
            while True:
                out.append(self._flat(s))
                s = self.st.nxt[s]
                if s == p:
                    break
        return np.sort(np.asarray(out, dtype=np.int32))

    def string_liberty_indices(self, v):
        """Flat indices of the liberties of the string at ``v``, sorted: ``int32[k]``."""
        cdef int i = self._check_index(v)
        if i < 0:
            raise IllegalMoveError("a pass has no liberties", "bad vertex", v)
        cdef int p = self._pad(i), x
        if self.st.color[p] == EMPTY_C:
            return np.zeros(0, dtype=np.int32)
        h = self.st.sid[p]
        return np.asarray([self._flat(x) for x in range(self.st.npts) if lib_test(&self.st, h, x)],
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
            p = self._pad(i)
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
        cdef int n = self.st.size, k, p
        out = np.zeros(n * n, dtype=np.uint8)
        last = self._last_move()
        if last is None:
            return out
        last_color, last_index = last
        if last_index < 0 or last_color == self._to_move:
            return out
        for k in range(self.q.n):
            p = self.q.pts[k]
            if self.st.color[p] == EMPTY_C and not would_be_suicide(&self.st, p, self._to_move):
                out[self._flat(p)] = 1
        return out

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

    def __getstate__(self):
        raise TypeError("pickle a Board through board.to_sgf(); core state is not picklable")


cdef void tromp_taylor_owner(BoardState* b, cnp.int8_t* owner, int* nb, int* nw) noexcept nogil:
    """Owner per on-board point (row-major): stones, and empty regions reaching one colour."""
    cdef int W = b.W, size = b.size, p, q, d, k, top, reach, i, j
    cdef int16_t stack[MAX_PTS]
    cdef int16_t region[MAX_PTS]
    cdef uint8_t seen[MAX_PTS]
    cdef int nregion
    cdef cnp.int8_t val
    memset(seen, 0, sizeof(seen))
    nb[0] = 0
    nw[0] = 0
    for i in range(size):
        for j in range(size):
            p = (i + 1) * W + j + 1
            if b.color[p] == BLACK_C:
                owner[i * size + j] = 1
                nb[0] += 1
            elif b.color[p] == WHITE_C:
                owner[i * size + j] = -1
                nw[0] += 1
            elif not seen[p]:
                reach = 0
                top = 0
                nregion = 0
                stack[top] = p
                top += 1
                seen[p] = 1
                while top:
                    top -= 1
                    q = stack[top]
                    region[nregion] = q
                    nregion += 1
                    for d in range(4):
                        k = q + b.nbr[d]
                        if b.color[k] == EMPTY_C:
                            if not seen[k]:
                                seen[k] = 1
                                stack[top] = k
                                top += 1
                        elif b.color[k] == BLACK_C:
                            reach |= 1
                        elif b.color[k] == WHITE_C:
                            reach |= 2
                val = 1 if reach == 1 else (-1 if reach == 2 else 0)
                for k in range(nregion):
                    q = region[k]
                    owner[(q // W - 1) * size + q % W - 1] = val
                if reach == 1:
                    nb[0] += nregion
                elif reach == 2:
                    nw[0] += nregion


include "_playout.pxi"
include "_tree.pxi"
