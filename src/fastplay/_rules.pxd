# Board and rules: the declared C interface of fastplay._rules.
#
# A position is one malloc'd block (BoardState); strings are circular lists
# with a head that keeps the size, the exact liberty count and a liberty
# bitset; every point keeps its 3x3 neighbourhood code; a Zobrist hash of the
# stones is kept up to date.  The functions below trust their arguments
# (CoreBoard in fastplay._board checks them at the Python boundary) and run
# without the GIL.  Padded points: one off-board frame on every side, row
# stride W = size + 2; ``p = (row + 1) * W + col + 1``; 0 is a pass.
#
# cimport this file (``from fastplay._rules cimport ...``) to work on
# positions from Cython; ``fastplay.get_include()`` gives its folder.
# The inline helpers here are the ones the playout engine's hot loop needs
# compiled into its own module.
from libc.stdint cimport uint8_t, int16_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset
cimport numpy as cnp

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


cdef enum:
    EMPTY_C = 0
    WHITE_C = 1
    BLACK_C = 2
    OFF_C = 3
    MIN_SIZE_C = 2
    MAX_SIZE_C = 25
    MAX_W = 27                 # MAX_SIZE + 2 (one off-board frame on every side)
    MAX_PTS = 729              # MAX_W * MAX_W
    MAX_WORDS = 12             # 64-bit words of a liberty bitset on 25x25
    MAX_Q = 1024               # update-set capacity (a move touches far fewer points)

# A board lives in one malloc'd block so that copying a position for a
# playout is a single memcpy whose size follows the board size.
cdef struct BoardState:
    int size                   # points per side
    int W                      # row stride, size + 2
    int npts                   # W * W
    int nwords                 # uint64 words per liberty bitset
    int wshift                 # log2 of the bitset stride (nwords rounded up to a power of 2)
    int nbr[8]                 # neighbour offsets in GNU Go's order: S W N E SW NW NE SE
    uint8_t* color             # [npts] EMPTY/WHITE/BLACK/OFF
    int16_t* sid               # [npts] head point of the string on this point
    int16_t* nxt               # [npts] next stone of the string (circular list)
    int16_t* ssize             # [npts] stones in the string (valid at heads)
    int16_t* nlibs             # [npts] exact liberty count (valid at heads)
    uint64_t* libs             # [npts * nwords] liberty bitset (valid at heads)
    uint16_t* code             # [npts] 3x3 neighbourhood code, kept up to date
    int ko                     # padded index of the ko point, 0 if none
    int ko_color               # the colour the ko point is forbidden to
    int passes                 # consecutive passes
    int captures[3]            # stones captured BY each colour
    uint64_t hash              # Zobrist hash of the stones (positional)
    char* block
    size_t blocksize

# The update set Q of GNU Go's playout (spec 6.3), also the "near" set.
cdef struct QSet:
    int n
    int lim                    # liberty bound of Q4-Q7: 2 as in GNU Go, 1 when only
                               # geometry and suicide matter (see board_play)
    int16_t pts[MAX_Q]
    uint32_t stamp
    uint32_t mark[MAX_PTS]

# Legality codes of board_legality.
cdef enum:
    LEGAL = 0
    ILL_OCCUPIED = 1
    ILL_SUICIDE = 2
    ILL_KO = 3
    ILL_SUPERKO = 4            # checked by CoreBoard (it keeps the history), not here


ctypedef uint32_t (*ctx_func)(BoardState* b, int p) noexcept nogil


