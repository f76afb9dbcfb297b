"""The game's search tree: its root, reuse from move to move, one descent.

Nodes are the core's :class:`fastplay._core.TreeNode` (moves, priors and
edge statistics as ``float64`` rows); the selection down the tree
(``tree_descend``: PUCT or UCT blended with RAVE, legality and positional
superko checks, virtual loss) and the back-up (``tree_backup``) are
compiled, because in numpy they cost more than a 9x9 playout.  The
formulas are in :mod:`fastplay.search`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from threading import Lock
from typing import Any

import numpy as np

from fastplay._core import (DESCEND_END, DESCEND_EXPAND, DESCEND_STOP, ReplyTable, TreeNode,
                            TreeParams, reply_prior, tree_descend)
from fastplay.board import Board
from fastplay.search.config import EDGE_BYTES, NODE_BYTES
from fastplay.search.priors import NodeMaker, recent_moves

__all__ = ["SearchTree", "Descent", "MAX_REUSE"]

#: Moves played since the last search beyond which the old tree is dropped.
MAX_REUSE = 8


@dataclass(slots=True)
class Descent:
    """One path from the root to a leaf.

    Attributes:
        nodes, path: the nodes and move indices taken.
        leaf: the position at the end (a board of its own, or the thread's
            scratch board).
        terminal: Black's exact Tromp-Taylor margin when two passes ended the
            game inside the tree, else ``None``.
        virtual_loss: the virtual loss the descent holds on its path.
        stopped: the node the descent stopped inside because it had no move
            left (``DESCEND_STOP``), whose ``base`` takes the leaf's
            playouts after the back-up; ``None`` otherwise.
    """

    nodes: list[TreeNode]
    path: list[int]
    leaf: Board
    terminal: float | None
    virtual_loss: float
    stopped: TreeNode | None = None


@dataclass
class SearchTree:
    """The root of the game's tree and what selection needs to know of the game.

    Attributes:
        root: the root node (``None`` before the first search or after an
            error).
        board: the root position; ``history``: its moves (colour code, flat
            index).
        seen: Zobrist hashes of the game's positions (positional superko).
        nodes: nodes in the tree; ``edges``: their moves (``k`` summed,
            counted again after a reuse: :meth:`TreeNode.extent`).
        scores: the score tallies of an analysis (:class:`SearchState`'s
            ``hist`` and ``child_scores``) and the root they cover, while
            every visit of that root was tallied; ``None`` otherwise.
        own: the colour code of the side the tree was grown for (0: none
            yet), whose nodes took ``prior_table`` and the opponent's
            ``opponent_prior``.
        root_prior: a root and its prior as it was made, once the option
            ``criticality`` has reshaped it (the next search of the same
            root starts again from that prior); ``None`` otherwise.
        replies, reply_visits: the last-good-reply table and the virtual
            playouts a new node gives its reply (:meth:`use_replies`).
    """

    root: TreeNode | None = None
    board: Board | None = None
    history: list[tuple[int, int]] = field(default_factory=list)
    seen: set[int] = field(default_factory=set)
    nodes: int = 0
    edges: int = 0
    scores: tuple[TreeNode, Any, Any] | None = None
    own: int = 0
    root_prior: tuple[TreeNode, Any] | None = None
    replies: ReplyTable | None = None
    reply_visits: float = 0.0

    def use_replies(self, size: int, visits: float) -> None:
        """Keep a last-good-reply table for a board of ``size`` whose new
        nodes give their reply ``visits`` virtual won playouts
        (:func:`reply_prior`; 0: no table).  The table carries over the
        searches of a game on one size; :meth:`drop` (a new game) forgets it."""
        self.reply_visits = visits
        if visits <= 0:
            self.replies = None
        elif self.replies is None or self.replies.size != size:
            self.replies = ReplyTable(size)

    def claim(self, own: int, split: bool) -> None:
        """Grow the tree for side ``own`` from now on; when the two sides'
        nodes take different priors (``split``), a tree grown for the other
        side is dropped (its nodes took the other side's priors)."""
        if split and self.root is not None and self.own != own:
            self.drop()
        self.own = own

    def full(self, max_nodes: int, max_memory: int) -> bool:
        """Whether the tree has reached ``max_nodes`` or, at ``NODE_BYTES`` a
        node and ``EDGE_BYTES`` an edge, ``max_memory`` bytes: it then stops
        growing."""
        return self.nodes >= max_nodes \
            or self.nodes * NODE_BYTES + self.edges * EDGE_BYTES >= max_memory

    def drop(self) -> None:
        """Forget the tree (a new game, or counts that a cut-short search spoilt)."""
        self.root = None
        self.board = None
        self.nodes = 0
        self.edges = 0
        self.scores = None
        self.root_prior = None
        self.replies = None     # a new game's replies start afresh

    def _reused(self, board: Board, history: list[tuple[int, int]]) -> TreeNode | None:
        """The old tree's node for ``board`` when ``board`` follows from the old
        root by at most ``MAX_REUSE`` moves that the tree holds, under the same
        size, komi and rules (suicide, superko), else ``None``."""
        old, old_board = self.root, self.board
        if old is None or old_board is None or old_board.size != board.size \
                or old_board.komi != board.komi or old_board.suicide != board.suicide \
                or old_board.superko != board.superko:
            # Other rules make other moves legal: the old nodes' moves would
            # be wrong (a tester got a suicide as the answer).
            return None
        extra = history[len(self.history):]
        if history[:len(self.history)] != self.history or len(extra) > MAX_REUSE:
            return None
        back = board.copy()
        for _ in extra:
            back.undo()
        if not (back == old_board and back.zobrist_hash == old_board.zobrist_hash):
            return None
        root: TreeNode | None = old
        for color, move in extra:
            if root is None or root.color != color:
                return None
            hits = np.flatnonzero(root.moves == move)
            if not len(hits):
                return None
            child = root.child(int(hits[0]))
            if child is None:
                return None
            # The new root's own evaluations are the parent edge's visits
            # that its children do not account for.
            child.base = float(root.n[hits[0]] - child.n.sum())
            root = child
        if root is not None and root.color != board.to_move_code:
            return None
        return root

    def prepare(self, board: Board, maker: NodeMaker, params: TreeParams,
                scored: bool = False) -> TreeNode:
        """Make ``board`` the root, reusing the old tree when ``board`` follows
        from it.  ``scored`` (an analysis, which reports a score per move): the
        old tree only when it is the root whose every visit has its score
        tallied (:attr:`scores`), so that no move shows visits without a score."""
        history = board.history_indices()
        root = self._reused(board, history)
        if root is not None and scored and (self.scores is None or self.scores[0] is not root):
            root = None
        if root is None or self.scores is None or self.scores[0] is not root:
            self.scores = None
        if root is None:
            root = maker.expand(board, 0.0, params)
            self.nodes, self.edges = 1, root.k
        else:
            root.base = max(root.base, 0.0)
            self.nodes, self.edges = root.extent()
        self.root = root
        self.board = board.copy()
        self.history = history
        seen = {board.zobrist_hash}
        back = board.copy()
        for _ in history:
            back.undo()
            seen.add(back.zobrist_hash)
        self.seen = seen
        return root

    def descend(self, root_board: Board, maker: NodeMaker, params: TreeParams,
                virtual_loss: float, threshold: int, max_nodes: int, max_memory: int,
                scratch: Board | None = None, history: bool = False,
                lock: Lock | None = None) -> Descent:
        """Select from the root to a leaf, playing the moves on a copy of
        ``root_board`` (``scratch``, reloaded, when given) and expanding the
        edge where the compiled selection stops for a node.

        ``virtual_loss`` is added to every edge taken (other threads, or the
        other leaves of an evaluator batch, then spread out); ``threshold``:
        visits an edge needs for a node; no node is made beyond
        ``max_nodes`` nodes or ``max_memory`` bytes (:meth:`full`).  ``history``: the leaf board (when no ``scratch``)
        keeps the game's moves before the root, as an evaluator may want them.
        ``lock``: the search's lock, held by the caller, let go while a node
        is made (:meth:`grow`; the leaf board must then be the caller's own,
        ``scratch``).
        """
        assert self.root is not None
        if scratch is not None:
            root_board.copy_into(scratch)
            board = scratch
        else:
            board = root_board.copy(history=history)
        nodes: list[TreeNode] = []
        path: list[int] = []
        hashes: set[int] = set()
        node = self.root
        while True:
            status = tree_descend(node, board, self.seen, hashes, nodes, path, params,
                                  virtual_loss, threshold, not self.full(max_nodes, max_memory))
            if status != DESCEND_EXPAND:
                break
            node = self.grow(root_board, board, nodes, path, maker, params, virtual_loss,
                             lock if scratch is not None else None)
        terminal = float(board.score()) if status == DESCEND_END else None
        stopped = None
        if status == DESCEND_STOP:
            stopped = nodes[-1].child(path[-1]) if path else self.root
        return Descent(nodes, path, board, terminal, virtual_loss, stopped)

    def grow(self, root_board: Board, board: Board, nodes: list[TreeNode], path: list[int],
             maker: NodeMaker, params: TreeParams, virtual_loss: float = 0.0,
             lock: Lock | None = None) -> TreeNode:
        """Give the last edge of a descent (``nodes``, ``path``, from the root
        position ``root_board`` to ``board``) its node, made by ``maker``, and
        return it.  ``virtual_loss``: the descent's own, on that edge.

        ``lock``: the search's lock, held by the caller, which is let go
        while ``maker`` makes the node (``board`` must be the caller's own),
        so that other threads go on meanwhile.  If one of them gave the edge
        its node in that time, that node is returned and this one dropped;
        the descent's ``virtual_loss``, counted in that node's ``base`` as
        visits pending on the edge, then leaves it, since the descent goes on
        into the node.
        """
        parent, i = nodes[-1], path[-1]
        move, visits, vl = parent.edge(i)
        before = nodes[-2].edge(path[-2])[0] if len(nodes) > 1 \
            else recent_moves(root_board)[0]
        if lock is None:
            node = maker.expand(board, _base(visits, vl, virtual_loss), params, (move, before),
                                depth=len(path))
        else:
            lock.release()
            try:
                # The base is set once the lock is held again (below).
                node = maker.expand(board, 0.0, params, (move, before), release=True,
                                    depth=len(path))
            finally:
                lock.acquire()
            made = parent.child(i)
            if made is not None:
                # Another thread's node, whose base counted this descent's
                # visits as pending on the edge: they go into the node now.
                made.base -= virtual_loss
                return made
            _, visits, vl = parent.edge(i)      # as they are now
            node.base = _base(visits, vl, virtual_loss)
        if len(nodes) > 1:
            maker.inherit_amaf(node, nodes[-2], params)
        if self.replies is not None:
            reply_prior(node, self.replies, move, self.reply_visits)
        parent.set_child(i, node)
        self.nodes += 1
        self.edges += node.k
        return node


def _base(visits: float, vl: float, virtual_loss: float) -> float:
    """A new node's ``base`` from its edge's ``visits`` and virtual loss
    ``vl``: the visits so far, and those other descents still run through it
    (their virtual loss, ``virtual_loss`` -- the descent's own -- apart):
    they will count on this edge, not in the child."""
    return float(visits + (vl - virtual_loss))
