"""Type stub for ``fastplay._tree`` (the search tree's arithmetic; see ``_tree.pyx``)."""

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, SupportsIndex, overload

import numpy as np
import numpy.typing as npt

from fastplay._board import CoreBoard
from fastplay._playout import PlayoutEngine, PlayoutTally

DESCEND_LEAF: int
DESCEND_END: int
DESCEND_EXPAND: int
DESCEND_STOP: int
SIMULATE_DONE: int
SIMULATE_PYTHON: int

class TreeParams:
    """The selection constants of one search."""
    puct: bool
    rave: bool
    virtual: bool
    c_puct: float
    c_uct: float
    fpu_reduction: float
    rave_equiv: float
    widen_base: int
    widen_visits: float
    widen_factor: float
    widen_ties: bool
    def __init__(self, puct: bool, rave: bool, virtual: bool, c_puct: float, c_uct: float,
                 fpu_reduction: float, rave_equiv: float, widen_base: int = 0,
                 widen_visits: float = 40.0, widen_factor: float = 1.4,
                 widen_ties: bool = False) -> None: ...

class SearchCounts:
    """A search's counts, kept by :func:`tree_simulate` at each back-up."""
    done: int
    playouts: int
    sims: int
    pending: int
    def __init__(self) -> None: ...

class ChildSlots(Sequence[TreeNode | None]):
    @property
    def node(self) -> TreeNode: ...
    def __init__(self, node: TreeNode) -> None: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, i: SupportsIndex) -> TreeNode | None: ...
    @overload
    def __getitem__(self, i: slice) -> list[TreeNode | None]: ...
    def __setitem__(self, i: SupportsIndex, child: TreeNode | None) -> None: ...
    def __iter__(self) -> Iterator[TreeNode | None]: ...
    def __eq__(self, other: object) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

class TreeNode:
    """A position in the search tree; statistics are ``float64[k]`` rows
    (``prior``, ``rn``, ``rw``, ``r_moves`` and ``r_pass``: ``float32``)."""
    color: int
    k: int
    moves: npt.NDArray[np.int64]
    points: npt.NDArray[np.int64]
    prior: npt.NDArray[np.float32]
    data: npt.NDArray[np.float64]
    stats: npt.NDArray[np.float64]
    n: npt.NDArray[np.float64]
    w: npt.NDArray[np.float64]
    vl: npt.NDArray[np.float64]
    rn: npt.NDArray[np.float32]
    rw: npt.NDArray[np.float32]
    pn: npt.NDArray[np.float64]
    pw: npt.NDArray[np.float64]
    wins: npt.NDArray[np.float64]
    r_moves: npt.NDArray[np.float32]
    r_pass: npt.NDArray[np.float32]
    allowed: npt.NDArray[np.bool_]
    @property
    def block(self) -> npt.NDArray[np.float64]: ...
    @property
    def u(self) -> npt.NDArray[np.float64]: ...
    @property
    def children(self) -> ChildSlots: ...
    def child(self, i: SupportsIndex) -> TreeNode | None: ...
    def set_child(self, i: SupportsIndex, child: TreeNode | None) -> None: ...
    base: float
    sum_n: float
    sum_w: float
    sum_vl: float
    open: int
    @property
    def nbytes(self) -> int: ...
    def __init__(self, color: int, moves: npt.ArrayLike, prior: npt.ArrayLike,
                 base: float = 0.0) -> None: ...
    @property
    def visits(self) -> float: ...
    def count(self) -> int: ...
    def extent(self) -> tuple[int, int]: ...
    def edge(self, i: int) -> tuple[int, float, float]: ...
    def forbid(self, i: int) -> None: ...
    def refresh(self, params: TreeParams) -> None: ...
    def values(self, params: TreeParams) -> npt.NDArray[np.float64]: ...
    def reorder(self) -> None: ...
    def select(self, params: TreeParams) -> int: ...   # -1: no move allowed

def prior_node(color: int, points: npt.ArrayLike, raw: npt.ArrayLike,
               tactics: npt.ArrayLike | None, weight: npt.ArrayLike | None,
               ladder_prior: float, ladder_visits: float, prior_power: float,
               pass_prior: float, base: float) -> TreeNode: ...
def inherit_amaf(node: TreeNode, ancestor: TreeNode, cap: float,
                 params: TreeParams) -> None: ...
def make_node(board: CoreBoard, engine: PlayoutEngine, line1: float, line2: float,
              factors: tuple[npt.ArrayLike, ...], tactical: bool, ladder_prior: float,
              ladder_visits: float, prior_power: float, pass_prior: float,
              base: float, release: bool = False, params: TreeParams | None = None,
              opening_pass: bool = False) -> TreeNode: ...
def tree_descend(node: TreeNode, board: CoreBoard, seen: set[int], path_hashes: set[int],
                 nodes: list[TreeNode], path: list[int], params: TreeParams,
                 virtual_loss: float, threshold: float, can_expand: bool) -> int: ...
def tree_backup(nodes: list[TreeNode], path: list[int], n: float, black_value: float,
                black_wins: float, search_wins: float,
                amaf: npt.NDArray[np.int32] | None, virtual_loss: float,
                params: TreeParams) -> None: ...

def tree_simulate(root: TreeNode, root_board: CoreBoard, scratch: CoreBoard, seen: set[int],
                  engine: PlayoutEngine, tally: PlayoutTally, params: TreeParams,
                  threshold: float, can_expand: bool, batch: int, budget: int, max_sims: int,
                  seed: int, first: int, tromp_taylor: bool, rave: bool,
                  deadline: float, hist: npt.NDArray[np.float64] | None = None,
                  child_sums: npt.NDArray[np.float64] | None = None,
                  grow: Callable[..., tuple[TreeNode, bool]] | None = None,
                  lock: Any = None,
                  reserve: Callable[[], tuple[int, int] | None] | None = None,
                  progress: SearchCounts | None = None,
                  replies: ReplyTable | None = None
                  ) -> tuple[int, int, int, int]: ...

class ReplyTable:
    """Last good replies with forgetting (LGRF-1), kept from a search's simulations."""
    @property
    def size(self) -> int: ...
    def __init__(self, size: int) -> None: ...
    def clear(self) -> None: ...
    def reply(self, color: int, previous: int) -> int: ...
    def update(self, moves: Iterable[int], color: int, winner: int) -> None: ...

def reply_prior(node: TreeNode, table: ReplyTable, last: int, visits: float) -> int: ...
def true_eyes(grid: npt.ArrayLike, sign: int) -> npt.NDArray[np.bool_]: ...
def expansion_moves(board: CoreBoard, color: int, values: npt.ArrayLike, line1: float,
                    line2: float, factors: tuple[npt.ArrayLike, ...] = ...
                    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
