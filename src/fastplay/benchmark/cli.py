"""``fastplay benchmark build | score | list`` (the command line the issue fixes).

::

    fastplay benchmark build RECORDS... --size N --decisions K --seed S --out FILE
                             [--backend local|ray] [--workers W] [--address ADDR]
    fastplay benchmark score NAME|FILE --engine "GTP COMMAND" | --python MODULE:FUNCTION
    fastplay benchmark list

``score`` prints a table whose last line is ``PR <value>``.  Candidate
completion writes the extended benchmark back to FILE, or for a bundled
benchmark to ``--out`` (default: ``$XDG_CACHE_HOME/fastplay/benchmarks``,
which later scores of that name read when it extends the bundled file).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from fastplay.argtypes import finite_float, non_negative_int, positive_float, positive_int

if TYPE_CHECKING:
    from fastplay.benchmark.score import Choice, Chooser, Scored
    from fastplay.benchmark.store import Benchmark

__all__ = ["main", "cache_path"]


class _Usage(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fastplay benchmark",
                                     description="Decision benchmarks: PR scores of Go engines.")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = sub.add_parser("build", help="choose decisions from game records and rate "
                           "their candidates")
    build.add_argument("records", nargs="+", metavar="RECORDS", help="SGF files or folders")
    build.add_argument("--size", type=positive_int, required=True, metavar="N")
    build.add_argument("--decisions", type=positive_int, required=True, metavar="K")
    build.add_argument("--seed", type=non_negative_int, required=True, metavar="S")
    build.add_argument("--out", required=True, metavar="FILE", help="the .jsonl.gz to write")
    build.add_argument("--name", help="the benchmark's name (default NxN)")
    build.add_argument("--per-game", type=positive_int, default=5, metavar="N",
                       help="at most N decisions per record (default 5)")
    build.add_argument("--komi", type=finite_float, help="replace every record's komi")
    build.add_argument("--visits", type=positive_int, default=4000, metavar="V",
                       help="visits of each reference search (default 4000)")
    build.add_argument("--repeats", type=int, default=2, metavar="R",
                       help="reference searches per candidate, at least 2 (default 2)")
    build.add_argument("--filter-visits", type=positive_int, default=2000, metavar="V",
                       help="visits of the filter search of each position (default 2000)")
    build.add_argument("--top", type=positive_int, default=4, metavar="N",
                       help="the filter's most visited moves kept as candidates (default 4)")
    build.add_argument("--margin", type=positive_float, default=0.05, metavar="P",
                       help="least spread of the candidates' filter values (default 0.05)")
    build.add_argument("--mc-patterns", default="mc_montegnu_classic", metavar="NAME",
                       help="the playouts' built-in database (default mc_montegnu_classic)")
    _backend_options(build)
    score = sub.add_parser("score", help="score an engine: PR, best moves, blunders")
    score.add_argument("benchmarks", nargs="+", metavar="NAME|FILE")
    engine = score.add_mutually_exclusive_group(required=True)
    engine.add_argument("--engine", metavar="COMMAND", help="a GTP engine's command line")
    engine.add_argument("--python", metavar="MODULE:FUNCTION|FILE.py:FUNCTION",
                        help="a callable choose(board) -> GTP vertex")
    score.add_argument("--name", metavar="LABEL",
                       help="the engine's name in the report (default: its GTP name and "
                            "version, or the function's name)")
    score.add_argument("--reg-genmove", action="store_true",
                       help="ask with reg_genmove (GNU Go's) instead of genmove")
    score.add_argument("--jobs", type=positive_int, default=1, metavar="J",
                       help="engine processes asking in parallel (default 1)")
    score.add_argument("--timeout", type=positive_float, default=120.0, metavar="S",
                       help="seconds per engine answer (default 120)")
    score.add_argument("--out", metavar="FILE",
                       help="where a bundled benchmark's completed references go")
    score.add_argument("--json", metavar="FILE",
                       help="write one JSON line per decision: move, value, best, error")
    score.add_argument("--no-completion", action="store_true",
                       help="leave out decisions whose chosen move has no reference "
                            "instead of rating it")
    _backend_options(score)
    sub.add_parser("list", help="the bundled benchmarks")
    return parser


def _backend_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=("local", "ray"), default="local")
    parser.add_argument("--workers", type=positive_int, metavar="W",
                        help="worker processes (default: every CPU)")
    parser.add_argument("--address", metavar="ADDR", help="a Ray cluster's address")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def cache_path(name: str) -> str:
    """Where completed references of the bundled benchmark ``name`` are kept."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(root, "fastplay", "benchmarks", f"{name}.jsonl.gz")


