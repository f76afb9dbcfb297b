"""The search tree's arithmetic, for ``fastplay.search``.

fastplay.mcts decides what the search does (which moves a node gets, their
priors, when to expand, what a playout is worth); this section only keeps
its statistics and runs its three inner loops, which at one playout per
leaf cost more than the playout itself when written with numpy: a numpy
call on a 40-element row costs about a microsecond, and a simulation made
some forty of them.

- ``TreeNode``: one position's edges; its statistics and priors, kept
  compactly (issue 21: slots for the few moves that have some), which
  Python sees as numpy rows and C reads through raw pointers.
- ``TreeNode.select``: the PUCT/UCT argmax, its values computed from the
  statistics at each selection (vectorised over a node's moves, or for
  the few a widened node considers).
- ``tree_descend``: selection down the tree, playing on a board and checking
  legality and positional superko, until a leaf, a game end or an edge
  due for expansion (which Python performs).
- ``tree_backup``: a result added along the path, AMAF tallies included.
- ``tree_simulate``: whole simulations (descent, playouts, back-up) of a
  one-thread search, until one needs Python (a node to make, a game end).
- ``expansion_moves``: a new node's candidates (no true eye of the mover)
  and raw pattern weights; ``prior_node``: the node with its priors and
  tactical virtual playouts.

The formulas, and their sources, are in fastplay/mcts.py's docstring.  The
operations are done in the order the numpy version did them: searches gave
the same trees, with statistics equal but for the last bits of sums done
in another order (the pass's mean first-play tally, the prior's
normaliser; within 1e-12).
"""

from libc.stdint cimport uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, free, calloc, realloc
from libc.string cimport memcpy, memmove, memset
from libc.math cimport sqrt, log, pow, INFINITY
from libc.float cimport FLT_MAX

import numpy as np
cimport numpy as cnp

from fastplay._rules cimport *
from fastplay._board cimport CoreBoard, check_size
from fastplay._tactics cimport TAC_BAD, TAC_NONE, tactics_codes
from fastplay._arrays cimport _view
from fastplay._playout cimport PlayoutEngine, TallyCounts, run_komi
from fastplay._playout import MAX_FIRST
from fastplay._rng cimport splitmix64

cnp.import_array()


import collections.abc
import operator
import sys
from time import perf_counter

# A node's values (Q*, RAVE-blended, and the PUCT scores built on them), in C
# with restrict pointers: the rows are parts of one block, which kept gcc
# from vectorising a Cython loop.  No FMA is contracted (the baseline ISA has
# none), so each value is the same to the bit as the scalar arithmetic's,
# fp_value's, whichever is used.  Without prior virtual playouts or without
# RAVE the caller passes _ZERO_ROW for those rows: adding 0 and multiplying
# by 1 (0 / rave_equiv + 1) leave every value exactly as the formula without
# those terms gives it (the statistics are >= 0).  The values are computed
# where selection needs them, not cached in the node (issue 21: three rows a
# move fewer).
cdef extern from *:
    """
    static inline double fp_value(int j, const double* n, const double* w,
                                  const double* pn, const double* pw, const float* rn,
                                  const float* rw, double inv_equiv, double e0, double e1) {
        double dn = n[j] + pn[j];
        double dw = w[j] + pw[j];
        double t = rn[j] * inv_equiv;
        t += 1.0;
        dn = dn * t;
        dw = dw * t;
        dn += rn[j];
        dw += rw[j];
        dn += e0;
        dw += e1;
        return dw / dn;
    }
    static void fp_values(int k, const double* __restrict n, const double* __restrict w,
                          const double* __restrict pn, const double* __restrict pw,
                          const float* __restrict rn, const float* __restrict rw,
                          double* __restrict q, double inv_equiv, double e0, double e1) {
        for (int j = 0; j < k; j++)
            q[j] = fp_value(j, n, w, pn, pw, rn, rw, inv_equiv, e0, e1);
    }
    /* A PUCT score: u c + q with u = prior / (1 + n) (the order of the
       arithmetic the cached rows had: the same bits). */
    static inline double fp_score(int j, const double* n, const double* w,
                                  const double* pn, const double* pw, const float* rn,
                                  const float* rw, const float* prior, double inv_equiv,
                                  double e0, double e1, double c) {
        double u = prior[j] / (1.0 + n[j]);
        double score = u * c;
        score += fp_value(j, n, w, pn, pw, rn, rw, inv_equiv, e0, e1);
        return score;
    }
    static void fp_scores(int k, const double* __restrict n, const double* __restrict w,
                          const double* __restrict pn, const double* __restrict pw,
                          const float* __restrict rn, const float* __restrict rw,
                          const float* __restrict prior, double* __restrict out,
                          double inv_equiv, double e0, double e1, double c) {
        for (int j = 0; j < k; j++)
            out[j] = fp_score(j, n, w, pn, pw, rn, rw, prior, inv_equiv, e0, e1, c);
    }
    """
    double fp_value(int j, const double* n, const double* w, const double* pn,
                    const double* pw, const float* rn, const float* rw, double inv_equiv,
                    double e0, double e1) noexcept nogil
    void fp_values(int k, const double* n, const double* w, const double* pn,
                   const double* pw, const float* rn, const float* rw, double* q,
                   double inv_equiv, double e0, double e1) noexcept nogil
    double fp_score(int j, const double* n, const double* w, const double* pn,
                    const double* pw, const float* rn, const float* rw, const float* prior,
                    double inv_equiv, double e0, double e1, double c) noexcept nogil
    void fp_scores(int k, const double* n, const double* w, const double* pn,
                   const double* pw, const float* rn, const float* rw, const float* prior,
                   double* out, double inv_equiv, double e0, double e1, double c) noexcept nogil


# Zeros for the rows the values leave out (a node has at most one move a point
# and the pass); a static array, zero from the start.
cdef double _ZERO_ROW[MAX_SIZE_C * MAX_SIZE_C + 1]
# The same for the float32 rows: two, as the AMAF rows come (amaf_rows).
cdef enum:
    AMAF_ROWS_MAX = 2 * (MAX_SIZE_C * MAX_SIZE_C + 1)
cdef float _ZERO_ROW_F[AMAF_ROWS_MAX]


# The least double that rounds to inf as float32 (FLT_MAX plus half its
# unit in the last place: the tie goes to the even inf); below it, to a float.
cdef double FLOAT32_OVER = 3.4028235677973366e38


# A move with neither visits nor RAVE tallies takes the first-play urgency
# value through weights this small: far below the rounding of any real count.
cdef double TREE_EPS = 1e-300

# tree_descend's answers.
cdef enum:
    D_LEAF = 0        # evaluate the last position by playouts
    D_END = 1         # two passes ended the game inside the tree
    D_EXPAND = 2      # the last edge is due for a node: expand, then descend on
    D_STOP = 3        # a node with no move left: evaluate it, counted in its base
DESCEND_LEAF = D_LEAF
DESCEND_END = D_END
DESCEND_EXPAND = D_EXPAND
DESCEND_STOP = D_STOP

# tree_simulate's answers.
SIMULATE_DONE = 0     # the simulations asked for ran, or a limit came first
SIMULATE_PYTHON = 1   # the next simulation needs Python: a node to make, or a game end


cdef class TreeParams:
    """The selection constants of one search (see :class:`fastplay.mcts.MCTS`).

    Args:
        puct: PUCT (True) or UCT (False).
        rave: blend in the AMAF values.
        virtual: nodes carry prior knowledge as virtual playouts (``pn``, ``pw``).
        c_puct, c_uct: exploration constants.
        fpu_reduction: first-play urgency reduction (win-rate units).
        rave_equiv: playouts at which a move's value and its RAVE value weigh
            the same (> 0).
        widen_base, widen_visits, widen_factor: progressive widening
            (Chaslot et al., "Progressive strategies for Monte-Carlo tree
            search", 2008: "progressive unpruning"): a node
            whose edges hold ``N`` playouts (virtual loss included) selects
            only among its ``widen_base`` allowed moves of highest prior,
            one more each time ``N`` reaches ``widen_visits *
            widen_factor ** t`` (t = 0, 1, ...); ``widen_base`` 0: every
            move (the default).  Ties of prior go in move order, unless
            ``widen_ties``: then the moves of the same prior as the last
            one a node may select are selectable with it.

    Raises ``ValueError`` for constants that are not finite, a negative
    exploration constant, ``fpu_reduction`` outside [-1, 1],
    ``rave_equiv`` outside [1e-3, 1e12] (the bounds of
    :class:`fastplay.mcts.MCTS`), ``widen_base`` outside [0, 10**6],
    ``widen_visits`` outside [1, 1e12] or ``widen_factor`` outside (1, 100].
    """
    cdef readonly bint puct, rave, virtual
    cdef readonly double c_puct, c_uct, fpu_reduction, rave_equiv
    cdef readonly int widen_base
    cdef readonly double widen_visits, widen_factor
    cdef readonly bint widen_ties
    cdef double inv_equiv
    # The widening's thresholds widen_visits * widen_factor ** t, one per
    # move a node can gain (inf past double range).
    cdef double widen_at[MAX_SIZE_C * MAX_SIZE_C + 1]
    cdef bint ready

    def __init__(self, bint puct, bint rave, bint virtual, double c_puct, double c_uct,
                 double fpu_reduction, double rave_equiv, widen_base=0, widen_visits=40.0,
                 widen_factor=1.4, widen_ties=False):
        if not (0.0 <= c_puct < INFINITY and 0.0 <= c_uct < INFINITY
                and -1.0 <= fpu_reduction <= 1.0 and 1e-3 <= rave_equiv <= 1e12):
            raise ValueError("c_puct and c_uct must be finite and >= 0, fpu_reduction in "
                             "[-1, 1], rave_equiv in [1e-3, 1e12]")
        self.widen_base = _widen_base(widen_base)
        self.widen_visits = _real_in("widen_visits", widen_visits, 1.0, 1e12, "[1, 1e12]")
        self.widen_factor = _real_in("widen_factor", widen_factor, 1.0, 100.0, "(1, 100]")
        if self.widen_factor == 1.0:
            raise ValueError(f"widen_factor must be a number in (1, 100], not {widen_factor!r}")
        cdef int t
        for t in range(MAX_SIZE_C * MAX_SIZE_C + 1):
            self.widen_at[t] = self.widen_visits * pow(self.widen_factor, t)
        if not isinstance(widen_ties, (bool, np.bool_)):
            raise ValueError(f"widen_ties must be True or False, not {widen_ties!r}")
        self.widen_ties = widen_ties
        self.puct = puct
        self.rave = rave
        self.virtual = virtual
        self.c_puct = c_puct
        self.c_uct = c_uct
        self.fpu_reduction = fpu_reduction
        self.rave_equiv = rave_equiv
        self.inv_equiv = 1.0 / rave_equiv
        self.ready = True

    cdef int _check_ready(self) except -1:
        if not self.ready:
            raise RuntimeError("the TreeParams was not initialised")
        return 0


def _widen_base(value):
    """``widen_base`` checked: an integer (not a bool: :func:`_integer`) in
    [0, 1000000], ``ValueError`` otherwise."""
    try:
        number = _integer(value, "widen_base")
    except TypeError:
        raise ValueError(f"widen_base must be an integer in [0, 1000000], "
                         f"not {value!r}") from None
    if not 0 <= number <= 1000000:
        raise ValueError(f"widen_base must be an integer in [0, 1000000], not {number}")
    return number


