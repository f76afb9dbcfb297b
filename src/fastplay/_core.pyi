"""Type stub for ``fastplay._core``, which gathers the compiled core's Python names
(see ``_core.pyx``).

Vertices at this level are *flat indices* ``row * size + col`` with row 0 the
top row as printed (the highest GTP row number) and col 0 column ``A``;
``PASS`` (-1) is a pass.  Colours use GNU Go's numbering: ``EMPTY`` 0,
``WHITE`` 1, ``BLACK`` 2.  The friendly vertex parsing lives in
``fastplay.board.Board``, which subclasses :class:`CoreBoard`.
"""

from fastplay._board import CoreBoard as CoreBoard
from fastplay._board import IllegalMoveError as IllegalMoveError
from fastplay._playout import PlayoutEngine as PlayoutEngine
from fastplay._playout import PlayoutTally as PlayoutTally
from fastplay._playout import rng_stream as rng_stream
from fastplay._playout import seed_key as seed_key
from fastplay._playout import default_max_moves as default_max_moves
from fastplay._rules import BLACK as BLACK
from fastplay._rules import EMPTY as EMPTY
from fastplay._rules import MAX_SIZE as MAX_SIZE
from fastplay._rules import MIN_SIZE as MIN_SIZE
from fastplay._rules import OFFBOARD as OFFBOARD
from fastplay._rules import PASS as PASS
from fastplay._rules import WHITE as WHITE
from fastplay._tactics import LADDER_BUDGET as LADDER_BUDGET
from fastplay._tactics import RACE_BUDGET as RACE_BUDGET
from fastplay._tactics import RACE_LIBS as RACE_LIBS
from fastplay._tactics import RACE_SAFE as RACE_SAFE
from fastplay._tactics import RACE_TOTAL as RACE_TOTAL
from fastplay._tactics import TACTIC_BAD as TACTIC_BAD
from fastplay._tactics import TACTIC_CAPTURE as TACTIC_CAPTURE
from fastplay._tactics import TACTIC_NONE as TACTIC_NONE
from fastplay._tactics import TACTIC_SAVE as TACTIC_SAVE
from fastplay._tactics import TACTICS_BUDGET as TACTICS_BUDGET
from fastplay._tree import DESCEND_END as DESCEND_END
from fastplay._tree import DESCEND_EXPAND as DESCEND_EXPAND
from fastplay._tree import DESCEND_LEAF as DESCEND_LEAF
from fastplay._tree import DESCEND_STOP as DESCEND_STOP
from fastplay._tree import SIMULATE_DONE as SIMULATE_DONE
from fastplay._tree import SIMULATE_PYTHON as SIMULATE_PYTHON
from fastplay._tree import SearchCounts as SearchCounts
from fastplay._tree import ChildSlots as ChildSlots
from fastplay._tree import TreeNode as TreeNode
from fastplay._tree import TreeParams as TreeParams
from fastplay._tree import expansion_moves as expansion_moves
from fastplay._tree import inherit_amaf as inherit_amaf
from fastplay._tree import ReplyTable as ReplyTable
from fastplay._tree import reply_prior as reply_prior
from fastplay._tree import make_node as make_node
from fastplay._tree import prior_node as prior_node
from fastplay._tree import tree_backup as tree_backup
from fastplay._tree import tree_descend as tree_descend
from fastplay._tree import tree_simulate as tree_simulate
from fastplay._tree import true_eyes as true_eyes
from fastplay._tree import nakade_flat as nakade_flat
from fastplay._tree import shape_hashes as shape_hashes
from fastplay._tree import ShapeIndex as ShapeIndex
from fastplay._tree import SHAPE_RADIUS_MAX as SHAPE_RADIUS_MAX
