"""fastplay against GNU Go 3.8 on 9x9, or any size (evidence for issue 5, not a CI test).

Runs ``fastplay match`` between ``fastplay gtp --playouts P`` and
``gnugo --mode gtp --level 10`` (Debian package ``gnugo``), komi 7.5, colours
alternating, GNU Go also acting as the referee that settles dead stones
(``final_status_list dead``), and prints the match summary: wins, the win
rate with its 95 % confidence interval and the Elo difference.

Usage::

    python benchmarks/match_gnugo.py --games 20 --playouts 5000 --sgf-dir /tmp/match

About 25-30 minutes for 100 games at 5,000 playouts on this machine with one
job; ``--jobs 2`` plays two games at a time (each job its own engines, the
fastplay engine of job ``j`` seeded ``seed + j``, SGF files in
``SGF_DIR/job-j``) and reports the combined result: about 15 minutes, both
cores busy.  Run it in the background.

Clocked matches (issue 21): ``--time 30`` (sudden death) or ``--time
60+10/5`` (Canadian byo-yomi) puts both sides on the referee's clock; fastplay
then plays by its clock alone unless ``--playouts`` caps it, e.g.
``python benchmarks/match_gnugo.py --games 100 --jobs 2 --time 30`` and
``... --size 13 --time 60+10/5``.

Screening a search setting: ``--mcts NAME=VALUE`` (repeatable, e.g. ``--mcts
batch=8 --mcts rave_equiv=300``) gives the fastplay engine that option of
:class:`fastplay.search.SearchConfig`: ``fastplay gtp --search NAME=VALUE``,
or the engine's own flag for ``batch`` and ``prior_table``.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from typing import Any

from fastplay.argtypes import FLAGGED_OPTIONS

GNUGO = "/usr/games/gnugo --mode gtp --level 10"


#: Options of the fastplay engine's evaluator, which this script does not plug in.
_EVALUATOR_OPTIONS = ("mix", "eval_batch")


def _option(text: str) -> tuple[str, object]:
    """``--mcts NAME=VALUE``, checked as ``fastplay gtp`` will take it."""
    from fastplay.search.config import parse_option

    try:
        name, value = parse_option(text)
        if name in _EVALUATOR_OPTIONS:
            raise ValueError(f"{name} needs an evaluator, which this script does not use")
        if name == "prior_table" and value is not None:
            if not isinstance(value, str):
                raise ValueError(f"prior_table must be auto, none, a prior's name or an .npz "
                                 f"file, not {value!r}")
            from fastplay.argtypes import prior_option
            from fastplay.prior import load_prior

            if prior_option(value) != "auto":
                load_prior(value)
    except (OSError, ValueError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return name, value


def _engine_fails(command: str) -> str | None:
    """Why the fastplay engine ``command`` cannot play, or ``None``: it must
    answer ``protocol_version`` (an engine that exits at start-up would
    otherwise forfeit every game of a match that still ends with status 0)."""
    try:
        done = subprocess.run(shlex.split(command), input="protocol_version\nquit\n",
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    if done.returncode == 0 and done.stdout.startswith("= 2"):
        return None
    lines = done.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}, no answer"


def _time_control(text: str) -> Any:
    from fastplay.match_clock import TimeControl

    try:
        control = TimeControl.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return control


def _engine_command(args: argparse.Namespace, seed: int) -> str:
    gtp_args = f"--threads {args.threads} --seed {seed}"
    if args.playouts is not None:
        gtp_args = f"--playouts {args.playouts} " + gtp_args
    if args.mc_patterns is not None:
        gtp_args += f" --mc-patterns {shlex.quote(args.mc_patterns)}"
    if args.mc_load_patterns is not None:
        gtp_args += f" --mc-load-patterns {shlex.quote(args.mc_load_patterns)}"
    for name, value in args.mcts:
        if name == "batch" and value is None:
            continue                                   # the engine's default
        text = "none" if value is None else str(value).lower() if isinstance(value, bool) \
            else str(value)
        flag = FLAGGED_OPTIONS.get(name)     # fastplay gtp's own flags; the rest: --search
        # FLAG=VALUE: a value that starts with "-" stays a value.
        gtp_args += f" {shlex.quote(f'{flag}={text}')}" if flag else \
            f" --search {shlex.quote(f'{name}={text}')}"
    return f"{shlex.quote(sys.executable)} -m fastplay gtp {gtp_args}"


def _run_jobs(args: argparse.Namespace) -> int:
    """``args.games`` split over ``args.jobs`` concurrent matches, one result."""
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from fastplay.match import MatchResult, rules_text, run_match

    shares = [args.games // args.jobs + (j < args.games % args.jobs) for j in range(args.jobs)]

    def job(j: int) -> MatchResult:
        sgf_dir = None if args.sgf_dir is None else Path(args.sgf_dir) / f"job-{j}"
        command = _engine_command(args, args.seed + j)
        print(f"job {j}: {shares[j]} games: {command}", flush=True)
        return run_match(command, args.gnugo, games=shares[j], size=args.size, komi=7.5,
                         sgf_dir=sgf_dir, referee=args.gnugo,
                         move_timeout=args.move_timeout, progress=False,
                         time_control=args.time)

    # Threads only wait for engine processes: the games really run in parallel.
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(job, range(args.jobs)))
    total = MatchResult()
    for j, result in enumerate(results):
        for index, game in enumerate(result.games, 1):
            print(f"job {j} game {index}: Black {game.black}, White {game.white}: "
                  f"{game.result}  [{game.reason}]")
        total.games += result.games
        total.wins += result.wins
        total.losses += result.losses
        total.draws += result.draws
    print(total.summary("fastplay", "GNU Go", rules_text(args.size, 7.5, True, args.time)))
    if args.time is not None:
        losses = total.time_losses()
        print("Lost on time: " + (", ".join(f"{name} {n}" for name, n in sorted(losses.items()))
                                  or "none"))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--playouts", type=int, default=None,
                        help="fastplay playouts per move (default 5000; with --time, none: "
                             "the clock decides)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--time", type=_time_control, default=None, metavar="MAIN[+BYO/STONES]",
                        help="clocks for both sides (fastplay match --time): e.g. 30 or 60+10/5")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--mc-patterns", default=None, metavar="NAME",
                        help="fastplay's pattern database (default: the engine's, montegnu_classic)")
    parser.add_argument("--mc-load-patterns", default=None, metavar="FILE",
                        help="fastplay's pattern database from a .db file (fastplay gtp "
                             "--mc-load-patterns)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gnugo", default=GNUGO, help="GNU Go command line")
    parser.add_argument("--sgf-dir", default=None, help="save every game as SGF here")
    parser.add_argument("--move-timeout", type=float, default=120.0)
    parser.add_argument("--mcts", type=_option, action="append", default=[],
                        metavar="NAME=VALUE",
                        help="a SearchConfig option of the fastplay engine (fastplay gtp --search)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="games played at a time (job j seeds fastplay with SEED + j)")
    args = parser.parse_args(argv)
    if args.playouts is None and args.time is None:
        args.playouts = 5000
    if args.mc_patterns is not None:
        # Checked here: a bad name would only make every engine fail, and
        # the match would score forfeits (a tester got Elo -inf and exit 0).
        from fastplay.patterns import PatternDatabase

        try:
            PatternDatabase.builtin(args.mc_patterns)
        except ValueError as error:
            parser.error(f"--mc-patterns: {error}")
    if args.mc_load_patterns is not None:
        if args.mc_patterns is not None:
            parser.error("--mc-patterns and --mc-load-patterns exclude each other")
        from fastplay.patterns import PatternDatabase

        try:
            PatternDatabase.from_file(args.mc_load_patterns)
        except (OSError, ValueError) as error:
            parser.error(f"--mc-load-patterns: {error}")
    failure = _engine_fails(_engine_command(args, args.seed))
    if failure is not None:
        parser.error(f"the fastplay engine does not start: {failure}")
    if args.jobs > 1:
        return _run_jobs(args)
    fastplay = _engine_command(args, args.seed)
    command = [sys.executable, "-m", "fastplay", "match", fastplay, args.gnugo,
               "--games", str(args.games), "--size", str(args.size), "--komi", "7.5",
               "--referee", args.gnugo, "--move-timeout", str(args.move_timeout)]
    if args.time is not None:
        command += ["--time", args.time.spec()]
    if args.sgf_dir:
        command += ["--sgf-dir", args.sgf_dir]
    print("$", " ".join(shlex.quote(c) for c in command), flush=True)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
