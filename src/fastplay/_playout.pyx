"""The playout engine (spec ``mc-patterns.md`` section 6; declared in ``_playout.pxd``).

Per-colour move values kept under partition sums of 64-bit block totals,
updated only on the update set; near re-weighting and ko zeroing planned in
the same pass and applied to one draw only (spec 6.4-6.6); geometry-only
contexts when a table ignores every property bit (``mc_uniform``); three
consecutive passes or the move cap end a playout (6.7); GNU Go's scoring
(6.8) or Tromp-Taylor area scoring.  Each playout ``i`` draws from its own
xoshiro256** stream seeded from ``(seed, i)`` (``_rng.pxd``), so results do
not depend on the number of threads.  All of it runs without the GIL.

From Cython, :c:func:`playout_one` plays one playout from a template state
that :meth:`PlayoutEngine.prepare` fills (see ``examples/cython_embedding``).
"""

from libc.stdint cimport uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memcpy, memset

from functools import partial

from fastplay._threads import run_all
from fastplay.shown import shown_value

import numpy as np
cimport numpy as cnp
# Loaded with the core, never on the first seed_key call: a Ctrl-C that
# arrives while a Cython module with memoryviews initialises is lost (its
# collections.abc registration ends in a bare ``except: pass``, cython#4817),
# and numpy 2 loads numpy.random lazily (fastplay._threads).
from numpy.random import SeedSequence

from fastplay._rules cimport *
from fastplay._rng cimport splitmix64, rng_next, rng_seed
from fastplay._board cimport CoreBoard, check_size
from fastplay._board import MAX_KOMI
from fastplay._arrays cimport _view

cnp.import_array()


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


# Error codes of a playout in debug mode.
cdef enum:
    DBG_OK = 0
    DBG_CTX = 1
    DBG_VALUE = 2
    DBG_TOTAL = 3
    DBG_BOARD = 4








cdef inline int blk_find(const PState* s, int c, uint64_t r) noexcept nogil:
    """The point whose cumulative range of far values contains ``r``, with
    the draw's excluded mass (``hole``, and those points' values zeroed)
    taken out.

    Counts the blocks, then the points of the block, whose running sum is
    still <= r: no early exit, so no mispredicted loop exit (a zero-valued
    point never ends a range, so it is never returned).
    """
    cdef const uint64_t* blk = s.blk[c]
    cdef const uint32_t* val = s.val[c]
    cdef int i = 0, j, p, end
    cdef uint64_t cum = 0, below = 0, le, m
    for j in range(s.nblocks):
        m = blk[j] - s.hole[j]
        cum += m
        le = cum <= r
        i += <int>le
        below += m & (0 - le)
    r -= below
    p = i << s.bshift
    end = p + (1 << s.bshift)
    if end > s.b.npts:
        end = s.b.npts
    cum = 0
    for j in range(p, end):
        cum += val[j]
        p += cum <= r
    return p


cdef inline void set_value(PState* s, const uint32_t* T, const uint16_t* G, int c, int p,
                           uint32_t ctx) noexcept nogil:
    # Branch-free: whether a move is suicide, and whether its value changed,
    # are data the predictor cannot learn.
    cdef uint32_t ok = ctx_suicide(ctx, c) ^ 1
    cdef uint32_t i = ctx_index(G, ctx, c)
    cdef uint32_t v = T[i] & (0 - ok)
    s.idx[c][p] = i
    s.cand[c][p] = ok
    s.blk[c][p >> s.bshift] += <uint64_t>v - <uint64_t>s.val[c][p]
    s.total[c] += <uint64_t>v - <uint64_t>s.val[c][p]
    s.val[c][p] = v


cdef inline void clear_value(PState* s, int c, int p) noexcept nogil:
    s.cand[c][p] = 0
    if s.val[c][p]:
        s.blk[c][p >> s.bshift] -= s.val[c][p]
        s.total[c] -= s.val[c][p]
        s.val[c][p] = 0


cdef void pstate_init(PState* s, const uint32_t* T, const uint16_t* G) noexcept nogil:
    """Compute every context and value of ``s.b`` from scratch (spec 6.9); the
    candidate bitsets only for a flat state (``s.flat``: nothing else reads them)."""
    cdef int p, c, n = s.b.npts, col
    cdef uint32_t ctx, i, v
    q_reset(&s.q)
    s.nheads = 0
    s.bshift = 2
    while (1 << (2 * s.bshift)) < n:
        s.bshift += 1
    s.nblocks = (n + (1 << s.bshift) - 1) >> s.bshift
    s.total[0] = 0      # the EMPTY colour's rows are never read
    for c in range(1, 3):
        s.total[c] = 0
        memset(s.val[c], 0, n * sizeof(uint32_t))
        memset(s.idx[c], 0, n * sizeof(uint32_t))
        memset(s.cand[c], 0, n * sizeof(uint8_t))
        memset(s.blk[c], 0, s.nblocks * sizeof(uint64_t))
    memset(s.first, 0, n * sizeof(uint8_t))
    for p in range(n):
        col = s.b.color[p]
        s.ctx[p] = 0xFFFFFFFF
        if col == EMPTY_C:
            ctx = s.ctxf(&s.b, p)
            s.ctx[p] = ctx
            for c in range(1, 3):
                if not ctx_suicide(ctx, c):
                    i = ctx_index(G, ctx, c)
                    v = T[i]
                    s.idx[c][p] = i
                    s.val[c][p] = v
                    s.cand[c][p] = 1
                    s.total[c] += v
                    s.blk[c][p >> s.bshift] += v
        elif (col == WHITE_C or col == BLACK_C) and s.b.sid[p] == p:
            s.heads[s.nheads] = p
            s.nheads += 1
    if s.flat:
        for c in range(1, 3):
            for p in range(MAX_WORDS):
                s.bits[c][p] = 0
            for p in range(n):
                s.bits[c][p >> 6] |= (<uint64_t>(s.val[c][p] != 0)) << (p & 63)


cdef void pstate_copy(PState* dst, const PState* src) noexcept nogil:
    """Copy a ready state into ``dst`` (board block allocated for the same size)."""
    cdef int n = src.b.npts, c
    # Of the liberty bitsets only the strings' heads (board_copy_points).
    board_copy_points(&dst.b, &src.b, src.heads, src.nheads)
    q_reset(&dst.q)
    dst.q.lim = src.q.lim
    for c in range(src.q.n):
        q_add(&dst.q, src.q.pts[c])
    dst.bshift = src.bshift
    dst.nblocks = src.nblocks
    dst.ctxf = src.ctxf
    dst.near_free = src.near_free
    dst.flat = src.flat
    dst.fv = src.fv
    if src.flat:
        # The bitsets and counts are the whole state of a flat playout.
        memcpy(dst.bits, src.bits, sizeof(src.bits))
        dst.total[1] = src.total[1]
        dst.total[2] = src.total[2]
        memset(dst.first, 0, n)
        return
    memcpy(dst.ctx, src.ctx, n * sizeof(uint32_t))
    for c in range(1, 3):
        memcpy(dst.idx[c], src.idx[c], n * sizeof(uint32_t))
        memcpy(dst.val[c], src.val[c], n * sizeof(uint32_t))
        memcpy(dst.cand[c], src.cand[c], n * sizeof(uint8_t))
        memcpy(dst.blk[c], src.blk[c], src.nblocks * sizeof(uint64_t))
        dst.total[c] = src.total[c]
    memset(dst.first, 0, n)


cdef inline void plan_point(PState* s, const uint32_t* T, int c, int p, int ko) noexcept nogil:
    """Put near point ``p`` into the plan of ``c``'s next draw if its weight
    for that draw (near value, 0 on the forbidden ko point) is not its far
    value.  Branch-free (see ``q_add_if``): the entry is always written and
    kept only when it counts."""
    cdef uint64_t far = s.val[c][p]
    cdef uint64_t w = T[s.idx[c][p] | 1] & (0 - <uint64_t>(s.cand[c][p] & (p != ko)))
    cdef uint64_t keep = s.cand[c][p] & (w != far)
    s.dp[s.nd] = p
    s.dw[s.nd] = w
    s.dfar[s.nd] = far
    s.near_mass += w & (0 - keep)
    s.far_mass += far & (0 - keep)
    s.nd += <int>keep


cdef inline int plan_begin(PState* s, int c) noexcept nogil:
    """Empty ``c``'s draw plan; returns the point forbidden to ``c`` by ko (0 if none)."""
    s.nd = 0
    s.near_mass = 0
    s.far_mass = 0
    return s.b.ko if s.b.ko_color == c else 0


