"""``fastplay tune``: fit a playout pattern database, and measure one.

    fastplay tune mm RECORDS... --size 9 [--player NAME] [--base DB] \\
        [--iterations 60] [--scale 1000] [--holdout 5] --out FILE.db
    fastplay tune balance [--base DB] [--benchmark 9x9 | --references FILE] \\
        [--iterations 40] [--playouts 64] [--seed 1] --out FILE.db
    fastplay tune games --engine 'CMD {db} {seed}' [--base DB] [--iterations 200] \\
        [--pairs 1] [--referee CMD] [--seed 1] [--jobs 1] [--checkpoint FILE [--resume]] \\
        --out FILE.db
    fastplay tune quality DB... [--benchmark 9x9 | --references FILE] [--playouts 500] \\
        [--seed 1]

Every method takes ``--gnugo-syntax``: read its ``.db`` files (``--base``,
``DB``) as GNU Go 3.8 does instead of strictly.

``mm`` fits the values by move prediction (:mod:`fastplay.tune.mm`) to the
moves of ``RECORDS`` (SGF files, folders, tar archives; both
players' moves unless ``--player`` names one), reports the held-out
log-probability and top-1 rate of the tuned policy next to the base
database's, and writes the ``.db`` file (:mod:`fastplay.dbwrite`), which it
compiles again to check that the file says what was fitted.  The output is
a pure function of the records and the options.  ``balance`` reweights a
database's values by property feature so that its playouts match the
reference values of a benchmark's positions (:mod:`fastplay.tune.balance`),
holding every N-th position out for the report; a pure function of the
options and seed.  ``games`` reweights them by SPSA on the results of
games between two copies of an engine that loads the database
(:mod:`fastplay.tune.games`), GNU Go 3.8 itself for one; a long run keeps
its state in ``--checkpoint`` after every step and goes on from it with
``--resume`` (the same steps as a run that was never stopped).  ``quality`` measures
databases (built-in names or files) by the playouts' mean squared error
on a decision benchmark's positions (:mod:`fastplay.tune.quality`).
``--references FILE`` gives both other positions and references instead of
the benchmark's: decision lines without a benchmark header
(:func:`fastplay.benchmark.store.read_entries`), such as another engine's
values that no fastplay search made.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from fastplay.argtypes import (Parser, board_size, komi_value, non_negative_int, playout_count,
                                positive_float, positive_int)
from fastplay.asciinum import ascii_int
from fastplay.cli import describe_error
from fastplay.outputfile import write_whole
from fastplay.shown import escape_controls, quoted

if TYPE_CHECKING:  # pragma: no cover - typing only; imported when a command runs
    from fastplay.benchmark.store import Entry
    from fastplay.patterns import PatternDatabase
    from fastplay.prior import MoveSamples
    from fastplay.tune.games import GamesRun

__all__ = ["main"]


def _shared(p: argparse.ArgumentParser, base_help: str, iterations: int,
            held: str | None) -> None:
    """The options the methods share (``--holdout`` with a ``held`` kind)."""
    p.add_argument("--base", default="mc_montegnu_classic",
                   help=f"{base_help} (built-in name or .db file; default "
                   "mc_montegnu_classic)")
    _syntax_option(p, "--base")
    p.add_argument("--iterations", type=positive_int, default=iterations,
                   help=f"steps of the method (default {iterations})")
    if held is not None:
        p.add_argument("--holdout", type=_holdout, default=5,
                       help=f"every N-th {held} is held out for the report (default 5)")
    p.add_argument("--out", required=True, help="the .db file to write")


def _holdout(text: str) -> int:
    """``--holdout``: every N-th item held out, N >= 2 (1 would hold out all)."""
    try:
        value = ascii_int(text)      # as every integer option reads (no "٣", no "1_0")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be at least 2 (1 holds out everything): "
                                         f"{text!r}")
    return value


def _syntax_option(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--gnugo-syntax", action="store_true",
                   help=f"read a .db file given as {what} as GNU Go 3.8 does: no syntax "
                   "error, its loader's quirks bit for bit (by default a malformed line is "
                   "an error naming file, line and column)")


def _references_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--references", metavar="FILE",
                   help="positions with reference values from another source, used instead "
                   "of --benchmark's: a benchmark's decision lines without the header "
                   "(gzipped or not), as benchmarks/pachi_references.py writes")


def _positions(parser: argparse.ArgumentParser, args: argparse.Namespace
               ) -> tuple[str, list[Entry]]:
    """The label and entries of ``--references`` when given, else of ``--benchmark``;
    a usage error for a file that cannot be read."""
    from fastplay.benchmark.store import (BenchmarkError, entries_digest, open_benchmark,
                                          read_entries)

    try:
        if args.references is not None:
            entries = read_entries(args.references)
            return (f"{args.references} ({len(entries)} positions, refs "
                    f"{entries_digest(entries)})", entries)
        benchmark, _ = open_benchmark(args.benchmark)
    except (OSError, BenchmarkError) as exc:
        parser.error(describe_error(exc))
    return benchmark.label, benchmark.entries


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="fastplay tune", description="Fit a Monte Carlo playout pattern database (GNU Go's "
        ".db language) to game records or to reference values, and measure one.")
    sub = parser.add_subparsers(dest="method", metavar="METHOD", required=True)
    mm = sub.add_parser("mm", help="fit values to game records' moves (Coulom 2007)")
    mm.add_argument("records", nargs="+", help="SGF files, folders or tar archives (.tar, .tar.gz, .tar.bz2, .tar.xz)")
    mm.add_argument("--size", type=board_size, default=9,
                    help="board size of the records used (default 9)")
    mm.add_argument("--player", help="substring of the player's PB/PW name (default: both)")
    mm.add_argument("--scale", type=_scale, default=1000.0,
                    help="value of a cell of median strength (default 1000)")
    _shared(mm, "database whose zero cells stay zero", 60, "game")
    balance = sub.add_parser("balance", help="balance feature and pattern weights so that "
                             "playouts match reference values (simulation balancing)")
    balance.add_argument("--benchmark", default="9x9",
                         help="positions with reference values: bundled name or file")
    _references_option(balance)
    balance.add_argument("--estimator", choices=("gradient", "spsa"), default="gradient",
                         help="the policy gradient (Silver and Tesauro 2009; default) or SPSA")
    balance.add_argument("--playouts", type=playout_count, default=64,
                         help="playouts per position for each estimate (default 64)")
    balance.add_argument("--rate", type=positive_float, default=1.0,
                         help="the gradient estimator's step size (default 1)")
    balance.add_argument("--report-playouts", type=playout_count, default=500,
                         help="playouts a position for the report (default 500)")
    balance.add_argument("--seed", type=non_negative_int, default=1,
                         help="seed of the playouts (default 1)")
    _shared(balance, "database to reweight", 40, "position")
    _games_parser(sub)
    quality = sub.add_parser("quality", help="playouts' squared error on benchmark positions")
    quality.add_argument("databases", nargs="+", help="built-in names or .db files")
    _syntax_option(quality, "DB")
    quality.add_argument("--benchmark", default="9x9", help="bundled name or file (default 9x9)")
    _references_option(quality)
    quality.add_argument("--playouts", type=playout_count, default=500,
                         help="playouts per position (default 500)")
    quality.add_argument("--positions", type=non_negative_int, default=0,
                         help="the first N positions only (default 0: all)")
    quality.add_argument("--seed", type=non_negative_int, default=1,
                         help="seed of the playouts (default 1)")
    return parser


def _games_parser(sub: Any) -> None:
    """``tune games``: SPSA on game results (:mod:`fastplay.tune.games`)."""
    games = sub.add_parser("games", help="tune the feature weights by SPSA on games between "
                           "engines that load the database (Spall 1992)")
    games.add_argument("--engine", required=True, metavar="CMD",
                       help="GTP engine command line with {db} (the database file) and "
                       "optionally {seed}, e.g. 'gnugo --mode gtp --monte-carlo "
                       "--mc-games-per-level 400 --nofusekidb --mc-load-patterns {db} "
                       "--seed {seed}'")
    games.add_argument("--pairs", type=positive_int, default=1,
                       help="games with each colour per step (default 1)")
    games.add_argument("--size", type=board_size, default=9, help="board size (default 9)")
    games.add_argument("--komi", type=komi_value, default=7.5, help="komi (default 7.5)")
    games.add_argument("--referee", metavar="CMD",
                       help="GTP engine whose final_status_list dead settles dead stones")
    games.add_argument("--step", type=positive_float, default=0.05,
                       help="SPSA's a (default 0.05)")
    games.add_argument("--perturbation", type=positive_float, default=0.2,
                       help="SPSA's c (default 0.2)")
    games.add_argument("--seed", type=non_negative_int, default=1,
                       help="seed of the run (default 1)")
    games.add_argument("--jobs", type=positive_int, default=1,
                       help="games played at the same time (default 1)")
    games.add_argument("--checkpoint", metavar="FILE",
                       help="write the run's state to FILE after every step")
    games.add_argument("--resume", action="store_true",
                       help="go on from --checkpoint FILE, a run of the same options "
                       "(--iterations included) that was stopped")
    _shared(games, "database to reweight", 200, None)


def _run_games(parser: argparse.ArgumentParser, args: argparse.Namespace,
               argv: list[str]) -> int:
    from functools import partial

    from fastplay.tune.balance import FEATURES, balance_scale, balanced_db_text
    from fastplay.tune.games import GamesRun, play_gtp_game, save_state, spsa_games

    _check_shared(parser, args)
    base = _database(parser, args.base, "--base", not args.gnugo_syntax)
    settings = {name: getattr(args, name) for name in (
        "engine", "base", "size", "komi", "referee", "pairs", "step", "perturbation", "seed",
        "iterations")}
    resume = _games_resume(parser, args, settings)
    history = list(resume.history) if resume is not None else []
    if args.checkpoint is not None:
        # Written before the first game: a place that cannot hold it fails now.
        try:
            save_state(Path(args.checkpoint), resume if resume is not None else
                       GamesRun(np.zeros(len(FEATURES))), settings)
        except OSError as exc:
            parser.error(f"--checkpoint: cannot write {quoted(args.checkpoint)}: "
                         f"{exc.strerror or exc}")

    def log(k: int, y: float, theta: np.ndarray) -> None:
        weights = " ".join(f"{t:+.3f}" for t in theta)
        print(f"step {k}: plus side scored {y:+.2f}; theta {weights}", flush=True)
        history.append((k, y))
        if args.checkpoint is not None:
            save_state(Path(args.checkpoint), GamesRun(theta.copy(), history), settings)

    from fastplay.match import EngineError

    play = partial(play_gtp_game, size=args.size, komi=args.komi, referee=args.referee)
    try:
        run = spsa_games(base, args.engine, args.iterations, args.seed, play=play,
                         pairs=args.pairs, step=args.step, perturbation=args.perturbation,
                         log=log, resume=resume, jobs=args.jobs)
    except ValueError as exc:
        parser.error(str(exc))
    except (EngineError, OSError) as exc:
        # An engine that does not start (nothing to tune with), or a
        # checkpoint that can no longer be written (the log has the steps).
        print(f"fastplay tune games: error: {exc}", file=sys.stderr)
        return 1
    weights = ", ".join(f"{name} {t:+.3f}" for name, t in zip(FEATURES, run.theta))
    scale = balance_scale(base)
    header = ("Monte Carlo playout patterns for GNU Go 3.8 (--mc-load-patterns) and fastplay.\n"
              f"{base.name}'s patterns, values times {scale:g}, reweighted per property "
              f"feature by SPSA on {args.iterations} steps of {2 * args.pairs} games "
              f"between engines (Spall 1992).\nLog-multipliers: {weights}.\n"
              "Made by: fastplay tune " + shlex.join(argv))
    return _write(parser, args.out, balanced_db_text(base, run.theta, scale, header=header))


def _games_resume(parser: argparse.ArgumentParser, args: argparse.Namespace,
                  settings: dict[str, object]) -> GamesRun | None:
    """The stopped run ``--resume`` continues (its ``--checkpoint``), or None;
    a usage error for ``--resume`` without a readable state of these
    ``settings``, or for a ``--checkpoint`` that would overwrite one."""
    from fastplay.tune.games import load_state

    if args.checkpoint is None:
        if args.resume:
            parser.error("--resume needs --checkpoint FILE")
        return None
    path = Path(args.checkpoint)
    _check_file(parser, "--checkpoint", args.checkpoint)
    if not args.resume:
        if path.exists():
            parser.error(f"{quoted(str(path))} exists: --resume goes on from it")
        return None
    try:
        return load_state(path, settings)
    except (OSError, ValueError) as exc:
        parser.error(f"--resume: {exc}")


def _database(parser: argparse.ArgumentParser, name: str, what: str,
              strict: bool = True) -> PatternDatabase:
    """The built-in database or ``.db`` file ``name`` (read in strict mode or,
    with ``strict=False``, as GNU Go reads it), or a usage error naming ``what``."""
    from fastplay.patterns import PatternDatabase, PatternSyntaxError

    if name in PatternDatabase.names():
        return PatternDatabase.builtin(name)
    if not os.path.isfile(name):
        try:
            # The other spellings PatternDatabase.builtin takes (GNU Go's
            # without "mc_", a ".db" suffix), as --mc-patterns does; a file
            # of that name wins.
            return PatternDatabase.builtin(name)
        except ValueError:
            pass
    try:
        return PatternDatabase.from_file(name, strict=strict)
    except PatternSyntaxError as exc:
        parser.error(str(exc))
    except OSError as exc:
        parser.error(f"{what} {name!r} is neither a built-in database "
                     f"({', '.join(PatternDatabase.names())}) nor a readable .db file "
                     f"({exc.strerror or type(exc).__name__})")


def _scale(text: str) -> float:
    """``--scale``: a number in [1, MAX_VALUE / 1000]."""
    from fastplay.dbwrite import MAX_VALUE

    value = positive_float(text)
    if not 1.0 <= value <= MAX_VALUE / 1000:
        raise argparse.ArgumentTypeError(f"must be in [1, {MAX_VALUE // 1000}], not {text}")
    return value


def _check_file(parser: argparse.ArgumentParser, option: str, name: str) -> None:
    """A usage error unless ``name`` (``option``'s value) can name a file
    to write: not blank, not a folder, in a folder that exists."""
    if not name.strip() or Path(name).is_dir():
        parser.error(f"{option} must name a file, not {quoted(name)!r}")
    if not Path(name).resolve().parent.is_dir():
        parser.error(f"{option}: no such directory: {quoted(str(Path(name).parent))}")


def _check_shared(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--out`` names a file to write and none of the inputs."""
    from fastplay.outputfile import overwrites_input

    _check_file(parser, "--out", args.out)
    inputs = [name for name in (args.base, getattr(args, "references", None),
                                getattr(args, "checkpoint", None)) if name is not None]
    records = getattr(args, "records", [])
    if overwrites_input(args.out, [*inputs, *records], folders=records):
        parser.error(f"--out {quoted(args.out)} is one of the inputs (it would be overwritten)")


def _write(parser: argparse.ArgumentParser, out: str, text: str) -> int:
    """Write the database's ``text`` to ``out`` (whole or not at all: through a
    temporary file in the same folder); 0, or a usage error."""
    try:
        write_whole(out, text.encode("ascii"))
    except OSError as exc:
        parser.error(f"cannot write {out}: {exc}")
    print(f"wrote {out}: {len(text.splitlines())} lines, {len(text):,} bytes")
    return 0


def _report(samples: MoveSamples, table: np.ndarray, base: np.ndarray, holdout: int) -> None:
    held = samples.subset(samples.game % holdout == 0)
    if not len(held):
        return
    print(f"{'held-out policy':24s} {'log-prob':>9s} {'top-1':>6s}")
    for name, t in (("base database", base), ("tuned", table)):
        loglik, top1 = held.log_likelihood(np.maximum(t.ravel()[held.index], 1e-9))
        print(f"{name:24s} {loglik:9.3f} {100 * top1:5.1f}%")


def _run_mm(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: list[str]) -> int:
    from fastplay.dbwrite import write_db
    from fastplay.patterns import PatternDatabase
    from fastplay.prior import collect_samples, record_files, records_report
    from fastplay.sgf import SGFError
    from fastplay.tune.mm import tune_mm

    _check_shared(parser, args)
    base = _database(parser, args.base, "--base", not args.gnugo_syntax)
    try:
        skipped: list[str] = []
        cut: list[str] = []
        left_out: list[str] = []
        with tempfile.TemporaryDirectory() as scratch:
            files = record_files(args.records, scratch)
            samples = collect_samples(files, args.player, args.size, skipped=skipped, cut=cut,
                                      left_out=left_out)
    except (OSError, EOFError, SGFError, tarfile.TarError) as exc:
        parser.error(describe_error(exc))
    for line in records_report(skipped, cut, left_out):
        print(escape_controls(line), file=sys.stderr)
    if not len(samples):
        whose = "" if args.player is None else f" of a player named like {args.player!r}"
        parser.error(f"no moves{whose} on {args.size}x{args.size} in the records")
    train = samples.subset(samples.game % args.holdout != 0)
    print(f"{len(files)} files, {int(samples.game.max()) + 1} games, {len(samples)} moves "
          f"({len(train)} to fit the report's policy)")
    if len(train):
        _report(samples, tune_mm(train, base.table, args.iterations, args.scale).table(),
                base.table, args.holdout)
    policy = tune_mm(samples, base.table, args.iterations, args.scale)
    header = ("Monte Carlo playout patterns for GNU Go 3.8 (--mc-load-patterns) and fastplay.\n"
              "Fitted by move prediction (Coulom 2007, minorization-maximization over GNU\n"
              "Go's local context: geometry class and property byte) to "
              f"{policy.moves} moves\nof {len(files)} SGF files, {args.size}x{args.size}; "
              f"{policy.cells_seen} cells seen; zero cells of {base.name} kept.\n"
              "Made by: fastplay tune " + shlex.join(argv))
    text = write_db(policy.layout, header)
    compiled = PatternDatabase.from_string(text, name=args.out)
    if not np.array_equal(compiled.table[1:], policy.table()[1:]):  # pragma: no cover - a bug
        raise AssertionError("the written file does not compile to the fitted table")
    return _write(parser, args.out, text)


def _run_quality(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from fastplay.tune.quality import playout_quality

    databases = [_database(parser, name, "database", not args.gnugo_syntax)
                 for name in args.databases]
    label, entries = _positions(parser, args)
    entries = entries[:args.positions] if args.positions else entries
    print(f"{label}: {len(entries)} positions, {args.playouts} playouts each, "
          f"seed {args.seed}")
    for name, db in zip(args.databases, databases):
        q = playout_quality(db, entries, args.playouts, args.seed)
        print(f"{name}: MSE {q.mse:.4f}  bias {q.bias:+.4f}")
    return 0


def _run_balance(parser: argparse.ArgumentParser, args: argparse.Namespace,
                 argv: list[str]) -> int:
    from fastplay.patterns import PatternDatabase
    from fastplay.dbwrite import MAX_VALUE
    from fastplay.tune.balance import (FEATURES, balance_gradient, balance_scale,
                                       balance_spsa, balanced_db_text, capped_cells)
    from fastplay.tune.quality import playout_quality

    _check_shared(parser, args)
    base = _database(parser, args.base, "--base", not args.gnugo_syntax)
    label, entries = _positions(parser, args)
    train = [e for j, e in enumerate(entries) if j % args.holdout]
    held = [e for j, e in enumerate(entries) if j % args.holdout == 0]
    if not train or not held:
        parser.error("the benchmark has too few positions to hold some out")
    print(f"{label}: {len(train)} positions to balance on, {len(held)} held out")
    scale = balance_scale(base)
    if args.estimator == "spsa":
        run = balance_spsa(base, train, args.iterations, args.playouts, args.seed, scale)
        how, row = "SPSA, Spall 1992", "step {}: squared error {:.4f} / {:.4f}"
    else:
        run = balance_gradient(base, train, args.iterations, args.playouts, args.playouts,
                               args.seed, scale, rate=args.rate)
        how = "the policy gradient, Silver and Tesauro 2009"
        row = "sweep {}: squared error {:.4f}, mean error {:+.4f}"
    for step in run.history[:: max(1, len(run.history) // 10)]:
        print(row.format(*step))
    weights = ", ".join(f"{name} {t:+.3f}" for name, t in zip(FEATURES, run.theta))
    lines = " ".join(f"{t:+.2f}" for t in run.theta[len(FEATURES):])
    print(f"log-multipliers: {weights}" + (f"; per line: {lines}" if lines else ""))
    header = ("Monte Carlo playout patterns for GNU Go 3.8 (--mc-load-patterns) and fastplay.\n"
              f"{base.name}'s patterns, values times {scale:g}, reweighted per property feature\n"
              "and per pattern line so that playouts match reference values (simulation\n"
              f"balancing, Huang et al. 2010, by {how}) on {len(train)} positions of\n"
              f"{label}.  Log-multipliers: {weights}"
              + (f"; per line: {lines}" if lines else "") + ".\n"
              "Made by: fastplay tune " + shlex.join(argv))
    capped = capped_cells(base, run.theta, scale)
    if capped:
        print(f"warning: {capped} values capped at {MAX_VALUE:,} (GNU Go's limit): "
              f"{base.name}'s values times {scale:g} and the fitted multipliers exceed it",
              file=sys.stderr)
    text = balanced_db_text(base, run.theta, scale, header=header)
    tuned = PatternDatabase.from_string(text, name=args.out)
    for name, db in ((base.name, base), ("balanced", tuned)):
        q = playout_quality(db, held, args.report_playouts, args.seed)
        print(f"held out, {name}: MSE {q.mse:.4f}  bias {q.bias:+.4f}")
    return _write(parser, args.out, text)


def main(argv: list[str] | None = None) -> int:
    """Run ``fastplay tune``; returns the exit status (2 for a usage error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(argv)
    if args.method == "mm":
        return _run_mm(parser, args, argv)
    if args.method == "balance":
        return _run_balance(parser, args, argv)
    if args.method == "games":
        return _run_games(parser, args, argv)
    return _run_quality(parser, args)


if __name__ == "__main__":
    # Through the command line's entry, which checks the standard streams.
    from fastplay.cli import main as command_line

    sys.exit(command_line(["tune", *sys.argv[1:]]))