def _run_build(args: argparse.Namespace) -> int:
    from fastplay.backend import get_backend
    from fastplay.benchmark.builder import build
    from fastplay.benchmark.reference import FilterSpec, ReferenceSpec
    from fastplay.patterns import PatternDatabase

    if args.repeats < 2:
        raise _Usage("--repeats must be at least 2 (the standard error is measured)")
    if args.mc_patterns not in PatternDatabase.names():
        raise _Usage(f"--mc-patterns: no built-in database {args.mc_patterns!r}")
    if not 2 <= args.size <= 25:
        raise _Usage(f"--size must be between 2 and 25, not {args.size}")
    folder = os.path.dirname(os.path.abspath(args.out))
    if os.path.isdir(args.out) or not os.path.isdir(folder):
        raise _Usage(f"--out {args.out}: not a file in an existing folder")
    for path in args.records:
        if not os.path.exists(path):
            raise _Usage(f"{path}: no such file or folder")
    reference = ReferenceSpec(args.visits, args.repeats, args.mc_patterns)
    spec = FilterSpec(args.filter_visits, args.top, margin=args.margin)
    with get_backend(args.backend, workers=args.workers, address=args.address) as backend:
        bench = build(args.records, args.size, args.decisions, args.seed, backend,
                      name=args.name, per_game=args.per_game, komi=args.komi,
                      filter_spec=spec, reference=reference, progress=not args.no_progress)
    bench.save(args.out)
    candidates = sum(len(e.candidates) for e in bench.entries)
    print(f"{args.out}: {len(bench.entries)} decisions, {candidates} candidates, "
          f"{bench.label}")
    return 0


def _load(name: str) -> tuple[Benchmark, str, bool]:
    from fastplay.benchmark.store import Benchmark, BenchmarkError, bundled_names, open_benchmark

    bench, path = open_benchmark(name)
    bundled = name in bundled_names()
    cached = cache_path(name)
    if bundled and os.path.exists(cached):
        try:
            with open(cached, "rb") as handle:
                extended = Benchmark.from_bytes(handle.read(), cached)
        except (OSError, BenchmarkError):
            extended = None
        if extended is not None and extended.base == bench.base and \
                extended.version >= bench.version:
            return extended, cached, True
    return bench, path, bundled


def _chooser(args: argparse.Namespace) -> Chooser:
    from fastplay.benchmark.score import GTPChooser, PythonChooser
    from fastplay.match import EngineError

    if args.engine is not None:
        try:
            return GTPChooser(args.engine, timeout=args.timeout, reg_genmove=args.reg_genmove)
        except (EngineError, ValueError) as exc:
            raise _Usage(str(exc)) from None
    from fastplay.plugins import load_callable

    try:
        return PythonChooser(load_callable(args.python))
    except ValueError as exc:
        raise _Usage(f"--python: {exc}") from None


def _complete(bench: Benchmark, path: str, bundled: bool, name: str,
              choices: Sequence[Choice], args: argparse.Namespace) -> None:
    """Rate the chosen moves without a reference and save the extended file."""
    from fastplay.backend import get_backend
    from fastplay.benchmark.builder import complete

    wanted = [(c.index, c.move) for c in choices if c.move is not None]
    with get_backend(args.backend, workers=args.workers, address=args.address) as backend:
        added = complete(bench, wanted, backend, progress=not args.no_progress)
    if added:
        target = args.out or (cache_path(name) if bundled else path)
        os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
        bench.save(target)
        print(f"candidate completion: {added} new references -> {target}")


