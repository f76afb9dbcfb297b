"""Fit a learned move prior to the moves (one player's, or both players') in SGF game records.

    python benchmarks/train_prior.py GAMES.tar.gz|DIR|FILE.sgf ... [--player "GNU Go"] \
        [--size 9] [--also SIZE ...] [--holdout 5] [--iterations 60] [--out FILE.npz]

Needs fastplay installed (``pip install .``).  Reads every ``.sgf`` file
(directories recursively; ``.tar.gz`` archives too), collects the moves of
the player whose PB/PW contains ``--player`` (without it: both players')
with their legal alternatives (records that are not readable SGF are
skipped, each named on stderr) (:func:`fastplay.prior.collect_samples`),
fits Coulom's (2007) feature strengths on the games whose number is not a
multiple of ``--holdout`` and prints, for the held-out games, the mean
log-probability of the chosen move and the top-1 rate of three priors:
uniform, the playout values to the power 0.5 (fastplay's default prior)
and the learned one.  ``--out`` then refits on every game and saves the
model (``fastplay/data/prior_gnugo9x9.npz`` is this script's output on
``benchmarks/data/gnugo9x9_games.tar.gz``, the records of the matches in
RESULTS.md).
"""

from __future__ import annotations

import argparse
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from fastplay.argtypes import positive_int
from fastplay.prior import MoveSamples, collect_samples, fit, record_files, records_report
from fastplay.sgf import SGFError
from fastplay.shapes import SHAPE_RADIUS_MAX


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", help="SGF files, directories or tar archives (.tar, .tar.gz, .tar.bz2, .tar.xz)")
    parser.add_argument("--player", help="substring of the player's PB/PW name "
                        "(default: the moves of both players)")
    parser.add_argument("--size", type=positive_int, default=9)
    parser.add_argument("--also", type=positive_int, action="append", default=[],
                        metavar="SIZE", help="fit on the games of this board size too "
                        "(repeatable; the report holds out games of --size only)")
    parser.add_argument("--holdout", type=positive_int, default=5,
                        help="every N-th game is held out for the report (default 5)")
    parser.add_argument("--iterations", type=positive_int, default=60)
    parser.add_argument("--shape-radius", type=int, default=0, metavar="R",
                        help="fit large patterns too: diamonds of radius 2..R around a move "
                        "(fastplay.shapes; R in 2..5, default 0: none)")
    parser.add_argument("--shape-min-count", type=positive_int, metavar="N",
                        help="with --shape-radius: keep a large pattern played at least N "
                        "times (default 3)")
    parser.add_argument("--out", help="refit on every game and save the model here (.npz)")
    return parser


def _collect(parser: argparse.ArgumentParser, args: argparse.Namespace
             ) -> tuple[int, MoveSamples, MoveSamples]:
    """Files read, the samples of ``--size`` and those of the ``--also`` sizes."""
    skipped: list[str] = []
    cut: list[str] = []
    left_out: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        try:
            files = record_files(args.sources, Path(scratch))
            samples = collect_samples(files, args.player, args.size, skipped=skipped, cut=cut,
                                      left_out=left_out, shape_radius=args.shape_radius)
            extra = collect_samples([], args.player, args.size, shape_radius=args.shape_radius)
            for size in args.also:
                extra = extra.concat(collect_samples(files, args.player, size, skipped=[],
                                                     shape_radius=args.shape_radius))
        except (OSError, EOFError, SGFError, tarfile.TarError) as exc:
            parser.error(str(exc) or type(exc).__name__)
    for line in records_report(skipped, cut, left_out):
        print(line, file=sys.stderr)
    if len(samples) == 0:
        whose = "either player" if args.player is None else f"a player named like {args.player!r}"
        parser.error(f"no moves of {whose} on {args.size}x{args.size}")
    return len(files), samples, extra


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.holdout < 2:
        parser.error("--holdout must be at least 2")
    if args.shape_radius and not 2 <= args.shape_radius <= SHAPE_RADIUS_MAX:
        parser.error(f"--shape-radius must be 0 or in 2..{SHAPE_RADIUS_MAX}")
    if args.shape_min_count is not None and not args.shape_radius:
        parser.error("--shape-min-count needs --shape-radius")
    if args.shape_min_count is None:
        args.shape_min_count = 3
    if any(size == args.size or not 2 <= size <= 25 for size in args.also):
        parser.error("--also takes other board sizes in 2..25")
    if args.out is not None:
        if not args.out.strip() or Path(args.out).is_dir():
            parser.error(f"--out must name a file, not {args.out!r}")
        if not Path(args.out).resolve().parent.is_dir():
            parser.error(f"--out: no such directory: {Path(args.out).parent}")
    files, samples, extra = _collect(parser, args)
    test = samples.game % args.holdout == 0
    train, held = samples.subset(~test), samples.subset(test)
    print(f"{files} files, {int(samples.game.max()) + 1} games of "
          f"{'both players' if args.player is None else repr(args.player)}: "
          f"{len(samples)} moves ({len(train)} to fit, {len(held)} held out)"
          + (f", and {len(extra)} moves on {', '.join(map(str, args.also))}" if args.also else ""))
    if len(train) and len(held):
        model = fit(train.concat(extra), args.iterations, shape_min_count=args.shape_min_count)
        rows = [("uniform", np.ones(len(held.index))),
                ("playout values ** 0.5", np.maximum(held.values, 1e-9) ** 0.5),
                ("learned", model.strength(held))]
        print(f"{'held-out prior':24s} {'log-prob':>9s} {'top-1':>6s}")
        for name, strength in rows:
            loglik, top1 = held.log_likelihood(strength)
            print(f"{name:24s} {loglik:9.3f} {100 * top1:5.1f}%")
    if args.out:
        every = samples.concat(extra)
        fit(every, args.iterations, shape_min_count=args.shape_min_count).save(args.out)
        print(f"saved {args.out} (fitted on all {len(every)} moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
