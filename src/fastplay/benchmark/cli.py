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
The completions are saved under an exclusive lock (``fcntl.flock`` on
``TARGET.lock``, left beside it): the file is read again and the new
candidates are added to what it holds, so two scores of one file at once
keep each other's references, and the score uses the merged file.

Options are checked before the engine is asked anything: the backend is
opened first (for the whole score), ``--json`` may not name a benchmark,
its cache or ``--out``, and the files to write must be in existing,
writable folders.  Exit status: 0, 2 for a usage error (one line on
stderr), 1 when the engine answered no decision at all.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fastplay.argtypes import (Parser, board_size, komi_value, non_negative_float,
                               non_negative_int, positive_float, positive_int)

if TYPE_CHECKING:
    from fastplay.backend import Backend
    from fastplay.benchmark.score import Choice, Chooser, Scored
    from fastplay.benchmark.store import Benchmark

__all__ = ["main", "cache_path"]


class _Usage(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="fastplay benchmark",
                                     description="Decision benchmarks: PR scores of Go engines.")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    build = sub.add_parser("build", help="choose decisions from game records and rate "
                           "their candidates")
    build.add_argument("records", nargs="+", metavar="RECORDS", help="SGF files or folders")
    build.add_argument("--size", type=board_size, required=True, metavar="N",
                       help="board size of the records used")
    build.add_argument("--decisions", type=positive_int, required=True, metavar="K",
                       help="decisions to draw from the records")
    build.add_argument("--seed", type=non_negative_int, required=True, metavar="S",
                       help="seed of the draw and of every search")
    build.add_argument("--out", required=True, metavar="FILE", help="the .jsonl.gz to write")
    build.add_argument("--name", help="the benchmark's name (default NxN)")
    build.add_argument("--per-game", type=positive_int, default=5, metavar="N",
                       help="at most N decisions per record (default 5)")
    build.add_argument("--komi", type=komi_value, help="replace every record's komi")
    build.add_argument("--visits", type=positive_int, default=4000, metavar="V",
                       help="visits of each reference search (default 4000)")
    build.add_argument("--repeats", type=int, default=2, metavar="R",
                       help="reference searches per candidate, at least 2 (default 2)")
    build.add_argument("--filter-visits", type=positive_int, default=2000, metavar="V",
                       help="visits of the filter search of each position (default 2000)")
    build.add_argument("--top", type=positive_int, default=4, metavar="N",
                       help="the filter's most visited moves kept as candidates (default 4)")
    build.add_argument("--margin", type=non_negative_float, default=0.05, metavar="P",
                       help="least spread of the candidates' filter values (default 0.05; "
                            "0 keeps every spread)")
    build.add_argument("--significance", type=non_negative_float, default=2.0, metavar="Z",
                       help="keep a decision only if its worst candidate is below the best "
                            "by more than Z combined standard errors (default 2; 0: below "
                            "at all)")
    build.add_argument("--reuse", metavar="FILE",
                       help="an earlier benchmark built with the same reference settings and "
                            "seed: its values are taken instead of computed (same result)")
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
                       help="seconds per GTP engine answer (default 120); it cannot "
                            "interrupt a Python function (--python), which runs in this "
                            "process")
    score.add_argument("--out", metavar="FILE",
                       help="where a bundled benchmark's completed references go (saved "
                            "under a lock, FILE.lock, which is left beside it)")
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