def _real_in(name, value, double low, double high, bounds):
    """``value`` as a float in [``low``, ``high``] (``bounds`` as the message
    gives them), not a bool; else ``ValueError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a number in {bounds}, not {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number in {bounds}, not {value!r}") from None
    if not low <= number <= high:
        raise ValueError(f"{name} must be a number in {bounds}, not {value!r}")
    return number


# A node's rows.  ``prior`` is in one block made with the node (``float32``,
# with the allowed bits and the moves: TreeNode's fields).  ``n`` and ``w``
# are kept for the moves a back-up has reached only, ``pn`` and ``pw`` for
# the moves prior playouts were given to, in slots: two sets of pairs of
# doubles (a 9x9 node of 79 moves has some 4 moves reached and 4 given
# prior playouts, on average, seldom the same: issue 21), until Python asks
# for one of the rows: then they become four dense rows (``D``) for good.
# ``rn`` and ``rw`` (``float32``) are kept as pairs of floats for the moves
# with first-play tallies only, with a bitset of those moves: a widened
# node's back-ups add to its first ``width`` + 8 moves by prior only
# (amaf_plan), so most of a 9x9 tree's nodes keep some 24 of their 76
# (issue 21); a node not widened, or Python asking for the rows, makes
# them two dense rows (``AM``) for good.  Two more rows are made when first written (issue 21:
# most nodes never need them): ``vl`` at a descent's first virtual loss,
# and ``wins`` when a back-up's plain wins first differ from its value
# (until then ``wins`` equals ``w`` to the bit: the same additions from
# zero).  A row not made reads as zeros (``_ZERO_ROW``).
cdef enum:
    ROW_RN = 0      # the AMAF rows (AM, dense: ROW_RN * k + j): first plays,
    ROW_RW = 1      # of which won by the node's colour
    SLOT_N = 0      # a slot's (and the dense block's) statistics, in this order:
    SLOT_W = 1      # playouts, their value,
    SLOT_PN = 2     # prior knowledge as virtual playouts,
    SLOT_PW = 3     # and of which won
    SLOT_STATS = 4
    SET_NW = 0      # the slot sets: ``n`` and ``w`` (SLOT_N >> 1),
    SET_PK = 1      # ``pn`` and ``pw`` (SLOT_PN >> 1)
    SLOT_PAIR = 2   # the doubles of a slot
    LAZY_VL = 0     # virtual loss, in playouts
    LAZY_WINS = 1   # plain wins of the node's colour (draws 1/2), for reports
    TREE_ROWS = 8   # the rows of ``stats``
    DATA_ROWS = 9   # and of ``data`` (``prior`` last)


cdef class TreeNode:
    """A position in the search tree: its moves and per-move statistics.

    Statistics live on the edges, as ``float64[k]`` rows that are
    attributes: ``n`` (playouts through the move), ``w`` (their value for
    ``color``, the side to move here), ``vl`` (virtual loss in playouts),
    ``rn``/``rw`` (AMAF first plays and wins), ``pn``/``pw`` (prior
    knowledge as virtual playouts and wins), ``wins`` (plain wins, draws
    1/2) and ``prior``; ``r_moves`` is ``rn`` and ``rw`` without the pass
    (``[2, k-1]``) and ``r_pass`` their pass column.  All are writable
    views of the node's memory; ``rn``, ``rw``, ``prior`` (and ``r_*``) are
    ``float32`` (issue 21), added to in ``float64`` and rounded once (a
    relative 6e-8; counts exact up to 2**24).  A widened node's back-ups add
    first-play tallies to its first ``width`` + 8 moves by prior only
    (:func:`tree_backup`).  ``stats`` (``float64[8, k]``, the
    eight statistics rows in the order above) and ``data`` (``stats`` and
    ``prior``, ``float64[9, k]``) are new arrays, copies.  The rows ``vl``
    and ``wins`` are made when first written, or first asked for from
    Python; ``n``, ``w``, ``pn`` and ``pw`` are kept for the moves reached
    or given prior playouts only, until one of them is asked for, and
    ``rn`` and ``rw`` for the moves with first-play tallies only, until a
    back-up adds to every move or one of them is asked for (issue 21;
    ``wins`` is kept apart from ``w`` once a back-up's plain wins differ
    from its value, or ``w`` is asked for).
    ``base`` counts the playouts evaluated here before the node (they went
    to the parent edge), so ``parent.n[i] == child.base + child.n.sum()``.
    Selection computes each move's blended value Q* (:meth:`values`) and
    PUCT's ``u = prior / (1 + n)`` from these rows when it needs them;
    nothing is cached per move (a node's bytes: issue 21).  The back-up
    keeps ``sum_n`` and ``sum_w`` (the sums of ``n`` and ``w``) up to date;
    after a change of ``n`` or ``w`` made from Python, set them too.
    ``moves`` (``int64[k]``, a new read-only array at each access; kept as
    ``int16``) cannot be changed (the core indexes tallies and boards with
    it), and a node is initialised once.

    Args:
        color: colour code of the side to move (``WHITE`` 1, ``BLACK`` 2).
        moves: ``int64[k]`` flat indices of the candidate moves, distinct,
            the pass (-1) last.
        prior: ``float64[k]`` prior probabilities.
        base: playouts evaluated here before expansion.

    Raises:
        ValueError: bad colour, shapes, or moves.
    """
    # (The fields in order of size: a 176-byte object with its collector's
    # header.)
    cdef tuple _kids      # the children made, in the order made; None while there are none
    cdef int16_t* CI      # their move indices, parallel to ``_kids`` (issue 21: sparse)
    cdef double base_
    cdef public double sum_n, sum_w, sum_vl
    # One block per node (issue 21): the allowed bits, the points' bits
    # (node_bits) when the moves are in ascending order, the row ``prior``,
    # and the moves in any other order.
    cdef uint64_t* A    # allowed flags, one bit a move (ceil(k / 64) words): the block's start
    # The slot sets (SET_*): a block each of ``sets_n`` slots, a pair of
    # doubles each, then each slot's move index (int16: set_moves); a
    # move's slot is found by a scan.  Two int16 counts each: ``k`` < 2 ** 15.
    cdef double* SB[2]
    cdef double* D      # ``n``, ``w``, ``pn``, ``pw`` dense (SLOT_STATS x k): NULL until asked
    # ``rn`` and ``rw``: a bitset of the moves with a pair, then room for
    # ``amaf_cap`` pairs of floats (amaf_bits, amaf_pairs); or the dense
    # rows (ROW_* x k) once ``amaf_cap`` is AMAF_DENSE; NULL while none.
    cdef float* AM
    cdef double* VL     # the lazy rows (LAZY_*): NULL until made
    cdef double* WINS   # NULL while equal to ``w``
    cdef int16_t* R     # the first RL moves by prior, highest first (widening); NULL until needed
    cdef readonly int16_t color
    cdef readonly int16_t open
    cdef readonly int16_t k     # moves, the pass included
    cdef int16_t max_move
    cdef uint8_t listed         # the points kept as int16 (node_listed), not as bits
    cdef int16_t RL         # the moves in ``R``
    cdef int16_t nkids
    cdef int16_t sets_n[2]
    cdef int16_t amaf_n, amaf_cap

    def __init__(self, color, moves, prior, double base=0.0):
        color = _integer(color, "colour code")
        if self.k:
            # The core keeps raw pointers into the arrays of a node.
            raise RuntimeError("a TreeNode is initialised once")
        if not -INFINITY < base < INFINITY:
            raise ValueError(f"base must be finite, not {base}")
        if color != WHITE_C and color != BLACK_C:
            raise ValueError(f"colour code must be WHITE (1) or BLACK (2), not {color}")
        given = np.asarray(moves)
        if given.size == 0:         # (an empty list is float64 to numpy)
            raise ValueError("moves must end with the pass (-1), and prior must have one "
                             "value per move")
        if given.dtype.kind not in "iu":
            raise ValueError(f"moves must be integers, not {given.dtype}")
        if given.dtype.kind == "u" and given.max() > MAX_SIZE_C * MAX_SIZE_C:
            # (2**64 - 1 would wrap to the pass as int64)
            raise ValueError(f"moves must be distinct flat indices of a board, "
                             f"not {given.max()}")
        m = np.array(given, dtype=np.int64).ravel()
        cdef const double[::1] pr = np.ascontiguousarray(prior, dtype=np.float64).ravel()
        cdef int k = m.shape[0]
        cdef const int64_t[::1] mv = m
        if k < 1 or pr.shape[0] != k or mv[k - 1] != -1:
            raise ValueError("moves must end with the pass (-1), and prior must have one "
                             "value per move")
        node_fill(self, color, &mv[0], &pr[0], k, base)

    def __dealloc__(self):
        free(self.A)
        free(self.SB[SET_NW])
        free(self.SB[SET_PK])
        free(self.D)
        free(self.AM)
        free(self.CI)
        free(self.R)
        free(self.VL)
        free(self.WINS)

    cdef double* _lazy(self, int row) except NULL:
        """The lazy row ``row`` (LAZY_*), made if it is not yet: zeros, or for
        ``wins`` a copy of ``w`` (which it equals until then)."""
        cdef double** slot = &self.VL if row == LAZY_VL else &self.WINS
        if slot[0] == NULL:
            slot[0] = <double*>calloc(self.k, sizeof(double))
            if slot[0] == NULL:
                raise MemoryError()
            if row == LAZY_WINS:
                nw_gather(self, NULL, slot[0], NULL, NULL)
        return slot[0]

    cdef object _row_view(self, double* row):
        return _view(self, row, 1, self.k, cnp.NPY_DOUBLE)

    cdef object _float_view(self, float* row, int rows):
        return _view(self, row, rows, self.k, cnp.NPY_FLOAT)

    @property
    def moves(self):
        """``int64[k]``, a new read-only array: the moves' flat indices, the
        pass (-1) last."""
        self._check_ready()
        out = np.empty(self.k, dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef int16_t points[MAX_SIZE_C * MAX_SIZE_C]
        cdef int j
        node_points(self, points)
        for j in range(self.k - 1):
            o[j] = points[j]
        o[self.k - 1] = -1
        out.flags.writeable = False
        return out

    @property
    def data(self):
        """``float64[9, k]``, a new array: ``stats``, then the row ``prior``
        (a row not yet made reads as zeros; nothing is made)."""
        self._check_ready()
        cdef int k = self.k, r
        out = np.empty((DATA_ROWS, k), dtype=np.float64)
        cdef double[:, ::1] o = out
        cdef const double* rows[DATA_ROWS]
        cdef const float* narrow[DATA_ROWS]
        cdef float amaf[AMAF_ROWS_MAX]
        cdef int j
        nw_gather(self, &o[0, 0], &o[1, 0], &o[5, 0], &o[6, 0])
        rows[2] = self.VL if self.VL != NULL else _ZERO_ROW
        rows[7] = self.WINS if self.WINS != NULL else &o[1, 0]
        for r in (2, 7):
            memcpy(&o[r, 0], rows[r], k * sizeof(double))
        narrow[3] = amaf_rows(self, amaf)
        narrow[4] = narrow[3] + ROW_RW * k
        narrow[8] = node_prior(self)
        for r in (3, 4, 8):
            for j in range(k):
                o[r, j] = narrow[r][j]
        return out

    @property
    def allowed(self):
        """``bool[k]``, a new read-only array: the moves a descent may still
        take (kept as bits: :meth:`forbid` changes them)."""
        self._check_ready()
        out = np.empty(self.k, dtype=np.bool_)
        cdef uint8_t[::1] o = out.view(np.uint8)
        cdef int j
        for j in range(self.k):
            o[j] = node_allowed(self, j)
        out.flags.writeable = False
        return out

    cdef int _check_ready(self) except -1:
        if not self.k:
            raise RuntimeError("the TreeNode was not initialised")
        return 0

    @property
    def stats(self):
        """``float64[8, k]``, a new array: the rows ``n, w, vl, rn, rw, pn,
        pw, wins``."""
        return self.data[:TREE_ROWS]

    @property
    def n(self):
        self._check_ready()
        return self._row_view(nw_dense(self))

    @property
    def w(self):
        # A write to ``w`` from Python must not reach ``wins``.
        self._check_ready()
        self._lazy(LAZY_WINS)
        return self._row_view(nw_dense(self) + SLOT_W * self.k)

    @property
    def vl(self):
        self._check_ready()
        return self._row_view(self._lazy(LAZY_VL))

    @property
    def rn(self):
        self._check_ready()
        return self._float_view(amaf_dense(self) + ROW_RN * self.k, 1)

    @property
    def rw(self):
        self._check_ready()
        return self._float_view(amaf_dense(self) + ROW_RW * self.k, 1)

    @property
    def pn(self):
        self._check_ready()
        return self._row_view(nw_dense(self) + SLOT_PN * self.k)

    @property
    def pw(self):
        self._check_ready()
        return self._row_view(nw_dense(self) + SLOT_PW * self.k)

    @property
    def wins(self):
        self._check_ready()
        return self._row_view(self._lazy(LAZY_WINS))

    @property
    def r_moves(self):
        self._check_ready()
        return self._float_view(amaf_dense(self) + ROW_RN * self.k, 2)[:, :self.k - 1]

    @property
    def r_pass(self):
        self._check_ready()
        return self._float_view(amaf_dense(self) + ROW_RN * self.k, 2)[:, self.k - 1]

    def values(self, TreeParams params not None):
        """``float64[k]``, a new array: each move's blended value Q* under
        ``params`` as selection compares it (fastplay/mcts.py's formula:
        the win rate with the prior's virtual playouts, blended with the
        first-play value under RAVE; the first-play urgency value for a move
        with no data), -inf for a move a descent may no longer take."""
        self._check_ready()
        params._check_ready()
        out = np.empty(self.k, dtype=np.float64)
        cdef double[::1] q = out
        cdef double e0, e1
        cdef const float* rn
        cdef const float* rw
        cdef float amaf[AMAF_ROWS_MAX]
        node_value_terms(self, params, &e0, &e1, &rn, &rw, amaf)
        cdef int k = self.k
        cdef double n[MAX_SIZE_C * MAX_SIZE_C + 1]
        cdef double w[MAX_SIZE_C * MAX_SIZE_C + 1]
        cdef double pn[MAX_SIZE_C * MAX_SIZE_C + 1]
        cdef double pw[MAX_SIZE_C * MAX_SIZE_C + 1]
        nw_gather(self, n, w, pn, pw)
        if not params.virtual:
            memset(pn, 0, k * sizeof(double))
            memset(pw, 0, k * sizeof(double))
        fp_values(k, n, w, pn, pw, rn, rw, &q[0], params.inv_equiv, e0, e1)
        out[~self.allowed] = -np.inf
        return out

    @property
    def u(self):
        """``float64[k]``, a new array: ``prior / (1 + n)``, PUCT's exploration factor."""
        return self.prior / (1.0 + self.n)

    @property
    def block(self):
        """``float64[k]``, a new array: 0, or -inf for a move a descent may no longer take."""
        return np.where(self.allowed, 0.0, -np.inf)

    @property
    def prior(self):
        self._check_ready()
        return self._float_view(node_prior(self), 1)

    @property
    def points(self):
        """``int64[k-1]``, a new read-only array: the non-pass moves."""
        return self.moves[:self.k - 1]

    @property
    def nbytes(self):
        """Bytes of memory the node holds besides its Python object (176
        bytes with its garbage collector's header): its rows (``rn``, ``rw``
        and ``prior`` ``float32``, the others ``float64``: the lazy ones once
        made; ``n`` and ``w``, ``pn`` and ``pw`` as slots (pairs) with their
        move's index, ``rn`` and ``rw`` as pairs with a bitset of their
        moves, or dense), its moves (a bitset of
        the board's points when they are in ascending order, else
        ``int16``), allowed bits and widening order (as far as it was
        taken), and its record of the children made (not the children);
        not the allocator's own bytes (some 8 to 24 a block)."""
        return node_nbytes(self)

    @property
    def base(self):
        """Playouts evaluated here before the node was made (finite)."""
        return self.base_

    @base.setter
    def base(self, value):
        if isinstance(value, (bool, np.bool_)):
            raise TypeError("base must be a number of playouts, not a bool")
        cdef double v = value
        if not -INFINITY < v < INFINITY:
            raise ValueError(f"base must be finite, not {v}")
        self.base_ = v

    @base.deleter
    def base(self):
        raise AttributeError("a node's base cannot be deleted")

    @property
    def visits(self):
        """Playouts through this position (``base`` plus its edges')."""
        self._check_ready()
        out = np.empty(self.k, dtype=np.float64)
        cdef double[::1] o = out
        nw_gather(self, &o[0], NULL, NULL, NULL)
        return self.base_ + float(out.sum())

    @property
    def children(self):
        """The child slots, one per move (a :class:`ChildSlots`, a new view
        at each access): ``children[i]`` is move ``i``'s child
        :class:`TreeNode` or ``None``, and may be assigned either.  Only the
        children made take memory (issue 21)."""
        return ChildSlots(self)

    def child(self, i):
        """The child of move ``i`` (a negative ``i`` counts from the end), or
        ``None``.  Raises ``IndexError`` out of range, ``TypeError`` for an
        index that is not an integer."""
        return kid_get(self, self._py_index(i))

    def set_child(self, i, child):
        """Make ``child`` (a :class:`TreeNode`, or ``None`` to drop it) the
        child of move ``i``.  Raises ``TypeError`` for anything else,
        ``ValueError`` for a node of this node's colour (the child's side to
        move is the other one), and as :meth:`child` for a bad index."""
        kid_set(self, self._py_index(i), child)

    def count(self):
        """Nodes in this subtree.  Raises as :meth:`extent`."""
        return self.extent()[0]

    def extent(self):
        """``(nodes, edges)`` of this subtree: its nodes and their moves
        (``k`` summed).  Raises ``ValueError`` if it is not a tree (a node
        reached twice)."""
        return kid_extent(self)

    def __reduce__(self):
        raise TypeError("a TreeNode cannot be pickled or copied (its rows are the search's "
                        "memory); results and snapshots can")

    def edge(self, i):
        """``(move, n, vl)`` of move ``i``: its flat index (-1: the pass), the
        playouts through it and its pending virtual loss, read without numpy
        (a new node's maker asks for them); a negative ``i`` counts from the
        end.  Raises ``IndexError`` out of range, ``TypeError`` for an index
        that is not an integer."""
        self._check_ready()
        cdef int j = self._py_index(i)
        return <int64_t>node_move(self, j), node_n(self, j), \
            self.VL[j] if self.VL != NULL else 0.0

    def forbid(self, i):
        """Never select move ``i`` again (illegal, superko, or no pass in the
        opening); a negative ``i`` counts from the end, as in numpy."""
        self._check_ready()
        self._forbid(self._py_index(i))

    cdef int _py_index(self, i) except -1:
        """A Python index (``operator.index``: no floats) checked against the
        moves, with any magnitude (``IndexError``, not ``OverflowError``)."""
        j = operator.index(i)
        if j < 0:
            j += self.k
        if not 0 <= j < self.k:
            raise IndexError(f"move index out of range for a node of {self.k} moves")
        return j

    cdef void _forbid(self, int i) noexcept:
        if node_allowed(self, i):
            self.open -= 1
        self.A[i >> 6] &= ~((<uint64_t>1) << (i & 63))

    def refresh(self, TreeParams params not None):
        """Retake the widening order from ``prior`` (:meth:`reorder`) after a
        change made from Python (``params``: checked); the values are
        computed at each selection."""
        params._check_ready()
        self.reorder()

    def reorder(self):
        """Retake the progressive widening's order of the moves (highest
        prior first, ties in move order) from ``prior``: call it after
        writing ``prior`` from Python.  The order is otherwise taken at the
        node's first widened selection, as far as that selection reads it
        (issue 21), and taken anew and further, from ``prior`` as it is
        then, when a later selection reads past it: priors written without
        this call take effect there."""
        self._check_ready()
        free(self.R)
        self.R, self.RL = NULL, 0

    def select(self, TreeParams params not None):
        """Index of the move to descend into: the PUCT or UCT argmax over the
        allowed moves (first on ties), or -1 when none is allowed.

        Without pending virtual loss, PUCT's score is ``u c + Q*``
        (:meth:`values`, ``u`` = ``prior / (1 + n)``); otherwise (threads,
        UCT) the formulas are evaluated in full, virtual loss counting as
        lost playouts.
        """
        self._check_ready()
        params._check_ready()
        return node_select(self, params)


# A node's memory: made (node_fill, node_block) and counted (node_nbytes).

cdef int node_fill(TreeNode self, int color, const int64_t* mv, const double* pr, int k,
                   double base) except -1:
    """Initialise ``self`` (``TreeNode.__init__``'s work after its argument
    checks; ``k`` >= 1 moves, the pass last): checks the priors and the
    moves."""
    cdef uint8_t seen[MAX_SIZE_C * MAX_SIZE_C]
    cdef int j
    for j in range(k):
        if not 0.0 <= pr[j] < FLOAT32_OVER:      # kept as float32
            raise ValueError(f"priors must be >= 0 and finite as float32 (at most "
                             f"{FLT_MAX:.8g}), not {pr[j]}")
    memset(seen, 0, sizeof(seen))
    self.max_move = -1
    for j in range(k - 1):
        if not 0 <= mv[j] < MAX_SIZE_C * MAX_SIZE_C or seen[mv[j]]:
            raise ValueError(f"moves must be distinct flat indices of a board, "
                             f"not {mv[j]}")
        seen[mv[j]] = 1
        self.max_move = max(self.max_move, mv[j])
    node_block(self, mv, k)
    self.color = color
    self.k = k
    self.open = k
    self.base_ = base
    self.sum_n = self.sum_w = self.sum_vl = 0.0
    cdef float* prior = node_prior(self)
    for j in range(k):
        prior[j] = <float>pr[j]
    return 0


cdef int node_block(TreeNode self, const int64_t* mv, int k) except -1:
    """The node's block: its allowed bits (all set), the points of ``mv``
    (``k - 1`` checked points, then the pass), the row ``prior`` (zeros).  The
    statistics, the moves and the allowed flags in memory of the node's
    own: numpy sees the rows through views whose base is the node, which no
    numpy call can resize or free; the moves are never shown writable (the
    core indexes tallies and boards with them).  The points in ascending
    order (the search's nodes) are kept as a bitset of the board's flat
    indices (issue 21: 16 bytes on 9x9 for 160), in any other as int16."""
    cdef bint ascending = True
    cdef int j
    for j in range(k - 2):
        ascending = ascending and mv[j] < mv[j + 1]
    cdef int words = (k + 63) >> 6
    cdef int point_words = point_bit_words(self.max_move) if ascending else 0
    self.A = <uint64_t*>calloc(1, (words + point_words) * sizeof(uint64_t)
                               + k * sizeof(float)
                               + (0 if ascending else (k - 1) * sizeof(int16_t)))
    if self.A == NULL:
        raise MemoryError()
    self.listed = not ascending
    cdef int16_t* listed = <int16_t*>(<float*>(self.A + words + point_words) + k)
    for j in range(k):
        self.A[j >> 6] |= (<uint64_t>1) << (j & 63)
    for j in range(k - 1):
        if ascending:
            self.A[words + (mv[j] >> 6)] |= (<uint64_t>1) << (mv[j] & 63)
        else:
            listed[j] = <int16_t>mv[j]
    return 0


cdef int64_t node_nbytes(TreeNode self):
    """``TreeNode.nbytes`` (0 for a node not initialised)."""
    if self.k == 0:
        return 0
    cdef int64_t k = self.k, rows = (self.VL != NULL) \
        + (self.WINS != NULL) + SLOT_STATS * (self.D != NULL)
    cdef int64_t total = rows * k * sizeof(double) + ((k + 63) >> 6) * sizeof(uint64_t) \
        + k * sizeof(float) + amaf_nbytes(self) \
        + ((k - 1) * sizeof(int16_t) if self.listed
           else point_bit_words(self.max_move) * sizeof(uint64_t)) \
        + (self.sets_n[SET_NW] + self.sets_n[SET_PK]) \
        * (SLOT_PAIR * sizeof(double) + sizeof(int16_t))
    if self.R != NULL:
        total += self.RL * sizeof(int16_t)
    if self._kids is not None:
        total += sys.getsizeof(self._kids) + self.nkids * sizeof(int16_t)
    return total


# A node's sparse storage: ``n``, ``w``, ``pn`` and ``pw`` in slots or dense
# rows, and the children made (TreeNode's methods and views are their
# Python face).

cdef void nw_gather(TreeNode self, double* n, double* w, double* pn, double* pw) noexcept:
    """Copy the rows ``n``, ``w``, ``pn`` and ``pw`` into the ``k`` doubles
    each of these point to (any may be NULL), dense or from the slots."""
    cdef double* out[SLOT_STATS]
    cdef const double* block
    cdef const int16_t* sm
    cdef int k = self.k, s, r
    out[SLOT_N], out[SLOT_W], out[SLOT_PN], out[SLOT_PW] = n, w, pn, pw
    for r in range(SLOT_STATS):
        if out[r] == NULL:
            continue
        if self.D != NULL:
            memcpy(out[r], self.D + r * k, k * sizeof(double))
            continue
        memset(out[r], 0, k * sizeof(double))
        block, sm = self.SB[r >> 1], set_moves(self, r >> 1)
        for s in range(self.sets_n[r >> 1]):
            out[r][sm[s]] = block[SLOT_PAIR * s + (r & 1)]


cdef double* nw_dense(TreeNode self) except NULL:
    """The dense rows ``n``, ``w``, ``pn`` and ``pw`` (SLOT_STATS x k), made
    from the slots if they are not yet (for good: numpy views may point
    into them)."""
    cdef double* dense
    cdef int k = self.k, which
    if self.D == NULL:
        dense = <double*>malloc(SLOT_STATS * k * sizeof(double))
        if dense == NULL:
            raise MemoryError()
        nw_gather(self, dense + SLOT_N * k, dense + SLOT_W * k, dense + SLOT_PN * k,
                  dense + SLOT_PW * k)
        self.D = dense
        for which in range(2):
            free(self.SB[which])
            self.SB[which] = NULL
            self.sets_n[which] = 0
    return self.D


cdef inline int16_t* set_moves(TreeNode self, int which) noexcept:
    """Each slot's move index in the set ``which``: after the slots' pairs,
    in their block."""
    return <int16_t*>(self.SB[which] + SLOT_PAIR * self.sets_n[which])


cdef inline int set_slot(TreeNode self, int which, int j) noexcept:
    """Move ``j``'s slot in the set ``which``, or -1 for none (a scan: a 9x9
    node has some 4 slots in each, and a node goes dense before they pass
    some 1.8 k in all)."""
    cdef const int16_t* sm = set_moves(self, which)
    cdef int s
    for s in range(self.sets_n[which]):
        if sm[s] == j:
            return s
    return -1


cdef inline bint node_allowed(TreeNode self, int j) noexcept:
    """Whether a descent may still take move ``j`` (0 <= j < k)."""
    return (self.A[j >> 6] >> (j & 63)) & 1


cdef inline int point_bit_words(int64_t max_move) noexcept:
    """The words of a bitset of flat indices up to ``max_move`` (-1: none)."""
    return <int>((max_move + 64) >> 6)


cdef inline float* node_prior(TreeNode self) noexcept:
    """The row ``prior`` (float32): after the allowed bits and the points'
    bits (none when ``listed``)."""
    return <float*>(self.A + ((self.k + 63) >> 6)
                    + (0 if self.listed else point_bit_words(self.max_move)))


cdef inline int16_t* node_listed(TreeNode self) noexcept:
    """The points (flat indices, in move order; the pass, last, is not
    kept) of a node whose moves are not in ascending order (``listed``):
    ``int16`` after the row ``prior``."""
    return <int16_t*>(node_prior(self) + self.k)


cdef inline const uint64_t* node_bits(TreeNode self) noexcept:
    """The points' bitset of a node whose moves are ascending (not ``listed``):
    after the allowed bits, ``point_bit_words(max_move)`` words."""
    return self.A + ((self.k + 63) >> 6)


cdef inline int node_move(TreeNode self, int j) noexcept:
    """Move ``j``'s flat index, -1 for the pass (0 <= j < k): from ``M``, or
    the ``j``-th point of the bitset (a popcount a word, then the bits of
    one word: a few dozen operations, once a descent's step)."""
    cdef const uint64_t* words
    cdef uint64_t x
    cdef int w = 0, c
    if j == self.k - 1:
        return -1
    if self.listed:
        return node_listed(self)[j]
    words = node_bits(self)
    while True:
        x = words[w]
        c = fp_popcount64(x)
        if j < c:
            break
        j -= c
        w += 1
    while j > 0:
        x &= x - 1
        j -= 1
    return (w << 6) + fp_ctz64(x)


cdef inline int node_index(TreeNode self, int point) noexcept:
    """The index of the move at ``point`` (a flat index >= 0), or -1."""
    cdef const uint64_t* words
    cdef int j, w, rank = 0
    if self.listed:
        for j in range(self.k - 1):
            if node_listed(self)[j] == point:
                return j
        return -1
    if point > self.max_move:
        return -1
    words = node_bits(self)
    w = point >> 6
    if not (words[w] >> (point & 63)) & 1:
        return -1
    for j in range(w):
        rank += fp_popcount64(words[j])
    return rank + fp_popcount64(words[w] & (((<uint64_t>1) << (point & 63)) - 1))


cdef void node_points(TreeNode self, int16_t* out) noexcept:
    """The ``k - 1`` points (flat indices, in move order) into ``out``."""
    cdef const uint64_t* words
    cdef uint64_t x
    cdef int w, j = 0
    if self.listed:
        memcpy(out, node_listed(self), (self.k - 1) * sizeof(int16_t))
        return
    words = node_bits(self)
    for w in range(point_bit_words(self.max_move)):
        x = words[w]
        while x:
            out[j] = <int16_t>((w << 6) + fp_ctz64(x))
            x &= x - 1
            j += 1


cdef int slot_room(TreeNode self, int which, int j) except -1:
    """Make room for move ``j``'s statistics of the set ``which`` (node_add
    may add to them after it): its slot, made (zeros) if it has none, or
    the dense rows once the slots would take more memory than they do.
    The sets grow a slot at a time, each block of its slots exactly (a
    node's slots are few, and most are made early: issue 21)."""
    cdef int s = self.sets_n[which], size = SLOT_PAIR * sizeof(double) + sizeof(int16_t)
    cdef double* block
    if self.D != NULL or set_slot(self, which, j) >= 0:
        return 0
    if (s + 1 + self.sets_n[1 - which]) * size >= <int>(SLOT_STATS * self.k * sizeof(double)):
        nw_dense(self)
        return 0
    block = <double*>realloc(self.SB[which], (s + 1) * size)
    if block == NULL:
        raise MemoryError()
    # The move indices follow the pairs of s + 1 slots now.
    memmove(block + SLOT_PAIR * (s + 1), block + SLOT_PAIR * s, s * sizeof(int16_t))
    self.SB[which] = block
    self.sets_n[which] = s + 1
    block[SLOT_PAIR * s] = block[SLOT_PAIR * s + 1] = 0.0
    set_moves(self, which)[s] = <int16_t>j
    return 0


# The AMAF rows ``rn`` and ``rw``: a bitset of the moves that have some
# (one bit a move, as the allowed bits) and their pairs of floats, in move
# order (a move's pair: the bits set below its own); or dense.

cdef enum:
    AMAF_DENSE = -1     # amaf_cap of dense rows


cdef inline uint64_t* amaf_bits(TreeNode self) noexcept:
    """The bitset of the moves with AMAF pairs: the block's start."""
    return <uint64_t*>self.AM


cdef inline float* amaf_pairs(TreeNode self) noexcept:
    """The pairs (rn, rw), in move order: after the bitset."""
    return <float*>(amaf_bits(self) + ((self.k + 63) >> 6))


cdef inline bint amaf_has(TreeNode self, int j) noexcept:
    """Whether move ``j`` has a pair (slots, not dense)."""
    return self.AM != NULL and (amaf_bits(self)[j >> 6] >> (j & 63)) & 1


cdef inline int amaf_slot(TreeNode self, int j) noexcept:
    """The pairs of the moves before ``j``: its pair's place (slots)."""
    cdef const uint64_t* bits = amaf_bits(self)
    cdef int w, s = 0
    for w in range(j >> 6):
        s += fp_popcount64(bits[w])
    return s + fp_popcount64(bits[j >> 6] & (((<uint64_t>1) << (j & 63)) - 1))


cdef inline void amaf_pair(TreeNode self, int j, float* out) noexcept:
    """Move ``j``'s pair (rn, rw) into ``out``, zeros without one (pairs,
    not dense)."""
    cdef const float* at
    if amaf_has(self, j):
        at = amaf_pairs(self) + 2 * amaf_slot(self, j)
        out[0], out[1] = at[0], at[1]
    else:
        out[0] = out[1] = 0.0


cdef const float* amaf_rows(TreeNode self, float* buf) noexcept:
    """The rows ``rn`` and ``rw`` (ROW_* x k floats) to read: the dense
    rows, zeros, or the pairs written out into ``buf`` (AMAF_ROWS_MAX
    floats: a widened node's few, some 600 bytes of stores on 9x9)."""
    cdef const uint64_t* bits
    cdef const float* pairs
    cdef uint64_t x
    cdef int w, j, s = 0, k = self.k
    if self.amaf_cap == AMAF_DENSE:
        return self.AM
    if self.amaf_n == 0:
        return _ZERO_ROW_F
    memset(buf, 0, 2 * k * sizeof(float))
    bits, pairs = amaf_bits(self), amaf_pairs(self)
    for w in range((k + 63) >> 6):
        x = bits[w]
        while x:
            j = (w << 6) + fp_ctz64(x)
            x &= x - 1
            buf[ROW_RN * k + j] = pairs[2 * s]
            buf[ROW_RW * k + j] = pairs[2 * s + 1]
            s += 1
    return buf


cdef float* amaf_dense(TreeNode self) except NULL:
    """The dense rows ``rn`` and ``rw``, made from the pairs if they are
    not yet (for good: numpy views may point into them)."""
    cdef float* dense
    cdef const float* rows
    if self.amaf_cap != AMAF_DENSE:
        dense = <float*>malloc(2 * self.k * sizeof(float))
        if dense == NULL:
            raise MemoryError()
        rows = amaf_rows(self, dense)
        if rows != dense:
            memcpy(dense, rows, 2 * self.k * sizeof(float))
        free(self.AM)
        self.AM, self.amaf_n, self.amaf_cap = dense, 0, AMAF_DENSE
    return self.AM


cdef int amaf_room(TreeNode self, int more) except -1:
    """Room for ``more`` new AMAF pairs (amaf_add may make them after it),
    or the dense rows once the pairs and their bitset would take as much
    memory.  The pairs grow to what is asked (a back-up asks for its width
    + 8 moves' at once, and the width grows rarely: at playouts in
    geometric steps)."""
    cdef int cap = self.amaf_n + more, words = (self.k + 63) >> 6
    cdef float* block
    if self.amaf_cap == AMAF_DENSE or cap <= self.amaf_cap:
        return 0
    if (words * 2 + cap * 2) * sizeof(float) >= 2 * self.k * sizeof(float):
        amaf_dense(self)
        return 0
    block = <float*>realloc(self.AM, words * sizeof(uint64_t) + cap * 2 * sizeof(float))
    if block == NULL:
        raise MemoryError()
    if self.AM == NULL:
        memset(block, 0, words * sizeof(uint64_t))
    self.AM, self.amaf_cap = block, <int16_t>cap
    return 0


cdef inline void amaf_add(TreeNode self, int j, double rn, double rw) noexcept:
    """Add ``rn`` and ``rw`` to move ``j``'s AMAF rows (in ``float64``,
    rounded once; its pair made if it has none: room made before, by
    amaf_room)."""
    cdef int s, k = self.k
    cdef float* at
    if self.amaf_cap == AMAF_DENSE:
        self.AM[ROW_RN * k + j] += rn
        self.AM[ROW_RW * k + j] += rw
        return
    s = amaf_slot(self, j)
    at = amaf_pairs(self) + 2 * s
    if not amaf_has(self, j):
        memmove(at + 2, at, (self.amaf_n - s) * 2 * sizeof(float))
        at[0] = at[1] = 0.0
        amaf_bits(self)[j >> 6] |= (<uint64_t>1) << (j & 63)
        self.amaf_n += 1
    at[0] += rn
    at[1] += rw


cdef int64_t amaf_nbytes(TreeNode self) noexcept:
    """The bytes of the AMAF rows: dense, or the pairs and their bitset."""
    if self.amaf_cap == AMAF_DENSE:
        return 2 * self.k * sizeof(float)
    if self.AM == NULL:
        return 0
    return ((self.k + 63) >> 6) * sizeof(uint64_t) + self.amaf_cap * 2 * sizeof(float)


cdef object kid_get(TreeNode self, int i):
    """The child of move ``i`` (0 <= i < k), or None: a scan of the
    children made (one per node on average)."""
    cdef int j
    for j in range(self.nkids):
        if self.CI[j] == i:
            return self._kids[j]
    return None


cdef int kid_set(TreeNode self, int i, object child) except -1:
    """``set_child`` on a checked index ``i``.  The record is whole before a
    child let go is released (``old``, at the return): its finaliser may run
    Python code that reads or sets this node's children (a tester's
    ``__del__`` hook left a child twice and lost another)."""
    cdef int j, last = self.nkids - 1
    cdef int16_t* grown
    cdef object old = None
    cdef tuple kids = self._kids
    if child is not None and not isinstance(child, TreeNode):
        raise TypeError(f"a child must be a TreeNode or None, not {type(child).__name__}")
    if child is not None and (<TreeNode>child).color == self.color:
        # The child is the position after this node's move: the other side
        # moves there (the back-up flips values between the two).
        raise ValueError("a child's side to move must be the other colour than its parent's")
    for j in range(self.nkids):
        if self.CI[j] == i:
            old = kids[j]
            if child is not None:
                self._kids = kids[:j] + (child,) + kids[j + 1:]
                return 0
            # Dropped: the last child takes its place.
            self._kids = None if last == 0 else (kids[:last] if j == last else
                                                 kids[:j] + (kids[last],) + kids[j + 1:last])
            self.CI[j] = self.CI[last]
            self.nkids = last
            return 0
    if child is None:
        return 0
    # The indices' block of their number (a node gets its few children
    # one by one; a dropped child's room is kept).
    grown = <int16_t*>realloc(self.CI, (self.nkids + 1) * sizeof(int16_t))
    if grown == NULL:
        raise MemoryError()
    self.CI = grown
    # A tuple of the children (issue 21: ``sys.getsizeof`` gives 64 bytes for
    # a list of one child, in two blocks, and 48 for a tuple, in one; a node
    # gets its few children one by one).
    self._kids = (child,) if kids is None else kids + (child,)
    self.CI[self.nkids] = <int16_t>i
    self.nkids += 1
    return 0


cdef tuple kid_extent(TreeNode root):
    """``TreeNode.extent``: ``(nodes, edges)`` below ``root``, or ``ValueError``
    for a node reached twice."""
    stack, seen = [root], {id(root)}
    cdef tuple kids
    cdef int64_t edges = 0
    while stack:
        node = <TreeNode?>stack.pop()
        edges += (<TreeNode>node).k
        kids = (<TreeNode>node)._kids
        if kids is None:
            continue
        for c in kids:
            if id(c) in seen:
                raise ValueError("the nodes do not form a tree: a node is reached twice")
            seen.add(id(c))
            stack.append(c)
    return len(seen), edges


cdef list kid_slots(TreeNode self):
    """Every slot as a new list of ``k`` (``None`` where no child)."""
    cdef list out = [None] * self.k
    cdef int j
    for j in range(self.nkids):
        out[self.CI[j]] = self._kids[j]
    return out


cdef class ChildSlots:
    """A node's child slots (:attr:`TreeNode.children`), a sequence of ``k``:
    slot ``i`` holds the child :class:`TreeNode` of move ``i`` or ``None``.
    Reading and assigning slots (``None`` drops a child) act on the node;
    slots cannot be added or deleted (the core pairs them with the moves),
    and assigning anything but a node or ``None`` raises ``TypeError`` (a node
    of the parent's colour ``ValueError``, as :meth:`TreeNode.set_child`).
    Iteration, slices and ``==`` (with any sequence) see a list of the slots
    as they are then."""
    cdef readonly TreeNode node

    def __cinit__(self, TreeNode node not None):
        self.node = node

    def __len__(self):
        return self.node.k

    def __getitem__(self, i):
        if isinstance(i, slice):
            return kid_slots(self.node)[i]
        return kid_get(self.node, self.node._py_index(i))

    def __setitem__(self, i, child):
        if isinstance(i, slice):
            raise TypeError("child slots are assigned one at a time")
        kid_set(self.node, self.node._py_index(i), child)

    def __delitem__(self, i):
        raise TypeError("a node's child slots cannot be deleted; assign None to drop a child")

    def __iter__(self):
        return iter(kid_slots(self.node))

    def __reversed__(self):
        return reversed(kid_slots(self.node))

    def __contains__(self, item):
        return item in kid_slots(self.node)

    def __eq__(self, other):
        if isinstance(other, ChildSlots):
            return kid_slots(self.node) == kid_slots((<ChildSlots>other).node)
        if isinstance(other, (list, tuple)):
            return kid_slots(self.node) == list(other)
        return NotImplemented

    __hash__ = None

    def index(self, item, *args):
        return kid_slots(self.node).index(item, *args)

    def count(self, item):
        return kid_slots(self.node).count(item)

    def __repr__(self):
        return f"<ChildSlots: {self.node.nkids} of {self.node.k} moves with a child>"

    def __reduce__(self):
        raise TypeError("child slots cannot be pickled or copied: they are a view of a "
                        "TreeNode; list(node.children) copies the slots")


collections.abc.Sequence.register(ChildSlots)


# Selection: the arithmetic on a node's rows, apart from the node's storage
# (TreeNode.select and TreeNode.values are its Python face).

cdef inline double node_stat(TreeNode node, int j, int r) noexcept:
    """Move ``j``'s statistic ``r`` (SLOT_*; 0 <= j < k), dense or from its
    slot, 0 without one."""
    cdef int s
    if node.D != NULL:
        return node.D[r * node.k + j]
    s = set_slot(node, r >> 1, j)
    return node.SB[r >> 1][SLOT_PAIR * s + (r & 1)] if s >= 0 else 0.0


cdef inline void slot_map(TreeNode node, int16_t* sl) noexcept:
    """Each move's slot into ``sl``, the set SET_NW's in the first ``k``
    int16 and SET_PK's in the next ``k`` (-1 for none), for the selections
    that read the statistics of many moves one by one (nothing when the
    rows are dense)."""
    cdef const int16_t* sm
    cdef int s, which, k = node.k
    if node.D != NULL:
        return
    memset(sl, 0xFF, 2 * k * sizeof(int16_t))
    for which in range(2):
        sm = set_moves(node, which)
        for s in range(node.sets_n[which]):
            sl[which * k + sm[s]] = <int16_t>s


cdef inline double mapped_stat(TreeNode node, const int16_t* sl, int j, int r) noexcept:
    """node_stat through a slot_map ``sl``."""
    cdef int s
    if node.D != NULL:
        return node.D[r * node.k + j]
    s = sl[(r >> 1) * node.k + j]
    return node.SB[r >> 1][SLOT_PAIR * s + (r & 1)] if s >= 0 else 0.0


cdef inline double node_n(TreeNode node, int j) noexcept:
    """Move ``j``'s ``n`` (0 <= j < k)."""
    return node_stat(node, j, SLOT_N)


cdef inline double node_w(TreeNode node, int j) noexcept:
    """Move ``j``'s ``w`` (0 <= j < k)."""
    return node_stat(node, j, SLOT_W)


cdef inline void node_add(TreeNode node, int j, double x, double y, int r) noexcept:
    """Add ``x`` and ``y`` to move ``j``'s statistics ``r`` and ``r + 1``
    (``SLOT_N``: ``n`` and ``w``; ``SLOT_PN``: ``pn`` and ``pw``; room made
    before: ``slot_room(node, r >> 1, j)``)."""
    cdef double* at
    if node.D != NULL:
        at = node.D + r * node.k + j
        at[0] += x
        at[node.k] += y
    else:
        at = node.SB[r >> 1] + SLOT_PAIR * set_slot(node, r >> 1, j)
        at[0] += x
        at[1] += y


cdef int node_rank(TreeNode node, int want) noexcept:
    """Take ``node.R`` anew: the first ``want`` (>= 1; at most ``k``) moves
    by prior, highest first, ties in move order, as ``node.RL`` of them
    (issue 21: the widened selections read the first few).  An insertion
    sort that keeps the first ``want``: the full sort's first ``want``;
    all ``k`` when a prior is NaN (written from Python: the sort's
    comparisons are no order then, and the full sort's result is kept).
    Returns -1 when out of memory (``R`` as it was)."""
    cdef int i, j, n = 0, k = node.k, length = want if want < k else k
    cdef float x
    cdef const float* P = node_prior(node)
    cdef int16_t* R
    for i in range(k):
        if P[i] != P[i]:
            length = k
            break
    R = <int16_t*>malloc(length * sizeof(int16_t))
    if R == NULL:
        return -1
    for i in range(k):
        x = P[i]
        if n < length:
            j = n
            n += 1
        elif P[R[length - 1]] < x:
            j = length - 1      # in; the last one out
        else:
            continue            # after the first ``length``
        while j > 0 and P[R[j - 1]] < x:
            R[j] = R[j - 1]
            j -= 1
        R[j] = <int16_t>i
    free(node.R)
    node.R, node.RL = R, length
    return 0


cdef inline int node_width(TreeNode node, TreeParams p) noexcept:
    """How many allowed moves a widened selection considers: all of
    them (``open``) without widening."""
    return node_width_at(node, p, node.sum_n + node.sum_vl)


cdef inline int node_width_at(TreeNode node, TreeParams p, double total) noexcept:
    """node_width at ``total`` playouts and virtual losses."""
    cdef int lo = 0, hi = node.open - p.widen_base, mid
    if p.widen_base <= 0 or hi <= 0:
        return node.open
    # The thresholds reached (a binary search of the increasing table),
    # at most the ``hi`` that open every move.
    while lo < hi:
        mid = (lo + hi) >> 1
        if p.widen_at[mid] <= total:
            lo = mid + 1
        else:
            hi = mid
    return p.widen_base + lo


cdef inline void node_value_terms(TreeNode node, TreeParams p, double* e0, double* e1,
                                  const float** rn, const float** rw, float* buf) noexcept:
    """The terms of fp_value and fp_score for ``node`` under ``p`` but the
    rows ``n``, ``w``, ``pn`` and ``pw`` (the node's slots or dense rows:
    the callers' own; ``pn`` and ``pw`` only with ``p.virtual``); ``buf``:
    AMAF_ROWS_MAX floats for ``rn`` and ``rw`` (amaf_rows), or NULL: then
    ``rn`` and ``rw`` are NULL for AMAF pairs (the caller reads each move's:
    amaf_pair) and the dense rows or zeros otherwise."""
    # With t = 1 + rn / rave_equiv the blend (1 - beta) Q + beta Q~ is
    # (t (w + pw) + rw) / (t (n + pn) + rn): no division by n, so an
    # unvisited move needs no special case.  The TREE_EPS weights give a
    # move with no data the first-play urgency value and leave every other
    # ratio exact (a weight of 1e-9 broke ties such as 1/2 against 2/4
    # towards the larger count and changed games).
    # The rows a term left out reads as zeros (fp_value's note).
    cdef double real = node.sum_n
    e0[0] = TREE_EPS
    e1[0] = TREE_EPS * ((node.sum_w / real if real > 0 else 0.5) - p.fpu_reduction)
    if p.rave and buf == NULL and node.amaf_cap != AMAF_DENSE and node.amaf_n:
        rn[0] = rw[0] = NULL
        return
    rn[0] = amaf_rows(node, buf) if p.rave else _ZERO_ROW_F
    rw[0] = rn[0] + ROW_RW * node.k


cdef int node_select(TreeNode node, TreeParams p) noexcept:
    """Index of the move to descend into, or -1 (``TreeNode.select``)."""
    # Progressive widening: the ``width`` allowed moves of highest prior
    # (all of them when the order cannot be made: out of memory).  The
    # order is taken as far as ``width`` and 8 more moves (forbidden moves
    # and ties may be read past ``width``), twice as far when a selection
    # reads past it.
    cdef int width = node_width(node, p), best
    cdef bint full = not p.puct or node.sum_vl
    if width < node.open and (node.R != NULL or node_rank(node, width + 8) == 0):
        while True:
            if full:
                best = _best(node, p, node.R, width, True, True)
            else:
                best = _best(node, p, node.R, width, True, False)
            if best != RANKED_OUT:
                return best
            if node_rank(node, 2 * node.RL) != 0:
                break
    if full:
        return _best(node, p, NULL, 0, False, True)
    return _best(node, p, NULL, 0, False, False)


cdef struct ScoreTerms:
    # What a selection's scores share over the moves of a node.
    double e0, e1, c                    # PUCT without virtual loss (fp_score's)
    double total, parent_q, log_total   # the formulas in full
    const float* rn
    const float* rw
    const float* prior
    const double* VL


# _best's answer when a widened selection needs more of the order than
# ``node.R`` holds.
cdef enum:
    RANKED_OUT = -2


cdef inline int _best(TreeNode node, TreeParams p, const int16_t* order, int limit,
                      const bint widened, const bint full) noexcept:
    """node_select's argmax.  Only allowed moves, and the first of them
    whatever its score: a NaN (from values set from Python) must not pick a
    forbidden move, or a descent would forbid it again for ever.
    ``widened``: the moves are visited in ``order`` (``node.RL`` of them:
    RANKED_OUT when more are needed) and the search stops
    after ``limit`` allowed ones (with ``widen_ties``, after the moves of
    the same prior as the last of them too); else every move, in move
    order.  ``full``: UCT, or PUCT with pending virtual loss (threads), the
    formulas in full (:func:`_full_score`); else PUCT's ``u c + Q*``
    (fp_scores' arithmetic) over all the moves at once (vectorised) or,
    widened, over the few considered.  (Four copies of the loop, as the
    calls inline this with constants.)"""
    cdef int r, j, seen = 0, best = -1, k = node.k
    cdef double score, top = -INFINITY
    cdef float cut = 0.0
    cdef double st[SLOT_STATS]
    cdef ScoreTerms t
    cdef double scores[MAX_SIZE_C * MAX_SIZE_C + 1]
    cdef int16_t sl[2 * (MAX_SIZE_C * MAX_SIZE_C + 1)]
    cdef float amaf[AMAF_ROWS_MAX]
    cdef float pair[2]
    cdef const float* ar
    cdef const float* aw
    slot_map(node, sl)
    t.prior = node_prior(node)
    if full:
        _full_terms(node, p, &t, amaf)
    else:
        t.c = p.c_puct * sqrt(node.sum_n + 1)
        # A widened selection reads the AMAF pairs of its few moves one by
        # one (amaf_pair), not the rows written out.
        node_value_terms(node, p, &t.e0, &t.e1, &t.rn, &t.rw, NULL if widened else amaf)
        if not widened:
            _scores(node, p, &t, scores, sl)
    for r in range(k):
        if widened and r == node.RL:
            if seen >= limit and not p.widen_ties:
                break
            return RANKED_OUT
        j = order[r] if widened else r
        if widened and seen >= limit and (not p.widen_ties or t.prior[j] != cut):
            break
        if not node_allowed(node, j):
            continue
        if full:
            score = _full_score(node, p, &t, j, sl)
        elif widened:
            # fp_score of move j on rows that start at j (the same values).
            _stats(node, p, j, st, sl)
            if t.rn == NULL:
                amaf_pair(node, j, pair)
                ar, aw = pair, pair + 1
            else:
                ar, aw = t.rn + j, t.rw + j
            score = fp_score(0, st + SLOT_N, st + SLOT_W, st + SLOT_PN, st + SLOT_PW,
                             ar, aw, t.prior + j, p.inv_equiv, t.e0, t.e1, t.c)
        else:
            score = scores[j]
        if best < 0 or score > top:
            top, best = score, j
        if widened:
            seen += 1
            if seen == limit:
                cut = t.prior[j]
    return best


cdef inline void _scores(TreeNode node, TreeParams p, const ScoreTerms* t,
                         double* scores, const int16_t* sl) noexcept:
    """fp_scores over every move of ``node``: dense rows at once; else all
    moves as if they had no slot (``n``, ``w``, ``pn``, ``pw`` zero:
    vectorised), then the moves with a slot one by one -- the same values
    to the bit (``sl``: the node's slot_map)."""
    cdef int s, j, which, k = node.k
    cdef const double* D = node.D
    cdef const double* pn = _ZERO_ROW
    cdef const double* pw = _ZERO_ROW
    cdef double st[SLOT_STATS]
    if D != NULL:
        if p.virtual:
            pn, pw = D + SLOT_PN * k, D + SLOT_PW * k
        fp_scores(k, D + SLOT_N * k, D + SLOT_W * k, pn, pw, t.rn, t.rw, t.prior, scores,
                  p.inv_equiv, t.e0, t.e1, t.c)
        return
    fp_scores(k, _ZERO_ROW, _ZERO_ROW, _ZERO_ROW, _ZERO_ROW, t.rn, t.rw, t.prior, scores,
              p.inv_equiv, t.e0, t.e1, t.c)
    # Without prior playouts (``virtual`` off) the moves with ``pn`` only
    # keep their scores of zeros; a move in both sets is scored twice alike.
    for which in range(2 if p.virtual else 1):
        for s in range(node.sets_n[which]):
            j = set_moves(node, which)[s]
            _stats(node, p, j, st, sl)
            scores[j] = fp_score(0, st + SLOT_N, st + SLOT_W, st + SLOT_PN, st + SLOT_PW,
                                 t.rn + j, t.rw + j, t.prior + j, p.inv_equiv, t.e0, t.e1,
                                 t.c)


cdef inline void _stats(TreeNode node, TreeParams p, int j, double* st,
                        const int16_t* sl) noexcept:
    """Move ``j``'s SLOT_STATS statistics into ``st`` (``pn`` and ``pw``
    zero without ``p.virtual``, as fp_value's terms take them; ``sl``: the
    node's slot_map)."""
    cdef int r
    for r in range(SLOT_STATS):
        st[r] = mapped_stat(node, sl, j, r)
    if not p.virtual:
        st[SLOT_PN] = st[SLOT_PW] = 0.0


cdef inline void _full_terms(TreeNode node, TreeParams p, ScoreTerms* t,
                             float* buf) noexcept:
    """The terms of :func:`_full_score` for ``node`` (``buf``: as
    node_value_terms's)."""
    cdef double real = node.sum_n
    t.rn = amaf_rows(node, buf) if p.rave else _ZERO_ROW_F
    t.rw = t.rn + ROW_RW * node.k
    t.total = node.sum_n + node.sum_vl
    t.log_total = log(t.total + 1)
    t.parent_q = 0.0
    t.VL = node.VL if node.VL != NULL else _ZERO_ROW
    if t.total > 0:
        t.parent_q = node.sum_w / real if real > 0 else 0.5
    t.c = p.c_puct * sqrt(t.total + 1)


cdef inline double _full_score(TreeNode node, TreeParams p, const ScoreTerms* t,
                               int j, const int16_t* sl) noexcept:
    """Move ``j``'s UCT or PUCT score, virtual loss counting as lost playouts
    (``sl``: the node's slot_map)."""
    cdef double n, nq, q, ra, beta
    n = mapped_stat(node, sl, j, SLOT_N)
    if node.sum_vl:
        n += t.VL[j]
    nq = n + mapped_stat(node, sl, j, SLOT_PN)
    if t.total > 0:
        q = (mapped_stat(node, sl, j, SLOT_W) + mapped_stat(node, sl, j, SLOT_PW)) / nq \
            if nq > 0 else t.parent_q - p.fpu_reduction
    elif p.virtual and nq > 0:
        q = mapped_stat(node, sl, j, SLOT_PW) / nq
    else:
        q = 0.5 - p.fpu_reduction
    if p.rave:
        ra = t.rn[j]
        if ra > 0:
            beta = ra / (ra + nq + ra * nq * (1.0 / p.rave_equiv))
            q += beta * (t.rw[j] / ra - q)
    if p.puct:
        return q + t.prior[j] * t.c / (1 + n)
    if n > 0:
        return q + p.c_uct * sqrt(t.log_total / n)
    return 1e6 + t.prior[j]    # unvisited moves first, in prior order


def prior_node(int color, points, raw, tactics, weight, double ladder_prior,
               double ladder_visits, double prior_power, double pass_prior, double base):
    """A new :class:`TreeNode` with its priors and tactical virtual playouts.

    Each move's weight ``raw`` is multiplied by ``ladder_prior ** (s *
    weight)``, ``s`` = -1 for a bad move, +1 for a save or a capture (the
    tactical codes), raised to ``prior_power`` and normalised to ``1 -
    pass_prior``; the pass, last, gets ``pass_prior`` (all of it when there
    is no other move).  With ``ladder_visits`` > 0 a move with a code also
    gets ``ladder_visits * weight`` virtual playouts in both its prior
    knowledge (``pn``/``pw``) and its first-play tallies (``rn``/``rw``):
    lost for a bad move, won for the others.  See fastplay.mcts for why.

    Args:
        color: colour code of the side to move.
        points: ``int64[m]`` the non-pass moves; ``raw``: ``float64[m]``
            their positive weights.
        tactics: ``int8[m]`` tactical codes (``TACTIC_*``) and ``weight``:
            ``float64[m]`` shares in [0, 1]; or both ``None``.
        base: playouts evaluated at this position before it got a node.

    Raises ``ValueError`` for arrays of different lengths, bad moves, a
    weight that is not positive and finite, a share outside [0, 1], or
    constants out of range (``pass_prior`` in (0, 1), the others finite and
    ``ladder_prior`` > 0).
    """
    if np.asarray(points).dtype.kind not in "iu":
        raise ValueError("points must be integers")
    _check_prior_constants(ladder_prior, ladder_visits, prior_power, pass_prior, base)
    cdef const int64_t[::1] pt = np.ascontiguousarray(points, dtype=np.int64)
    cdef const double[::1] rw = np.ascontiguousarray(raw, dtype=np.float64)
    cdef Py_ssize_t m = pt.shape[0], j
    cdef const cnp.int8_t[::1] tc
    cdef const double[::1] wt
    cdef bint tactical = tactics is not None
    if tactical:
        tc = np.ascontiguousarray(tactics, dtype=np.int8)
        wt = np.ascontiguousarray(weight, dtype=np.float64)
        if tc.shape[0] != m or wt.shape[0] != m:
            raise ValueError("tactics and weight must have one value per point")
    if rw.shape[0] != m:
        raise ValueError("raw must have one value per point")
    moves = np.empty(m + 1, dtype=np.int64)
    prior = np.empty(m + 1, dtype=np.float64)
    cdef int64_t[::1] mv = moves
    cdef double[::1] pr = prior
    _priors(&pt[0] if m else NULL, &rw[0] if m else NULL, &tc[0] if tactical and m else NULL,
            &wt[0] if tactical and m else NULL, m, ladder_prior, prior_power, pass_prior,
            &mv[0], &pr[0])
    cdef TreeNode node = TreeNode(color, moves, prior, base)
    if tactical and ladder_visits > 0:
        _ladder_visits(node, &tc[0] if m else NULL, &wt[0] if m else NULL, ladder_visits, m)
    return node


def inherit_amaf(TreeNode node not None, TreeNode ancestor not None, double cap,
                 TreeParams params not None):
    """Seed ``node``'s first-play (AMAF) tallies from ``ancestor``'s, the
    node two plies up where the same side moves: each move both have gets
    ``min(ancestor.rn, cap)`` first plays at the ancestor's win rate for it
    (``rw / rn``); moves the ancestor lacks, or never saw played first, get
    none.  A new node's first visits are guided
    by what the playouts said two plies up instead of first-play urgency
    alone (the search option ``ancestor_amaf``; RESULTS.md, "AMAF from
    two plies up").

    Both nodes must be of the same board size (a flat index names a
    point); their moves may come in any order.  Raises ``ValueError`` for a
    ``cap`` outside [0, 1e12] or nodes whose colours to move differ,
    ``RuntimeError`` for a node or ``params`` not initialised.
    """
    node._check_ready()
    ancestor._check_ready()
    params._check_ready()
    if not 0.0 <= cap <= 1e12:
        raise ValueError(f"cap must be in [0, 1e12], not {cap}")
    if node.color != ancestor.color:
        raise ValueError("the ancestor must have the same side to move as the node")
    _inherit(node, ancestor, cap)


cdef int _inherit(TreeNode node, TreeNode anc, double cap) except -1:
    """inherit_amaf's work: the ancestor's edge of each point through a map
    (moves in any order; each is a flat index below MAX_SIZE_C ** 2, as
    ``_fill`` checks), the two passes last.  Raises MemoryError (nothing
    changed) when the slots cannot be made."""
    cdef int16_t where[MAX_SIZE_C * MAX_SIZE_C]
    cdef int16_t points[MAX_SIZE_C * MAX_SIZE_C]
    cdef int16_t pairs[2 * (MAX_SIZE_C * MAX_SIZE_C + 1)]
    cdef float buf[AMAF_ROWS_MAX]
    cdef const float* arn = amaf_rows(anc, buf)
    cdef int k = node.k, ka = anc.k, i, j, m = 0
    cdef double take, a
    for i in range(MAX_SIZE_C * MAX_SIZE_C):
        where[i] = -1
    node_points(anc, points)
    for j in range(ka - 1):
        where[points[j]] = <int16_t>j
    node_points(node, points)
    for i in range(k):
        j = where[points[i]] if i < k - 1 else ka - 1       # the two passes last
        if j >= 0 and arn[j] > 0:
            pairs[2 * m], pairs[2 * m + 1] = <int16_t>i, <int16_t>j
            m += 1
    amaf_room(node, m)
    for i in range(m):
        j = pairs[2 * i + 1]
        a = arn[j]
        take = a if a < cap else cap
        amaf_add(node, pairs[2 * i], take, take * (arn[ROW_RW * ka + j] / a))
    return 0


cdef int _priors(const int64_t* pt, const double* rw, const cnp.int8_t* tc, const double* wt,
                 Py_ssize_t m, double ladder_prior, double prior_power, double pass_prior,
                 int64_t* mv, double* pr) except -1:
    """prior_node's arithmetic: ``mv[:m + 1]`` the moves then the pass, ``pr[:m +
    1]`` their priors (``tc``/``wt``: the tactical codes and shares, or NULL)."""
    cdef double f, total = 0.0, share = 1.0 - pass_prior
    cdef int sign
    cdef bint tactical = tc != NULL
    cdef Py_ssize_t j
    for j in range(m):
        mv[j] = pt[j]
        f = rw[j]
        if not 0.0 < f < INFINITY or (tactical and not 0.0 <= wt[j] <= 1.0):
            raise ValueError(f"weights must be positive and finite and shares in [0, 1], "
                             f"not {f} and {wt[j] if tactical else 0.0}")
        if tactical:
            sign = -1 if tc[j] == TAC_BAD else (0 if tc[j] == TAC_NONE else 1)
            if sign * wt[j] != 0.0:        # x ** 0 is exactly 1 (C99 F.9.4.4)
                f *= pow(ladder_prior, sign * wt[j])
        # numpy's x ** 0.5 is a square root: the same priors as before to the
        # bit; x ** 1 is x (exactly representable, so any pow that rounds
        # correctly, as glibc's does, returns it: the digests pin it)
        if prior_power == 0.5:
            f = sqrt(f)
        elif prior_power != 1.0:
            f = pow(f, prior_power)
        pr[j] = f
        total += f
    for j in range(m):
        pr[j] = pr[j] / total * share
    mv[m] = -1
    pr[m] = pass_prior if m else 1.0
    return 0


cdef int _check_prior_constants(double ladder_prior, double ladder_visits, double prior_power,
                                double pass_prior, double base) except -1:
    if not (0.0 < pass_prior < 1.0 and 1e-6 <= ladder_prior <= 1e6
            and 0.0 <= ladder_visits <= 1e12 and 0.0 <= prior_power <= 4.0
            and -INFINITY < base < INFINITY):
        raise ValueError("pass_prior must be in (0, 1), ladder_prior in [1e-6, 1e6], "
                         "ladder_visits in [0, 1e12], prior_power in [0, 4], base finite "
                         "(the bounds of fastplay.mcts.MCTS)")
    return 0


cdef int _ladder_visits(TreeNode node, const cnp.int8_t* tc, const double* wt,
                        double ladder_visits, Py_ssize_t m) except -1:
    """The tactical virtual playouts of prior_node: ``ladder_visits * wt[j]`` in
    the prior knowledge and the first-play tallies of move ``j``, won unless bad
    (the rows ``pn`` and ``pw``, and the AMAF slots, are made only for a
    move with some)."""
    cdef double v
    cdef bint won
    cdef Py_ssize_t j
    for j in range(m):
        v = ladder_visits * wt[j]
        if v == 0.0:
            continue        # adds nothing (+0.0 to rows >= 0)
        won = tc[j] != TAC_BAD
        slot_room(node, SET_PK, <int>j)
        node_add(node, <int>j, v, v if won else 0.0, SLOT_PN)
        amaf_room(node, 1)
        amaf_add(node, <int>j, v, v if won else 0.0)
    return 0


def tree_descend(TreeNode node not None, CoreBoard board not None, set seen not None,
                 set path_hashes not None, list nodes not None, list path not None,
                 TreeParams params not None, double virtual_loss, double threshold,
                 bint can_expand):
    """Select from ``node`` down the tree, playing each move on ``board``.

    Each step selects a move (:meth:`TreeNode.select`), forbids it for good
    if the rules other than superko forbid it on ``board`` or it repeats a
    position of ``seen`` (the game's, the root's included: the board's own
    superko list is not read) or ``path_hashes`` (this descent's;
    positional superko), else
    plays it, adds ``virtual_loss`` playouts to its edge and appends the node
    and move index to ``nodes`` and ``path``.  It stops at a node with no
    move left, after a second pass in a row, at an edge without a node, or
    at an edge without a node whose visits reached ``threshold`` while
    ``can_expand``.

    Returns ``DESCEND_LEAF`` (evaluate ``board`` by playouts),
    ``DESCEND_END`` (the game ended), ``DESCEND_EXPAND`` (give the last
    edge a node, then call again from it) or ``DESCEND_STOP`` (the descent
    stopped inside a node with no move left -- every one illegal or a
    superko repetition: evaluate ``board`` and add its playouts to that
    node's ``base`` after the back-up, the last edge's child, or ``node``
    itself when the path is empty, so that ``parent.n[i] == child.base +
    child.n.sum()`` still holds).  Raises ``ValueError`` when a
    move does not fit ``board`` or ``virtual_loss`` is negative or not
    finite, and ``RuntimeError`` when a set lookup (an element's ``__eq__``) changed
    the board.
    """
    params._check_ready()
    if not 0.0 <= virtual_loss < INFINITY:
        raise ValueError(f"virtual_loss must be finite and >= 0, not {virtual_loss}")
    return _descend(node, board, seen, path_hashes, NULL, nodes, path, params, virtual_loss,
                    threshold, can_expand)


cdef struct PathHashes:
    # The positions of one descent of the compiled loop (tree_descend's
    # ``path_hashes`` without a Python set: no int object, no hashing).
    uint64_t* h
    int n
    int cap


cdef bint _path_repeats(PathHashes* ph, uint64_t h) except -1:
    """Whether ``h`` is among ``ph``'s positions; if not, it is added."""
    cdef int t
    cdef uint64_t* grown
    for t in range(ph.n):
        if ph.h[t] == h:
            return True
    if ph.n == ph.cap:
        grown = <uint64_t*>realloc(ph.h, 2 * ph.cap * sizeof(uint64_t))
        if grown == NULL:
            raise MemoryError()
        ph.h, ph.cap = grown, 2 * ph.cap
    ph.h[ph.n] = h
    ph.n += 1
    return False


cdef int _descend(TreeNode node, CoreBoard board, set seen, set path_hashes, PathHashes* ph,
                  list nodes, list path, TreeParams params, double virtual_loss,
                  double threshold, bint can_expand) except -1:
    """tree_descend on a checked ``virtual_loss``; the path's positions in
    ``ph`` when it is not NULL (the compiled loop), else in ``path_hashes``."""
    cdef int i, color, p, ko
    cdef int64_t move
    cdef int npts
    cdef uint64_t h, before
    cdef object key
    while True:
        if node.open <= 0:
            return D_STOP
        npts = board.st.size * board.st.size
        if node.max_move >= npts:
            raise ValueError("the tree does not fit this board")
        i = node_select(node, params)
        if i < 0:
            return D_STOP     # moves left open, but none allowed (set from Python)
        move = node_move(node, i)
        color = node.color
        p = 0 if move < 0 else board.pad(<int>move)
        # The rules without superko (legal_code would look the position up
        # among the board's own, all of them in ``seen``): the superko test
        # is the one below, on the game's positions and the path's.
        if p and board_legality(&board.st, p, color, board.allows_suicide()) != LEGAL:
            node._forbid(i)
            continue
        if p:
            h = hash_after(&board.st, p, color, board.allows_suicide())
            before, ko = board.st.hash, board.st.ko
            key = h         # one Python int for the set operations
            if ph != NULL:
                if key in seen or _path_repeats(ph, h):
                    node._forbid(i)     # positional superko
                    continue
            else:
                if key in seen or key in path_hashes:
                    node._forbid(i)     # positional superko
                    continue
                path_hashes.add(key)
            if board.st.size * board.st.size != npts or board.st.hash != before \
                    or board.st.ko != ko:
                # Set lookups can run Python code (an element's __eq__): the
                # move was checked on the board as it was.
                raise RuntimeError("the board changed during a descent")
        board.commit(p, <int>move, color)
        if virtual_loss:
            node._lazy(LAZY_VL)[i] += virtual_loss
            node.sum_vl += virtual_loss
        nodes.append(node)
        path.append(i)
        if p == 0 and board.st.passes >= 2:
            return D_END
        obj = kid_get(node, i)
        if obj is None:
            if can_expand and node_n(node, i) >= threshold:
                return D_EXPAND
            return D_LEAF
        node = <TreeNode?>obj


def tree_backup(list nodes not None, list path not None, double n, double black_value,
                double black_wins, double search_wins, amaf, double virtual_loss,
                TreeParams params not None):
    """Add one evaluation of the leaf to every edge of the path, leaf first.

    Args:
        nodes, path: as filled by :func:`tree_descend`.
        n: playouts evaluated.
        black_value, black_wins, search_wins: Black's value, plain wins
            (game komi) and wins under the search's komi, out of ``n``.
        amaf: ``None``, or the playouts' first-play tallies ``int32[2, 3,
            size*size]`` (count, Black's wins; by colour code; as
            :attr:`PlayoutTally.amaf`), which the tree
            moves then join: a tree move precedes every playout move.
        virtual_loss: the virtual loss the descent added, taken back.
        params: the search's constants (checked): a widened node (its
            width at the playouts it has after this back-up) adds the
            first-play tallies to its ``width`` + 8 moves of highest prior
            only, the pass their mean; a node not widened to every move, the
            pass the mean over the others (amaf_plan).

    Raises ``ValueError`` for lists of different lengths, an index out of
    range, tallies that do not fit the nodes, or a count that is negative or
    not finite; ``TypeError`` for a node that is not a :class:`TreeNode` or
    an index that is not an integer.
    """
    params._check_ready()
    cdef Py_ssize_t d, depth = len(nodes)
    if len(path) != depth:
        raise ValueError("nodes and path must have the same length")
    if not (0.0 <= n < INFINITY and 0.0 <= virtual_loss < INFINITY
            and -INFINITY < black_value < INFINITY and -INFINITY < black_wins < INFINITY
            and -INFINITY < search_wins < INFINITY):
        raise ValueError("n, the virtual loss, the wins and the value must be finite, "
                         "n and the virtual loss >= 0")
    cdef TreeNode node
    cdef Py_ssize_t j, e
    cdef double times
    cdef int64_t npts = 0
    cdef double* am = NULL
    cdef const cnp.int32_t[:, :, ::1] tallies
    # Every index read once (its __index__ may run Python code), then the
    # nodes taken as they are now and checked: nothing below runs Python.
    indices = [operator.index(x) for x in path]
    frozen = tuple(nodes)
    if len(indices) != depth or len(frozen) != depth:
        raise ValueError("nodes and path changed during the call")
    if amaf is not None:
        tallies = amaf
        if tallies.shape[0] != 2 or tallies.shape[1] != 3:
            raise ValueError("amaf must be int32[2, 3, size*size]")
        npts = tallies.shape[2]
    cdef int* idx = <int*>malloc((depth + 1) * sizeof(int))
    if idx == NULL:
        raise MemoryError()
    try:
        for d in range(depth):
            node = <TreeNode?>frozen[d]
            if not 0 <= indices[d] < node.k or (amaf is not None and node.max_move >= npts):
                raise ValueError("the path does not fit the tree or the tallies")
            idx[d] = indices[d]
            if virtual_loss:
                # An edge the path holds twice gives its virtual loss back twice.
                times = 1.0
                for e in range(d):
                    if frozen[e] is node and idx[e] == idx[d]:
                        times += 1.0
                if node.VL == NULL or node.VL[idx[d]] < times * virtual_loss:
                    raise ValueError("the path holds less virtual loss than the back-up takes")
        if amaf is not None:
            am = <double*>malloc(6 * npts * sizeof(double))
            if am == NULL:
                raise MemoryError()
            _amaf_doubles(am, &tallies[0, 0, 0], npts)
        _backup(frozen, idx, depth, n, black_value, black_wins, search_wins, am, npts,
                virtual_loss, params)
    finally:
        free(idx)
        free(am)


cdef void _amaf_doubles(double* am, const cnp.int32_t* tallies, int64_t npts) noexcept:
    """The first-play tallies ``int32[2, 3, npts]`` (:attr:`PlayoutTally.amaf`) as
    ``_backup`` reads them: doubles (a tree move's own tally may be a half win,
    from draws), and White's row of wins counting White's wins, so that one
    gather serves a node of either colour."""
    cdef int64_t j
    # The rows of the two colours only (the EMPTY rows are never read).
    for j in range(WHITE_C * npts, 3 * npts):
        am[j] = <double>tallies[j]
    for j in range((3 + WHITE_C) * npts, 6 * npts):
        am[j] = <double>tallies[j]
    for j in range(npts):
        am[(3 + WHITE_C) * npts + j] = am[WHITE_C * npts + j] - am[(3 + WHITE_C) * npts + j]


cdef void _amaf_single(double* am, const uint8_t* first, int W, int size,
                       bint black_won) noexcept:
    """What :func:`_amaf_doubles` makes of one playout's tallies, from its
    first plays (``first``: the playout state's, padded with row stride
    ``W``) and whether Black won: a colour's row 1 where it played first,
    its wins row 1 where it also won (draws are no win)."""
    cdef int64_t npts = size * size, k = 0
    cdef int r, q, f
    cdef double bw = 1.0 if black_won else 0.0
    for r in range(size):
        for q in range(size):
            f = first[(r + 1) * W + 1 + q]
            am[WHITE_C * npts + k] = <double>(f == WHITE_C)
            am[BLACK_C * npts + k] = <double>(f == BLACK_C)
            am[(3 + WHITE_C) * npts + k] = <double>(f == WHITE_C) * (1.0 - bw)
            am[(3 + BLACK_C) * npts + k] = <double>(f == BLACK_C) * bw
            k += 1


cdef inline void _amaf_add(float* S, int k, int j, const double* tally, int64_t npts,
                           double mean, double* s0, double* s1) noexcept:
    """Move ``j``'s first-play tallies (``tally[0]`` first plays, ``tally[3
    * npts]`` of them won: the colour's rows of ``_backup``'s ``am``) added to
    its dense AMAF rows ``S`` (in ``float64``, rounded once), and their share
    ``mean`` to the pass's sums ``s0`` and ``s1``."""
    cdef double g0 = tally[0], g1 = tally[3 * npts]
    S[ROW_RN * k + j] += g0
    S[ROW_RW * k + j] += g1
    s0[0] += g0 * mean
    s1[0] += g1 * mean


cdef int amaf_plan(TreeNode node, TreeParams p, double total) noexcept:
    """How many moves of ``node.R`` a back-up adds first-play tallies to
    when the node has ``total`` playouts and virtual losses: the ``width``
    + 8 of highest prior of a widened node (ties in move order: the part of
    the order a selection reads first), the order taken that far; 0 for
    every move (a node not widened, or no memory for the order).  The
    other moves of a widened node are rarely selected: their tallies cost
    memory (a 9x9 node's two rows were a third of it) for nothing
    measurable (RESULTS.md, "AMAF rows for part of a widened node's
    moves": -3 Elo over 595 games, +47 over 104 at 5,000 playouts)."""
    cdef int width = node_width_at(node, p, total), k = node.k
    cdef int length = width + 8 if width + 8 < k else k
    if width >= node.open:
        return 0
    if node.RL < length and node_rank(node, length) != 0:
        return 0
    return length


cdef int amaf_reserve(TreeNode node, TreeParams p, double total) except -1:
    """Make the AMAF room a back-up's tallies at ``total`` (amaf_plan's)
    need: the slots of the moves it adds to and of the pass, or the dense
    rows when it adds to every move."""
    cdef int length = amaf_plan(node, p, total), r, j, more = 0
    if length == 0:
        amaf_dense(node)
        return 0
    if node.amaf_cap == AMAF_DENSE:
        return 0
    for r in range(length):
        j = node.R[r]
        more += j != node.k - 1 and not amaf_has(node, j)
    return amaf_room(node, more + (not amaf_has(node, node.k - 1)))


cdef void _amaf_prefix(TreeNode node, int length, const double* tally,
                       int64_t npts) noexcept:
    """A widened node's first-play tallies (``tally``: as _amaf_add's, of
    the node's colour) added to its first ``length`` moves of ``node.R``,
    and to the pass their mean (amaf_plan; room made by amaf_reserve).
    The moves are marked, their pairs made, then visited in move order:
    their points from the bitset as _backup's loop walks them and each
    pair's place counted along, not found one by one (the select of a
    point and the popcount of a place cost some 40 instructions a move)."""
    cdef uint64_t member[(MAX_SIZE_C * MAX_SIZE_C + 64) >> 6]
    cdef int r, j, w, cnt = 0, k = node.k, words = (k + 63) >> 6
    cdef int place = 0
    cdef double sums[2]
    cdef const int16_t* order = node.R
    cdef const uint64_t* bits
    cdef uint64_t x
    cdef bint dense = node.amaf_cap == AMAF_DENSE
    memset(member, 0, words * sizeof(uint64_t))
    for r in range(length):
        j = order[r]
        if j != k - 1:
            member[j >> 6] |= (<uint64_t>1) << (j & 63)
            cnt += 1
            if not dense and not amaf_has(node, j):
                amaf_add(node, j, 0.0, 0.0)         # its pair, zeros
    if not cnt:
        return
    sums[0] = sums[1] = 0.0
    if node.listed:
        for j in range(k - 1):
            _prefix_one(node, j, node_listed(node)[j], member, tally, npts, dense, &place,
                        sums)
    else:
        bits, j = node_bits(node), 0
        for w in range(point_bit_words(node.max_move)):
            x = bits[w]
            while x:
                _prefix_one(node, j, (w << 6) + fp_ctz64(x), member, tally, npts, dense,
                            &place, sums)
                x &= x - 1
                j += 1
    amaf_add(node, k - 1, sums[0] / cnt, sums[1] / cnt)


cdef inline void _prefix_one(TreeNode node, int j, int pt, const uint64_t* member,
                             const double* tally, int64_t npts, bint dense, int* place,
                             double* sums) noexcept:
    """_amaf_prefix's visit of move ``j`` at point ``pt``: its tallies added
    if it is marked; ``place``: the pairs of the moves before it (counted
    on)."""
    cdef double g0, g1
    cdef float* at
    cdef bint has = not dense and (amaf_bits(node)[j >> 6] >> (j & 63)) & 1
    if (member[j >> 6] >> (j & 63)) & 1:
        g0 = tally[pt]
        g1 = tally[3 * npts + pt]
        if dense:
            node.AM[ROW_RN * node.k + j] += g0
            node.AM[ROW_RW * node.k + j] += g1
        else:
            at = amaf_pairs(node) + 2 * place[0]
            at[0] += g0
            at[1] += g1
        sums[0] += g0
        sums[1] += g1
    place[0] += has


cdef int _amaf_room(tuple nodes, Py_ssize_t depth, Py_ssize_t d, double n,
                    double virtual_loss, TreeParams params) except -1:
    """The AMAF room of the back-up's node ``d``: amaf_reserve at the
    playouts it will have then (the same sums as _backup's, in the same
    order), or the dense rows for a node the path holds twice (from
    Python: its second back-up's plan is not known here)."""
    cdef TreeNode node = <TreeNode>nodes[d]
    cdef Py_ssize_t e
    cdef double vl = node.sum_vl - virtual_loss if virtual_loss and node.VL != NULL \
        else node.sum_vl
    for e in range(depth):
        if e != d and nodes[e] is node:
            amaf_dense(node)
            return 0
    return amaf_reserve(node, params, (node.sum_n + n) + vl)


cdef int _backup(tuple nodes, const int* path, Py_ssize_t depth, double n,
                 double black_value, double black_wins, double search_wins, double* am,
                 int64_t npts, double virtual_loss, TreeParams params) except -1:
    """tree_backup on checked arguments; ``am``: the first-play tallies as
    doubles, White's wins in White's row, or NULL.  Raises MemoryError only
    when a node's row ``wins``, a move's slot or AMAF room must be made
    (before any change to the nodes' statistics)."""
    cdef Py_ssize_t d
    cdef TreeNode node
    cdef int i, j, c, k, length
    cdef int64_t move, pt
    cdef double value, wins, s0, s1, mean
    cdef int w
    cdef uint64_t x
    cdef const uint64_t* bits
    cdef float* S
    for d in range(depth - 1, -1, -1):
        # What may fail (out of memory) before the first change.
        node = <TreeNode>nodes[d]
        if black_value != black_wins and node.WINS == NULL:
            node._lazy(LAZY_WINS)
        slot_room(node, SET_NW, path[d])
        if am != NULL:
            _amaf_room(nodes, depth, d, n, virtual_loss, params)
    for d in range(depth - 1, -1, -1):
        node = <TreeNode>nodes[d]
        i = path[d]
        k = node.k
        c = node.color
        if virtual_loss and node.VL != NULL:
            node.VL[i] -= virtual_loss
            node.sum_vl -= virtual_loss
        value = black_value if c == BLACK_C else n - black_value
        node_add(node, i, n, value, SLOT_N)
        if node.WINS != NULL:
            node.WINS[i] += black_wins if c == BLACK_C else n - black_wins
        node.sum_n += n
        node.sum_w += value
        if am != NULL:
            move = node_move(node, i)
            if move >= 0:
                am[c * npts + move] = n
                am[(3 + c) * npts + move] = search_wins if c == BLACK_C \
                    else n - search_wins
            length = amaf_plan(node, params, node.sum_n + node.sum_vl)
            if length:
                _amaf_prefix(node, length, am + c * npts, npts)
                continue
            # Every move (dense rows: _amaf_room made them).
            # The pass has no first-play tally: left unblended it was
            # compared with moves pulled down to their AMAF values, which
            # run below tree values in the opening, and won the empty
            # board at 1000 playouts.  It takes the mean of the others'.
            S = node.AM
            mean = 1.0 / (k - 1) if k > 1 else 0.0
            s0 = s1 = 0.0
            if node.listed:
                for j in range(k - 1):
                    _amaf_add(S, k, j, am + c * npts + node_listed(node)[j], npts, mean,
                              &s0, &s1)
            else:
                # The points in order from their bitset, as node_points.
                bits = node_bits(node)
                j = 0
                for w in range(point_bit_words(node.max_move)):
                    x = bits[w]
                    while x:
                        pt = (w << 6) + fp_ctz64(x)
                        x &= x - 1
                        _amaf_add(S, k, j, am + c * npts + pt, npts, mean, &s0, &s1)
                        j += 1
            S[ROW_RN * k + k - 1] += s0
            S[ROW_RW * k + k - 1] += s1


cdef int _check_path(list nodes, list path) except -1:
    """RuntimeError unless ``nodes`` and ``path`` still form a descent's path
    (``grow`` receives the lists and could change them): as many nodes as
    moves, each a TreeNode, each move index in range."""
    cdef Py_ssize_t d
    if len(nodes) != len(path):
        raise RuntimeError("the descent's nodes and path changed during a call back")
    for d in range(len(nodes)):
        if not isinstance(nodes[d], TreeNode) or type(path[d]) is not int \
                or not 0 <= <object>path[d] < (<TreeNode>nodes[d]).k:
            raise RuntimeError("the descent's nodes and path changed during a call back")
    return 0


cdef bint _reserve(reserve, int64_t batch, int64_t max_first, int64_t* start,
                   int64_t* n) except -1:
    """``reserve()``'s ``(first, n)`` into ``start`` and ``n``, checked (plain
    ints, ``n`` in 1..``batch``, ``first`` in 0..``max_first``); False for
    ``None``."""
    got = reserve()
    if got is None:
        return False
    if type(got) is not tuple or len(got) != 2:
        raise ValueError(f"reserve() must give (first, n), not {got!r}")
    first, visits = got
    if type(first) is not int or type(visits) is not int or not 0 <= first <= max_first \
            or not 1 <= visits <= batch:
        raise ValueError(f"reserve() must give ints (0 <= first <= {max_first}, "
                         f"1 <= n <= {batch}), not {got!r}")
    start[0] = first
    n[0] = visits
    return True


cdef int _take_back(list nodes, list path, double vl) except -1:
    """Take a descent's virtual loss ``vl`` back from every edge of its path
    (``TypeError``/``IndexError`` if a callback left the lists unlike a path)."""
    cdef Py_ssize_t d
    cdef TreeNode node
    cdef int i
    if vl == 0.0:
        return 0
    for d in range(min(len(nodes), len(path))):
        node = <TreeNode?>nodes[d]
        i = node._py_index(path[d])
        node._lazy(LAZY_VL)[i] -= vl
        node.sum_vl -= vl
    return 0


cdef class ReplyTable:
    """Last good replies with forgetting (LGRF-1: Baier and Drake, "The power
    of forgetting: improving the last-good-reply policy in Monte Carlo Go",
    IEEE TCIAIG 2(4), 2010), kept from a search's simulations for its tree.

    For each colour and each previous move (a point, or the pass), the reply
    that colour last played to it in a simulation it won.  After every
    simulation (its tree moves, then its playout's), each move of the
    winner is stored as the reply to the move before it, and each move of
    the loser that is the stored reply to the move before it is forgotten;
    a draw changes nothing, and a pass is never stored as a reply.  The
    playout policy stays GNU Go's: the search reads the table only when it
    makes a node (:func:`reply_prior`).

    Args:
        size: board size (2..25).

    Raises:
        ValueError: a size outside 2..25.
    """
    cdef readonly int size
    cdef int npts
    cdef int16_t* r     # [3 * (npts + 1)]: by colour code and previous move (npts: pass)

    def __init__(self, size):
        check_size(size)        # the core's one board-size check
        if self.r != NULL:
            raise RuntimeError("a ReplyTable is initialised once")
        self.r = <int16_t*>malloc(3 * (size * size + 1) * sizeof(int16_t))
        if self.r == NULL:
            raise MemoryError()
        self.size, self.npts = size, size * size
        self.clear()

    def __dealloc__(self):
        free(self.r)

    def clear(self):
        """Forget every reply."""
        self._check_ready()
        memset(self.r, 0xFF, 3 * (self.npts + 1) * sizeof(int16_t))     # all -1

    cdef int _check_ready(self) except -1:
        if self.r == NULL:
            raise RuntimeError("the ReplyTable was not initialised")
        return 0

    cdef int _color(self, color) except -1:
        c = _integer(color, "colour code")
        if c != WHITE_C and c != BLACK_C:
            raise ValueError(f"colour code must be WHITE (1) or BLACK (2), not {c}")
        return c

    cdef int _move(self, move, str name) except -2:
        m = _integer(move, name)
        if not -1 <= m < self.npts:
            raise ValueError(f"{name} must be a flat index of a {self.size}x{self.size} "
                             f"board or -1 (the pass), not {m}")
        return m

    def reply(self, color, previous):
        """The flat index ``color`` last replied to ``previous`` with (-1: the
        pass) in a simulation it won, or -1 for none.  Raises ``ValueError``
        for a bad colour code or move (of any magnitude), ``TypeError`` for
        one that is not an integer."""
        self._check_ready()
        cdef int c = self._color(color), prev = self._move(previous, "previous")
        return self.r[c * (self.npts + 1) + (prev if prev >= 0 else self.npts)]

    def update(self, moves, color, winner):
        """One simulation's moves: ``moves`` (flat indices, -1 a pass) played
        alternately from ``color``; ``winner`` a colour code, or ``EMPTY``
        (0) for a draw.  Raises ``ValueError`` for a bad colour or move,
        ``TypeError`` for one that is not an integer (2.5 was truncated)."""
        self._check_ready()
        cdef int c = self._color(color), i, w
        given = _integer(winner, "winner")
        w = EMPTY_C if given == EMPTY_C else self._color(given)
        seq = [self._move(m, "a move") for m in moves]
        for i in range(1, len(seq)):
            c = 3 - c
            _reply_pair(self, c, seq[i - 1], seq[i], w)


def _integer(value, str name):
    """``value`` as a Python int (``operator.index``: no float, no bool), or
    ``TypeError`` naming ``name``."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, not a bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}") from None


cdef inline void _reply_pair(ReplyTable t, int color, int prev, int move, int winner) noexcept:
    """LGRF-1's rule for one move ``move`` of ``color`` after ``prev`` (flat
    indices, -1 a pass; ``winner`` EMPTY_C for a draw)."""
    cdef int slot
    if move < 0 or winner == EMPTY_C:
        return
    slot = color * (t.npts + 1) + (prev if prev >= 0 else t.npts)
    if color == winner:
        t.r[slot] = <int16_t>move
    elif t.r[slot] == move:
        t.r[slot] = -1


cdef void _reply_simulation(ReplyTable t, tuple nodes, const int* path, Py_ssize_t depth,
                            const int16_t* seq, int nseq, int W, int leaf_color,
                            int winner) noexcept:
    """A compiled simulation's moves into ``t``: the tree's (``nodes`` and
    ``path``; the first has no previous move here and is skipped), then the
    playout's (``seq``: padded points with row stride ``W``, 0 a pass,
    ``leaf_color`` first)."""
    cdef Py_ssize_t d
    cdef int i, move, prev = -2, color = leaf_color, size = t.size
    cdef TreeNode node
    if winner == EMPTY_C:
        return
    for d in range(depth):
        node = <TreeNode>nodes[d]
        move = node_move(node, path[d])
        if prev != -2:
            _reply_pair(t, node.color, prev, move, winner)
        prev = move
    for i in range(nseq):
        move = flat_move(seq[i], W, size)
        if prev != -2:
            _reply_pair(t, color, prev, move, winner)
        prev = move
        color = 3 - color


def reply_prior(TreeNode node not None, ReplyTable table not None, int64_t last,
                double visits):
    """Give a new node's last good reply ``visits`` virtual playouts, all won
    (added to its ``pn`` and ``pw``): the allowed move
    that ``table`` holds as ``node.color``'s reply to ``last`` (the move that
    led here: a flat index, -1 the pass).  Returns that move's index in the
    node, or -1 when the table holds none or the node has no such allowed
    move.  Raises ``ValueError`` for ``visits`` that are negative or not
    finite, or a node with a move beyond the table's board (a node of a
    smaller board cannot be told apart: flat indices name points of both)."""
    node._check_ready()
    table._check_ready()
    if not 0.0 <= visits < INFINITY:
        raise ValueError(f"visits must be finite and >= 0, not {visits}")
    if node.max_move >= table.npts:
        raise ValueError(f"the node's moves are not of a {table.size}x{table.size} board")
    cdef int reply = table.reply(node.color, last), j, k = node.k
    if reply < 0 or visits == 0:
        return -1
    j = node_index(node, reply)
    if j >= 0 and node_allowed(node, j):
        slot_room(node, SET_PK, j)
        node_add(node, j, visits, visits, SLOT_PN)
        return j
    return -1


cdef class SearchCounts:
    """A search's counts, which :func:`tree_simulate` keeps at each
    simulation's back-up: ``done`` (visits backed up), ``playouts``,
    ``sims`` (simulations backed up) and ``pending`` (visits reserved by a
    simulation and not yet backed up); integers, read and written from
    Python under the search's lock."""
    cdef public int64_t done, playouts, sims, pending


