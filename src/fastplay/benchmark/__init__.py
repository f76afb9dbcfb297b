"""Decision benchmarks for Go engines: real decisions, reference values, PR scores.

The method is a backgammon engine's (``benchmarks/RESULTS.md``, "Decision
benchmark"): a benchmark is a set of real decisions, each with a reference
value for its candidate moves; an engine is scored by its Performance
Rating, PR = mean error per decision x 500, where the error is the best
candidate's reference value minus the chosen move's, in win probability.

* :mod:`~fastplay.benchmark.decisions` -- positions from game records;
* :mod:`~fastplay.benchmark.reference` -- the filter and the reference values;
* :mod:`~fastplay.benchmark.builder` -- the build and candidate completion;
* :mod:`~fastplay.benchmark.store` -- the reproducible ``.jsonl.gz`` file;
* :mod:`~fastplay.benchmark.score` -- engines, errors, PR;
* :mod:`~fastplay.benchmark.cli` -- ``fastplay benchmark build | score | list``.

The heavy part runs through :mod:`fastplay.backend` (local processes or Ray).
"""

from fastplay.benchmark.builder import build, complete, rerate
from fastplay.benchmark.decisions import Decision, Position
from fastplay.benchmark.reference import FilterSpec, ReferenceSpec
from fastplay.benchmark.score import (BLUNDER, PR_SCALE, Choice, Chooser, GTPChooser,
                                      PythonChooser, Scored, choose_all, score_choices,
                                      summarize)
from fastplay.benchmark.store import Benchmark, BenchmarkError, bundled_names, open_benchmark

__all__ = ["build", "complete", "rerate", "Decision", "Position", "FilterSpec", "ReferenceSpec",
           "Choice", "Chooser", "GTPChooser", "PythonChooser", "choose_all", "score_choices",
           "Scored", "summarize", "Benchmark", "BenchmarkError", "bundled_names", "open_benchmark",
           "BLUNDER", "PR_SCALE"]
