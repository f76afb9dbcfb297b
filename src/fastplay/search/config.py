"""The search's options: one frozen, validated :class:`SearchConfig`.

Every option of :class:`fastplay.search.MCTS` that is not a resource
(threads, seed) or a plug-in (evaluator, prior) lives here, is checked once
in ``__post_init__``, and is changed by :func:`dataclasses.replace`, which
checks the new value again.  How each default was chosen is recorded in
``benchmarks/RESULTS.md``, "Where the search's constants come from".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from collections.abc import Collection
from typing import Any, Literal

import numpy as np

from fastplay._checks import is_integer
from fastplay._equality import fields_equal
from fastplay.asciinum import ascii_float, ascii_int
from fastplay.shown import quoted, shown_value

__all__ = ["SearchConfig", "C_PUCT", "C_PUCT_BY_SIZE", "WIDEN_BASE_BY_SIZE",
           "NAKADE_PRIOR_BY_SIZE", "C_UCT",
           "DEFAULT_BATCH", "DEFAULT_PLAYOUTS", "MAX_BATCH", "LADDER_PRIOR", "LADDER_VISITS",
           "EDGE_BYTES", "NODE_BYTES", "EXPAND_FLOOR", "default_expand_threshold", "option_names",
           "parse_option"]

#: Exploration constants.  Visits are counted in playouts, so the PUCT term is
#: about ``1/sqrt(batch)`` of what it would be with visits counted in
#: simulations (RESULTS.md, "Where the search's constants come from").
C_PUCT = 1.0
C_UCT = 0.5

#: ``c_puct`` per board size where the default (``c_puct=None``) is not
#: :data:`C_PUCT` (13x13: RESULTS.md, "Exploration 0.7 on 13x13").
C_PUCT_BY_SIZE: dict[int, float] = {13: 0.7}

#: ``widen_base`` per board size where the default (``widen_base=None``) is
#: not 0, no widening (9x9: RESULTS.md, "Progressive widening"; 13x13:
#: "Progressive widening on 13x13").
WIDEN_BASE_BY_SIZE: dict[int, int] = {9: 10, 13: 10}

#: ``nakade_prior`` per board size where the default (``nakade_prior=None``)
#: is not 1, none (9x9: RESULTS.md, "Nakade vital points in the tree's prior").
NAKADE_PRIOR_BY_SIZE: dict[int, float] = {9: 5.0}

#: Playouts per leaf and search thread when ``batch`` is ``None`` (the choice
#: of 1 per leaf: RESULTS.md, "Where the search's constants come from").
DEFAULT_BATCH = 1

#: Playouts an edge needs at least before it gets a node when
#: ``expand_threshold`` is ``None`` (the default threshold is the larger of
#: this and two batches).  Fewer nodes make a simulation cheaper; the choice:
#: RESULTS.md, "Where the search's constants come from".
EXPAND_FLOOR = 4


def default_expand_threshold(batch: int) -> int:
    """The expansion threshold when ``expand_threshold`` is ``None``, for
    ``batch`` playouts a leaf: ``max(EXPAND_FLOOR, 2 * batch)``."""
    return max(EXPAND_FLOOR, 2 * batch)

#: Playouts per move when neither a limit nor a clock is given.
DEFAULT_PLAYOUTS = 5000

#: A node's bytes as the tree's budget (``max_memory``) estimates them:
#: ``NODE_BYTES`` for the node (its Python object, allocations, the record
#: of its children, the slots of ``n`` and ``w`` for the moves reached and of
#: ``pn`` and ``pw`` for the moves given prior playouts, a widened node's AMAF
#: pairs, the widening order as far as it was read, the bitset of its
#: points) and ``EDGE_BYTES`` for each of its ``k`` moves (the ``float32``
#: prior; the two ``float32`` AMAF rows of a node not widened; the allowed
#: bit).  A least-squares line through the resident size of default
#: one-thread searches, their edges counted exactly (``fuzz/soak_tree.py``,
#: 2026-12-07, twenty-second session: 511 bytes a 3x3 node of 3.4 moves, 617
#: on 5x5 (18.6), 1,071 on 9x9 (75.8), 994 in a 9x9 middle game (50.3),
#: 5,424 on 19x19 (359.3)) is 289 + 14.1 k; the widened 9x9 nodes sit well
#: under it (1,071 against 1,360).  A row made later adds 8 bytes a move:
#: ``vl`` with threads, ``wins`` with an evaluator's mix; the four slotted
#: rows made dense (the root, the nodes a result's principal variations
#: read) 32; 33 leaves room for the first two.  500 a node still covers the
#: 3x3 node (612 estimated); 700 and 38 before the node's layout was
#: packed, 700 and 50 while the three rows were ``float64`` (RESULTS.md,
#: "Soak and endings").
NODE_BYTES = 500
EDGE_BYTES = 33

#: Largest ``batch``: one batch is one engine call, which a stop request or
#: the clock cannot interrupt.
MAX_BATCH = 4096

#: The ladder knowledge's prior factor (picked once: RESULTS.md, "Where the
#: search's constants come from") and virtual playouts (50 until screens on
#: 9x9, 13x13 and 19x19 each chose 15: "The ladder reader's virtual playouts").
LADDER_PRIOR = 10.0
LADDER_VISITS = 15.0

Policy = Literal["puct", "uct"]
ScoringName = Literal["tromp-taylor", "gnugo"]


def _integer(name: str, value: Any, low: int, high: int) -> int:
    """``value`` (an integer, not a bool) in ``[low, high]``, or
    ``TypeError``/``ValueError`` naming the option."""
    if not is_integer(value):
        raise TypeError(f"{name} must be an integer, not {shown_value(value)}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer in [{low}, {high}], not {shown_value(value)}")
    return int(value)


def _word(name: str, value: Any, words: tuple[str, ...]) -> None:
    """``value`` one of ``words``: ``TypeError`` for a value that is not a
    string, ``ValueError`` for another string, naming the option."""
    if isinstance(value, str) and value in words:
        return
    choice = " or ".join(f"'{word}'" for word in words)
    error = ValueError if isinstance(value, str) else TypeError
    raise error(f"{name} must be {choice}, not {shown_value(value)}")


# The last tables _check_priors accepted, by identity: replace() checks every
# field again, and a whole table takes about 2.7 ms to check (0.02 ms without
# one), on each option assigned and each analysis query.  A table changed in
# place since is still checked where it is loaded (load_prior).
_CHECKED_TABLES: list[object] = []


def _check_priors(prior_table: Any, opponent_prior: Any) -> None:
    """The two prior options, checked without reading a file
    (:func:`fastplay.prior.check_source`; ``"auto"`` and ``None`` too)."""
    from fastplay.prior import check_source

    for name, value in (("prior_table", prior_table), ("opponent_prior", opponent_prior)):
        if value is None or (isinstance(value, str) and value == "auto") \
                or any(value is seen for seen in _CHECKED_TABLES):
            continue
        try:
            check_source(value)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name}: {exc}") from None
        if not isinstance(value, str):
            _CHECKED_TABLES[:] = [value, *_CHECKED_TABLES[:3]]


def _number(name: str, value: Any) -> float:
    """``value`` (a real number, not a string or a bool) as a float, or
    ``TypeError``/``ValueError`` naming the option."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(f"{name} must be a number, not {shown_value(value)}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, not {shown_value(value)}") from None
    except OverflowError:
        raise ValueError(f"{name} is out of range: {shown_value(value)}") from None