def tree_simulate(TreeNode root not None, CoreBoard root_board not None,
                  CoreBoard scratch not None, set seen not None, PlayoutEngine engine not None,
                  tally not None, TreeParams params not None, double threshold,
                  bint can_expand, int64_t batch, int64_t budget, int max_sims, seed,
                  int64_t first, bint tromp_taylor, bint rave, double deadline,
                  hist=None, child_sums=None, grow=None, lock=None, reserve=None,
                  SearchCounts progress=None, ReplyTable replies=None):
    """Up to ``max_sims`` simulations of a search whose leaves are worth their
    playouts' wins, with no Python between them but ``grow`` and ``reserve``.

    Each does what ``fastplay.search.loop``'s Python simulation does, in the
    same order and arithmetic (the same tree): ``root_board.copy_into(scratch)``;
    :func:`tree_descend` from ``root`` (``seen``: the game's position hashes);
    ``engine.run_into(tally, scratch, n, seed, first=F, tromp_taylor=...)``
    under the board's komi, ``n = min(batch, budget - V)``, ``F = first + V``
    (``V``: visits asked for so far); :func:`tree_backup` of Black's wins
    (draws 1/2), with the AMAF tallies when ``rave`` (no score in the value,
    no dynamic komi: the caller's conditions).  A descent due for a node
    calls ``grow(scratch, nodes, path)``: the last edge's new node and
    whether the tree may still grow; the descent goes on from that node.

    It stops before a simulation that would make a node without ``grow`` or end
    the game in the tree (``SIMULATE_PYTHON``: the caller runs it), after
    ``max_sims``, once ``budget`` visits are asked for (< 0: no limit), or at
    ``deadline`` of ``time.perf_counter()`` (``inf``/NaN: none; checked before
    every simulation but the first).  ``lock`` (held by the caller, or
    ``None``) is let go while the playouts run.  ``hist`` (``float64[2
    size*size + 1]``) gains each score histogram and ``child_sums``
    (``float64[3, moves of root]``), in the root move's column, its playouts
    and the sums of their margins and squares (both or neither), and
    ``progress`` (or ``None``) its visits, playouts and one simulation, and
    with ``reserve`` loses the visits the simulation reserved from ``pending``:
    each at the simulation's back-up, under the lock, so that a snapshot or
    another thread sees visits, scores and counts that agree.  With ``reserve``
    (threads sharing the lock), each simulation takes ``(first, n)`` or
    ``None`` (stop) from ``reserve()`` instead of ``budget`` and ``first``,
    holds a virtual loss of ``n`` on its path, and gives ``grow`` ``n`` as a
    fourth argument.  ``replies`` (or ``None``) takes each simulation's moves
    at its back-up (its last playout's, when it has several:
    :class:`ReplyTable`).

    Returns ``(status, simulations, visits asked for, playouts played)``.
    Raises as :func:`tree_descend`, :meth:`PlayoutEngine.run_into` and
    :func:`tree_backup` do (``ValueError``: ``batch`` < 1, a bad ``scratch``,
    a playout index past ``MAX_FIRST``, score arrays of wrong shapes;
    ``RuntimeError``: a set lookup's Python code changed the tree or the
    board); after one (Ctrl-C) a path may lack its back-up: drop the tree.
    """
    cdef uint64_t key = _simulate_checks(root_board, engine, batch, seed, first, replies)
    cdef double vl = 0.0, komi = run_komi(root_board, None)
    cdef int64_t asked = 0, played = 0, n, start
    cdef bint reserved = reserve is not None
    cdef int sims = 0, status = SIMULATE_DONE, found
    cdef TallyCounts counts
    cdef SimBuffers buf
    _buffers_start(&buf, root_board.st.size, root.k, rave, hist, child_sums)
    try:
        _buffers_alloc(&buf, hist, child_sums)
        while sims < max_sims and (reserved or budget < 0 or asked < budget):
            if not _sim_plan(reserve, batch, budget, first, asked, sims, deadline, &start, &n,
                             &vl):
                break
            nodes, path = [], []
            found = _sim_descend(root, root_board, scratch, seen, &buf.ph, nodes, path, params,
                                 vl, threshold, &can_expand, grow, n if reserved else -1)
            if found != D_LEAF and found != D_STOP:
                if reserved:        # the reserved visits are given back
                    asked += _hand_back(nodes, path, vl, n, progress)
                status = SIMULATE_PYTHON
                break
            _sim_evaluate(&buf, root, nodes, path, found, engine, tally, scratch, n, key, start,
                          komi, tromp_taylor, lock, reserved, vl, &counts, replies, params)
            _flush_tallies(&buf, hist, child_sums)    # before the lock is let go again
            _count(progress, counts.n, 1, n if reserved else 0)
            asked += n
            played += counts.n
            sims += 1
    finally:
        _buffers_free(&buf)
    return status, sims, asked, played


