"""Monte Carlo tree search on top of :func:`fastplay.playouts`, as a framework.

A top-down tour
---------------
:class:`MCTS` keeps one tree per game.  One *simulation* is

1. **select** -- from the root, repeatedly take the child maximising PUCT
   (default) or UCT, blended with RAVE, holding a *virtual loss* on every
   edge taken so that other descents spread out (:mod:`.tree`, compiled);
2. **expand** -- an edge whose visit count has reached ``expand_threshold``
   gets its own node: legal moves and priors (:mod:`.priors`: the playout
   values, a learned prior, or yours);
3. **evaluate** -- ``batch`` playouts from the leaf in C with the GIL
   released, the exact Tromp-Taylor result when two passes ended the game
   in the tree, or your evaluator mixed with the rollouts as AlphaGo does
   (:mod:`.evaluation`);
4. **back up** -- values, visits and the playouts' first-play (AMAF)
   tallies go up the path and the virtual loss is taken back.

The answer (:mod:`.decide`) is the most visited move, with the rules a Go
engine needs around it (no pass while a dead stone would count, pass in a
final position, the opening book, resignation).  Time control is
:mod:`.clock`, dynamic komi :mod:`.komi`, the options :mod:`.config`.

Plugging in
-----------
::

    from fastplay.search import MCTS, SearchConfig
    search = MCTS(db, config=SearchConfig(mix=0.5), evaluator=my_value, prior=my_policy)
    result = search.run(board, visits=5000)
    for info in search.analyze(board, seconds=5, interval=0.1):
        print(info.children[0].move, info.children[0].winrate)

``my_value(boards) -> float[n]``: for each position the probability that
its side to move wins; ``my_policy(board) -> float[size*size + 1]``; and
``MCTS(db, forbid=rule)`` with ``rule(board, depth) -> iterable of int``
keeps the moves it names (flat indices, -1 the pass) out of every new node
``depth`` plies below the root, as KataGo's ``avoidMoves``.

Formulas and their sources
--------------------------
PUCT (Rosin, "Multi-armed bandits with episode context", AMAI 2011, in the
form of Silver et al., Nature 2017)::

    a* = argmax_a  Q(s, a) + c_puct * P(s, a) * sqrt(N(s)) / (1 + N(s, a))

UCT (Kocsis and Szepesvari, ECML 2006; the UCB1 bound of Auer et al. 2002)::

    a* = argmax_a  Q(s, a) + c_uct * sqrt(ln N(s) / N(s, a))

``Q`` blended with the RAVE value ``Q~`` (Gelly and Silver, ICML 2007) with
the minimum-MSE schedule of Gelly and Silver, AIJ 2011::

    Q* = (1 - beta) Q + beta Q~,   beta = n~ / (n + n~ + n n~ / rave_equiv)

The leaf value with an evaluator (Silver et al., Nature 2016)::

    V = (1 - mix) v + mix z

An unvisited move without RAVE data starts at the parent's mean value minus
``fpu_reduction`` (Leela Zero's first-play urgency).  Visits are counted in
playouts (leaf evaluations), so ``run(board, visits=5000)`` means what GNU
Go's ``--mc-games-per-level`` means.  Every constant chosen by a
measurement points to its match in ``benchmarks/RESULTS.md``.

Rules inside the tree
---------------------
Positional superko is checked on every tree move against the game's
positions and the path.  Two passes in a row end the game, scored
Tromp-Taylor.  Moves into the mover's own true eyes are never candidates,
nor is the pass in the opening unless the opponent has just passed.
"""

from fastplay.search.config import SearchConfig
from fastplay.search.driver import MCTS
from fastplay.search.errors import EvaluatorError, PluginError, PriorError
from fastplay.search.results import ChildStats, SearchInfo, SearchResult

__all__ = ["MCTS", "SearchConfig", "SearchResult", "SearchInfo", "ChildStats",
           "PluginError", "EvaluatorError", "PriorError"]