# -- the board (fastplay/_rules.pyx has the contracts) ----------------------
cdef int board_alloc(BoardState* b, int size) noexcept nogil
cdef void board_free(BoardState* b) noexcept nogil
cdef void board_copy(BoardState* dst, const BoardState* src) noexcept nogil
cdef void board_layout(BoardState* b) noexcept nogil
cdef int board_setup(BoardState* b, const int* points, const int* colors, int n) noexcept nogil
cdef int board_play(BoardState* b, int p, int c, QSet* q) noexcept nogil
cdef int board_legality(BoardState* b, int p, int c, bint allow_suicide) noexcept nogil
cdef uint64_t hash_after(BoardState* b, int p, int c, bint allow_suicide) noexcept nogil
cdef int string_other_lib(BoardState* b, int h, int p) noexcept nogil
cdef bint would_be_suicide(BoardState* b, int p, int c) noexcept nogil
cdef void q_add_libs(QSet* q, BoardState* b, int h) noexcept nogil
cdef int empty_region(const BoardState* b, int p, uint8_t* seen, int16_t* stack,
                      int16_t* region, int* reach) noexcept nogil
cdef void tromp_taylor_owner(BoardState* b, cnp.int8_t* owner, int* nb, int* nw) noexcept nogil

# -- local contexts (spec 4.3) ---------------------------------------------
cdef int exact_liberties(BoardState* b, int p, int d, const int* nh, int nn) noexcept nogil


# ---------------------------------------------------------------------------
# 1. Board
# ---------------------------------------------------------------------------