cdef uint64_t _simulate_checks(CoreBoard root_board, PlayoutEngine engine, int64_t batch,
                               seed, int64_t first, ReplyTable replies) except? 0:
    """tree_simulate's checks of its arguments; returns the engine's key of
    ``seed`` (:meth:`PlayoutEngine._check_run`)."""
    if batch < 1:
        raise ValueError(f"batch must be >= 1, not {batch}")
    if replies is not None and replies.size != root_board.st.size:
        raise ValueError(f"the reply table is for {replies.size}x{replies.size}, the board "
                         f"is {root_board.st.size}x{root_board.st.size}")
    return engine._check_run(batch, seed, 1, 600, first)


cdef inline void _count(SearchCounts progress, int64_t playouts, int64_t sims,
                        int64_t released) noexcept:
    """Counts into ``progress`` (nothing for ``None``): ``playouts`` backed
    up (visits and playouts), ``sims`` simulations, and ``released``
    reserved visits no longer pending."""
    if progress is None:
        return
    progress.done += playouts
    progress.playouts += playouts
    progress.sims += sims
    progress.pending -= released


cdef int64_t _hand_back(list nodes, list path, double vl, int64_t n,
                        SearchCounts progress) except -1:
    """A simulation that reserved ``n`` visits and stopped for Python gives
    them back: its virtual loss ``vl`` off its path, and ``n`` off
    ``progress``'s pending visits.  Returns ``n``, the visits asked for."""
    _count(progress, 0, 0, n)
    _take_back(nodes, path, vl)
    return n