def _report(chooser: Chooser, bench: Benchmark, choices: Sequence[Choice],
            scored: Sequence[Scored]) -> None:
    from fastplay.benchmark.score import breakdown, summarize

    failed = [c for c in choices if c.move is None]
    print(f"{chooser.name} on {bench.label}:")
    for phase, summary in breakdown(bench, scored).items():
        print("  " + summary.line(phase))
    resigns = sum(s.kind == "resign" for s in scored)
    illegal = sum(s.kind == "illegal" for s in scored)
    unrated = sum(s.kind == "unrated" for s in scored)
    print(f"  resigned {resigns}, illegal {illegal}, unanswered {len(failed)}"
          + (f" (first: {failed[0].failure})" if failed else "")
          + (f", unrated {unrated} (left out: --no-completion)" if unrated else ""))
    print("  " + summarize(scored).line("all"))


def _json_lines(bench: Benchmark, choices: Sequence[Choice], scored: Sequence[Scored]
                ) -> list[str]:
    """One JSON line per decision: the engine's move, its value and error (or why none)."""
    import json

    by_index = {s.index: s for s in scored}
    lines = []
    for choice in choices:
        entry = bench.entries[choice.index]
        row: dict[str, object] = {"benchmark": bench.label, "id": entry.decision.id,
                                  "phase": entry.decision.phase, "best": entry.best.move,
                                  "best_value": entry.best.value}
        found = by_index.get(choice.index)
        if found is None:
            row["failure"] = choice.failure
        else:
            row.update(move=found.move, value=found.value, error=round(found.error, 5),
                       kind=found.kind)
        lines.append(json.dumps(row, sort_keys=True))
    return lines


def _run_score(args: argparse.Namespace) -> int:
    from fastplay.benchmark.score import choose_all, score_choices, summarize

    if args.out and len(args.benchmarks) > 1:
        raise _Usage("--out takes one benchmark at a time")
    loaded = [_load(name) for name in args.benchmarks]
    chooser = _chooser(args)
    if args.name:
        chooser.name = args.name
    everything: list[Scored] = []
    lines: list[str] = []
    try:
        for (bench, path, bundled), name in zip(loaded, args.benchmarks):
            choices = choose_all(chooser, bench, args.jobs, progress=not args.no_progress)
            if not args.no_completion:
                _complete(bench, path, bundled, name, choices, args)
            scored = score_choices(bench, choices)
            everything += scored
            lines += _json_lines(bench, choices, scored)
            _report(chooser, bench, choices, scored)
    finally:
        chooser.close()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for line in lines))
    total = summarize(everything)
    print(f"{chooser.name}: {total.decisions} decisions  PR {total.pr:.2f}")
    return 0


def _run_list() -> int:
    from fastplay.benchmark.store import bundled_names, open_benchmark

    for name in bundled_names():
        bench, _ = open_benchmark(name)
        ref = bench.reference
        candidates = sum(len(e.candidates) for e in bench.entries)
        print(f"{name:<6} {bench.size}x{bench.size}  {len(bench.entries)} decisions, "
              f"{candidates} candidates, seed {bench.seed}, references: {ref['repeats']} x "
              f"{ref['visits']}-visit searches ({ref['patterns']}), v{bench.version}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fastplay benchmark``; 0 on success, 2 on a usage error."""
    from fastplay.backend import BackendError
    from fastplay.benchmark.store import BenchmarkError

    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        if args.action == "build":
            return _run_build(args)
        if args.action == "score":
            return _run_score(args)
        return _run_list()
    except (_Usage, BenchmarkError, BackendError, ValueError, OSError) as exc:
        print(f"fastplay benchmark: error: {exc}", file=sys.stderr)
        return 2
