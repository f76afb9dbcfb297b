# The playout engine: the declared C interface of fastplay._playout.
#
# Embedding (see examples/cython_embedding): the PlayoutEngine of a
# PatternDatabase (``fastplay.montecarlo.playout_engine(db)``), a template with
# ``tmpl = pstate_new(size)`` and ``engine.prepare(tmpl, board, False)``, a
# work state with ``pstate_new(size)``, then, without the GIL,
# ``playout_one(work, tmpl, engine.T, engine.G, board.mover(), key, i, playout_cap(size),
# komi, False, &outcome)`` for i = 0, 1, ...; ``key = fastplay.montecarlo.seed_key(seed)`` makes
# playout i the same as index i of ``fastplay.playouts(board, db, n, seed)``.
from libc.stdint cimport uint8_t, int16_t, int32_t, uint32_t, uint16_t, int64_t, uint64_t
cimport numpy as cnp

from fastplay._rules cimport BoardState, QSet, ctx_func, MAX_PTS, MAX_Q, MAX_WORDS
from fastplay._board cimport CoreBoard


# Per playout state: a board, every empty point's local context, and for each
# colour its candidate set (empty, not suicide) with far values kept under
# partition sums (fastplay/_playout.pyx explains the layout).
# Included by _core.pyx: the playout engine (spec mc-patterns.md section 6).
#
# Per playout state: a board, every empty point's local context, and for each
# colour its candidate set (empty, not suicide) with far values kept under
# partition sums: 64-bit sums over blocks of 2**bshift consecutive points.
# A value change costs two additions; a draw scans the block sums, then one
# block.  With blocks of about sqrt(points) that beats a Fenwick tree for
# every board up to 25x25, where changes outnumber draws several times.
#
# After a move only the update set Q of the move is recomputed (spec 6.3).
# The same Q is the "near" set of the next draw (6.4): near points and the
# forbidden ko point get their weight for that draw only; the sums keep far
# values (see pstate_draw).
#
# Much of the code is written without data-dependent branches (masks,
# unconditional stores): in a playout, which neighbour is empty or in atari
# is as good as random, and cachegrind's branch simulation showed
# mispredictions, not instruction counts, deciding the time per move.


cdef enum:
    SEQ_CAP = 1024                     # moves of a playout PState.seq keeps


cdef struct PState:
    BoardState b
    QSet q
    ctx_func ctxf                      # point_ctx, or point_ctx_light when the table allows
    int bshift                         # log2 of the block size
    int nblocks
    uint32_t ctx[MAX_PTS]
    uint32_t idx[3][MAX_PTS]           # table index per mover colour, near bit clear
    uint32_t val[3][MAX_PTS]           # far value in the tree (0 if not a candidate)
    uint8_t cand[3][MAX_PTS]           # empty and not suicide for that colour
    uint64_t blk[3][MAX_PTS]           # partition sums of val[c]
    uint64_t hole[MAX_PTS]             # per block, far mass a draw leaves out (0 between draws)
    uint64_t total[3]
    uint64_t rng[4]                    # xoshiro256** state
    bint near_free                     # the table's values never depend on the near bit
    # Flat tables (light, near-free, every value 0 or 1: mc_uniform) keep
    # only a candidate bitset per colour and its count (total); val, cand,
    # idx, blk and ctx are not kept during a playout (see update_flat).
    bint flat
    const uint8_t* fv                  # [16384]: 2 bits per 3x3 code, value for White / Black
    uint64_t bits[3][MAX_WORDS]
    # The next draw's plan (see plan_point): points whose weight differs from
    # their far value for that one draw, and the mass they add and take away.
    int nd
    int dp[MAX_Q + 1]
    uint64_t dw[MAX_Q + 1]
    uint64_t dfar[MAX_Q + 1]
    uint64_t near_mass
    uint64_t far_mass
    uint8_t first[MAX_PTS]             # AMAF: colour of the first play on each point
    # The string heads of the position (set by pstate_init): only their
    # liberty bitsets are copied into a playout (see pstate_copy).
    int nheads
    int16_t heads[MAX_PTS]
    # The last playout's moves in order (padded points, 0 a pass), its first
    # SEQ_CAP of them (nseq): for the search's last-good-reply table.  Never
    # copied from a template.
    int nseq
    int16_t seq[SEQ_CAP]


cdef struct Accum:
    int64_t black_wins
    int64_t draws
    int64_t sum_len
    int64_t capped
    int64_t* hist            # [2 * size * size + 1], index score + size * size
    int64_t last_bin         # the hist index the last playout added to
    int64_t* own_black       # [size * size]; 64 bits: a PlayoutTally sums them over calls
    int64_t* own_white
    int64_t* own_won         # [size * size] or NULL: playouts the point's owner won
    int64_t own_n            # playouts added to the ownership tallies, and
    int64_t own_black_wins   # Black's wins and the draws among them
    int64_t own_draws
    int32_t* amaf_count      # [3 * size * size], first plays by colour
    int32_t* amaf_black_win  # [3 * size * size], of which Black won


# A playout's score function for policy-gradient tuning (simulation balancing):
# h[cell] = sum over the playout's drawn moves of [cell = the move's cell] - pi(cell),
# the derivative of the log-probability of the playout by the log of each table
# value.  ``touched`` lists the ``ntouched`` cells with ``mark`` set (h nonzero).
cdef struct PolicyGrad:
    double* h                # [1108 * 256]
    uint8_t* mark            # [1108 * 256]
    uint32_t* touched        # [1108 * 256]
    int ntouched