cdef struct SimBuffers:
    # tree_simulate's memory of its own, kept over its simulations
    int64_t npts        # points of the board
    int k               # moves of the root
    bint rave           # AMAF tallies backed up
    bint scores         # score histogram and root-move sums tallied
    int* idx            # the path's move indices (cap of them)
    Py_ssize_t cap
    double* am          # the AMAF tallies as _backup reads them, or NULL
    int64_t* tallied    # _tally_scores's sums, or NULL
    PathHashes ph       # the descent's positions


cdef void _buffers_start(SimBuffers* buf, int64_t size, int k, bint rave, hist,
                         child_sums) noexcept:
    """``buf`` with nothing allocated yet (``_buffers_free`` may follow at once),
    for a board of ``size`` and a root of ``k`` moves; it sums scores when
    ``hist`` or ``child_sums`` is given."""
    buf.npts, buf.k, buf.rave = size * size, k, rave
    buf.scores = hist is not None or child_sums is not None
    buf.idx, buf.cap, buf.am, buf.tallied = NULL, 0, NULL, NULL
    buf.ph.h, buf.ph.n, buf.ph.cap = NULL, 0, 0


cdef int _buffers_alloc(SimBuffers* buf, hist, child_sums) except -1:
    """The path's indices (64 to start with), the AMAF doubles (``rave``) and
    the score sums (``scores``: summed here and added to the caller's
    arrays ``hist`` and ``child_sums``, checked here first, after each
    back-up by :func:`_flush_tallies`, which looks at them afresh: the
    callbacks run Python code, which could resize or free them
    meanwhile)."""
    if buf.scores:
        _add_tallies(hist, child_sums, NULL, buf.npts, buf.k)     # checks them
    buf.idx = <int*>malloc(64 * sizeof(int))
    if buf.idx == NULL:
        raise MemoryError()
    buf.cap = 64
    buf.ph.h = <uint64_t*>malloc(64 * sizeof(uint64_t))
    if buf.ph.h == NULL:
        raise MemoryError()
    buf.ph.cap = 64
    if buf.rave:
        buf.am = <double*>malloc(6 * buf.npts * sizeof(double))
        if buf.am == NULL:
            raise MemoryError()
    if buf.scores:
        buf.tallied = <int64_t*>calloc(2 * buf.npts + 1 + 3 * buf.k, sizeof(int64_t))
        if buf.tallied == NULL:
            raise MemoryError()
    return 0


