"""Board and rules: fastplay's positions at C level (declared in ``_rules.pxd``).

1. **Board** (``BoardState``): a padded one-dimensional board (one off-board
   frame around the ``size x size`` points, row stride ``W = size + 2``).
   Strings are circular linked lists of stones with a head point; each head
   keeps the string's size, its exact liberty count and a liberty bitset, so
   merging is a bitwise OR and captures add liberties bit by bit.  Nothing is
   flood-filled per move.  A Zobrist hash of the stones is kept up to date.
2. **Local contexts** (``point_ctx`` in ``_rules.pxd``): GNU Go 3.8's 24-bit
   context of an empty point -- the 3x3 neighbourhood code plus capture
   counts, self-atari and suicide for both colours (spec ``mc-patterns.md``
   section 4.3, oracle README).
3. **Update set** (``QSet``): the points whose context a move can change,
   exactly GNU Go's update queue (spec 6.3).  It is also what "near the
   previous move" means (spec 6.4).  Tables whose values depend on neither
   properties nor the near bit (``mc_uniform``) keep a smaller one.

Everything here trusts its arguments: :class:`fastplay._board.CoreBoard`
checks them once at the boundary.  The hot paths avoid data-dependent
branches (masks, unconditional stores): profiles with ``valgrind
--tool=cachegrind --branch-sim=yes`` showed mispredicted branches, not
instructions, setting the time per playout move.

Python sees the colour codes and size limits: ``EMPTY`` 0, ``WHITE`` 1,
``BLACK`` 2, ``OFFBOARD`` 3, ``PASS`` -1, ``MIN_SIZE``, ``MAX_SIZE``.
"""

from libc.stdint cimport uint8_t, int16_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memcpy, memset

cimport numpy as cnp

from fastplay._rng cimport splitmix64

EMPTY = EMPTY_C


WHITE = WHITE_C


BLACK = BLACK_C


OFFBOARD = OFF_C


PASS = -1


MIN_SIZE = MIN_SIZE_C


MAX_SIZE = MAX_SIZE_C


# Zobrist keys for (colour, padded point); filled once from a fixed seed so
# hashes are the same in every process.
cdef uint64_t ZOBRIST[3][MAX_PTS]


cdef void _init_zobrist():
    cdef uint64_t s = 0x66617374706C6179  # "fastplay"
    cdef int c, p
    for c in range(3):
        for p in range(MAX_PTS):
            ZOBRIST[c][p] = splitmix64(&s)


_init_zobrist()


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


cdef int board_alloc(BoardState* b, int size) noexcept nogil:
    """Allocate an empty board; returns -1 when out of memory or when
    ``size`` is outside MIN_SIZE_C..MAX_SIZE_C (the fixed-size buffers of
    ``board_play`` and the playouts hold ``MAX_PTS`` points)."""
    if size < MIN_SIZE_C or size > MAX_SIZE_C:
        b.block = NULL
        return -1
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
    board_copy_scalars(dst, src)


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


cdef inline int or_words(uint64_t* dst, const uint64_t* src, int nw) noexcept nogil:
    """OR ``nw`` words of ``src`` into ``dst``; the population count of the result."""
    cdef int w, n = 0
    for w in range(nw):
        dst[w] |= src[w]
        n += fp_popcount64(dst[w])
    return n