cdef inline void plan_end(PState* s, int c, int ko) noexcept nogil:
    """The ko point outside the near set (or every ko point when near is
    skipped) still leaves the draw."""
    if ko and s.val[c][ko] and (s.near_free or s.q.mark[ko] != s.q.stamp or s.q.n == 0):
        s.dp[s.nd] = ko
        s.dw[s.nd] = 0
        s.dfar[s.nd] = s.val[c][ko]
        s.far_mass += s.val[c][ko]
        s.nd += 1


cdef void pstate_plan(PState* s, const uint32_t* T, int c) noexcept nogil:
    """``c``'s draw plan from the current near set (start of a playout, after a pass).
    A flat state has no plan: its draw takes the ko point out itself."""
    if s.flat:
        return
    cdef int k, ko = plan_begin(s, c)
    if not s.near_free:
        for k in range(s.q.n):
            plan_point(s, T, c, s.q.pts[k], ko)
    plan_end(s, c, ko)


cdef int pstate_draw(PState* s, int c) noexcept nogil:
    """Draw the move of ``c`` with probability weight / total (spec 6.4-6.6); 0 = pass.

    The partition sums hold far values; the plan (``plan_point``) lists the
    few points whose weight differs for this draw (near points, the
    forbidden ko point), a set N.  The draw picks N's share by a linear scan,
    or else searches the far distribution with N taken out: N's values are
    zeroed and its mass per block set aside for that one search only.
    """
    cdef int k, x
    cdef uint64_t r, u
    cdef uint64_t total = s.total[c] - s.far_mass + s.near_mass
    if total == 0:
        return 0
    u = fp_mulhi64(rng_next(s.rng), total)
    if u < s.near_mass:
        for k in range(s.nd):
            if u < s.dw[k]:
                return s.dp[k]
            u -= s.dw[k]
    r = u - s.near_mass
    if s.nd == 0:
        return blk_find(s, c, r)
    # Take N out of the far distribution for this one search, then put it back.
    for k in range(s.nd):
        s.val[c][s.dp[k]] = 0
        s.hole[s.dp[k] >> s.bshift] += s.dfar[k]
    x = blk_find(s, c, r)
    for k in range(s.nd):
        s.val[c][s.dp[k]] = <uint32_t>s.dfar[k]
        s.hole[s.dp[k] >> s.bshift] = 0
    return x


cdef inline void update_impl(PState* s, const uint32_t* T, const uint16_t* G, int cn,
                             bint light) noexcept nogil:
    cdef int k, p, ko = plan_begin(s, cn)
    cdef uint32_t ctx
    for k in range(s.q.n):
        p = s.q.pts[k]
        if s.b.color[p] == EMPTY_C:
            ctx = point_ctx_light(&s.b, p) if light else point_ctx(&s.b, p)
            if ctx != s.ctx[p]:
                s.ctx[p] = ctx
                set_value(s, T, G, WHITE_C, p, ctx)
                set_value(s, T, G, BLACK_C, p, ctx)
            if not s.near_free:
                plan_point(s, T, cn, p, ko)
        else:
            # No 24-bit context equals this, so the point is recomputed when
            # it is emptied again.
            s.ctx[p] = 0xFFFFFFFF
            clear_value(s, WHITE_C, p)
            clear_value(s, BLACK_C, p)
    plan_end(s, cn, ko)


cdef void pstate_update(PState* s, const uint32_t* T, const uint16_t* G, int cn) noexcept nogil:
    """Recompute the contexts and values of the update set of the last move,
    and plan the next draw, by ``cn``, in the same pass (Q is also the near set).

    Two copies of the loop, each with its context function inlined.
    """
    if s.ctxf == point_ctx_light:
        update_impl(s, T, G, cn, True)
    else:
        update_impl(s, T, G, cn, False)


# ---------------------------------------------------------------------------
# Flat tables: every value 0 or 1, from geometry and suicide alone (mc_uniform)
# ---------------------------------------------------------------------------
#
# The draw is uniform over the candidates, so a bitset per colour is the whole
# distribution: a move's value is one bit of a 16 KB table (``fv``, both
# colours' bits of every 3x3 code) masked by suicide, and the draw selects
# the r-th set bit.  The same point as the general path: blk_find returns
# the point where the running sum of 0/1 values first exceeds r, which is
# the r-th candidate in point order.


# Which colours may play a point without suicide, from the low byte of its
# code (S, W, N, E) and a 4-bit mask of neighbours whose string is in atari
# (read through the stale sid of empty points too: the table ignores those
# bits): bit 0 White, bit 1 Black (as point_ctx_light: an empty neighbour,
# a friend keeping a liberty or an enemy in atari).
cdef uint8_t NOT_SUICIDE[4096]


cdef void _init_not_suicide():
    cdef uint32_t g8, at4, d, col, a, ok_w, ok_b
    for g8 in range(256):
        for at4 in range(16):
            ok_w = ok_b = 0
            for d in range(4):
                col = (g8 >> (2 * d)) & 3
                a = (at4 >> d) & 1
                ok_w |= (col == EMPTY_C) | ((col == WHITE_C) & (a ^ 1)) | ((col == BLACK_C) & a)
                ok_b |= (col == EMPTY_C) | ((col == BLACK_C) & (a ^ 1)) | ((col == WHITE_C) & a)
            NOT_SUICIDE[(g8 << 4) | at4] = ok_w | (ok_b << 1)


_init_not_suicide()


cdef inline uint32_t flat_bits(const uint8_t* fv, uint32_t code) noexcept nogil:
    """The value bits of a 3x3 code: bit 0 for a White mover, bit 1 for Black."""
    return (fv[code >> 2] >> ((code & 3) << 1)) & 3


cdef inline void update_flat(PState* s) noexcept nogil:
    """The update pass of a flat state: recompute both colours' bits on Q.

    The light context inline (point_ctx_light; suicide from NOT_SUICIDE),
    from local copies of the board's arrays so that they stay in registers
    across the stores.  The
    branch on the point's state is predictable: the only stone in Q is the
    move itself, always first.  Recomputing is idempotent, so a point met
    twice costs time only.
    """
    cdef const uint8_t* color = s.b.color
    cdef const uint16_t* code = s.b.code
    cdef const int16_t* sid = s.b.sid
    cdef const int16_t* nlibs = s.b.nlibs
    cdef const uint8_t* fv = s.fv
    cdef const int16_t* pts = s.q.pts
    cdef uint64_t* bw = s.bits[WHITE_C]
    cdef uint64_t* bb = s.bits[BLACK_C]
    cdef int k, p, W = s.b.W, n = s.q.n
    cdef uint32_t g, at, fb
    cdef uint64_t vw, vb, ow, ob, dw = 0, db = 0
    for k in range(n):
        p = pts[k]
        if color[p] == EMPTY_C:
            g = code[p]
            at = ((<uint32_t>(nlibs[sid[p + W]] == 1)) | (<uint32_t>(nlibs[sid[p - 1]] == 1) << 1)
                  | (<uint32_t>(nlibs[sid[p - W]] == 1) << 2)
                  | (<uint32_t>(nlibs[sid[p + 1]] == 1) << 3))
            fb = flat_bits(fv, g) & NOT_SUICIDE[((g & 0xFF) << 4) | at]
            vw = fb & 1
            vb = fb >> 1
        else:
            vw = vb = 0
        ow = (bw[p >> 6] >> (p & 63)) & 1
        ob = (bb[p >> 6] >> (p & 63)) & 1
        bw[p >> 6] ^= (ow ^ vw) << (p & 63)
        bb[p >> 6] ^= (ob ^ vb) << (p & 63)
        dw += vw - ow
        db += vb - ob
    s.total[WHITE_C] += dw
    s.total[BLACK_C] += db


# SELECT8[b][r]: the position of the r-th (from 0) set bit of the byte b.
cdef uint8_t SELECT8[256][8]


cdef void _init_select8():
    cdef int b, k, r
    for b in range(256):
        r = 0
        for k in range(8):
            SELECT8[b][k] = 0
        for k in range(8):
            if (b >> k) & 1:
                SELECT8[b][r] = k
                r += 1


_init_select8()