def _check_output(option: str, path: str) -> None:
    """A usage error unless ``path`` can be written: a file name, not a
    directory, in an existing writable folder."""
    if not path:
        raise _Usage(f"{option}: an empty file name")
    if os.path.isdir(path):
        raise _Usage(f"{option} {path}: a directory, not a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _Usage(f"{option} {path}: no such folder {folder}")
    if not os.access(folder, os.W_OK):
        raise _Usage(f"{option} {path}: the folder {folder} is not writable")


def _writable_folder(path: str) -> str | None:
    """The folder that stops ``path`` from being written (the nearest existing
    one is not a writable directory), or ``None``; missing folders are made."""
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(folder) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return None if os.path.isdir(folder) and os.access(folder, os.W_OK) else folder


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist
        return False


def _run_build(args: argparse.Namespace) -> int:
    from fastplay.backend import get_backend
    from fastplay.benchmark.builder import build
    from fastplay.benchmark.reference import FilterSpec, ReferenceSpec
    from fastplay.patterns import PatternDatabase

    if args.repeats < 2:
        raise _Usage("--repeats must be at least 2 (the standard error is measured)")
    if args.mc_patterns not in PatternDatabase.names():
        raise _Usage(f"--mc-patterns: no built-in database {args.mc_patterns!r}")
    _check_output("--out", args.out)
    for path in args.records:
        if not os.path.exists(path):
            raise _Usage(f"{path}: no such file or folder")
    reference = ReferenceSpec(args.visits, args.repeats, args.mc_patterns)
    spec = FilterSpec(args.filter_visits, args.top, margin=args.margin,
                      significance=args.significance)
    reuse = None
    if args.reuse is not None:
        from fastplay.benchmark.store import open_benchmark

        from fastplay.benchmark.builder import reuse_mismatch

        reuse = open_benchmark(args.reuse)[0]
        why = reuse_mismatch(reuse, reference.recorded(args.size), args.seed)
        if why is not None:
            print(f"fastplay benchmark: warning: --reuse {args.reuse}: not reused: {why}",
                  file=sys.stderr)
    with get_backend(args.backend, workers=args.workers, address=args.address) as backend:
        bench = build(args.records, args.size, args.decisions, args.seed, backend,
                      name=args.name, per_game=args.per_game, komi=args.komi,
                      filter_spec=spec, reference=reference, progress=not args.no_progress,
                      reuse=reuse)
    bench.save(args.out)
    candidates = sum(len(e.candidates) for e in bench.entries)
    print(f"{args.out}: {len(bench.entries)} decisions, {candidates} candidates, "
          f"{bench.label}")
    if len(bench.entries) < args.decisions:
        print(f"fastplay benchmark: warning: {len(bench.entries)} of the {args.decisions} "
              f"decisions asked for: the records hold no more that pass the filter (at "
              f"most --per-game {args.per_game} a record; --margin {args.margin:g} and "
              f"--significance {args.significance:g} drop positions whose candidates are "
              f"too close)", file=sys.stderr)
    return 0


@dataclass
class _Source:
    """A benchmark to score: the name given, what was read and from where."""

    name: str
    bench: Benchmark
    path: str  # the file read: the benchmark, or the completion cache extending it
    bundled: bool

    def target(self, args: argparse.Namespace) -> str:
        """Where the completed references go."""
        return str(args.out or (cache_path(self.name) if self.bundled else self.path))

    def files(self) -> list[str]:
        """The files this benchmark is kept in (read, bundled, cached)."""
        from fastplay.benchmark.store import bundled_path

        return [self.path] + ([bundled_path(self.name), cache_path(self.name)]
                              if self.bundled else [])


def _same_build(path: str, base: str, version: int, ignored: str) -> Benchmark | None:
    """The benchmark at ``path`` if it is one of the build ``base`` at least
    at ``version``; ``None`` when there is none, and when it cannot be read
    (with a warning: "PATH ``ignored``: why")."""
    from fastplay.benchmark.store import Benchmark, BenchmarkError

    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as handle:
            found = Benchmark.from_bytes(handle.read(), path)
    except (OSError, BenchmarkError) as exc:
        reason = str(exc).removeprefix(f"{path}: ")
        warnings.warn(f"{path} {ignored}: {reason}", stacklevel=2)
        return None
    return found if found.base == base and found.version >= version else None


def _cached(name: str, bench: Benchmark) -> Benchmark | None:
    """The completion cache of the bundled ``bench`` when it extends it; a
    corrupt cache is named in a warning and ignored."""
    return _same_build(cache_path(name), bench.base, bench.version,
                       "(the completion cache) is ignored")


def _load(name: str) -> _Source:
    from fastplay.benchmark.store import bundled_names, open_benchmark

    bench, path = open_benchmark(name)
    bundled = name in bundled_names()
    extended = _cached(name, bench) if bundled else None
    if extended is not None:
        return _Source(name, extended, cache_path(name), True)
    return _Source(name, bench, path, bundled)


def _check_score_paths(args: argparse.Namespace, sources: Sequence[_Source]) -> None:
    """Usage errors for the files a score writes, before the engine is asked."""
    if args.json is not None:
        _check_output("--json", args.json)
        kept = [f for source in sources for f in source.files()] + [args.out] * bool(args.out)
        for path in kept:
            if _same_file(args.json, path):
                raise _Usage(f"--json {args.json}: that is {path}, which the score reads or "
                             "completes; give --json another file")
    if args.out is not None:
        _check_output("--out", args.out)
    if args.no_completion:
        return
    for source in sources:
        target = source.target(args)
        folder = _writable_folder(target)
        if folder is not None:
            raise _Usage(f"cannot save completed references to {target}: {folder} is not a "
                         "writable folder (give --out FILE, or --no-completion)")


def _backend(args: argparse.Namespace) -> contextlib.AbstractContextManager[Backend | None]:
    """The completion backend, opened before the engine is asked (none with
    ``--no-completion``, whose backend options are only checked)."""
    from fastplay.backend import get_backend

    if args.no_completion:
        if args.backend == "local" and args.address is not None:
            raise _Usage(f"--address {args.address} is for the ray backend, not local")
        return contextlib.nullcontext()
    return get_backend(args.backend, workers=args.workers, address=args.address)


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
        return PythonChooser(load_callable(args.python, arguments=1))
    except ValueError as exc:
        raise _Usage(f"--python: {exc}") from None


@contextlib.contextmanager
def _locked(target: str) -> Iterator[None]:
    """An exclusive lock on ``TARGET.lock`` (none where ``fcntl`` is missing)."""
    try:
        import fcntl
    except ImportError:  # not POSIX
        yield
        return
    with open(f"{target}.lock", "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _complete(bench: Benchmark, target: str, choices: Sequence[Choice], backend: Backend,
              args: argparse.Namespace) -> Benchmark:
    """Rate the chosen moves without a reference and add them to ``target``,
    merged under its lock with what another score may have saved there since
    ``bench`` was read; the benchmark to score against."""
    from fastplay.benchmark.builder import complete

    wanted = [(c.index, c.move) for c in choices if c.move is not None]
    loaded = bench.version
    added = complete(bench, wanted, backend, progress=not args.no_progress)
    if not added:
        return bench
    os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
    with _locked(target):
        merged = _same_build(target, bench.base, loaded, "is replaced")
        if merged is None:
            merged, new = bench, added
            bench.save(target)
        else:
            new = merged.merge(bench)
            if new:
                merged.save(target)
    if new:
        print(f"candidate completion: {new} new references -> {target}")
    else:
        print(f"candidate completion: the {added} new references were already in {target} "
              "(another score saved them)")
    return merged


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


def _score_one(source: _Source, chooser: Chooser, backend: Backend | None,
               args: argparse.Namespace) -> tuple[list[Choice], list[Scored], list[str]]:
    """Ask, complete and score one benchmark; print its report."""
    from fastplay.benchmark.score import choose_all, score_choices

    bench = source.bench
    choices = choose_all(chooser, bench, args.jobs, progress=not args.no_progress)
    if backend is not None:
        bench = _complete(bench, source.target(args), choices, backend, args)
    scored = score_choices(bench, choices)
    _report(chooser, bench, choices, scored)
    return choices, scored, _json_lines(bench, choices, scored)


def _run_score(args: argparse.Namespace) -> int:
    from fastplay.benchmark.score import summarize

    if args.out and len(args.benchmarks) > 1:
        raise _Usage("--out takes one benchmark at a time")
    sources = [_load(name) for name in args.benchmarks]
    _check_score_paths(args, sources)
    with _backend(args) as backend:
        chooser = _chooser(args)
        if args.name:
            chooser.name = args.name
        try:
            results = [_score_one(source, chooser, backend, args) for source in sources]
        finally:
            chooser.close()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for _, _, lines in results for line in lines))
    total = summarize([s for _, scored, _ in results for s in scored])
    print(f"{chooser.name}: {total.decisions} decisions  "
          + (f"PR {total.pr:.2f}" if total.decisions else "(none rated: no PR)"))
    choices = [c for found, _, _ in results for c in found]
    if choices and all(c.move is None for c in choices):
        print(f"fastplay benchmark: {chooser.name} answered no decision (first failure: "
              f"{choices[0].failure})", file=sys.stderr)
        return 1
    return 0