cdef inline void zero_words(uint64_t* dst, int wshift, int nwords) noexcept nogil:
    """Clear a liberty bitset: its whole stride for the common strides (see merge_strings)."""
    cdef int w
    if wshift == 1:
        dst[0] = dst[1] = 0
    elif wshift == 2:
        for w in range(4):
            dst[w] = 0
    elif wshift == 3:
        for w in range(8):
            dst[w] = 0
    else:
        for w in range(nwords):
            dst[w] = 0


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
    cdef uint64_t* dst = &b.libs[big << b.wshift]
    cdef const uint64_t* src = &b.libs[small << b.wshift]
    # A constant word count for the common strides (9x9, 13x13, 19x19), so
    # that the loop unrolls without a remainder: the padding words of a
    # stride are always zero (nothing writes beyond nwords).
    if b.wshift == 1:
        b.nlibs[big] = or_words(dst, src, 2)
    elif b.wshift == 2:
        b.nlibs[big] = or_words(dst, src, 4)
    elif b.wshift == 3:
        b.nlibs[big] = or_words(dst, src, 8)
    else:
        b.nlibs[big] = or_words(dst, src, b.nwords)
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
    # Branch-free over the four directions (the colours come from the code of
    # the emptied point): for an empty or off-board neighbour the stale sid
    # is a valid index and the masked update changes nothing.
    cdef uint32_t g, occ, had
    cdef uint64_t* word
    s = h
    while True:
        g = b.code[s]
        for d in range(4):
            occ = ((g >> (2 * d)) & 3) - 1 <= 1
            q = b.sid[s + b.nbr[d]]
            word = &b.libs[(q << b.wshift) + (s >> 6)]
            had = (word[0] >> (s & 63)) & 1
            word[0] |= (<uint64_t>occ) << (s & 63)
            b.nlibs[q] += occ & (had ^ 1)
        s = b.nxt[s]
        if s == h:
            break
    return nk


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


cdef inline void _place_stone(BoardState* b, int p, int c, uint32_t g) noexcept nogil:
    """Put a lone ``c`` stone at ``p`` with its own liberties, branch-free
    over the four directions (``g``: p's code before the move)."""
    cdef int d, n
    cdef uint32_t e
    set_color(b, p, c)
    b.hash ^= ZOBRIST[c][p]
    b.sid[p] = p
    b.nxt[p] = p
    b.ssize[p] = 1
    b.nlibs[p] = 0
    zero_words(&b.libs[p << b.wshift], b.wshift, b.nwords)
    for d in range(4):
        n = p + b.nbr[d]
        e = ((g >> (2 * d)) & 3) == EMPTY_C
        b.libs[(p << b.wshift) + (n >> 6)] |= (<uint64_t>e) << (n & 63)
        b.nlibs[p] += e


cdef inline int _q6_strings(BoardState* b, int c, QSet* q, int* caps, int ncaps,
                            int16_t* q6) noexcept nogil:
    """Q6 needs liberty counts on B1: ``c``'s strings touching a captured
    stone, listed branch-free in ``q6`` (a string met twice adds nothing new
    to Q); returns how many."""
    cdef int i, d, n, s, nq6 = 0
    for i in range(ncaps):
        s = caps[i]
        while True:
            for d in range(4):
                n = s + b.nbr[d]
                q6[nq6] = b.sid[n]
                nq6 += (b.color[n] == c) & (b.nlibs[b.sid[n]] <= q.lim)
            s = b.nxt[s]
            if s == caps[i]:
                break
    return nq6


cdef inline void _q_after_play(BoardState* b, QSet* q, int p, int h, int o,
                               int16_t* kbuf, int nk, int* opp, int nopp,
                               int16_t* q6, int nq6) noexcept nogil:
    """Clauses Q2, Q3, Q5, Q6 and Q7 of GNU Go's update set (spec 6.3), on
    the board after the move: ``h`` the new stone's string, ``kbuf`` the
    ``nk`` captured points, ``opp`` the enemy strings it touches."""
    cdef int i
    q_add_empty_ring(q, b, p)                                # Q2
    for i in range(nk):                                      # Q3
        q_add(q, kbuf[i])
        q_add_empty_ring(q, b, kbuf[i])
    for i in range(nopp):                                    # Q5
        if b.color[opp[i]] == o and b.nlibs[b.sid[opp[i]]] <= q.lim:
            q_add_libs(q, b, b.sid[opp[i]])
    for i in range(nq6):                                     # Q6
        q_add_libs(q, b, b.sid[q6[i]])
    if b.nlibs[h] <= q.lim:                                  # Q7
        q_add_libs(q, b, h)


