"""fastplay's compiled core, gathered in one module (the name the design card gives it).

The core is five Cython modules that cimport each other through the
declarations in their ``.pxd`` files (``fastplay.get_include()`` gives their
folder, for extensions that cimport them):

* ``_rules`` -- board and rules: positions (``BoardState``), strings and
  liberties, legality, hashes, GNU Go's local contexts, the update set;
* ``_tactics`` -- the search's tactical readers: ladders and capturing races;
* ``_board`` -- :class:`CoreBoard`, the Python-facing position;
* ``_playout`` -- the playout engine and its random numbers (``_rng.pxd``);
* ``_tree`` -- the search tree's arithmetic.

This module re-exports their Python names; ``fastplay._core.X`` is the same
object as the defining module's.
"""

from fastplay._rules import EMPTY, WHITE, BLACK, OFFBOARD, PASS, MIN_SIZE, MAX_SIZE
from fastplay._tactics import (TACTIC_NONE, TACTIC_BAD, TACTIC_SAVE, TACTIC_CAPTURE,
                               LADDER_BUDGET, TACTICS_BUDGET, RACE_LIBS, RACE_SAFE, RACE_BUDGET,
                               RACE_TOTAL)
from fastplay._board import CoreBoard, IllegalMoveError
from fastplay._playout import (PlayoutEngine, PlayoutTally, rng_stream, seed_key,
                               default_max_moves)
from fastplay._tree import (TreeParams, TreeNode, ChildSlots, SearchCounts, prior_node, tree_descend, tree_backup,
                            tree_simulate, true_eyes, expansion_moves, make_node, inherit_amaf,
                            nakade_flat, shape_hashes, SHAPE_RADIUS_MAX, ShapeIndex,
                            ReplyTable, reply_prior,
                            DESCEND_LEAF,
                            DESCEND_END, DESCEND_EXPAND, DESCEND_STOP, SIMULATE_DONE,
                            SIMULATE_PYTHON)