cdef void _buffers_free(SimBuffers* buf) noexcept:
    free(buf.idx)
    free(buf.am)
    free(buf.tallied)
    free(buf.ph.h)
    buf.idx, buf.am, buf.tallied, buf.ph.h = NULL, NULL, NULL, NULL


cdef bint _sim_plan(reserve, int64_t batch, int64_t budget, int64_t first, int64_t asked,
                    int sims, double deadline, int64_t* start, int64_t* n,
                    double* vl) except -1:
    """The next simulation's first playout index and visits into ``start``
    and ``n`` (and ``vl``, its virtual loss, with ``reserve``): from
    ``reserve()``, or from the budget and the visits ``asked`` so far.
    False: the ``deadline`` has passed (after the first of the call's
    simulations; ``sims`` done so far), or ``reserve()`` said stop."""
    cdef int64_t max_first = MAX_FIRST
    if sims and deadline < INFINITY and perf_counter() >= deadline:
        return False
    if reserve is not None:
        if not _reserve(reserve, batch, max_first, start, n):
            return False
        vl[0] = <double>n[0]
        return True
    n[0] = batch if budget < 0 else min(batch, budget - asked)
    start[0] = first + asked
    if start[0] > max_first:
        raise ValueError(f"playout index {start[0]} beyond {max_first}")
    return True


