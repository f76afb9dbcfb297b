"""How a decision-benchmark build scales with workers, and whether the bytes stay the same.

    python benchmarks/benchmark_scaling.py [--decisions 40] [--records DIR]

Builds the same small 9x9 benchmark (the bundled benchmark's settings, so
each task costs what it costs there) on the local backend with 1 and 2
workers and on a local Ray instance with 2 workers; prints the wall time
of each, the tasks and their mean cost, the speed-up, whether the three
files are byte-identical, and a projection for a fleet of W workers:

    T(W) = start + (rounds(W) * ceil(chunk / W) * t_filter + ceil(n_cand / W) * t_cand) * imbalance

for the bundled 1,000-decision 9x9 build (filter chunks of max(64, 4 W)
positions; ``imbalance`` the measured 2-worker excess over the ideal).  Needs an idle machine for
meaningful times.
"""

from __future__ import annotations

import argparse
import math
import time

from fastplay.backend import get_backend
from fastplay.benchmark import build
from fastplay.benchmark.builder import FILTER_CHUNK

#: Positions filtered per decision kept on 9x9 (about 83 % are kept).
FILTERED_PER_DECISION = 1.2

#: Seconds to start a Ray instance (RESULTS.md, "Decision benchmark").
RAY_START = 5.0


def _timed(backend_name: str, workers: int, args: argparse.Namespace) -> tuple[float, bytes, int]:
    start = time.perf_counter()
    with get_backend(backend_name, workers=workers) as backend:
        bench = build([args.records], 9, args.decisions, args.seed, backend, per_game=6)
    seconds = time.perf_counter() - start
    return seconds, bench.to_bytes(), sum(len(e.candidates) for e in bench.entries)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=40)
    parser.add_argument("--records", default="../shared/gnugo-regression/games")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    runs = {}
    for name, workers in (("local", 1), ("local", 2), ("ray", 2)):
        runs[(name, workers)] = _timed(name, workers, args)
        seconds, _, candidates = runs[(name, workers)]
        print(f"{name} x{workers}: {seconds:.1f} s, {args.decisions} decisions, "
              f"{candidates} candidate tasks")
    one, two, ray = runs[("local", 1)], runs[("local", 2)], runs[("ray", 2)]
    print(f"identical bytes: local x1 = local x2: {one[1] == two[1]}, "
          f"local x1 = ray x2: {one[1] == ray[1]}")
    print(f"speed-up with 2 local workers: {one[0] / two[0]:.2f}x; ray x2: {one[0] / ray[0]:.2f}x")
    # One worker: wall time is the sum of the task costs.  A filter task
    # (2,000 visits) costs a quarter of a candidate task (2 x 4,000); about
    # 1.2 positions are filtered per decision kept (RESULTS.md).
    filtered = FILTERED_PER_DECISION * args.decisions
    t_cand = one[0] / (one[2] + filtered / 4)
    imbalance = two[0] / (one[0] / 2)
    per_decision = one[2] / args.decisions
    for fleet in (1, 2, 10, 100):
        n_cand, n_filter = per_decision * 1000, FILTERED_PER_DECISION * 1000
        chunk = max(FILTER_CHUNK, 4 * fleet)
        filter_s = math.ceil(n_filter / chunk) * math.ceil(chunk / fleet) * t_cand / 4
        cand_s = math.ceil(n_cand / fleet) * t_cand
        start = RAY_START if fleet > 2 else 0.0
        total = start + (filter_s + cand_s) * (imbalance if fleet > 1 else 1.0)
        print(f"projection for 1,000 decisions, {fleet:3d} workers: {total / 60:6.1f} min "
              f"({t_cand:.2f} s per candidate task, imbalance {imbalance:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
