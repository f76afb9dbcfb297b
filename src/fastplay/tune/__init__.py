"""Tuning the playout policy: ``.db`` files in GNU Go's language, fitted to data.

GNU Go's manual (the Monte Carlo chapter fastplay implements) leaves open how
the playout patterns should be tuned.  This package fits them:

* :mod:`fastplay.tune.mm`: move prediction, Coulom's generalised
  Bradley-Terry model ("Computing Elo ratings of move patterns in the game of
  Go", ICGA Journal 30(4), 2007) over GNU Go's own local context (geometry
  class and property byte), from game records; the fitted strengths become
  integer pattern values;
* :mod:`fastplay.tune.balance`: simulation balancing of the property
  features' weights against reference values;
* :mod:`fastplay.tune.games`: the same weights tuned by SPSA on the results
  of games between two copies of an engine (GNU Go itself) that load the
  database;
* :mod:`fastplay.tune.quality`: how well a database's playouts judge
  positions whose value is known (mean squared error against the decision
  benchmark's reference values);
* :mod:`fastplay.dbwrite` writes the result as a ``.db`` file that
  fastplay's strict loader and GNU Go 3.8's ``--mc-load-patterns`` read to the
  same table.

The command line is ``fastplay tune`` (:mod:`fastplay.tune.cli`).
"""

from fastplay.tune.mm import TunedPolicy, tune_mm
from fastplay.tune.quality import PlayoutQuality, playout_quality

__all__ = ["TunedPolicy", "tune_mm", "PlayoutQuality", "playout_quality"]