cdef int _sim_descend(TreeNode root, CoreBoard root_board, CoreBoard scratch, set seen,
                      PathHashes* ph, list nodes, list path, TreeParams params, double vl,
                      double threshold, bint* can_expand, grow, int64_t reserved_n) except -1:
    """One simulation's descent (tree_simulate's): ``scratch`` set to the
    root position, then :func:`_descend` from ``root`` (its positions in
    ``ph``, emptied first), each node it is due for made by ``grow`` (given
    ``reserved_n``, the descent's virtual loss, when >= 0), which also
    updates ``can_expand``.  Returns the last descent's ``D_*`` code."""
    root_board.copy_into(scratch)
    ph.n = 0
    cdef int found = _descend(root, scratch, seen, None, ph, nodes, path, params, vl,
                              threshold, can_expand[0])
    while found == D_EXPAND and grow is not None:
        # Copies: a callback cannot change the descent's own lists.
        child, expand = grow(scratch, list(nodes), list(path), reserved_n) \
            if reserved_n >= 0 else grow(scratch, list(nodes), list(path))
        can_expand[0] = expand
        found = _descend(<TreeNode?>child, scratch, seen, None, ph, nodes, path, params, vl,
                         threshold, can_expand[0])
    return found


cdef int _sim_evaluate(SimBuffers* buf, TreeNode root, list nodes, list path, int found,
                       PlayoutEngine engine, tally, CoreBoard scratch, int64_t n,
                       uint64_t key, int64_t start, double komi, bint tromp_taylor, lock,
                       bint reserved, double vl,
                       TallyCounts* counts, ReplyTable replies, TreeParams params) except -1:
    """One simulation's playouts from the leaf ``scratch`` and their back-up
    along ``nodes``/``path`` (tree_simulate's; ``found``: D_LEAF or D_STOP,
    where the playouts also count in the base of the node the descent
    stopped in).  The lock, when given, is let go while the playouts run."""
    cdef Py_ssize_t d, depth
    cdef int* grown
    cdef double value, result
    cdef TreeNode stopped
    # The path in memory of the loop's own before the lock is let go
    # (Python code that runs meanwhile cannot reach it).
    _check_path(nodes, path)
    depth = len(path)
    if depth > buf.cap:
        grown = <int*>realloc(buf.idx, depth * sizeof(int))
        if grown == NULL:
            raise MemoryError()
        buf.idx, buf.cap = grown, depth
    for d in range(depth):
        buf.idx[d] = <int>path[d]
    path_nodes = tuple(nodes)
    if lock is None:
        engine.run_tally(tally, scratch, n, key, start, komi, tromp_taylor, counts)
    else:
        # As the Python loop: other threads (an analysis's snapshots, the
        # search's other workers) use the tree while the playouts run.
        lock.release()
        try:
            engine.run_tally(tally, scratch, n, key, start, komi, tromp_taylor, counts,
                             reserved)
        finally:
            lock.acquire()
    cdef bint amaf = buf.am != NULL and (counts.amaf != NULL or counts.first != NULL)
    if buf.am != NULL and counts.amaf != NULL:
        _amaf_doubles(buf.am, counts.amaf, buf.npts)
    elif amaf:
        _amaf_single(buf.am, counts.first, counts.W, scratch.st.size, counts.black_wins > 0)
    if buf.scores:
        _tally_scores(buf.tallied, buf.k, buf.idx[0] if depth else -1, counts.hist, buf.npts)
    value = <double>counts.black_wins + 0.5 * <double>counts.draws
    _backup(path_nodes, buf.idx, depth, <double>counts.n, value, value, value,
            buf.am if amaf else NULL, buf.npts, vl, params)
    if found == D_STOP:
        stopped = _stopped(root, path_nodes, buf.idx, depth)
        stopped.base_ += <double>counts.n
    if replies is not None and counts.n > 0:
        result = <double>counts.last_score - komi
        _reply_simulation(replies, path_nodes, buf.idx, depth, counts.seq, counts.nseq,
                          counts.W, scratch.mover(),
                          BLACK_C if result > 0 else (WHITE_C if result < 0 else EMPTY_C))
    return 0


cdef TreeNode _stopped(TreeNode root, tuple nodes, const int* path, Py_ssize_t depth):
    """The node a ``D_STOP`` descent stopped inside: the last edge's child, or
    ``root`` for an empty path.  Raises ``RuntimeError`` if Python code
    dropped that child meanwhile."""
    if depth == 0:
        return root
    child = kid_get(<TreeNode>nodes[depth - 1], path[depth - 1])
    if child is None:
        raise RuntimeError("the tree changed during a descent: a child was dropped")
    return <TreeNode>child


cdef void _tally_scores(int64_t* tallied, int k, int i, const int64_t* h,
                        int64_t npts) noexcept:
    """A simulation's score histogram ``h`` into ``tallied[:2 npts + 1]``; its
    count, margin sum and margin-square sum into column ``i`` of the
    ``int64[3, k]`` after it (none when ``i`` < 0: the root was the leaf)."""
    cdef int64_t b, m, count = 0, total = 0, squares = 0
    cdef int64_t* sums = tallied + 2 * npts + 1
    for b in range(2 * npts + 1):
        tallied[b] += h[b]
        m = b - npts
        count += h[b]
        total += h[b] * m
        squares += h[b] * m * m
    if i >= 0:
        sums[i] += count
        sums[k + i] += total
        sums[2 * k + i] += squares


cdef inline double* _plain_doubles(object a, Py_ssize_t size) noexcept:
    """The data of ``a`` if it is a plain ndarray of ``size`` writable,
    C-contiguous float64 values, else NULL (numpy's C API: no buffer export)."""
    if not cnp.PyArray_CheckExact(a):
        return NULL
    cdef cnp.ndarray arr = <cnp.ndarray>a
    if cnp.PyArray_TYPE(arr) != cnp.NPY_DOUBLE or cnp.PyArray_SIZE(arr) != size \
            or not cnp.PyArray_IS_C_CONTIGUOUS(arr) or not cnp.PyArray_ISWRITEABLE(arr):
        return NULL
    return <double*>cnp.PyArray_DATA(arr)


cdef int _flush_tallies(SimBuffers* buf, object hist, object child_sums) except -1:
    """Add a simulation's buffered score tallies to the caller's arrays and
    zero them.  The arrays are looked at afresh each time (Python code in
    the callbacks could have resized or freed them): plain ones straight
    through their data, any other (or a wrong shape) through
    :func:`_add_tallies`, which checks and refuses.  Nothing without
    ``buf.scores``."""
    cdef int64_t b, nh = 2 * buf.npts + 1
    cdef int j, k = buf.k
    if not buf.scores:
        return 0
    cdef double* h = _plain_doubles(hist, nh)
    cdef double* sums = _plain_doubles(child_sums, 3 * k)
    if h == NULL or sums == NULL or cnp.PyArray_NDIM(<cnp.ndarray>child_sums) != 2 \
            or cnp.PyArray_DIM(<cnp.ndarray>child_sums, 0) != 3:
        _add_tallies(hist, child_sums, buf.tallied, buf.npts, k)
    else:
        for b in range(nh):
            h[b] += <double>buf.tallied[b]
        for j in range(3 * k):
            sums[j] += <double>buf.tallied[nh + j]
    memset(buf.tallied, 0, (nh + 3 * k) * sizeof(int64_t))
    return 0


