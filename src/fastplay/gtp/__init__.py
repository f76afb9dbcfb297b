"""A Go Text Protocol (GTP version 2) engine on top of :class:`fastplay.Board`.

``fastplay gtp`` reads commands on standard input and answers on standard
output, so GoGui, Sabaki, Lizzie, KaTrain's GTP mode, KGS bridges,
``gogui-twogtp`` and fastplay's own match referee (:mod:`fastplay.match`) can
drive it.  The modules:

* :mod:`~fastplay.gtp.protocol` -- framing (GTP 2, section 3), argument parsing;
* :mod:`~fastplay.gtp.engine` -- game state, dispatch, the core commands;
* :mod:`~fastplay.gtp.scoring` -- ``final_score``, ``final_status_list``;
* :mod:`~fastplay.gtp.handicap` -- ``fixed_handicap``, ``place_free_handicap``,
  ``set_free_handicap`` (GTP 2, 4.1.1);
* :mod:`~fastplay.gtp.analysis` -- ``lz-analyze``, ``kata-analyze`` and their
  ``genmove`` forms (KataGo's ``docs/GTP_Extensions.md``);
* :mod:`~fastplay.gtp.gogui` -- GoGui's analyze commands and live graphics;
* :mod:`~fastplay.gtp.extensions` -- GNU Go's ``captures``, ``is_legal``,
  ``list_stones``, ``printsgf``, ``cputime``, ``help``; ``kgs-time_settings``;
* :mod:`~fastplay.gtp.server` -- :func:`run`, the input thread and streaming.

A bad command never stops the engine: it answers ``? message``.
"""

from fastplay.gtp.engine import ENGINE_NAME, MAX_KOMI, GTPEngine
from fastplay.gtp.protocol import GTPError, Search, Stream, parse_color, preprocess
from fastplay.gtp.scoring import DEAD_THRESHOLD, SCORING_PLAYOUTS
from fastplay.gtp.server import run

__all__ = ["DEAD_THRESHOLD", "ENGINE_NAME", "GTPEngine", "GTPError", "MAX_KOMI",
           "SCORING_PLAYOUTS", "Search", "Stream", "parse_color", "preprocess", "run"]
