"""Score a set of engines on the bundled decision benchmarks, all against the same references.

    python benchmarks/benchmark_scores.py --benchmark 9x9 --jobs 2 --out scores-9x9.json

Every engine answers every decision first; then one candidate-completion
pass rates every chosen move that has no reference (the benchmark's own
settings and seed), and every engine is scored against that one extended
benchmark -- so all the PRs of a table use the same references, whose
version and base the table names.  The extended benchmark is written to
``--extended`` (default: beside ``--out``); ``--choices FILE`` keeps the
answers by decision id, so a rerun (another engine added, or a rebuilt
benchmark that keeps some decisions) asks only for the decisions not
answered yet; the time shown is the sum over the runs.

The engines are those of ``benchmarks/RESULTS.md`` ("Decision benchmark"):
fastplay's search at 1,000, 5,000 and 20,000 visits (``fastplay gtp
--playouts N --seed 1``), the bare playout policy of each built-in
database, GNU Go 3.8 at levels 1 and 10, and GNU Go's Monte Carlo mode
(9x9 only, as GNU Go).  ``--only NAME`` (repeatable) picks some of them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from typing import Any

from fastplay.backend import get_backend
from fastplay.benchmark import (Benchmark, Chooser, GTPChooser, PythonChooser, choose_all,
                                complete, open_benchmark, score_choices, summarize)
from fastplay.benchmark.engines import (policy_mc_mogo_classic, policy_mc_montegnu_classic,
                                        policy_mc_uniform)
from fastplay.benchmark.score import Choice, breakdown

GNUGO = "/usr/games/gnugo --mode gtp"
FASTPLAY = f"{shlex.quote(sys.executable)} -m fastplay gtp --seed 1 --playouts"


def engines(size: int) -> dict[str, tuple[str, Any]]:
    """name -> ("gtp", command) or ("python", function)."""
    out: dict[str, tuple[str, Any]] = {
        "fastplay 1000": ("gtp", f"{FASTPLAY} 1000"),
        "fastplay 5000": ("gtp", f"{FASTPLAY} 5000"),
        "fastplay 20000": ("gtp", f"{FASTPLAY} 20000"),
        "policy mc_montegnu_classic": ("python", policy_mc_montegnu_classic),
        "policy mc_mogo_classic": ("python", policy_mc_mogo_classic),
        "policy mc_uniform": ("python", policy_mc_uniform),
        "GNU Go 3.8 level 1": ("gtp", f"{GNUGO} --level 1"),
        "GNU Go 3.8 level 10": ("gtp", f"{GNUGO} --level 10"),
    }
    if size == 9:
        out["GNU Go 3.8 MC 5000"] = ("gtp", f"{GNUGO} --monte-carlo --mc-patterns "
                                     "montegnu_classic --mc-games-per-level 5000 --level 1 "
                                     "--nofusekidb")
    return out


def _chooser(name: str, kind: str, what: Any) -> Chooser:
    chooser: Chooser = GTPChooser(what, timeout=600) if kind == "gtp" else PythonChooser(what)
    chooser.name = name
    return chooser


Answers = dict[str, tuple[str | None, str | None]]  # decision id -> (move, failure)


def _load_answers(path: str | None) -> dict[str, tuple[Answers, float]]:
    """Saved answers per engine, keyed by decision id (so they survive a rebuild
    that keeps some decisions), and the seconds the engine took."""
    if not path or not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return {name: ({k: (v[0], v[1]) for k, v in row["answers"].items()}, row["seconds"])
            for name, row in data["engines"].items()}


def _save_answers(path: str, answers: dict[str, tuple[Answers, float]]) -> None:
    engines = {name: {"seconds": seconds, "answers": {k: list(v) for k, v in found.items()}}
               for name, (found, seconds) in answers.items()}
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"engines": engines}, handle)


def _ask(name: str, bench: Benchmark, saved: Answers, jobs: int) -> tuple[list[Choice], float]:
    """The engine's choices on ``bench``: saved answers where there are, the
    engine asked for the other decisions (and the seconds that took)."""
    missing = [i for i, e in enumerate(bench.entries) if e.decision.id not in saved]
    seconds = 0.0
    asked: dict[int, Choice] = {}
    if missing:
        kind, what = engines(bench.size)[name]
        chooser = _chooser(name, kind, what)
        part = Benchmark(bench.name, bench.size, bench.seed, bench.filter, bench.reference,
                         [bench.entries[i] for i in missing], bench.version)
        start = time.perf_counter()
        try:
            found = choose_all(chooser, part, jobs=jobs if kind == "gtp" else 1, progress=True)
        finally:
            chooser.close()
        seconds = time.perf_counter() - start
        asked = {missing[c.index]: Choice(missing[c.index], c.move, c.failure) for c in found}
        print(f"{name}: {len(missing)} decisions answered in {seconds:.0f} s", file=sys.stderr)
    out = [asked.get(i) or Choice(i, *saved[e.decision.id]) for i, e in enumerate(bench.entries)]
    return out, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmark", default="9x9", help="bundled name or file")
    parser.add_argument("--only", action="append", help="score only these engines")
    parser.add_argument("--jobs", type=int, default=2, help="engine processes per GTP engine")
    parser.add_argument("--workers", type=int, default=2, help="completion workers")
    parser.add_argument("--out", required=True, help="JSON file of the scores")
    parser.add_argument("--extended", help="where the completed benchmark goes")
    parser.add_argument("--choices", help="a JSON file keeping every engine's answers, so "
                        "that a rerun asks only the engines not answered yet")
    args = parser.parse_args(argv)
    bench, _ = open_benchmark(args.benchmark)
    table = engines(bench.size)
    names = args.only or list(table)
    saved = _load_answers(args.choices)
    choices: dict[str, list[Choice]] = {}
    seconds: dict[str, float] = {}
    for name in names:
        known, before = saved.get(name, ({}, 0.0))
        choices[name], spent = _ask(name, bench, known, args.jobs)
        seconds[name] = before + spent
        ids = {bench.entries[c.index].decision.id: (c.move, c.failure) for c in choices[name]}
        saved[name] = ({**known, **ids}, seconds[name])
        if args.choices:
            _save_answers(args.choices, saved)
    wanted = [(c.index, c.move) for found in choices.values() for c in found
              if c.move is not None]
    with get_backend("local", workers=args.workers) as backend:
        added = complete(bench, wanted, backend, progress=True)
    extended = args.extended or args.out.rsplit(".", 1)[0] + ".jsonl.gz"
    bench.save(extended)
    rows = []
    for name in names:
        scored = score_choices(bench, choices[name])
        total = summarize(scored)
        phases = {p: round(s.pr, 2) for p, s in breakdown(bench, scored).items()}
        rows.append({"engine": name, "decisions": total.decisions, "pr": round(total.pr, 2),
                     "low": round(total.low, 2), "high": round(total.high, 2),
                     "best": round(total.best_share, 3), "blunders": round(total.blunder_share, 3),
                     "phases": phases, "seconds": round(seconds[name]),
                     "unanswered": sum(c.move is None for c in choices[name]),
                     "resigned": sum(s.kind == "resign" for s in scored),
                     "illegal": sum(s.kind == "illegal" for s in scored)})
        print(f"| {name} | {total.decisions} | {total.pr:.1f} [{total.low:.1f}, "
              f"{total.high:.1f}] | {100 * total.best_share:.1f} % | "
              f"{100 * total.blunder_share:.1f} % | {phases} |")
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump({"benchmark": bench.label, "completed": added, "rows": rows}, handle,
                  indent=1)
    print(f"references: {bench.label}, {added} candidates added by completion")
    return 0


if __name__ == "__main__":
    sys.exit(main())