cdef int _add_tallies(object hist, object child_sums, const int64_t* tallied, int64_t npts,
                      int k) except -1:
    """Check ``hist`` (``float64[2 npts + 1]``) and ``child_sums`` (``float64[3,
    k]``) and add ``tallied`` (_tally_scores's, or NULL: check only).  The
    tallies are integers: their sum is exact in any order, as numpy's is."""
    if hist is None or child_sums is None:
        raise ValueError("hist and child_sums go together")
    cdef double[::1] h = hist
    cdef double[:, ::1] sums = child_sums
    cdef int64_t b
    cdef int j
    if h.shape[0] != 2 * npts + 1 or sums.shape[0] != 3 or sums.shape[1] != k:
        raise ValueError("hist must be float64[2 size*size + 1] and child_sums "
                         "float64[3, moves of the root]")
    if tallied != NULL:
        for b in range(2 * npts + 1):
            h[b] += <double>tallied[b]
        for j in range(3 * k):
            sums[j // k, j % k] += <double>tallied[2 * npts + 1 + j]
    return 0


cdef inline bint true_eye(const uint8_t* color, int W, int p, int own) noexcept nogil:
    """Whether the empty padded point ``p`` is a true one-point eye of ``own``:
    only own stones or the edge orthogonally, and at most one enemy stone
    diagonally (none when a diagonal is off the board)."""
    cdef int enemy = other(own), bad = 0, off = 0, c
    c = color[p - W]
    if c != own and c != OFF_C:
        return False
    c = color[p + W]
    if c != own and c != OFF_C:
        return False
    c = color[p - 1]
    if c != own and c != OFF_C:
        return False
    c = color[p + 1]
    if c != own and c != OFF_C:
        return False
    c = color[p - W - 1]
    bad += c == enemy
    off += c == OFF_C
    c = color[p - W + 1]
    bad += c == enemy
    off += c == OFF_C
    c = color[p + W - 1]
    bad += c == enemy
    off += c == OFF_C
    c = color[p + W + 1]
    bad += c == enemy
    off += c == OFF_C
    return bad == 0 or (bad == 1 and off == 0)


cdef enum:
    NAKADE_MIN = 3      # eye spaces nakade_marks reads: 3 to NAKADE_MAX points
    NAKADE_MAX = 6


cdef int nakade_marks(const BoardState* b, uint8_t* out) noexcept nogil:
    """Mark in ``out`` (``size * size`` flat points, zeroed by the caller)
    the vital point of each small eye space; returns how many.

    An eye space: an orthogonally connected region of NAKADE_MIN to
    NAKADE_MAX empty points whose neighbours are stones of one colour only
    (empty_region).  Its vital point: the one point with the most neighbours
    in the region, when no other has as many (fastplay.life.nakade_points
    gives the shapes).
    """
    cdef uint8_t seen[MAX_PTS]
    cdef int16_t stack[MAX_PTS]
    cdef int16_t region[MAX_PTS]
    cdef int i, p, q, n, reach, size = b.size, W = b.W, marks = 0
    memset(seen, 0, W * W)
    for i in range(size * size):
        p = (i // size + 1) * W + i % size + 1
        if b.color[p] != EMPTY_C or seen[p]:
            continue
        n = empty_region(b, p, seen, stack, region, &reach)
        if NAKADE_MIN <= n <= NAKADE_MAX and (reach == 1 or reach == 2):
            q = _vital_point(region, n, W)
            if q >= 0:
                out[(q // W - 1) * size + q % W - 1] = 1
                marks += 1
    return marks


cdef int _vital_point(const int16_t* region, int n, int W) noexcept nogil:
    """The point of ``region`` (``n`` padded points) with the most neighbours
    in it, or -1 when two or more share the most."""
    cdef int j, k, d, count, most = -1, at = -1, ties = 0
    for j in range(n):
        count = 0
        for k in range(n):
            d = region[k] - region[j]
            count += d == W or d == -W or d == 1 or d == -1
        if count > most:
            most, at, ties = count, region[j], 1
        elif count == most:
            ties += 1
    return at if ties == 1 else -1


def nakade_flat(CoreBoard board not None):
    """``bool[size*size]``: the vital points of the board's small eye spaces
    (:func:`fastplay.life.nakade_points`, which documents the rule).
    Raises ``RuntimeError`` for a board not initialised."""
    if board.st.block == NULL:
        raise RuntimeError("the board was not initialised")
    cdef int size = board.st.size
    out = np.zeros(size * size, dtype=np.bool_)
    cdef uint8_t[::1] o = out.view(np.uint8)
    nakade_marks(&board.st, &o[0])
    return out


cdef enum:
    SHAPE_RADIUS_MAX_C = 5  # shape_hashes reads diamonds of radius 2..SHAPE_RADIUS_MAX_C
    SHAPE_POINTS_MAX = 60   # points of the largest: 2 r (r + 1)


# The diamond's points by distance (|dx| + |dy|), then row, then column, and
# one 64-bit key per (point, what is on it: empty, the mover's stone, the
# opponent's, off the board), from a fixed seed: the same hashes in every
# process, so saved priors read the same everywhere.
cdef int _SHAPE_DX[8][SHAPE_POINTS_MAX]     # [symmetry][point]
cdef int _SHAPE_DY[8][SHAPE_POINTS_MAX]
cdef int _SHAPE_END[SHAPE_RADIUS_MAX_C + 1]
cdef uint64_t _SHAPE_KEY[SHAPE_POINTS_MAX][4]


cdef void _shape_init() noexcept:
    cdef int d, dx, dy, k = 0, v, t
    cdef uint64_t s = 0x7368617065730000    # "shapes"
    _SHAPE_END[0] = 0
    for d in range(1, SHAPE_RADIUS_MAX_C + 1):
        for dx in range(-d, d + 1):
            for dy in range(-d, d + 1):
                if abs(dx) + abs(dy) == d:
                    # The 8 symmetries: swap the axes or not, then negate either.
                    for t in range(8):
                        _SHAPE_DX[t][k] = (dx if t < 4 else dy) * (-1 if t & 1 else 1)
                        _SHAPE_DY[t][k] = (dy if t < 4 else dx) * (-1 if t & 2 else 1)
                    k += 1
        _SHAPE_END[d] = k
    for k in range(SHAPE_POINTS_MAX):
        for v in range(4):
            _SHAPE_KEY[k][v] = splitmix64(&s)


_shape_init()

SHAPE_RADIUS_MAX = SHAPE_RADIUS_MAX_C


cdef int _check_board(CoreBoard board, int color) except -1:
    """ValueError for a colour that is not WHITE or BLACK, RuntimeError for a
    board not initialised."""
    board.check_color(color)
    if board.st.block == NULL:
        raise RuntimeError("the board was not initialised")
    return 0


def shape_hashes(CoreBoard board not None, color, radius):
    """Hashes of the diamond-shaped patterns around every point, the largest
    of radius ``radius``: ``uint64[radius - 1, size*size]``, row ``r - 2``
    the patterns of radius ``r`` (the points within Manhattan distance ``r``,
    centre excluded: 12 points at radius 2, 24 at 3, 40 at 4, 60 at 5).

    Each point of the diamond holds one of four things relative to
    ``color``, the mover: empty, the mover's stone, the opponent's stone,
    off the board.  A pattern's hash is the least over the 8 symmetries of
    the square of the XOR of one fixed 64-bit key per (diamond point, what
    is on it), so the 8 rotations and reflections of a pattern hash the
    same and two patterns differ in hash except by a 64-bit collision (the
    large patterns of Coulom 2007, section 2.2, and Stern, Herbrich and
    Graepel 2006).  Occupied points get hash 0.

    Raises ``ValueError`` for a colour that is not WHITE or BLACK or a
    ``radius`` outside 2..5, ``TypeError`` for either not an integer,
    ``RuntimeError`` for a board not initialised.
    """
    color = operator.index(color)
    radius = operator.index(radius)
    _check_board(board, color)
    if not 2 <= radius <= SHAPE_RADIUS_MAX_C:
        raise ValueError(f"radius must be in 2..{SHAPE_RADIUS_MAX_C}, not {radius}")
    cdef int size = board.st.size, npts = size * size
    out = np.zeros((radius - 1, npts), dtype=np.uint64)
    cdef uint64_t[:, ::1] o = out
    _shape_rows(&board.st, color, radius, &o[0, 0], npts)
    return out


cdef inline void _shape_what(uint8_t* what, int color) noexcept:
    """What a diamond point holds, by its colour code, for ``color`` to move:
    0 empty, 1 the mover's stone, 2 the opponent's, 3 off the board."""
    what[EMPTY_C] = 0
    what[color] = 1
    what[3 - color] = 2
    what[OFF_C] = 3


cdef inline int _shape_value(const BoardState* b, const uint8_t* what, int x, int y) noexcept:
    """What the point (row x, column y) holds (:func:`_shape_what`); 3 off the board."""
    if <unsigned>x < <unsigned>b.size and <unsigned>y < <unsigned>b.size:
        return what[b.color[(x + 1) * b.W + y + 1]]
    return 3


cdef void _shape_rows(const BoardState* b, int color, int radius, uint64_t* out,
                      int npts) noexcept:
    """shape_hashes' work: row ``r - 2`` of ``out`` (``npts`` a row) for radius ``r``."""
    cdef int size = b.size, i, r
    cdef uint8_t what[4]
    cdef uint64_t canon[SHAPE_RADIUS_MAX_C]
    _shape_what(what, color)
    for i in range(npts):
        if b.color[(i // size + 1) * b.W + i % size + 1] != EMPTY_C:
            continue
        _shape_point(b, what, i // size, i % size, radius, canon)
        for r in range(radius - 1):
            out[r * npts + i] = canon[r]


cdef void _shape_point(const BoardState* b, const uint8_t* what, int row, int col, int radius,
                       uint64_t* canon) noexcept:
    """The canonical hashes of the diamonds of radius 2..``radius`` at (row,
    col) into ``canon[0..radius-2]``: each the least over the 8 symmetries."""
    cdef int s, k, r
    cdef uint64_t h[8]
    cdef uint64_t best
    for s in range(8):
        h[s] = 0
    for r in range(1, radius + 1):
        for s in range(8):
            for k in range(_SHAPE_END[r - 1], _SHAPE_END[r]):
                h[s] ^= _SHAPE_KEY[k][_shape_value(b, what, row + _SHAPE_DX[s][k],
                                                   col + _SHAPE_DY[s][k])]
        if r >= 2:
            best = h[0]
            for s in range(1, 8):
                if h[s] < best:
                    best = h[s]
            canon[r - 2] = best


cdef enum:
    SHAPE_CACHE_BITS = 16   # ShapeIndex's cache: 2**16 patterns seen


cdef uint64_t _shape_identity(const BoardState* b, int row, int col, const uint8_t* what,
                              int radius) noexcept:
    """The hash of the radius-``radius`` diamond at (row, col) as it lies (no
    symmetry): it names the whole pattern, so ShapeIndex caches by it."""
    cdef int k
    cdef uint64_t h = 0
    for k in range(_SHAPE_END[radius]):
        h ^= _SHAPE_KEY[k][_shape_value(b, what, row + _SHAPE_DX[0][k], col + _SHAPE_DY[0][k])]
    return h


cdef class ShapeIndex:
    """The kept large patterns of a prior (fastplay.shapes.ShapeTable), for
    labelling a board's points fast: ``labels(board, color)`` equals
    ``ShapeTable.labels`` of ``shape_hashes(board, color, radius)``, read
    through a cache keyed by each point's unrotated hash (a search meets
    the same shapes at node after node), so that most points cost one pass
    over their diamond instead of eight.

    ``hashes``: one sorted ``uint64`` array of distinct hashes per radius,
    radius 2 first (at most SHAPE_RADIUS_MAX - 1 of them); ``gamma``: the
    strength of each label, ``float64[1 + total]``, positive and finite.
    Raises ``ValueError`` otherwise.
    """

    cdef readonly int radius
    cdef list _kept
    cdef object _gamma
    cdef const double* _g
    cdef const uint64_t* _keys[SHAPE_RADIUS_MAX_C]
    cdef int64_t _count[SHAPE_RADIUS_MAX_C]
    cdef int64_t _start[SHAPE_RADIUS_MAX_C]
    cdef uint64_t* _cache_key
    cdef int32_t* _cache_label

    def __cinit__(self, hashes, gamma):
        cdef int r
        cdef const uint64_t[::1] view
        cdef const double[::1] gview
        self._cache_key = NULL
        self._cache_label = NULL
        given = [np.asarray(h) for h in hashes]
        if not 1 <= len(given) <= SHAPE_RADIUS_MAX_C - 1 or any(
                h.ndim != 1 or h.dtype.kind not in "iu" or (h.size and h.min() < 0)
                for h in given):
            raise ValueError("hashes: 1 to 4 sorted uint64 arrays of distinct hashes")
        # Copies: the core reads them by pointer, whatever the caller does later.
        kept = [np.array(h, dtype=np.uint64) for h in given]
        if any(np.any(h[1:] <= h[:-1]) for h in kept):
            raise ValueError("hashes: 1 to 4 sorted uint64 arrays of distinct hashes")
        strengths = np.asarray(gamma)
        if strengths.ndim != 1 or strengths.dtype.kind not in "iuf":
            raise ValueError("gamma: one positive, finite strength per label")
        strengths = np.array(strengths, dtype=np.float64)
        if len(strengths) != 1 + sum(len(h) for h in kept) \
                or not np.all((strengths > 0) & (strengths < INFINITY)):
            raise ValueError("gamma: one positive, finite strength per label")
        strengths.setflags(write=False)
        self._gamma = strengths
        gview = strengths
        self._g = &gview[0]
        self.radius = len(kept) + 1
        self._kept = kept
        start = 1
        for r in range(len(kept)):
            self._count[r] = len(kept[r])
            self._start[r] = start
            start += len(kept[r])
            if len(kept[r]):
                view = kept[r]
                self._keys[r] = &view[0]
            else:
                self._keys[r] = NULL
        self._cache_key = <uint64_t*>malloc(sizeof(uint64_t) << SHAPE_CACHE_BITS)
        self._cache_label = <int32_t*>malloc(sizeof(int32_t) << SHAPE_CACHE_BITS)
        if self._cache_key == NULL or self._cache_label == NULL:
            raise MemoryError()
        for r in range(1 << SHAPE_CACHE_BITS):
            self._cache_label[r] = -1

    def __dealloc__(self):
        free(self._cache_key)
        free(self._cache_label)

    def __reduce__(self):
        return ShapeIndex, (tuple(self._kept), self._gamma)

    def factors(self, CoreBoard board not None, int color, row):
        """``float64[size*size]``: ``row`` (``float64[size*size]``, a learned
        prior's line factors) times the strength of each empty point's label,
        clipped to [1e-6, 1e6] (the bounds of a factor row, ``expansion_moves``);
        ``row`` as it is on stones.  Raises as :meth:`labels`, and
        ``ValueError`` for a row of another length or with a value that is
        not positive and finite."""
        _check_board(board, color)
        cdef int npts = board.st.size * board.st.size, i
        cdef const double[::1] base = np.ascontiguousarray(row, dtype=np.float64)
        if base.shape[0] != npts:
            raise ValueError(f"row must have {npts} entries, not {base.shape[0]}")
        cdef int64_t lab[MAX_SIZE_C * MAX_SIZE_C]
        self._labels(&board.st, color, lab)
        out = np.empty(npts, dtype=np.float64)
        cdef double[::1] o = out
        cdef double x
        for i in range(npts):
            if not 0.0 < base[i] < INFINITY:
                raise ValueError("row must hold positive, finite factors")
            x = base[i] * self._g[lab[i]] if lab[i] >= 0 else base[i]
            o[i] = 1e-6 if x < 1e-6 else (1e6 if x > 1e6 else x)
        return out

    def labels(self, CoreBoard board not None, int color):
        """``int64[size*size]``: each empty point's label (0: no kept
        pattern; else 1 + its place among the kept patterns, radius 2's
        first), -1 on a stone.  Raises as :func:`shape_hashes`."""
        _check_board(board, color)
        cdef int npts = board.st.size * board.st.size
        out = np.empty(npts, dtype=np.int64)
        cdef int64_t[::1] o = out
        self._labels(&board.st, color, &o[0])
        return out

    def label_hashes(self, shapes):
        """``int64[k]``: the label of each of ``k`` moves whose canonical
        hashes at radius 2..R' are ``shapes`` (``uint64[k, R' - 1]``, R' at
        least :attr:`radius`, as :func:`shape_hashes` gives them transposed):
        its largest kept pattern's, 0 for none.  Raises ``ValueError`` for
        another shape or dtype."""
        given = np.asarray(shapes)
        if given.ndim != 2 or given.shape[1] < self.radius - 1 or given.dtype.kind not in "iu":
            raise ValueError(f"shapes must be uint64[k, {self.radius - 1}] or wider")
        cdef const uint64_t[:, ::1] s = np.ascontiguousarray(given[:, :self.radius - 1],
                                                             dtype=np.uint64)
        out = np.zeros(s.shape[0], dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef Py_ssize_t j
        for j in range(s.shape[0]):
            o[j] = self._label(&s[j, 0])
        return out

    cdef void _labels(self, const BoardState* b, int color, int64_t* out) noexcept:
        cdef int size = b.size, W = b.W, i, row, col
        cdef uint8_t what[4]
        cdef uint64_t h
        cdef uint64_t canon[SHAPE_RADIUS_MAX_C]
        cdef size_t slot
        _shape_what(what, color)
        for i in range(size * size):
            row = i // size
            col = i % size
            if b.color[(row + 1) * W + col + 1] != EMPTY_C:
                out[i] = -1
                continue
            h = _shape_identity(b, row, col, what, self.radius)
            slot = <size_t>(h ^ (h >> 29)) & ((1 << SHAPE_CACHE_BITS) - 1)
            if self._cache_label[slot] >= 0 and self._cache_key[slot] == h:
                out[i] = self._cache_label[slot]
                continue
            _shape_point(b, what, row, col, self.radius, canon)
            out[i] = self._label(canon)
            self._cache_key[slot] = h
            self._cache_label[slot] = <int32_t>out[i]

    cdef int64_t _label(self, const uint64_t* canon) noexcept:
        """The label of a point whose canonical hashes (radius 2 first) are ``canon``."""
        cdef int r
        cdef int64_t lo, hi, mid
        for r in range(self.radius - 2, -1, -1):
            lo = 0
            hi = self._count[r]
            while lo < hi:
                mid = (lo + hi) >> 1
                if self._keys[r][mid] < canon[r]:
                    lo = mid + 1
                else:
                    hi = mid
            if lo < self._count[r] and self._keys[r][lo] == canon[r]:
                return self._start[r] + lo
        return 0


def true_eyes(grid, int sign):
    """Empty points that are true one-point eyes of a colour (``bool[size, size]``).

    ``grid`` is ``int8[size, size]`` as :meth:`CoreBoard.to_numpy` gives it (1
    Black, -1 White, 0 empty); ``sign`` is +1 for Black, -1 for White.  The
    usual playout rule (e.g. Pachi's ``board_is_eyelike`` plus the false-eye
    test).  Raises ``ValueError`` for a grid that is not square, not of a
    board size, or has other values.
    """
    g = np.asarray(grid)
    if g.ndim != 2 or g.shape[0] != g.shape[1] or not MIN_SIZE_C <= g.shape[0] <= MAX_SIZE_C \
            or (g.size and not np.isin(g, (-1, 0, 1)).all()) or sign not in (-1, 1):
        raise ValueError("grid must be int8[size, size] with values -1, 0, 1 and sign +-1")
    cdef int size = g.shape[0], W = size + 2, r, col
    padded = np.full((W, W), OFF_C, dtype=np.uint8)
    padded[1:-1, 1:-1] = np.select([g == 1, g == -1], [BLACK_C, WHITE_C], EMPTY_C)
    cdef const uint8_t[:, ::1] pc = padded
    out = np.zeros((size, size), dtype=np.bool_)
    cdef uint8_t[:, ::1] o = out.view(np.uint8)
    cdef int own = BLACK_C if sign == 1 else WHITE_C
    for r in range(size):
        for col in range(size):
            if pc[r + 1, col + 1] == EMPTY_C:
                o[r, col] = true_eye(&pc[0, 0], W, (r + 1) * W + col + 1, own)
    return out


def expansion_moves(CoreBoard board not None, int color, values, double line1, double line2,
                    factors=()):
    """A new node's candidate moves and their raw prior weights.

    Candidates are the empty points with a positive pattern value, or a zero
    value but legal (a zero usually means illegal: suicide, ko), except the
    mover's true eyes (filling one never helps under area scoring).  The
    weight is the pattern value (a zero takes a tenth of the smallest
    positive one), times ``line1`` on the first line and ``line2`` on the
    second where no stone lies within two lines (Chebyshev distance) and
    the board is at least 7x7: patterns give every point of an empty board
    the same value.

    Args:
        board: the position.
        color: the mover's colour code.
        values: ``uint32[size, size]`` or flat, the pattern values
            (:meth:`PatternDatabase.move_values`).
        factors: up to three ``float64[size*size]`` (or ``[size, size]``)
            per-point multipliers of the weights, each in [1e-6, 1e6] (a
            learned prior's line and distance factors,
            :meth:`fastplay.prior.LearnedPrior.factor_rows`).

    Returns ``(points, weights)``: ``int64[m]`` flat indices in board order
    and ``float64[m]``.  Raises ``ValueError`` for a bad colour or shape,
    values that are not integers in [0, 2**32), ``line1``/``line2`` that are
    not positive and finite, or factor rows out of bounds; ``TypeError`` for
    factor rows that are not real numbers; ``RuntimeError`` when reading the
    values or a factor row (an ``__array__``) re-initialises the board.
    """
    board.check_color(color)
    cdef int size = board.st.size, npts = size * size
    given = np.asarray(values)
    if given.dtype != np.uint32 and (given.dtype.kind not in "iu" or (given.size and (
            given.min() < 0 or given.max() > 0xFFFFFFFF))):
        raise ValueError("values must be integers in [0, 2**32)")
    if not (0.0 < line1 < INFINITY and 0.0 < line2 < INFINITY):
        raise ValueError("line1 and line2 must be positive and finite")
    cdef const uint32_t[::1] v = np.ascontiguousarray(given, dtype=np.uint32).ravel()
    if v.shape[0] != npts:
        raise ValueError(f"values must have {npts} entries, not {v.shape[0]}")
    rows = _factor_rows(factors, size, npts)
    _check_unchanged(board, size)
    points = np.empty(npts, dtype=np.int64)
    weights = np.empty(npts, dtype=np.float64)
    cdef int64_t[::1] pt = points
    cdef double[::1] wt = weights
    cdef int m = _candidates(board, color, &v[0], line1, line2, rows, &pt[0], &wt[0])
    return points[:m].copy(), weights[:m].copy()


cdef int _check_unchanged(CoreBoard board, int size) except -1:
    """RuntimeError unless ``board`` still has ``size``: reading the arguments
    (a factor row's ``__array__``) can run Python code that re-initialises
    the board, and the buffers were sized before."""
    if board.st.size != size:
        raise RuntimeError("the board changed while the arguments were read")
    return 0


cdef int _candidates(CoreBoard board, int color, const uint32_t* v, double line1, double line2,
                     list rows, int64_t* pt, double* wt) except -1:
    """expansion_moves's work on checked arguments (``rows``: _factor_rows's):
    the candidates into ``pt``, their weights into ``wt`` (room for every
    point); returns how many."""
    cdef int size = board.st.size, W = board.st.W, npts = size * size
    cdef int nf = len(rows)
    cdef const double[::1] f0, f1, f2
    if nf:
        f0 = rows[0]
        f1 = rows[1] if nf > 1 else rows[0]
        f2 = rows[2] if nf > 2 else rows[0]
    cdef const uint8_t* col = board.st.color
    cdef int i, p, m = 0
    cdef uint32_t low = 0
    for i in range(npts):
        p = (i // size + 1) * W + i % size + 1
        if col[p] != EMPTY_C or true_eye(col, W, p, color):
            continue
        if v[i] == 0 and board.legal_code(p, color) != LEGAL:
            continue
        if v[i] > 0 and (low == 0 or v[i] < low):
            low = v[i]
        pt[m] = i
        m += 1
    cdef double floor = low / 10.0 if low else 1.0
    # Factors of 1 change nothing (x * 1.0 is x): no window scan for them.
    cdef bint edges = size >= 7 and (line1 != 1.0 or line2 != 1.0)
    for i in range(m):
        wt[i] = v[pt[i]] if v[pt[i]] > 0 else floor
        if nf:
            wt[i] *= f0[pt[i]] * (f1[pt[i]] if nf > 1 else 1.0) * (f2[pt[i]] if nf > 2 else 1.0)
        if edges:
            wt[i] *= _edge_factor(col, W, size, <int>pt[i], line1, line2)
    return m


def make_node(CoreBoard board not None, PlayoutEngine engine not None, double line1,
              double line2, factors, bint tactical, double ladder_prior, double ladder_visits,
              double prior_power, double pass_prior, double base, bint release=False,
              TreeParams params=None, bint opening_pass=False, double nakade=1.0):
    """A new node for ``board``'s side to move, as ``prior_node(color,
    *expansion_moves(board, color, engine.move_values(board), line1, line2,
    factors), tactics, weight, ...)`` makes it, where (when ``tactical``)
    ``tactics`` are :meth:`CoreBoard.tactics_flat`'s codes of the candidates
    and ``weight`` 1 where a code is set: the same node to the bit, without
    numpy between the steps (a search makes one every few simulations).

    ``release``: the tactical reading runs on a copy of the board with the
    GIL let go, so that a search's other threads go on meanwhile (the same
    node either way).  ``opening_pass``: forbid the pass (``forbid(-1)``)
    when there are other moves, the last move was not a pass and fewer than
    a quarter of the points hold stones (the search's opening rule,
    :meth:`fastplay.search.priors.NodeMaker.expand`).  ``params``: checked
    when given (the values they select with are computed at selection).
    ``nakade``: factor on the weight of the vital points of small eye spaces
    (:func:`nakade_flat`), applied after ``expansion_moves``'s weights, as
    the search option ``nakade_prior`` does (1: none).

    Raises as those functions do, and ``RuntimeError`` for a board or
    ``params`` not initialised, or when reading a factor row re-initialises
    the board.
    """
    _check_prior_constants(ladder_prior, ladder_visits, prior_power, pass_prior, base)
    if board.st.block == NULL:
        raise RuntimeError("the board was not initialised")
    if params is not None:
        params._check_ready()
    cdef int size = board.st.size, npts = size * size, color, m, j
    if not (0.0 < line1 < INFINITY and 0.0 < line2 < INFINITY):
        raise ValueError("line1 and line2 must be positive and finite")
    if not 0.0 < nakade < INFINITY:
        raise ValueError("nakade must be positive and finite")
    rows = _factor_rows(factors, size, npts)
    _check_unchanged(board, size)
    color = board.mover()
    cdef uint32_t values[MAX_SIZE_C * MAX_SIZE_C]
    cdef int64_t pt[MAX_SIZE_C * MAX_SIZE_C + 1]
    cdef double raw[MAX_SIZE_C * MAX_SIZE_C + 1]
    cdef cnp.int8_t codes[MAX_SIZE_C * MAX_SIZE_C]
    cdef cnp.int8_t tc[MAX_SIZE_C * MAX_SIZE_C]
    cdef double wt[MAX_SIZE_C * MAX_SIZE_C]
    cdef double pr[MAX_SIZE_C * MAX_SIZE_C + 1]
    engine.values_into(board, values)
    m = _candidates(board, color, values, line1, line2, rows, pt, raw)
    if nakade != 1.0:
        _nakade_weights(board, pt, raw, m, nakade)
    if tactical:
        memset(codes, 0, npts)
        tactics_codes(&board.st, color, board.allows_suicide(), codes, NULL, release)
        for j in range(m):
            tc[j] = codes[pt[j]]
            wt[j] = 1.0 if tc[j] != TAC_NONE else 0.0
    _priors(pt, raw, tc if tactical else NULL, wt, m, ladder_prior, prior_power, pass_prior,
            pt, pr)
    cdef TreeNode node = TreeNode.__new__(TreeNode)
    node_fill(node, color, pt, pr, m + 1, base)
    if tactical and ladder_visits > 0:
        _ladder_visits(node, tc, wt, ladder_visits, m)
    if opening_pass and m and board.st.passes == 0 and _stones(&board.st) < npts // 4:
        node._forbid(m)
    return node


cdef void _nakade_weights(CoreBoard board, const int64_t* pt, double* raw, int m,
                          double nakade) noexcept:
    """``raw`` of the candidates ``pt`` at vital points (nakade_marks) times ``nakade``."""
    cdef uint8_t marks[MAX_SIZE_C * MAX_SIZE_C]
    cdef int j
    memset(marks, 0, board.st.size * board.st.size)
    if nakade_marks(&board.st, marks):
        for j in range(m):
            if marks[pt[j]]:
                raw[j] *= nakade


cdef int _stones(const BoardState* b) noexcept:
    """Stones on the board."""
    cdef int p, n = 0
    for p in range(b.npts):
        n += b.color[p] == WHITE_C or b.color[p] == BLACK_C
    return n


cdef object _FLOAT64 = np.dtype(np.float64)


cdef list _factor_rows(factors, int size, int npts):
    """``factors`` as checked ``float64[npts]`` rows (the contract of expansion_moves)."""
    if len(factors) > 3:
        raise ValueError("at most three factor rows")
    cdef const double[::1] fk
    cdef int k
    cdef cnp.ndarray arr
    rows = []
    for f in factors:
        if type(f) is np.ndarray:
            arr = <cnp.ndarray>f
            if arr.dtype is _FLOAT64 and cnp.PyArray_NDIM(arr) == 1 \
                    and cnp.PyArray_DIM(arr, 0) == npts and cnp.PyArray_IS_C_CONTIGUOUS(arr):
                rows.append(f)    # as it is (the learned prior's rows): checked below
                continue
        given_row = np.asarray(f)
        if given_row.dtype.kind not in "iuf":
            raise TypeError(f"factor rows must hold real numbers, not {given_row.dtype}")
        if given_row.shape != (npts,) and given_row.shape != (size, size):
            raise ValueError(f"factor rows must have shape ({npts},) or ({size}, {size}), "
                             f"not {given_row.shape}")
        rows.append(np.ascontiguousarray(given_row, dtype=np.float64).ravel())
    for row in rows:
        fk = row
        for k in range(npts):
            # Bounded (as fastplay.prior bounds a saved prior's strengths) so
            # that three rows times a pattern value stay positive and finite.
            if not 1e-6 <= fk[k] <= 1e6:
                raise ValueError("factor rows must hold numbers in [1e-6, 1e6]")
    return rows


cdef inline double _edge_factor(const uint8_t* col, int W, int size, int point, double line1,
                                double line2) noexcept:
    """``line1`` (first line) or ``line2`` (second) for a point with no stone
    within two lines (Chebyshev distance), else 1."""
    cdef int r = point // size, c = point % size, dr, dc, near = 0
    cdef int line = 1 + min(min(r, c), min(size - 1 - r, size - 1 - c))
    if line > 2:
        return 1.0
    for dr in range(max(r - 2, 0), min(r + 3, size)):
        for dc in range(max(c - 2, 0), min(c + 3, size)):
            near |= col[(dr + 1) * W + dc + 1] != EMPTY_C
    return 1.0 if near else (line1 if line == 1 else line2)
