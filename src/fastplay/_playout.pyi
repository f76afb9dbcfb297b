"""Type stub for ``fastplay._playout`` (the playout engine; see ``_playout.pyx``)."""

from typing import Any

import numpy as np
import numpy.typing as npt

from fastplay._board import CoreBoard

class PlayoutEngine:
    light: bool          # values ignore capture and self-atari bits (geometry-only contexts)
    near_free: bool      # values never depend on the near bit
    update_bound: int    # liberty bound of the update set's string clauses: 2 (GNU Go) or 1
    flat: bool           # light, near-free, values 0/1: playouts keep candidate bitsets
    def __init__(self, table: npt.NDArray[np.uint32], geometry: npt.NDArray[np.uint16]) -> None: ...
    def move_values(self, board: CoreBoard) -> npt.NDArray[np.uint32]: ...
    def run(self, board: CoreBoard, n: int, seed: int, threads: int = 1, *,
            max_moves: int = 600, komi: float | None = None, tromp_taylor: bool = False,
            amaf: bool = False, debug_check: bool = False, want_final: bool = False,
            near_first: bool = False, first: int = 0) -> dict[str, Any]: ...
    def run_into(self, tally: PlayoutTally, board: CoreBoard, n: int, seed: int, *,
                 first: int = 0, komi: float | None = None,
                 tromp_taylor: bool = False) -> None: ...

class PlayoutTally:
    """One run_into call's tallies, and ownership summed over calls."""
    size: int
    amaf_enabled: bool
    n: int
    busy: bool
    def __init__(self, size: int, amaf: bool = True) -> None: ...
    @property
    def black_wins(self) -> int: ...
    @property
    def draws(self) -> int: ...
    @property
    def hist(self) -> npt.NDArray[np.int64]: ...
    @property
    def amaf(self) -> npt.NDArray[np.int32]: ...
    @property
    def own_black(self) -> npt.NDArray[np.int64]: ...
    @property
    def own_white(self) -> npt.NDArray[np.int64]: ...
    def clear_ownership(self) -> None: ...

def rng_stream(key: int, index: int, n: int) -> npt.NDArray[np.uint64]: ...
def seed_key(seed: int) -> int: ...
NUM_CELLS: int
#: The most threads one call takes (playouts, engines, and the search).
MAX_THREADS: int
MAX_PLAYOUTS: int   # 2**53: playouts of one run, visits of one search
def policy_gradient(engine: PlayoutEngine, board: CoreBoard, n: int, seed: int, *,
                    komi: float | None = ..., max_moves: int = ...) -> dict[str, Any]: ...