# One PlayoutEngine.run_tally call's counts; ``amaf`` and ``hist`` point into the
# tally's memory (valid until its next call): ``int32[2, 3, size*size]`` as
# PlayoutTally.amaf (first plays, then Black's wins among them, by colour
# code), or NULL when the tally keeps no first-play tallies.
cdef struct TallyCounts:
    int64_t n                  # playouts played (all of them unless interrupted)
    int64_t black_wins
    int64_t draws
    const int32_t* amaf
    const uint8_t* first       # or, for one playout: its first plays (PState.first, padded)
    int W                      # ... whose row stride this is
    const int64_t* hist        # [2 * size * size + 1]: Black-minus-White areas + size * size
    const int16_t* seq         # the last playout's moves (PState.seq: padded points, 0 a pass)
    int nseq                   # ... how many (at most SEQ_CAP; 0 when none was played)
    int last_score             # the last playout's Black-minus-White area (no komi)


# One playout's result.
cdef struct PlayoutOutcome:
    double score               # Black minus White minus komi (points)
    int winner                 # BLACK_C, WHITE_C, or EMPTY_C for a draw
    int length                 # moves, passes included
    bint capped                # the move cap ended it


cdef class PlayoutEngine:
    cdef object _table
    cdef object _geometry
    cdef const uint32_t* T
    cdef const uint16_t* G
    cdef const uint8_t* FV             # _fv's data: the flat table's value bits (prepare)
    cdef readonly bint light
    cdef readonly bint near_free
    cdef readonly int update_bound
    cdef readonly bint flat
    cdef object _fv
    # (seed, key) of the last call: a search calls run() thousands of times
    # with one seed, and SeedSequence costs about 4.5 us, a third of a call's
    # fixed cost.  One tuple, so that threads never see a seed with another's key.
    cdef object _key_cache
    # Idle workers by (size, amaf), reused across calls (allocating one and
    # its seven numpy arrays cost a few microseconds per call).
    cdef dict _idle
    cdef dict _templates

    # Fill ``tmpl`` (pstate_new(board size)) as the template of playouts from ``board``.
    cdef int prepare(self, PState* tmpl, CoreBoard board, bint near_first) except -1
    # move_values into ``out`` (``size*size`` entries, flat order), without numpy.
    cdef int values_into(self, CoreBoard board, uint32_t* out) except -1
    # PlayoutEngine.run_into on checked arguments (``key`` from _check_run, ``komi``
    # from run_komi): ``n`` playouts from ``board`` into ``tally`` (a PlayoutTally of the
    # board's size, else TypeError / ValueError), the GIL released while they run;
    # ``out`` gets the call's counts.  RuntimeError when another thread fills ``tally``.
    # ``release``: the template's contexts are computed with the GIL let go,
    # in the same section as the playouts.
    cdef int run_tally(self, object tally, CoreBoard board, int64_t n, uint64_t key,
                       int64_t first, double komi, bint tt, TallyCounts* out,
                       bint release=*) except -1
    cdef uint64_t _check_run(self, n, seed, threads, max_moves, first) except? 0
    cdef int _prepare(self, PState* tmpl, CoreBoard board, bint near_first,
                      bint defer) except -1
    cdef object _template(self, CoreBoard board, bint near_first, bint defer=*)
    cdef void _release(self, holder)
    cdef dict _run(self, PState* tmpl, int start, uint64_t key, int64_t first, int64_t n,
                   int threads, int max_moves, double komi, bint tt, bint amaf, bint debug,
                   bint want_final)
    cdef dict _collect(self, object batch_obj, list workers, int size, bint amaf,
                       bint want_final, int64_t n)


# The komi of a run: ``komi`` (a real number within +-fastplay._board.MAX_KOMI,
# else TypeError / ValueError) or, when it is None, the board's.
cdef double run_komi(CoreBoard board, komi) except? -1.0


# The move cap of a playout on a board of ``size`` when none is given: GNU Go's 600
# (its playouts end there, spec 6.8) on the sizes GNU Go plays, up to 19x19; twice the
# points beyond, where 600 cut most playouts (23x23: about 1.17 moves a point on
# average: RESULTS.md, "Playouts on boards beyond 19x19").
cdef inline int playout_cap(int size) noexcept nogil:
    return 600 if size <= 19 else 2 * size * size

# A zeroed playout state with a board of ``size`` (NULL when out of memory or when
# size is outside 2..25); pstate_free frees it.
cdef PState* pstate_new(int size) noexcept nogil
cdef void pstate_free(PState* s) noexcept nogil
# Play playout ``index`` of stream ``key`` from template ``tmpl`` in ``s``, ``start_color``
# first, at most ``max_moves`` moves before forced passes (``playout_cap``), scored by GNU Go's
# playout rule (spec 6.8) or Tromp-Taylor.  ``s`` keeps the final position.  Returns 0, or
# -1 without playing when ``s`` and ``tmpl`` are of different sizes (or NULL), ``tmpl`` was
# never prepared, ``T`` or ``G`` is NULL, the colour is not WHITE_C/BLACK_C or
# max_moves < 0.  ``tmpl`` points into its engine's tables: the PlayoutEngine that
# prepared it must outlive it (and T, G must be that engine's).
cdef int playout_one(PState* s, const PState* tmpl, const uint32_t* T, const uint16_t* G,
                     int start_color, uint64_t key, uint64_t index, int max_moves,
                     double komi, bint tromp_taylor, PlayoutOutcome* out) noexcept nogil
# The raw loop under fastplay.playouts: playouts i0..i1-1 accumulated into ``acc``.
cdef int run_playouts_range(PState* s, const PState* tmpl, const uint32_t* T, const uint16_t* G,
                            int start_color, uint64_t key, int64_t i0, int64_t i1,
                            int max_moves, double komi, bint tromp_taylor, bint amaf,
                            bint amaf_tally, bint debug, Accum* acc, cnp.int8_t* owner,
                            cnp.int8_t* final_stones, volatile int* stop) noexcept nogil