def _run_list() -> int:
    from fastplay.benchmark.store import bundled_names, open_benchmark

    for name in bundled_names():
        bench, _ = open_benchmark(name)
        ref = bench.reference
        candidates = sum(len(e.candidates) for e in bench.entries)
        cached = _cached(name, bench)
        version = f"v{bench.version}" + (f" (cached v{cached.version} in {cache_path(name)})"
                                          if cached is not None else "")
        print(f"{name:<6} {bench.size}x{bench.size}  {len(bench.entries)} decisions, "
              f"{candidates} candidates, seed {bench.seed}, references: {ref['repeats']} x "
              f"{ref['visits']}-visit searches ({ref['patterns']}), {version}")
    return 0


def _quiet_stdout() -> None:
    """After a closed stdout (``fastplay benchmark list | head -1``): send the
    rest to /dev/null, so Python's last flush does not complain either."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fastplay benchmark``; 0 on success, 2 on a usage error, 1 when
    the engine answered no decision."""
    from fastplay.backend import BackendError
    from fastplay.benchmark.store import BenchmarkError

    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        if args.action == "build":
            status = _run_build(args)
        elif args.action == "score":
            status = _run_score(args)
        else:
            status = _run_list()
        sys.stdout.flush()  # a closed stdout shows here, not at exit
        return status
    except BrokenPipeError:  # the reader went away: no error
        _quiet_stdout()
        return 0
    except (_Usage, BenchmarkError, BackendError, ValueError, OSError) as exc:
        print(f"fastplay benchmark: error: {exc}", file=sys.stderr)
        return 2
