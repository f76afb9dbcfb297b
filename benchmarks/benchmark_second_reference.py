"""Does the choice of reference player decide the comparison?  Re-rate and compare orders.

    python benchmarks/benchmark_second_reference.py EXTENDED.jsonl.gz CHOICES.json \
        --decisions 200 --mc-patterns mc_mogo_classic --prior none --out rerated.jsonl.gz

EXTENDED and CHOICES are what ``benchmarks/benchmark_scores.py`` wrote (the
benchmark after its completion pass, and every engine's answers by decision
id, its ``--choices`` file).  The first
``--decisions`` decisions are re-rated by another reference player
(:func:`fastplay.benchmark.rerate`: other playouts, prior or visits), and
each engine's PR on those decisions is printed under both references, with
the engines' ranks and Spearman's rank correlation of the two orders.
"""

from __future__ import annotations

import argparse
import json

from fastplay.backend import get_backend
from fastplay.benchmark import (Benchmark, ReferenceSpec, rerate, score_choices, summarize)
from fastplay.benchmark.score import Choice


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    for rank, index in enumerate(order, 1):
        ranks[index] = float(rank)
    return ranks


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation (no ties expected among PRs)."""
    ra, rb = _ranks(a), _ranks(b)
    n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb)) / (n * (n * n - 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("extended")
    parser.add_argument("choices")
    parser.add_argument("--decisions", type=int, default=200)
    parser.add_argument("--mc-patterns", default="mc_mogo_classic")
    parser.add_argument("--prior", default="none")
    parser.add_argument("--visits", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    with open(args.extended, "rb") as handle:
        bench = Benchmark.from_bytes(handle.read(), args.extended)
    spec = ReferenceSpec(args.visits, 2, args.mc_patterns, args.prior)
    with get_backend("local", workers=args.workers) as backend:
        second = rerate(bench, spec, backend, limit=args.decisions, progress=True)
    second.save(args.out)
    with open(args.choices, encoding="utf-8") as handle:
        engines = json.load(handle)["engines"]
    first = Benchmark(bench.name, bench.size, bench.seed, bench.filter, bench.reference,
                      bench.entries[:args.decisions], bench.version)
    index = {e.decision.id: i for i, e in enumerate(first.entries)}
    rows = []
    for name, row in engines.items():
        choices = [Choice(index[key], *answer) for key, answer in row["answers"].items()
                   if key in index]
        rows.append((name, summarize(score_choices(first, choices)).pr,
                     summarize(score_choices(second, choices)).pr))
    a, b = [r[1] for r in rows], [r[2] for r in rows]
    print(f"first {args.decisions} decisions of {bench.label}; second reference: "
          f"{spec.to_json()}")
    print("| engine | PR, first reference | rank | PR, second reference | rank |")
    print("|---|---:|---:|---:|---:|")
    for (name, pa, pb), ra, rb in zip(rows, _ranks(a), _ranks(b)):
        print(f"| {name} | {pa:.1f} | {ra:.0f} | {pb:.1f} | {rb:.0f} |")
    print(f"Spearman rank correlation of the two orders: {spearman(a, b):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