def _bounded(name: str, value: Any, low: float, high: float) -> float:
    number = _number(name, value)
    if not low <= number <= high:
        raise ValueError(f"{name} must be a number in [{low:g}, {high:g}], "
                         f"not {shown_value(value)}")
    return number + 0.0      # -0.0 becomes 0.0 (a tester saw "-0.0" written out)


# name -> (low, high): real options and their bounds.  Bounded because an
# infinite constant turns the selection's scores into NaN, a prior power above 4
# overflows with values up to 2**32, and a score weight of 1 drops the wins.
_REAL_BOUNDS: dict[str, tuple[float, float]] = {
    "c_uct": (0.0, 1e6), "fpu_reduction": (-1.0, 1.0),
    "even_visits": (0.0, 1e12), "pattern_visits": (0.0, 1e12), "score_weight": (0.0, 0.999),
    "fight_prior": (1e-6, 1e6), "ladder_prior": (1.0, 1e6), "ladder_visits": (0.0, 1e12),
    "rave_equiv": (1e-3, 1e12), "dynamic_komi": (0.0, 10.0), "mix": (0.0, 1.0),
    "ancestor_amaf": (0.0, 1e12), "criticality": (0.0, 1e3),
    "widen_visits": (1.0, 1e12), "widen_factor": (1.001, 100.0), "reply_visits": (0.0, 1e12),
}