cdef inline int select_bit(uint64_t word, uint64_t r) noexcept nogil:
    """The position of the r-th (from 0) set bit of ``word``, which has more
    than r, without branches: byte-wise population counts and their prefix
    sums (one multiplication), the byte whose prefix passes r by a SWAR
    comparison, then a table for the bit inside that byte."""
    cdef uint64_t c = word - ((word >> 1) & <uint64_t>0x5555555555555555)
    c = (c & <uint64_t>0x3333333333333333) + ((c >> 2) & <uint64_t>0x3333333333333333)
    c = (c + (c >> 4)) & <uint64_t>0x0F0F0F0F0F0F0F0F
    cdef uint64_t prefix = c * <uint64_t>0x0101010101010101   # byte k: bits in bytes 0..k
    # Bytes whose prefix is <= r (all values < 128: no borrow between bytes).
    cdef uint64_t le = (((r * <uint64_t>0x0101010101010101) | <uint64_t>0x8080808080808080)
                        - prefix) & <uint64_t>0x8080808080808080
    cdef int b = fp_popcount64(le)
    cdef uint64_t below = ((prefix << 8) >> (8 * b)) & 0xFF
    return 8 * b + SELECT8[(word >> (8 * b)) & 0xFF][r - below]


cdef inline int draw_flat(PState* s, int c) noexcept nogil:
    """``c``'s uniform draw over its candidates, the forbidden ko point left
    out; 0 = pass.  Point 0 is off the board, so its bit is always 0."""
    cdef int ko = s.b.ko if s.b.ko_color == c else 0, j, i = 0, nw = s.b.nwords
    cdef uint64_t* bits = s.bits[c]
    cdef uint64_t kb = (bits[ko >> 6] >> (ko & 63)) & 1
    cdef uint64_t total = s.total[c] - kb, u, cum = 0, below = 0, m, le
    if total == 0:
        return 0
    u = fp_mulhi64(rng_next(s.rng), total)
    bits[ko >> 6] ^= kb << (ko & 63)
    for j in range(nw):
        m = <uint64_t>fp_popcount64(bits[j])
        cum += m
        le = cum <= u
        i += <int>le
        below += m & (0 - le)
    j = (i << 6) + select_bit(bits[i], u - below)
    bits[ko >> 6] ^= kb << (ko & 63)
    return j


cdef int flat_check(PState* s) noexcept nogil:
    """Debug mode for a flat state: bits and counts against a recomputation."""
    cdef int p, c, n = s.b.npts
    cdef uint32_t ctx, fb, v
    cdef uint64_t tot
    for c in range(1, 3):
        tot = 0
        for p in range(n):
            v = 0
            if s.b.color[p] == EMPTY_C:
                ctx = point_ctx_light(&s.b, p)
                fb = flat_bits(s.fv, ctx & 0xFFFF)
                v = ((fb >> (c - 1)) & 1) & (ctx_suicide(ctx, c) ^ 1)
            if ((s.bits[c][p >> 6] >> (p & 63)) & 1) != v:
                return DBG_VALUE
            tot += v
        if tot != s.total[c]:
            return DBG_TOTAL
    return DBG_OK


cdef int pstate_check(PState* s, const uint32_t* T, const uint16_t* G) noexcept nogil:
    """Debug mode: compare the incremental state with a recomputation from the position."""
    cdef int p, c, n = s.b.npts
    cdef uint32_t ctx, v
    cdef uint64_t tot
    if s.flat:
        return flat_check(s)
    for c in range(1, 3):
        tot = 0
        for p in range(n):
            if s.b.color[p] == EMPTY_C:
                ctx = s.ctxf(&s.b, p)
                if ctx != s.ctx[p]:
                    return DBG_CTX
                if ctx_suicide(ctx, c):
                    if s.cand[c][p] or s.val[c][p]:
                        return DBG_VALUE
                else:
                    v = T[ctx_index(G, ctx, c)]
                    if not s.cand[c][p] or s.val[c][p] != v or s.idx[c][p] != ctx_index(G, ctx, c):
                        return DBG_VALUE
            elif s.cand[c][p] or s.val[c][p]:
                return DBG_VALUE
            tot += s.val[c][p]
        if tot != s.total[c]:
            return DBG_TOTAL
        for p in range(s.nblocks):
            tot -= s.blk[c][p]
        if tot != 0:
            return DBG_TOTAL
    return DBG_OK


# The colour an empty point scores for under GNU Go's playout rule, from the
# low byte of its 3x3 code (S, W, N, E): the first stone, Black if none.
cdef uint8_t FIRST_STONE[256]


cdef void _init_first_stone():
    cdef int g8, d, col
    for g8 in range(256):
        FIRST_STONE[g8] = BLACK_C
        for d in range(4):
            col = (g8 >> (2 * d)) & 3
            if col == WHITE_C or col == BLACK_C:
                FIRST_STONE[g8] = col
                break


_init_first_stone()


cdef int gnugo_score(BoardState* b, cnp.int8_t* owner) noexcept nogil:
    """Black minus White by GNU Go's playout rule (spec 6.8); owner +1/-1 per point.

    Branch-free: an empty point takes the colour FIRST_STONE gives its code.
    """
    cdef int W = b.W, size = b.size, i, j, p, col, score = 0
    cdef cnp.int8_t o
    for i in range(size):
        for j in range(size):
            p = (i + 1) * W + j + 1
            col = b.color[p]
            col |= FIRST_STONE[b.code[p] & 0xFF] & (0 - <int>(col == EMPTY_C))
            o = <cnp.int8_t>(2 * (col == BLACK_C) - 1)
            owner[i * size + j] = o
            score += o
    return score




cdef inline uint32_t grad_cell(const PState* s, int c, int p) noexcept nogil:
    """The table cell that gives ``p`` its weight in ``c``'s next draw (the near
    bit set for a point of the near set, spec 6.4)."""
    cdef bint near = (not s.near_free) and s.q.n > 0 and s.q.mark[p] == s.q.stamp
    return s.idx[c][p] | <uint32_t>near


cdef inline void grad_add(PolicyGrad* g, uint32_t cell, double x) noexcept nogil:
    if g.mark[cell] == 0:
        g.mark[cell] = 1
        g.touched[g.ntouched] = cell
        g.ntouched += 1
    g.h[cell] += x


cdef void grad_draw(PState* s, const uint32_t* T, int c, PolicyGrad* g) noexcept nogil:
    """Subtract the expected cell of ``c``'s next draw, ``sum_b pi(b) e_cell(b)``,
    from the playout's score function (the sum of d log pi / d log value)."""
    cdef int p, ko = s.b.ko if s.b.ko_color == c else 0
    cdef uint64_t w, total = 0
    cdef uint32_t cell
    for p in range(s.b.npts):
        if s.cand[c][p] and p != ko:
            total += T[grad_cell(s, c, p)]
    if total == 0:
        return
    for p in range(s.b.npts):
        if s.cand[c][p] and p != ko:
            cell = grad_cell(s, c, p)
            w = T[cell]
            if w:
                grad_add(g, cell, -<double>w / <double>total)


# playout_moves comes in two compiled versions, chosen by the type of its last
# argument: without a gradient (NULL NoGradPtr, every playout) and with one
# (simulation balancing), so that the playouts' loop carries no test for it.
cdef struct NoGrad:
    int unused

ctypedef NoGrad* NoGradPtr
ctypedef PolicyGrad* GradPtr
ctypedef fused grad_t:
    NoGradPtr
    GradPtr


cdef int playout_moves(PState* s, const PState* tmpl, const uint32_t* T, const uint16_t* G,
                       int start_color, uint64_t key, uint64_t index, int max_moves,
                       bint amaf, bint debug, int* length, grad_t grad) noexcept nogil:
    """Play playout ``index`` of stream ``key`` from ``tmpl`` into ``s``, ``start_color``
    first; ``length[0]`` gets its moves (passes included).  Returns a DBG_* code.
    With a ``GradPtr`` (not for flat states) every drawn move adds its score
    function ``e_cell(a) - sum_b pi(b) e_cell(b)`` to ``grad`` (see PolicyGrad).
    ``tmpl == s``: ``s`` itself was made ready (pstate_init) for this one
    playout, and is played in place, without the copy."""
    cdef int c = start_color, p, passes = 0, moves = 0, err
    if s != tmpl:
        pstate_copy(s, tmpl)
    rng_seed(s.rng, key, index)
    pstate_plan(s, T, c)
    while True:
        if moves > max_moves:
            p = 0
        elif s.flat:
            p = draw_flat(s, c)
        else:
            if grad_t is GradPtr:
                grad_draw(s, T, c, grad)
            p = pstate_draw(s, c)
            if grad_t is GradPtr:
                if p != 0:
                    grad_add(grad, grad_cell(s, c, p), 1.0)
        board_play(&s.b, p, c, &s.q)
        if moves < SEQ_CAP:
            s.seq[moves] = <int16_t>p
        if p == 0:
            passes += 1
            pstate_plan(s, T, other(c))
        else:
            passes = 0
            if s.flat:
                update_flat(s)
            else:
                pstate_update(s, T, G, other(c))
            if amaf and s.first[p] == 0:
                s.first[p] = c
            if debug:
                err = pstate_check(s, T, G)
                if err != DBG_OK:
                    return err
        moves += 1
        if passes >= 3:
            break
        c = other(c)
    length[0] = moves
    s.nseq = min(moves, SEQ_CAP)
    return DBG_OK