cdef int board_play(BoardState* b, int p, int c, QSet* q) noexcept nogil:
    """Play ``c`` at ``p`` (0 = pass); the caller has checked legality.

    Multi-stone suicide (allowed only when the caller says so) removes the
    string.  When ``q`` is given it receives GNU Go's update set of the move
    (spec 6.3, clauses Q1-Q7).  Returns the number of stones captured.
    """
    cdef int o = other(c), h, n, s, i, k, nk = 0, captured = 0
    cdef int16_t kbuf[MAX_PTS]
    cdef int caps[4]
    cdef int ncaps = 0
    cdef int16_t q6[4 * MAX_PTS + 4]     # four entries per captured stone at most
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
    # The neighbours' colours are the low byte of p's code: the strings
    # beside it, friends and enemies, by bit masks of directions (even
    # bits, one per direction).
    cdef uint32_t g = b.code[p]
    _place_stone(b, p, c, g)
    cdef uint32_t fm = colour_mask(g & 0xFF, c)
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
    cdef uint32_t om = colour_mask(g & 0xFF, o)
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
        nq6 = _q6_strings(b, c, q, caps, ncaps, q6)
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
        _q_after_play(b, q, p, h, o, kbuf, nk, opp, nopp, q6, nq6)
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


cdef int empty_region(const BoardState* b, int p, uint8_t* seen, int16_t* stack,
                      int16_t* region, int* reach) noexcept nogil:
    """Flood the empty region of the padded point ``p`` (empty, not yet in
    ``seen``): its points into ``region`` (``stack`` is the walk's room; both
    MAX_PTS long), each marked in ``seen``; returns how many.  ``reach``
    gets the colours of the stones around it: 1 Black, 2 White (both: 3)."""
    cdef int top = 1, n = 0, q, d, k
    stack[0] = <int16_t>p
    seen[p] = 1
    reach[0] = 0
    while top:
        top -= 1
        q = stack[top]
        region[n] = <int16_t>q
        n += 1
        for d in range(4):
            k = q + b.nbr[d]
            if b.color[k] == EMPTY_C:
                if not seen[k]:
                    seen[k] = 1
                    stack[top] = <int16_t>k
                    top += 1
            elif b.color[k] == BLACK_C:
                reach[0] |= 1
            elif b.color[k] == WHITE_C:
                reach[0] |= 2
    return n


cdef void tromp_taylor_owner(BoardState* b, cnp.int8_t* owner, int* nb, int* nw) noexcept nogil:
    """Owner per on-board point (row-major): stones, and empty regions reaching one colour."""
    cdef int W = b.W, size = b.size, p, q, k, reach, i, j
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
                nregion = empty_region(b, p, seen, stack, region, &reach)
                val = 1 if reach == 1 else (-1 if reach == 2 else 0)
                for k in range(nregion):
                    q = region[k]
                    owner[(q // W - 1) * size + q % W - 1] = val
                if reach == 1:
                    nb[0] += nregion
                elif reach == 2:
                    nw[0] += nregion


cdef int board_setup(BoardState* b, const int* points, const int* colors, int n) noexcept nogil:
    """Make ``b`` (allocated, empty) hold ``n`` stones: ``colors[k]`` at padded
    ``points[k]`` (distinct empty points); returns 0, or a stone's padded point
    whose string has no liberty (``b`` is then left half built).  Setup stones
    capture nothing: each is placed as its own string, then strings merge and
    liberties are counted once everything is down."""
    cdef int k, c, p, d, dd
    cdef int dirs[4]
    for k in range(n):
        p = points[k]
        c = colors[k]
        b.color[p] = c
        b.hash ^= ZOBRIST[c][p]
        b.sid[p] = p
        b.nxt[p] = p
        b.ssize[p] = 1
    board_compute_codes(b)
    for p in range(b.npts):
        if b.color[p] == WHITE_C or b.color[p] == BLACK_C:
            for d in range(2):
                dd = b.W if d == 0 else 1
                if b.color[p + dd] == b.color[p] and b.sid[p + dd] != b.sid[p]:
                    merge_strings(b, b.sid[p], b.sid[p + dd])
    dirs[0] = b.W
    dirs[1] = -1
    dirs[2] = -b.W
    dirs[3] = 1
    for p in range(b.npts):
        if b.color[p] == WHITE_C or b.color[p] == BLACK_C:
            for d in range(4):
                if b.color[p + dirs[d]] == EMPTY_C:
                    add_lib(b, b.sid[p], p + dirs[d])
    for p in range(b.npts):
        if (b.color[p] == WHITE_C or b.color[p] == BLACK_C) and b.nlibs[b.sid[p]] == 0:
            return p
    return 0