# name -> (low, high): integer options.  One search below 1 playout, or
# resigning after 0 searches, means nothing (a tester got moves without a
# search and resignations on the empty board).
_INT_BOUNDS: dict[str, tuple[int, int]] = {
    "resign_moves": (1, 10**6), "default_playouts": (1, 2**53), "max_nodes": (1, 10**9),
    "max_memory": (1 << 20, 1 << 50),
    "stake_stones": (0, 361), "eval_batch": (1, 4096), "criticality_depth": (0, 10**6),
}


@dataclass(frozen=True)
class SearchConfig:
    """What the search does, validated at construction.

    Attributes:
        policy: ``"puct"`` (Rosin 2011 in AlphaGo Zero's form) or ``"uct"``
            (Kocsis and Szepesvari 2006).
        c_puct, c_uct: exploration constants of the two formulas;
            ``c_puct=None`` (the default) is the board size's
            (:data:`C_PUCT_BY_SIZE`, else :data:`C_PUCT`: :meth:`puct_for`).
        rave: blend in AMAF tallies (RAVE, Gelly and Silver 2007/2011);
            ``rave_equiv`` is the visit count (playouts) at which a move's
            own value and its RAVE value weigh the same.
        batch: visits per leaf -- playouts per simulation -- in [1,
            ``MAX_BATCH``] and never more than a search's visit limit;
            ``None``: ``DEFAULT_BATCH`` per thread, at least
            ``ceil(points / 128)`` (3 on 19x19).
        expand_threshold: visits an edge needs before it gets a node
            (``None``: ``max(EXPAND_FLOOR, 2 * batch)``: 4 playouts with one
            playout per leaf, a node on the fifth visit).
        prior_power: exponent on the weights that form the priors; ``None``:
            1 for a learned or user prior (a probability), 0.5 for the
            playout values (keeps a capture worth 20000 from drowning a
            quiet move worth 1).
        pass_prior: prior probability of the pass, in (0, 1).
        fpu_reduction: first-play urgency (Leela Zero): an unvisited move
            without RAVE data starts at the parent's mean minus this.
        scoring: playout scoring, ``"tromp-taylor"`` or ``"gnugo"``.
        resign_threshold: resign when the best win rate stays below this
            for ``resign_moves`` searches of at least 100 visits, never in
            the opening (fewer than a quarter of the points played);
            ``None`` never resigns.
        default_playouts: visits per move without a limit or a clock.
        max_nodes: the tree stops growing beyond this many nodes (with
            several threads, up to one more node per thread: each learns
            that the tree is full as it makes a node).
        max_memory: ... or once its estimated size passes this many bytes
            (``NODE_BYTES`` a node and ``EDGE_BYTES`` per move of each:
            on 19x19 a node holds some 360 moves, about 12.4 kB, so the
            default 1 GiB is about 87,000 nodes there and 357,000 on
            9x9).  Searches go on refining the tree they have.
        even_visits, pattern_visits: prior knowledge as virtual playouts
            (Gelly and Silver 2007, section 5): at 0.5 for every move, and
            at ``r / (1 + r)``, ``r`` the prior over the mean prior.
        ancestor_amaf: a new node's first-play (AMAF) tallies start from
            those of the node two plies up, where the same side moves: each
            move it shares with that node gets up to this many of its first
            plays, at their win rate (0 = off; needs ``rave``).
        criticality: ``k`` in the root's prior ``p(x) exp(k crit(x))``
            (renormalised), ``crit(x)`` Coulom's criticality of the point
            from the search's playouts (:mod:`fastplay.search.criticality`;
            0 = off).
        criticality_depth: new nodes down to this many plies below the
            root take the root's criticality map too (0 = the root alone;
            nothing while ``criticality`` is 0, which makes no map).
        reply_visits: last good replies with forgetting (LGRF-1, Baier and
            Drake 2010) in the tree: each simulation's moves, tree and
            playout, update a table of the replies that won
            (:class:`fastplay._core.ReplyTable`), and a new node gives the
            reply its side last won with to the move that led there this
            many virtual playouts, all won (0 = off; the playouts stay GNU
            Go's).  The table is kept by simulations whose leaves are worth
            their playouts' wins alone (no ``score_weight``, no dynamic
            komi, no evaluator: the core's loop), over the searches of a
            game on one board size.
        widen_base, widen_visits, widen_factor: progressive widening
            (Chaslot et al. 2008, "progressive unpruning"): a node whose
            edges hold ``N`` playouts selects among its ``widen_base``
            allowed moves of highest prior only, one more each time ``N``
            reaches ``widen_visits * widen_factor ** t`` (t = 0, 1, ...;
            :class:`fastplay._core.TreeParams`); ``widen_base`` 0: every
            move; ``None`` (the default): the board size's
            (:data:`WIDEN_BASE_BY_SIZE`, else 0: :meth:`widen_for`).
            Bounds: ``widen_base`` in [0, 10**6], ``widen_visits`` in [1,
            1e12], ``widen_factor`` in [1.001, 100].
        widen_ties: the moves of the same prior as the last one a widened
            node may select are selectable with it (else ties go in move
            order, which favours the top rows of the board when many moves
            share a prior, as under a flat user prior); ``None`` (the
            default): only with a user prior (the ``prior`` plug-in), whose
            ties nothing has screened; the learned priors keep move order,
            which matches chose (:meth:`ties_for`).
        score_weight: ``s`` in a playout's value ``(1 - s) win + s (1/2 +
            margin / (2 points))`` (Fuego's score modification).
        book: play the one-position book (E5 on the empty 9x9 board).
        fight_prior: factor on the weight of the liberties of strings with
            one or two liberties (1 = off).
        nakade_prior: factor on the weight of the vital point of a small
            eye space, either side's move (:func:`fastplay.life.nakade_points`;
            1 = off); ``None`` (the default) is the board size's
            (:data:`NAKADE_PRIOR_BY_SIZE`, else 1: :meth:`nakade_for`).
        ladder_prior, ladder_visits: the ladder reader's prior factor on a
            save or capture (its inverse on a bad move) and virtual
            playouts, won or lost; they apply to a user prior too (1 and 0
            = off).
        race_reading: add the capturing-race reader's verdicts (strings of
            2-4 liberties) to the ladder reader's.
        stake_stones: stones at stake from which a tactical code gets the
            whole factor; smaller strings get stones / stake_stones of it
            (0 = always the whole).
        dynamic_komi: points by which the komi against the searching side
            moves after each search (Baudis 2011; 0 = off).
        prior_table: the weights of the built-in prior: ``"auto"`` (the
            bundled learned prior of the board size, ``gnugo9x9_shapes``
            (with large patterns), ``gnugo13x13`` or ``gnugo19x19``, the
            playout values on other sizes), ``None`` (the playout values), or anything
            :func:`fastplay.prior.load_prior` takes.
        opponent_prior: the prior table of the nodes where the opponent of
            the searching side (the root's mover) is to move, in any form
            ``prior_table`` takes (a prior fitted to an opponent's moves
            models that opponent); ``None`` (the default): ``prior_table``
            everywhere.
        mix: ``lambda`` in the leaf value ``(1 - lambda) v + lambda z``
            (Silver et al., Nature 2016, who used 0.5): ``v`` the
            evaluator's value, ``z`` the rollouts'.  1 (the default, and the
            only value without an evaluator) is the pure rollout search, an
            evaluator unused; 0 runs no playouts.
        eval_batch: leaves gathered (kept apart by virtual loss) before one
            call of the evaluator.

    Raises:
        TypeError: an option of the wrong type.
        ValueError: an option out of range, naming it.
    """

    __eq__ = fields_equal

    policy: Policy = "puct"
    c_puct: float | None = None
    c_uct: float = C_UCT
    rave: bool = True
    rave_equiv: float = 1000.0
    batch: int | None = None
    expand_threshold: int | None = None
    prior_power: float | None = None
    pass_prior: float = 0.01
    fpu_reduction: float = 0.1
    scoring: ScoringName = "tromp-taylor"
    resign_threshold: float | None = 0.1
    resign_moves: int = 2
    default_playouts: int = DEFAULT_PLAYOUTS
    max_nodes: int = 200_000
    max_memory: int = 1 << 30
    even_visits: float = 0.0
    pattern_visits: float = 0.0
    ancestor_amaf: float = 0.0
    criticality: float = 0.0
    criticality_depth: int = 0
    widen_base: int | None = None
    widen_visits: float = 40.0
    widen_factor: float = 1.4
    widen_ties: bool | None = None
    reply_visits: float = 0.0
    score_weight: float = 0.0
    book: bool = True
    fight_prior: float = 1.0
    nakade_prior: float | None = None
    ladder_prior: float = LADDER_PRIOR
    ladder_visits: float = LADDER_VISITS
    race_reading: bool = False
    stake_stones: int = 0
    dynamic_komi: float = 0.0
    prior_table: Any = "auto"
    opponent_prior: Any = None
    mix: float = 1.0
    eval_batch: int = 8

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        _word("policy", self.policy, ("puct", "uct"))
        _word("scoring", self.scoring, ("tromp-taylor", "gnugo"))
        for name, (low, high) in _REAL_BOUNDS.items():
            set_(self, name, _bounded(name, getattr(self, name), low, high))
        for name, (ilow, ihigh) in _INT_BOUNDS.items():
            set_(self, name, _integer(name, getattr(self, name), ilow, ihigh))
        for name in ("rave", "book", "race_reading"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False (true or false in a "
                                f"--search option), "
                                f"not {shown_value(getattr(self, name))}")
            set_(self, name, bool(getattr(self, name)))
        if self.batch is not None:
            set_(self, "batch", _integer("batch", self.batch, 1, MAX_BATCH))
        if self.expand_threshold is not None:
            set_(self, "expand_threshold", _integer("expand_threshold", self.expand_threshold,
                                                    1, 10**6))
        if not 0 < _number("pass_prior", self.pass_prior) < 1:
            raise ValueError(f"pass_prior must be in (0, 1), not {shown_value(self.pass_prior)}")
        set_(self, "pass_prior", float(self.pass_prior))
        if self.resign_threshold is not None:
            set_(self, "resign_threshold", _bounded("resign_threshold", self.resign_threshold,
                                                    0.0, 1.0))
        if self.prior_power is not None:
            set_(self, "prior_power", _bounded("prior_power", self.prior_power, 0.0, 4.0))
        if self.c_puct is not None:
            set_(self, "c_puct", _bounded("c_puct", self.c_puct, 0.0, 1e6))
        if self.widen_base is not None:
            set_(self, "widen_base", _integer("widen_base", self.widen_base, 0, 10**6))
        if self.nakade_prior is not None:
            set_(self, "nakade_prior", _bounded("nakade_prior", self.nakade_prior, 1e-6, 1e6))
        if self.widen_ties is not None:
            if not isinstance(self.widen_ties, (bool, np.bool_)):
                raise TypeError(f"widen_ties must be True, False or None (true, false or "
                                f"none in a --search option), "
                                f"not {shown_value(self.widen_ties)}")
            set_(self, "widen_ties", bool(self.widen_ties))
        _check_priors(self.prior_table, self.opponent_prior)
        if self.reply_visits > 0 and self.score_weight > 0:
            raise ValueError("reply_visits needs leaves worth their playouts' wins alone: "
                             "score_weight must be 0")

    def puct_for(self, size: int) -> float:
        """The PUCT exploration constant on a board of ``size``: ``c_puct``,
        or the size's default when it is ``None``."""
        if self.c_puct is not None:
            return self.c_puct
        return C_PUCT_BY_SIZE.get(size, C_PUCT)

    def ties_for(self, user_prior: bool) -> bool:
        """Whether widened nodes select the moves tied with their last one:
        ``widen_ties``, or when it is ``None`` whether the search has a
        user prior."""
        return user_prior if self.widen_ties is None else self.widen_ties

    def widen_for(self, size: int) -> int:
        """The progressive widening's ``widen_base`` on a board of ``size``:
        ``widen_base``, or the size's default when it is ``None``."""
        if self.widen_base is not None:
            return self.widen_base
        return WIDEN_BASE_BY_SIZE.get(size, 0)

    def nakade_for(self, size: int) -> float:
        """The factor on vital points' priors on a board of ``size``:
        ``nakade_prior``, or the size's default when it is ``None``."""
        if self.nakade_prior is not None:
            return self.nakade_prior
        return NAKADE_PRIOR_BY_SIZE.get(size, 1.0)

    @property
    def virtual(self) -> bool:
        """Whether new nodes get virtual playouts (prior knowledge in ``Q``)."""
        return (self.even_visits > 0 or self.pattern_visits > 0 or self.ladder_visits > 0
                or self.reply_visits > 0)


def option_names() -> tuple[str, ...]:
    """The names of :class:`SearchConfig`'s options, in declaration order."""
    return tuple(f.name for f in fields(SearchConfig))


_WORDS: dict[str, Any] = {"none": None, "null": None, "true": True, "false": False}

#: Options whose words are read in any case, as the other words are.
_WORD_OPTIONS = ("policy", "scoring")

#: The longest option message quoted after the value as given.
_MESSAGE = 160


def _option_value(text: str) -> Any:
    """A command line's option value: ``none``/``null``, ``true``/``false``
    (any case), an integer, a real number (ASCII digits:
    :mod:`fastplay.asciinum`), or else the text itself."""
    key = text.strip().lower()
    if key in _WORDS:
        return _WORDS[key]
    for kind in (ascii_int, ascii_float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# The end of an option's refusal that quotes the converted value.
_CONVERTED = re.compile(r", not .*\Z", re.DOTALL)


def parse_option(text: str, hidden: Collection[str] = ()) -> tuple[str, Any]:
    """One search option given as ``NAME=VALUE`` (``fastplay gtp --search
    c_puct=0.7``), checked as :class:`SearchConfig` checks it.

    ``VALUE`` is ``none`` or ``null``, ``true`` or ``false``, an integer, a
    real number, or a word (``policy=uct``, ``scoring=gnugo``); words and
    the words of ``policy`` and ``scoring`` are read in any case.

    Returns:
        ``(name, value)``, ready for :class:`fastplay.search.MCTS`'s keyword
        arguments.

    Raises:
        ValueError: not ``NAME=VALUE``, an unknown name (the message lists
            the known ones but those in ``hidden``: options a caller takes
            through flags of its own), or a value the option refuses (its
            own message).
    """
    name, sep, value_text = text.partition("=")
    name, value_text = name.strip(), value_text.strip()
    if not sep or not name or not value_text:
        raise ValueError(f"expected NAME=VALUE, not '{quoted(text)}'")
    if name not in option_names():
        raise ValueError(f"unknown search option '{quoted(name)}'; the options are "
                         f"{', '.join(n for n in option_names() if n not in hidden)}")
    value = _option_value(value_text)
    if name in _WORD_OPTIONS and isinstance(value, str):
        value = value.lower()
    try:
        replace(SearchConfig(), **{name: value})
    except (TypeError, ValueError) as exc:
        # The value as given first (1e999 is checked as inf), and the
        # option's own message without its ", not VALUE" (the value as
        # converted: 1e13 as 10000000000000.0, true as True), cut.
        message = _CONVERTED.sub("", str(exc))
        message = message if len(message) <= _MESSAGE else message[:_MESSAGE] + "..."
        raise ValueError(f"{name}={quoted(value_text)}: {message}") from None
    return name, value