cdef int playout_score(PState* s, bint tromp_taylor, cnp.int8_t* owner) noexcept nogil:
    """Black minus White of the final position in ``s`` (no komi); owner +1/-1 per point."""
    cdef int nb, nw
    if tromp_taylor:
        tromp_taylor_owner(&s.b, owner, &nb, &nw)
        return nb - nw
    return gnugo_score(&s.b, owner)


cdef int playout_one(PState* s, const PState* tmpl, const uint32_t* T, const uint16_t* G,
                     int start_color, uint64_t key, uint64_t index, int max_moves,
                     double komi, bint tromp_taylor, PlayoutOutcome* out) noexcept nogil:
    cdef cnp.int8_t owner[MAX_SIZE_C * MAX_SIZE_C]
    cdef int moves = 0
    # A template from pstate_new that no engine prepared has no context
    # function (calloc): its playout would be of an empty board, silently.
    if s == NULL or tmpl == NULL or s.b.size != tmpl.b.size or tmpl.ctxf == NULL \
            or T == NULL or G == NULL or (
            start_color != WHITE_C and start_color != BLACK_C) or max_moves < 0:
        return -1
    playout_moves(s, tmpl, T, G, start_color, key, index, max_moves, False, False, &moves,
                  <NoGradPtr>NULL)
    out.score = playout_score(s, tromp_taylor, owner) - komi
    out.winner = BLACK_C if out.score > 0 else (WHITE_C if out.score < 0 else EMPTY_C)
    out.length = moves
    out.capped = moves > max_moves + 3
    return 0


cdef PState* pstate_new(int size) noexcept nogil:
    if size < MIN_SIZE_C or size > MAX_SIZE_C:
        return NULL
    cdef PState* s = <PState*>calloc(1, sizeof(PState))
    if s == NULL:
        return NULL
    if board_alloc(&s.b, size) != 0:
        free(s)
        return NULL
    return s


cdef void pstate_free(PState* s) noexcept nogil:
    if s != NULL:
        board_free(&s.b)
        free(s)