cdef inline int flat_move(int p, int W, int size) noexcept nogil:
    """The flat index (row * size + column) of padded point ``p`` of a board
    with row stride ``W``, or -1 for the pass (0)."""
    return -1 if p == 0 else (p // W - 1) * size + p % W - 1


cdef inline int other(int c) noexcept nogil:
    return 3 - c


cdef inline bint lib_test(BoardState* b, int h, int p) noexcept nogil:
    return (b.libs[(h << b.wshift) + (p >> 6)] >> (p & 63)) & 1


cdef inline void lib_set(BoardState* b, int h, int p) noexcept nogil:
    b.libs[(h << b.wshift) + (p >> 6)] |= (<uint64_t>1) << (p & 63)


cdef inline void lib_clear(BoardState* b, int h, int p) noexcept nogil:
    b.libs[(h << b.wshift) + (p >> 6)] &= ~((<uint64_t>1) << (p & 63))


cdef inline uint32_t colour_mask(uint32_t g8, uint32_t col) noexcept nogil:
    """Bit 2k set where direction k of the orthogonal code ``g8`` has colour ``col``."""
    cdef uint32_t x = g8 ^ (col * 0x55)
    return ~(x | (x >> 1)) & 0x55


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


cdef inline void lib_seen(int* cnt, int* first, int t) noexcept nogil:
    """Count liberty ``t`` towards a "0, 1 or at least 2" tally, duplicates once."""
    if cnt[0] == 0:
        first[0] = t
        cnt[0] = 1
    elif cnt[0] == 1 and t != first[0]:
        cnt[0] = 2


cdef inline uint32_t point_ctx(BoardState* b, int p) noexcept nogil:
    """GNU Go's 24-bit local context of the empty point ``p`` (oracle README).

    Three paths, by how often a playout meets them: two empty neighbours and
    nothing in atari beside ``p`` (58 % of contexts), at most one empty
    neighbour and nothing in atari (35 %, :func:`ctx_quiet`), and a string
    in atari beside ``p`` (7 %, :func:`ctx_atari`).
    """
    cdef uint32_t g = b.code[p]
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
    # Most points have two empty neighbours and no string in atari beside
    # them: a stone there keeps two liberties and captures nothing, whatever
    # its colour, so every property bit is 0.
    if (em & (em - 1)) and not at:
        return g
    if not at:
        return ctx_quiet(b, p, g, em, occ, l0, l1, l2, l3)
    return ctx_atari(b, p, g, em, occ)


cdef inline uint32_t ctx_quiet(BoardState* b, int p, uint32_t g, uint32_t em, uint32_t occ,
                               int l0, int l1, int l2, int l3) noexcept nogil:
    """:func:`point_ctx` with at most one empty neighbour and nothing to
    capture (``em``, ``occ``: its direction masks; ``l0``-``l3``: the
    neighbours' liberties): each colour has that liberty and what its
    friends keep besides ``p``."""
    cdef int k, t, col
    cdef int cnt[3]
    cdef int first[3]
    cdef uint32_t big = ((<uint32_t>(l0 >= 3)) | (<uint32_t>(l1 >= 3) << 2)
                         | (<uint32_t>(l2 >= 3) << 4) | (<uint32_t>(l3 >= 3) << 6)) & occ
    cdef uint32_t two = ((<uint32_t>(l0 == 2)) | (<uint32_t>(l1 == 2) << 2)
                         | (<uint32_t>(l2 == 2) << 4) | (<uint32_t>(l3 == 2) << 6)) & occ
    cdef uint32_t wm = colour_mask(g & 0xFF, WHITE_C)
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


cdef inline uint32_t ctx_atari(BoardState* b, int p, uint32_t g, uint32_t em,
                               uint32_t occ) noexcept nogil:
    """:func:`point_ctx` with a string in atari beside ``p`` (``em``,
    ``occ``: the direction masks of its empty and occupied neighbours)."""
    cdef int k, m, t, h, col, nl, o, nempty, nn = 0
    cdef int npt[4]
    cdef int nh[4]
    # Per colour (index WHITE_C / BLACK_C): liberties after a stone of that
    # colour at p ("0, 1, 2 or more" and the first one seen), stones and
    # strings it would capture.
    cdef int cnt[3]
    cdef int first[3]
    cdef int cap[3]
    cdef int ncap[3]
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


cdef inline void board_copy_scalars(BoardState* dst, const BoardState* src) noexcept nogil:
    """What a position holds beside its block: the ko, the passes, the captures, the hash."""
    dst.ko = src.ko
    dst.ko_color = src.ko_color
    dst.passes = src.passes
    dst.captures[0] = src.captures[0]
    dst.captures[1] = src.captures[1]
    dst.captures[2] = src.captures[2]
    dst.hash = src.hash


cdef inline void board_copy_points(BoardState* dst, const BoardState* src, const int16_t* pts,
                                   int npts) noexcept nogil:
    """board_copy of a position into ``dst`` (allocated for the same size)
    that copies the liberty bitsets, most of the block (28 KB on 19x19),
    only at the ``npts`` points ``pts``, which must include every string
    head of ``src``.  The bitset of a point that is no head is never read:
    a stone placed on it clears it first (board_play), and reads through the
    stale sid of an empty point are masked.  Each bitset is copied with its
    whole stride: merge_strings ORs the zero padding words too."""
    cdef size_t libs_bytes = sizeof(uint64_t) * (<size_t>src.npts << src.wshift)
    cdef int k, w, shift = src.wshift, nw = 1 << src.wshift
    cdef uint64_t* to
    cdef const uint64_t* fro
    memcpy(dst.block + libs_bytes, src.block + libs_bytes, src.blocksize - libs_bytes)
    # Constant word counts for the common strides (9x9, 13x13, 19x19), as in
    # merge_strings: the loops unroll.
    if shift == 1:
        for k in range(npts):
            to = dst.libs + (<size_t>pts[k] << 1)
            fro = src.libs + (<size_t>pts[k] << 1)
            to[0] = fro[0]
            to[1] = fro[1]
    elif shift == 2:
        for k in range(npts):
            to = dst.libs + (<size_t>pts[k] << 2)
            fro = src.libs + (<size_t>pts[k] << 2)
            for w in range(4):
                to[w] = fro[w]
    elif shift == 3:
        for k in range(npts):
            to = dst.libs + (<size_t>pts[k] << 3)
            fro = src.libs + (<size_t>pts[k] << 3)
            for w in range(8):
                to[w] = fro[w]
    else:
        for k in range(npts):
            to = dst.libs + (<size_t>pts[k] << shift)
            fro = src.libs + (<size_t>pts[k] << shift)
            for w in range(nw):
                to[w] = fro[w]
    board_copy_scalars(dst, src)