cdef int run_playouts_range(PState* s, const PState* tmpl, const uint32_t* T, const uint16_t* G,
                            int start_color, uint64_t key, int64_t i0, int64_t i1,
                            int max_moves, double komi, bint tromp_taylor, bint amaf,
                            bint amaf_tally, bint debug, Accum* acc, cnp.int8_t* owner,
                            cnp.int8_t* final_stones, volatile int* stop) noexcept nogil:
    """Play playouts ``i0 .. i1-1`` from ``tmpl``; returns a DBG_* code.
    ``amaf``: first plays recorded (``s.first``); ``amaf_tally``: and added to
    ``acc`` (else the caller reads the last playout's from ``s.first``)."""
    cdef int64_t i
    cdef int p, moves, score, k, r, q, f, size = tmpl.b.size, npts = size * size
    cdef int err
    cdef double result
    cdef bint bwin, draw
    for i in range(i0, i1):
        if stop[0]:
            return DBG_OK
        err = playout_moves(s, tmpl, T, G, start_color, key, <uint64_t>i, max_moves, amaf, debug,
                            &moves, <NoGradPtr>NULL)
        if err != DBG_OK:
            return err
        if moves > max_moves + 3:
            acc.capped += 1
        score = playout_score(s, tromp_taylor, owner)
        result = score - komi
        bwin = result > 0
        draw = result == 0
        acc.black_wins += bwin
        acc.draws += draw
        acc.sum_len += moves
        acc.hist[score + npts] += 1
        acc.last_bin = score + npts
        # Branch-free tallies: who owns a point, or first played on it, is
        # as good as random.  A point nobody played adds 0 to row 0.
        for k in range(npts):
            acc.own_black[k] += owner[k] > 0
            acc.own_white[k] += owner[k] < 0
        acc.own_n += 1
        acc.own_black_wins += bwin
        acc.own_draws += draw
        if acc.own_won != NULL:     # criticality's tally (PlayoutTally(criticality=True))
            for k in range(npts):
                acc.own_won[k] += ((owner[k] > 0) & bwin) | ((owner[k] < 0) & (not bwin)
                                                             & (not draw))
        if amaf and amaf_tally:
            k = 0
            for r in range(size):
                p = (r + 1) * s.b.W + 1
                for q in range(size):
                    f = s.first[p + q]
                    acc.amaf_count[f * npts + k] += f != 0
                    acc.amaf_black_win[f * npts + k] += (f != 0) & bwin
                    k += 1
        if final_stones != NULL and i == 0:
            for k in range(npts):
                p = s.b.color[(k // size + 1) * s.b.W + k % size + 1]
                final_stones[k] = 1 if p == BLACK_C else (-1 if p == WHITE_C else 0)
    return DBG_OK


_DEBUG_TEXT = {
    DBG_CTX: "an incrementally kept local context differs from a recomputation",
    DBG_VALUE: "an incrementally kept move value differs from a recomputation",
    DBG_TOTAL: "the kept total weight differs from the sum of the move values",
}


cdef class _Template:
    """A playout state that a call of PlayoutEngine.run fills from its board
    (pstate_init) and its threads copy at the start of every playout."""

    cdef PState* s

    def __cinit__(self, size):
        check_size(size)
        self.s = <PState*>calloc(1, sizeof(PState))
        if self.s == NULL:
            raise MemoryError()
        if board_alloc(&self.s.b, size) != 0:
            raise MemoryError()

    def __dealloc__(self):
        if self.s != NULL:
            board_free(&self.s.b)
            free(self.s)


cdef class _Worker:
    """One thread's playout state and integer accumulators (thread-count
    independent sums), in memory of its own that numpy sees through views."""

    cdef PState* s
    cdef Accum acc
    cdef int npts
    cdef cnp.int8_t* owner_p         # per playout: the owner of each point
    cdef cnp.int8_t* final_p         # the last playout's final stones, or NULL
    cdef public int error
    # A tree search's one-playout calls (run_tally) skip the AMAF tallies and
    # the zeroing of whole arrays (RESULTS.md, "The one-playout simulation"):
    # ``single``: the last call was one such playout, whose first plays are
    # in ``s.first`` and whose score is the one bin ``acc.last_bin`` of the
    # histogram; ``amaf_zero``: the AMAF tallies are all zero; ``exposed``:
    # numpy views of the tallies were handed out (they may be written), so
    # neither shortcut is taken again.
    cdef bint single, amaf_zero, exposed

    def __cinit__(self, size, bint amaf, bint want_final):
        check_size(size)
        cdef int npts = size * size
        self.npts = npts
        self.s = <PState*>calloc(1, sizeof(PState))
        if self.s == NULL:
            raise MemoryError()
        if board_alloc(&self.s.b, size) != 0:
            raise MemoryError()
        self.acc.hist = <int64_t*>calloc(2 * npts + 1, sizeof(int64_t))
        self.acc.own_black = <int64_t*>calloc(npts, sizeof(int64_t))
        self.acc.own_white = <int64_t*>calloc(npts, sizeof(int64_t))
        # First plays, then Black's wins among them: one block, so that the
        # caller gets both tallies of a point with one gather.
        self.acc.amaf_count = <int32_t*>calloc(6 * npts, sizeof(int32_t))
        self.owner_p = <cnp.int8_t*>calloc(npts, 1)
        if want_final:
            self.final_p = <cnp.int8_t*>calloc(npts, 1)
        if (self.acc.hist == NULL or self.acc.own_black == NULL or self.acc.own_white == NULL
                or self.acc.amaf_count == NULL or self.owner_p == NULL
                or (want_final and self.final_p == NULL)):
            raise MemoryError()
        self.acc.amaf_black_win = self.acc.amaf_count + 3 * npts
        self.acc.black_wins = self.acc.draws = self.acc.sum_len = self.acc.capped = 0
        self.error = DBG_OK
        self.amaf_zero = True

    cdef void _settle(self) noexcept:
        """Before a view is handed out: the last one-playout call's first
        plays written into the AMAF tallies, as any other call leaves them,
        and no shortcut from now on."""
        cdef int size = self.s.b.size, r, q, f, k = 0
        cdef bint bwin = self.acc.black_wins > 0
        if self.single:
            memset(self.acc.amaf_count, 0, 6 * self.npts * sizeof(int32_t))
            for r in range(size):
                for q in range(size):
                    f = self.s.first[(r + 1) * self.s.b.W + 1 + q]
                    self.acc.amaf_count[f * self.npts + k] += f != 0
                    self.acc.amaf_black_win[f * self.npts + k] += (f != 0) & bwin
                    k += 1
        self.single = False
        self.amaf_zero = False
        self.exposed = True

    @property
    def hist(self):
        self._settle()
        return _view(self, self.acc.hist, 1, 2 * self.npts + 1, cnp.NPY_INT64)

    @property
    def own_black(self):
        return _view(self, self.acc.own_black, 1, self.npts, cnp.NPY_INT64)

    @property
    def own_white(self):
        return _view(self, self.acc.own_white, 1, self.npts, cnp.NPY_INT64)

    @property
    def amaf(self):
        self._settle()
        return _view(self, self.acc.amaf_count, 1, 6 * self.npts, cnp.NPY_INT32)

    @property
    def final(self):
        if self.final_p == NULL:
            return None
        return _view(self, self.final_p, 1, self.npts, cnp.NPY_INT8)

    cdef void reset(self, bint ownership=True) noexcept:
        """Zero the accumulators, for the next call (the engine keeps idle
        workers); ownership too unless told not to (PlayoutTally)."""
        cdef int npts = self.s.b.size * self.s.b.size
        self.acc.black_wins = self.acc.draws = self.acc.sum_len = self.acc.capped = 0
        if self.single:
            self.acc.hist[self.acc.last_bin] = 0     # the one bin a playout added to
        else:
            memset(self.acc.hist, 0, (2 * npts + 1) * sizeof(int64_t))
        self.single = False
        if ownership:
            self._clear_ownership()
        if self.exposed or not self.amaf_zero:
            # Once a view is out, it may have been written (even without AMAF).
            memset(self.acc.amaf_count, 0, 6 * npts * sizeof(int32_t))
            self.amaf_zero = True
        self.error = DBG_OK

    cdef void _clear_ownership(self) noexcept:
        """Zero the ownership tallies and their counts."""
        memset(self.acc.own_black, 0, self.npts * sizeof(int64_t))
        memset(self.acc.own_white, 0, self.npts * sizeof(int64_t))
        if self.acc.own_won != NULL:
            memset(self.acc.own_won, 0, self.npts * sizeof(int64_t))
        self.acc.own_n = self.acc.own_black_wins = self.acc.own_draws = 0

    def __dealloc__(self):
        if self.s != NULL:
            board_free(&self.s.b)
            free(self.s)
        free(self.acc.hist)
        free(self.acc.own_black)
        free(self.acc.own_white)
        free(self.acc.own_won)
        free(self.acc.amaf_count)
        free(self.owner_p)
        free(self.final_p)


cdef double run_komi(CoreBoard board, komi) except? -1.0:
    """The komi of a run: ``komi`` (checked) or the board's."""
    if komi is not None and (isinstance(komi, (bool, str, bytes)) or not isinstance(
            komi, (int, float, np.integer, np.floating))):
        raise TypeError(f"komi must be a number, not {komi!r}")
    cdef double k = board.komi if komi is None else float(komi)
    if not -MAX_KOMI <= k <= MAX_KOMI:
        raise ValueError(f"komi must be a finite number of points within +-{MAX_KOMI:g}, "
                         f"not {k}")
    return k


cdef class PlayoutTally:
    """What :meth:`PlayoutEngine.run_into` leaves: one call's tallies, and
    ownership summed over calls.

    Args:
        size: board size (points per side).
        amaf: keep first-play tallies.

    Attributes (arrays are live, read-only views: the next call overwrites them):
        n, black_wins, draws: the last call's playouts, Black's wins, draws.
        hist: ``int64[2*size*size+1]``, the last call's Black-minus-White area
            scores + size*size.
        amaf: ``int32[2, 3, size*size]``, the last call's first plays and
            Black's wins among them, by colour code (zeros without ``amaf``).
        own_black, own_white: ``int64[size*size]``, playouts since the last
            :meth:`clear_ownership` in which the point counted for that colour.
        own_won: with ``criticality``, ``int64[size*size]``, those playouts
            in which the point's owner won the game (a draw counts for
            neither colour); else ``None``.
        own_n, own_black_wins, own_draws: those playouts, Black's wins and
            the draws among them (ints).
        last_moves: ``int64[m]``, the moves of the last playout played into
            this tally, in order (flat indices, -1 a pass; its first
            ``SEQ_CAP`` = 1024; empty before the first), a copy.

    ``criticality``: keep ``own_won`` too (Coulom's criticality,
    :mod:`fastplay.search.criticality`, needs it; it costs a pass over the
    points per playout, so it is off unless asked for).

    One thread at a time: :meth:`PlayoutEngine.run_into` raises
    ``RuntimeError`` for a tally another thread is filling.  Raises
    ``ValueError`` for a size outside 2..25, ``TypeError`` for a flag that
    is not a bool (``"no"`` would be true).
    """
    cdef _Worker w
    cdef readonly int size
    cdef readonly bint amaf_enabled
    cdef readonly object n
    cdef readonly bint busy      # run_into is filling it

    def __cinit__(self, size, amaf=True, criticality=False):
        for name, flag in (("amaf", amaf), ("criticality", criticality)):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"{name} must be a bool, not {type(flag).__name__}")
        check_size(size)
        self.w = _Worker(size, True, False)
        self.size = size
        self.amaf_enabled = amaf
        self.n = 0
        if criticality:
            self.w.acc.own_won = <int64_t*>calloc(self.w.npts, sizeof(int64_t))
            if self.w.acc.own_won == NULL:
                raise MemoryError()

    @property
    def black_wins(self):
        return self.w.acc.black_wins

    @property
    def draws(self):
        return self.w.acc.draws

    @property
    def hist(self):
        return _read_only(self.w.hist)

    @property
    def amaf(self):
        # Read-only before the reshape: a view of a writable array could be
        # made writable again.
        return _read_only(self.w.amaf).reshape(2, 3, self.size * self.size)

    @property
    def own_black(self):
        return _read_only(self.w.own_black)

    @property
    def own_white(self):
        return _read_only(self.w.own_white)

    @property
    def own_won(self):
        if self.w.acc.own_won == NULL:
            return None
        return _read_only(_view(self.w, self.w.acc.own_won, 1, self.w.npts, cnp.NPY_INT64))

    @property
    def own_n(self):
        return self.w.acc.own_n

    @property
    def own_black_wins(self):
        return self.w.acc.own_black_wins

    @property
    def own_draws(self):
        return self.w.acc.own_draws

    @property
    def last_moves(self):
        cdef int i, W = self.w.s.b.W, size = self.size
        out = np.empty(self.w.s.nseq, dtype=np.int64)
        cdef int64_t[::1] o = out
        for i in range(self.w.s.nseq):
            o[i] = flat_move(self.w.s.seq[i], W, size)
        return out

    def clear_ownership(self):
        """Zero the ownership tallies (``own_*``) and their counts."""
        if self.busy:
            raise RuntimeError("this PlayoutTally is in use by another thread")
        self.w._clear_ownership()


def _read_only(array):
    """``array`` (a fresh view of the core's memory, whose base is no numpy
    array, so that it cannot be made writable again) made read-only: a
    tally's counts change only by its calls."""
    array.flags.writeable = False
    return array


# Argument bounds of PlayoutEngine.run: far beyond any real use, and inside
# the C types the core counts with.
MAX_PLAYOUTS = 2 ** 53
MAX_THREADS = 1024
MAX_FIRST = 2 ** 62
# Idle workers kept per (board size, amaf) between calls: one per search
# thread of a tree search (each calls run() with one worker); a worker holds a
# whole playout state (about 9 MiB on 25x25).
MAX_IDLE_WORKERS = 4
MAX_MOVES = 1_000_000


def _flat_table(t, g):
    """Both movers' value bits of every 3x3 code, 2 bits per code (``uint8[16384]``).

    For a light, near-free table the value of a move is ``T[G[code] << 8]``
    for White and ``T[G[swapped code] << 8]`` for Black (ctx_index with the
    property byte and the near bit 0).
    """
    codes = np.arange(65536, dtype=np.uint32)
    swapped = ((codes & 0x5555) << 1) | ((codes & 0xAAAA) >> 1)
    white = (t[g[codes].astype(np.int64), 0] != 0).astype(np.uint8)
    black = (t[g[swapped].astype(np.int64), 0] != 0).astype(np.uint8)
    both = (white | (black << 1)).reshape(16384, 4)
    return np.ascontiguousarray(both[:, 0] | (both[:, 1] << 2) | (both[:, 2] << 4)
                                | (both[:, 3] << 6), dtype=np.uint8)


cdef class PlayoutEngine:
    """Runs pattern-driven playouts for one compiled pattern table.

    ``table``: ``uint32[1108, 256]`` value table; ``geometry``: ``uint16[65536]``
    neighbourhood code to geometry class (spec 5.1).  Use
    :func:`fastplay.playouts`, which builds the engine from a
    :class:`fastplay.PatternDatabase`.

    Read-only attributes, the fast paths the table allows: ``light`` (values
    ignore every property bit, so contexts need no capture or self-atari
    analysis), ``near_free`` (values never depend on the near bit, so draws
    skip the near set) and ``update_bound`` (1 when both hold: the update
    set takes liberties of strings in atari only; else 2, GNU Go's spec 6.3)
    and ``flat`` (light, near-free and every value 0 or 1, as ``mc_uniform``:
    playouts keep a candidate bitset per colour and draw the r-th set bit).
    """


    def __init__(self, table, geometry):
        t = np.ascontiguousarray(table, dtype=np.uint32)
        g = np.ascontiguousarray(geometry, dtype=np.uint16)
        if t.shape != (1108, 256):
            raise ValueError(f"pattern table must have shape (1108, 256), not {t.shape}")
        if g.shape != (65536,):
            raise ValueError(f"geometry table must have shape (65536,), not {g.shape}")
        if int(g.max()) > 1107:
            raise ValueError("geometry table holds a class number above 1107")
        self._table = t
        self._geometry = g
        # Values that depend on the geometry and the near bit only need no
        # capture or self-atari analysis in the playouts.
        self.light = bool((t == t[:, [0, 1] * 128]).all())
        self.near_free = bool((t[:, 0::2] == t[:, 1::2]).all())
        # Geometry-and-suicide values without a near bonus need the update
        # set only where geometry or an atari status changed: liberties of
        # strings in atari, not of every string with two liberties.
        self.update_bound = 1 if self.light and self.near_free else 2
        # Light, near-free and 0/1-valued: playouts keep candidate bitsets
        # (see update_flat) with each 3x3 code's two value bits in 16 KB.
        self.flat = bool(self.light and self.near_free and (t <= 1).all())
        self._fv = _flat_table(t, g) if self.flat else np.zeros(16384, dtype=np.uint8)
        cdef const uint32_t[:, ::1] tv = t
        cdef const uint16_t[::1] gv = g
        self.T = &tv[0, 0]
        self.G = &gv[0]
        cdef const uint8_t[::1] fvv = self._fv
        self.FV = &fvv[0]
        self._key_cache = (None, 0)
        self._idle = {}
        self._templates = {}

    def move_values(self, CoreBoard board not None):
        """The side to move's weight of every point: ``uint32[size*size]``.

        What :meth:`fastplay.PatternDatabase.move_values` returns with its
        defaults (the board's near flags; 0 on stones, on the mover's suicide
        points and on a ko point forbidden to the mover), computed in one pass
        over the board instead of decoding every context with numpy: a tree
        search asks for it at every new node.
        """
        out = np.zeros(board.st.size * board.st.size, dtype=np.uint32)
        cdef cnp.uint32_t[::1] o = out
        self.values_into(board, &o[0])
        return out

    cdef int values_into(self, CoreBoard board, uint32_t* out) except -1:
        if self.T == NULL:
            # __new__ without __init__ (or a subclass's __init__ that skipped it)
            raise TypeError("the PlayoutEngine was not initialised with a table")
        cdef int size = board.st.size, i, r, col, p, c = board.mover()
        cdef uint32_t ctx
        cdef uint8_t nv[MAX_SIZE_C * MAX_SIZE_C]
        board.near_flags(nv)
        for r in range(size):
            for col in range(size):
                i = r * size + col
                p = (r + 1) * board.st.W + col + 1
                out[i] = 0
                if board.st.color[p] == EMPTY_C:
                    ctx = point_ctx(&board.st, p)
                    if not ctx_suicide(ctx, c):
                        out[i] = self.T[ctx_index(self.G, ctx, c) | nv[i]]
        cdef int ko = board.ko_index
        if ko >= 0 and board.ko_forbidden_for(c):
            out[ko] = 0
        return 0

    def run(self, CoreBoard board not None, n, seed, threads=1, *, max_moves=None,
            komi=None, tromp_taylor=False, amaf=False, debug_check=False, want_final=False,
            near_first=False, first=0):
        """Play ``n`` playouts from ``board`` (unchanged) and return integer tallies.

        Returns a dict: ``n``, ``black_wins``, ``draws``, ``sum_length`` (moves,
        passes included), ``capped`` (playouts that reached the move cap),
        ``hist`` (``int64[2*size*size+1]``, Black-minus-White area score + size*size),
        ``own_black`` / ``own_white`` (``int64[size*size]``, playouts in which
        the point counted for that colour), and with ``amaf`` the first-play
        tallies ``amaf_count`` / ``amaf_black_win`` (``int64[3, size*size]``,
        row = colour code), also stacked as ``amaf`` (``int64[2, 3,
        size*size]``, the two are views of it).

        The playouts are numbered ``first .. first + n - 1`` and playout ``i``
        uses its own random stream derived from ``(seed, i)``; all tallies
        are integer sums, so the result is the same for every ``threads``,
        and a batch split at any ``first`` sums to the whole.  GNU Go starts
        every playout with an empty near set (spec 6.9); ``near_first=True``
        instead lets the first draw see the near set of the board's last
        move.  ``max_moves``: the move cap: once more than ``max_moves``
        moves have been played every move is a forced pass (spec 6.8;
        ``None``: :func:`default_max_moves` of the board's size).  Raises
        ``ValueError``/``TypeError`` for bad arguments, ``RuntimeError``
        when ``debug_check`` finds the incremental state wrong,
        ``KeyboardInterrupt`` promptly on Ctrl-C (once every thread of the
        call has stopped).
        """
        if max_moves is None:
            max_moves = playout_cap(board.st.size)
        key = self._check_run(n, seed, threads, max_moves, first)
        cdef double k = run_komi(board, komi)
        holder = self._template(board, near_first)
        try:
            return self._run((<_Template>holder).s, board.mover(), key, int(first), int(n),
                             int(threads), int(max_moves), k, bool(tromp_taylor), bool(amaf),
                             bool(debug_check), bool(want_final))
        finally:
            # Every thread of the call has stopped here (see _collect).
            self._release(holder)

    def run_into(self, PlayoutTally tally not None, CoreBoard board not None, n, seed, *,
                 first=0, komi=None, tromp_taylor=False):
        """Play ``n`` playouts from ``board`` in the calling thread into ``tally``.

        The same playouts as :meth:`run` with ``threads=1``, the default ``max_moves``
        and ``amaf=tally.amaf_enabled``, without building a result: a tree
        search makes one call per simulation, and ``run``'s dict of fresh
        arrays cost a third of a 9x9 playout.  Afterwards ``tally`` holds this
        call's ``n``, ``black_wins``, ``draws``, ``hist`` and ``amaf``, and its
        ``own_black`` / ``own_white`` have grown by this call's (they add up
        over calls until :meth:`PlayoutTally.clear_ownership`).  After an
        interrupted call ``n`` counts the playouts that completed (whole
        chunks of 32) and the tallies are theirs.  The GIL is
        released while playouts run.  Raises as :meth:`run`, and
        ``ValueError`` when ``tally`` was made for another board size.
        """
        cdef uint64_t key = self._check_run(n, seed, 1, playout_cap(board.st.size), first)
        cdef TallyCounts counts
        self.run_tally(tally, board, n, key, first, run_komi(board, komi), tromp_taylor,
                       &counts)

    cdef int run_tally(self, object tally_obj, CoreBoard board, int64_t n, uint64_t key,
                       int64_t first, double komi, bint tt, TallyCounts* out,
                       bint release=False) except -1:
        """run_into on checked ``n``, ``key``, ``first`` and ``komi`` (the tree
        search's compiled loop calls it once per simulation)."""
        if not isinstance(tally_obj, PlayoutTally):
            raise TypeError(f"expected a PlayoutTally, not {type(tally_obj).__name__}")
        cdef PlayoutTally tally = <PlayoutTally>tally_obj
        if tally.size != board.st.size:
            raise ValueError(f"the tally is for {tally.size}x{tally.size}, the board is "
                             f"{board.st.size}x{board.st.size}")
        cdef _Worker w = tally.w
        cdef int64_t a = first, end = first + n, b
        cdef int err = DBG_OK
        cdef volatile int stop = 0
        cdef bint amaf = tally.amaf_enabled
        # One playout with AMAF: its first plays are read from the state
        # (out.first), not added up (the tree's one-playout simulations).
        cdef bint one = n == 1 and amaf and not w.exposed
        cdef int start = board.mover(), cap = playout_cap(board.st.size)
        if tally.busy:
            # Two threads on one tally would play on the same state.
            raise RuntimeError("this PlayoutTally is in use by another thread")
        tally.busy = True
        holder = None
        cdef PState* tmpl
        try:
            w.reset(False)
            if n == 1:
                # One playout (a simulation of one playout a leaf, the 9x9
                # default): the worker's own state is made ready and played in
                # place (playout_moves), not a template copied into it.
                self._prepare(w.s, board, False, release)
                tmpl = w.s
            else:
                holder = self._template(board, False, release)
                tmpl = (<_Template>holder).s
            while a < end:
                # Chunks, so that Ctrl-C is seen within a few milliseconds.
                b = min(end, a + 32)
                with nogil:
                    if release:
                        # The template's contexts where the GIL is let go
                        # anyway: one hand-over of the GIL a call, not two
                        # (each costs a search's other threads a wake-up).
                        pstate_init(tmpl, self.T, self.G)
                        release = False
                    err = run_playouts_range(w.s, tmpl, self.T, self.G, start, key, a, b, cap,
                                             komi, tt, amaf, not one, False, &w.acc, w.owner_p,
                                             NULL, &stop)
                if err != DBG_OK:
                    raise RuntimeError("playout check failed: " + _DEBUG_TEXT[err])
                a = b
                PyErr_CheckSignals()
        finally:
            if holder is not None:
                self._release(holder)
            tally.busy = False
            tally.n = a - first     # the playouts played, all of them unless interrupted
            w.single = one and a > first
            if amaf and not one:
                w.amaf_zero = False
        out.n = a - first
        out.black_wins = w.acc.black_wins
        out.draws = w.acc.draws
        out.amaf = w.acc.amaf_count if amaf and not one else NULL
        out.first = w.s.first if one else NULL
        out.W = w.s.b.W
        out.hist = w.acc.hist
        out.seq = w.s.seq
        out.nseq = w.s.nseq if out.n > 0 else 0
        out.last_score = <int>(w.acc.last_bin - board.st.size * board.st.size)
        return 0

    cdef uint64_t _check_run(self, n, seed, threads, max_moves, first) except? 0:
        """Check run's integer arguments; the key of ``seed``."""
        for name, val in (("n", n), ("threads", threads), ("max_moves", max_moves),
                          ("first", first)):
            if isinstance(val, bool) or not isinstance(val, (int, np.integer)):
                raise TypeError(f"{name} must be an integer, not {type(val).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an integer, not {type(seed).__name__}")
        if not 0 <= n <= MAX_PLAYOUTS:
            raise ValueError(f"n must be between 0 and {MAX_PLAYOUTS}, not {shown_value(n)}")
        if not 1 <= threads <= MAX_THREADS:
            raise ValueError(f"threads must be between 1 and {MAX_THREADS}, "
                             f"not {shown_value(threads)}")
        if not 0 <= max_moves <= MAX_MOVES:
            raise ValueError(f"max_moves must be between 0 and {MAX_MOVES}, "
                             f"not {shown_value(max_moves)}")
        if seed < 0:
            raise ValueError(f"seed must be >= 0, not {shown_value(seed)}")
        if not 0 <= first <= MAX_FIRST:
            raise ValueError(f"first must be between 0 and {MAX_FIRST}, not {shown_value(first)}")
        cached_seed, cached_key = self._key_cache
        if seed != cached_seed or type(seed) is not type(cached_seed):
            cached_key = seed_key(seed)
            self._key_cache = (seed, cached_key)
        return cached_key

    cdef int prepare(self, PState* tmpl, CoreBoard board, bint near_first) except -1:
        """Make ``tmpl`` (from pstate_new(board size)) the template of a playout from ``board``:
        its position, this engine's fast paths, every context and value (pstate_init)."""
        return self._prepare(tmpl, board, near_first, False)

    cdef int _prepare(self, PState* tmpl, CoreBoard board, bint near_first,
                      bint defer) except -1:
        """prepare; with ``defer`` (and no ``near_first``) all but the
        contexts and values, which the caller then computes with
        ``pstate_init(tmpl, self.T, self.G)`` where it lets the GIL go."""
        if tmpl == NULL or tmpl.b.size != board.st.size:
            raise ValueError("the template state must be allocated for the board's size")
        board_copy(&tmpl.b, &board.st)
        tmpl.ctxf = point_ctx_light if self.light else point_ctx
        tmpl.near_free = self.near_free
        tmpl.flat = self.flat
        tmpl.fv = self.FV
        tmpl.q.lim = self.update_bound
        if defer and not near_first:
            return 0
        pstate_init(tmpl, self.T, self.G)
        if near_first:
            near = board.near_mask()
            for i in np.flatnonzero(near):
                q_add(&tmpl.q, board.pad(int(i)))
        return 0

    cdef object _template(self, CoreBoard board, bint near_first, bint defer=False):
        """A template state for ``board`` from the pool: zeroing a fresh one
        (about 70 KB) cost a tenth of a 9x9 playout, and a tree search makes
        one call per simulation.  pstate_init sets every field a playout reads."""
        pool = self._templates.setdefault(board.st.size, [])
        try:
            holder = pool.pop()     # atomic under the GIL: never shared
        except IndexError:
            holder = _Template(board.st.size)
        self._prepare((<_Template>holder).s, board, near_first, defer)
        return holder

    cdef void _release(self, holder):
        pool = self._templates.setdefault((<_Template>holder).s.b.size, [])
        if len(pool) < MAX_IDLE_WORKERS:
            pool.append(holder)

    cdef dict _run(self, PState* tmpl, int start, uint64_t key, int64_t first, int64_t n,
                   int threads, int max_moves, double komi, bint tt, bint amaf, bint debug,
                   bint want_final):
        cdef int size = tmpl.b.size
        cdef _Batch batch = _Batch()
        batch.eng = self
        batch.tmpl = tmpl
        batch.start = start
        batch.key = key
        batch.next_index = first
        batch.end = first + n
        batch.chunk = 8 if size >= 13 else 32
        batch.max_moves = max_moves
        batch.komi = komi
        batch.tt = tt
        batch.amaf = amaf
        batch.debug = debug
        chunks = (n + batch.chunk - 1) // batch.chunk
        count = min(threads, max(1, chunks))
        idle = None if want_final else self._idle.setdefault((size, amaf), [])
        workers = []
        while len(workers) < count:
            # list.pop is atomic under the GIL: concurrent calls never share a worker.
            try:
                workers.append(idle.pop() if idle else _Worker(size, amaf, want_final))
            except IndexError:
                workers.append(_Worker(size, amaf, want_final))
        out = self._collect(batch, workers, size, amaf, want_final, n)
        # Back to the pool only after a call that completed: every thread of
        # it has finished (an interrupted or failed call drops its workers).
        if idle is not None:
            for w in workers:
                if len(idle) < MAX_IDLE_WORKERS:
                    (<_Worker>w).reset()
                    idle.append(w)
        return out

    cdef dict _collect(self, object batch_obj, list workers, int size, bint amaf,
                       bint want_final, int64_t n):
        cdef _Batch batch = batch_obj
        if len(workers) == 1:
            # In the calling thread, checking for Ctrl-C between chunks.
            batch.work(workers[0], True)
        else:
            # fastplay._threads.run_all: Workers whose ends are waited for
            # without Thread.join (python/cpython#90882), and on a Ctrl-C the
            # batch stops and every started thread is waited for: the
            # template and the workers must outlive every thread that uses
            # them.  A thread that has not begun to run when the stop flag
            # is set returns at once.
            run_all([partial(_work_in_thread, batch, w) for w in workers],
                    "fastplay-playouts", partial(_stop_batch, batch))
        for w in workers:
            if (<_Worker>w).error:
                raise RuntimeError("playout debug check failed: "
                                   + _DEBUG_TEXT[(<_Worker>w).error])
        npts = size * size
        out = {
            "n": int(n),
            "black_wins": sum(int((<_Worker>w).acc.black_wins) for w in workers),
            "draws": sum(int((<_Worker>w).acc.draws) for w in workers),
            "sum_length": sum(int((<_Worker>w).acc.sum_len) for w in workers),
            "capped": sum(int((<_Worker>w).acc.capped) for w in workers),
        }
        names = ["hist", "own_black", "own_white"]
        if amaf:
            names.append("amaf")
        for name in names:
            out[name] = _total(workers, name)
        if amaf:
            pairs = out["amaf"] = out["amaf"].reshape(2, 3, npts)
            out["amaf_count"] = pairs[0]
            out["amaf_black_win"] = pairs[1]
        if want_final:
            out["final"] = (<_Worker>workers[0]).final.copy()
        return out


def _work_in_thread(_Batch batch, _Worker w):
    batch.work(w, False)


def _stop_batch(_Batch batch):
    batch.stop = 1


cdef object _total(list workers, str name):
    """The workers' tallies ``name`` summed as int64.  With one worker (a
    search's small batches) a cast instead of ``np.sum`` over a list, which
    cost a few microseconds per array and call."""
    arrays = [getattr(<_Worker>w, name) for w in workers]
    if len(arrays) == 1:
        return arrays[0].astype(np.int64)
    return np.sum(arrays, axis=0, dtype=np.int64)


cdef class _Batch:
    """One call of :meth:`PlayoutEngine.run`: work is handed out in chunks of playout indices."""

    cdef PlayoutEngine eng
    cdef PState* tmpl
    cdef int start, max_moves
    cdef uint64_t key
    cdef int64_t end, chunk, next_index
    cdef double komi
    cdef bint tt, amaf, debug
    cdef volatile int stop

    def work(self, _Worker w, bint check_signals):
        """Play chunks of the batch's playouts with ``w`` until none is left;
        ``check_signals``: the calling thread's work, which looks for Ctrl-C
        between chunks.  A chunk is claimed by an atomic addition, so that
        the threads of a batch never take the GIL until their work is done."""
        cdef int64_t a = 0, b
        cdef int err = DBG_OK
        cdef PState* tmpl = self.tmpl
        cdef const uint32_t* T = self.eng.T
        cdef const uint16_t* G = self.eng.G
        if self.amaf:
            w.amaf_zero = False
        while not self.stop:
            with nogil:
                while not self.stop:
                    a = fp_claim(&self.next_index, self.chunk)
                    if a >= self.end:
                        break
                    b = min(self.end, a + self.chunk)
                    err = run_playouts_range(w.s, tmpl, T, G, self.start, self.key, a, b,
                                             self.max_moves, self.komi, self.tt, self.amaf,
                                             self.amaf, self.debug, &w.acc, w.owner_p,
                                             w.final_p, &self.stop)
                    if err != DBG_OK or check_signals:
                        break
            if err != DBG_OK:
                w.error = err
                self.stop = 1
                return
            if a >= self.end or not check_signals:
                return
            PyErr_CheckSignals()


cdef extern from *:
    """
    static inline int64_t fp_claim(int64_t* next, int64_t chunk) {
        return __atomic_fetch_add(next, chunk, __ATOMIC_RELAXED);
    }
    """
    # The first index of the next chunk of a batch, claimed by any thread.
    int64_t fp_claim(int64_t* next, int64_t chunk) nogil


cdef extern from "Python.h":
    int PyErr_CheckSignals() except -1


def rng_stream(key, index, n):
    """The first ``n`` outputs (``uint64[n]``) of playout ``index``'s random stream
    for the 64-bit ``key`` that :meth:`PlayoutEngine.run` derives from a seed.

    For tests and for anyone checking the generator: xoshiro256** seeded
    with SplitMix64 from ``key ^ index * 0xD1B54A32D192ED03``.
    """
    if not 0 <= key < 2 ** 64 or not 0 <= index < 2 ** 64 or not 0 <= n <= 10 ** 8:
        raise ValueError("key and index must fit in 64 bits, n in 0..10**8")
    out = np.empty(n, dtype=np.uint64)
    cdef cnp.uint64_t[:] o = out
    cdef uint64_t s[4]
    cdef Py_ssize_t i
    rng_seed(s, <uint64_t>key, <uint64_t>index)
    for i in range(n):
        o[i] = rng_next(s)
    return out


def seed_key(seed):
    """The 64-bit stream key of a user seed (numpy ``SeedSequence(seed)``, first word)."""
    return int(SeedSequence(int(seed)).generate_state(1, np.uint64)[0])


NUM_CELLS = 1108 * 256


def default_max_moves(size):
    """The move cap of a playout on a ``size`` x ``size`` board when none is
    given: GNU Go's 600 up to 19x19 (the sizes GNU Go plays; its playouts
    end there, spec 6.8), ``2 * size * size`` beyond (600 cut most 23x23
    and every 25x25 playout; they average about 1.2 moves a point).  After
    more than that many moves every move is a forced pass.  Raises as
    ``Board(size)``: ``TypeError`` for a non-integer, ``ValueError`` for a
    size outside 2..25."""
    check_size(size)
    return playout_cap(size)


def policy_gradient(PlayoutEngine engine not None, CoreBoard board not None, n, seed, *,
                    komi=None, max_moves=None):
    """Playouts with their score functions, for simulation balancing.

    Plays playouts ``0 .. n-1`` of ``seed`` from ``board`` exactly as
    ``engine.run`` does (the same moves), and returns a dict: ``n``,
    ``wins`` (Black's wins, draws counted 1/2, GNU Go's scoring), ``zh`` and
    ``h`` (``float64[1108 * 256]``): the sums over playouts of ``z * h`` and
    of ``h``, where ``z`` is the playout's outcome for Black (1, 1/2, 0) and
    ``h[cell]`` the derivative of the playout's log-probability by the log
    of the table value of ``cell`` (both colours' moves: they share the
    table).  ``(zh - mean(z) h) / n`` estimates the gradient of Black's
    expected outcome by the log values (Silver and Tesauro, ICML 2009).

    Raises:
        ValueError: a flat engine (``mc_uniform``-like tables: nothing to
            differentiate), or bad arguments as for ``run``.
    """
    if engine.flat:
        raise ValueError("a flat table (every value 0 or 1, near-free) has no gradient here")
    if max_moves is None:
        max_moves = playout_cap(board.st.size)
    cdef uint64_t key = engine._check_run(n, seed, 1, max_moves, 0)
    cdef double k = run_komi(board, komi)
    cdef int size = board.st.size, moves, start = board.mover(), j
    cdef int mm = max_moves
    cdef int64_t i, count = n
    cdef double z, wins = 0.0
    zh = np.zeros(NUM_CELLS, np.float64)
    hs = np.zeros(NUM_CELLS, np.float64)
    cdef double[::1] zv = zh
    cdef double[::1] hv = hs
    cdef cnp.int8_t owner[MAX_SIZE_C * MAX_SIZE_C]
    cdef PolicyGrad g
    cdef PState* tmpl = pstate_new(size)
    cdef PState* work = pstate_new(size)
    g.h = <double*>calloc(NUM_CELLS, sizeof(double))
    g.mark = <uint8_t*>calloc(NUM_CELLS, 1)
    g.touched = <uint32_t*>malloc(NUM_CELLS * sizeof(uint32_t))
    g.ntouched = 0
    try:
        if tmpl == NULL or work == NULL or g.h == NULL or g.mark == NULL or g.touched == NULL:
            raise MemoryError()
        engine.prepare(tmpl, board, False)
        with nogil:
            for i in range(count):
                playout_moves(work, tmpl, engine.T, engine.G, start, key, <uint64_t>i,
                              mm, False, False, &moves, &g)
                z = playout_score(work, False, owner) - k
                z = 1.0 if z > 0 else (0.5 if z == 0 else 0.0)
                wins += z
                for j in range(g.ntouched):
                    zv[g.touched[j]] += z * g.h[g.touched[j]]
                    hv[g.touched[j]] += g.h[g.touched[j]]
                    g.h[g.touched[j]] = 0.0
                    g.mark[g.touched[j]] = 0
                g.ntouched = 0
    finally:
        pstate_free(tmpl)
        pstate_free(work)
        free(g.h)
        free(g.mark)
        free(g.touched)
    return {"n": int(count), "wins": wins, "zh": zh, "h": hs}
