#!/usr/bin/env python3
"""The combined score of saved match games: one measurement from several runs.

    python benchmarks/tally_games.py DIR_OR_SGF [...] [--engine fastplay] [--by-color]
        [--sprt ELO0 ELO1]

A long measurement (100 clocked 13x13 games, 30 games of 19x19) outlasts one
session of the shared machine; its runs, each with a seed of its own and
``--sgf-dir``, are tallied here from the records ``fastplay match`` wrote:
the engine is the player whose ``PB``/``PW`` contains ``--engine``, ``RE``
gives the result (``0`` or ``Draw``: a draw; ``B+T``/``W+T``: on time).  The
output is ``fastplay match``'s summary (Wilson interval, Elo), the games lost
on time, and, where the records carry ``BL``/``WL`` (clocked games), the
least time the engine had left after a move.  ``--sprt ELO0 ELO1`` adds the
log-likelihood ratio of all the games together (``fastplay match``'s test,
alpha = beta = 0.05) and where it stands against Wald's bounds: the evidence
of a screen that ran over several sessions.  Runs that stopped early at
their own decision are pooled as they are, so read a pooled verdict near a
bound as evidence, not as a test's exact error rates.

Exit status 2 when a path holds no record, a record has no ``RE`` or the
engine plays neither or both colours in it.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sgfmill import sgf

from fastplay.match import SPRT, MatchResult


@dataclass
class Tally:
    """Results from the engine's side, overall and by colour."""

    result: MatchResult = field(default_factory=MatchResult)
    by_color: dict[str, list[int]] = field(default_factory=lambda: {"B": [0, 0, 0],
                                                                    "W": [0, 0, 0]})
    on_time: int = 0
    least_left: float | None = None

    def add(self, path: Path, engine: str) -> None:
        """One record; ``ValueError`` naming ``path`` for one that says no result."""
        game = sgf.Sgf_game.from_bytes(path.read_bytes())
        root = game.get_root()
        names = {c: root.get(f"P{c}") if root.has_property(f"P{c}") else "" for c in "BW"}
        ours = [c for c in "BW" if engine in names[c]]
        if len(ours) != 1 or not root.has_property("RE"):
            raise ValueError(f"{path}: needs RE and {engine!r} in exactly one of PB/PW")
        color = ours[0]
        result = root.get("RE").strip()
        outcome = 1 if result in ("0", "Draw", "Jigo") else (
            0 if result.upper().startswith(color) else 2)      # 0 won, 1 drawn, 2 lost
        self.by_color[color][outcome] += 1
        if outcome == 0:
            self.result.wins += 1
        elif outcome == 1:
            self.result.draws += 1
        else:
            self.result.losses += 1
            self.on_time += result.upper().endswith("+T")
        for node in game.get_main_sequence():
            if node.has_property(f"{color}L"):
                left = float(node.get(f"{color}L"))
                self.least_left = left if self.least_left is None else min(left, self.least_left)


def records(paths: list[Path]) -> list[Path]:
    """The ``.sgf`` files of ``paths`` (folders searched recursively), sorted."""
    found: list[Path] = []
    for path in paths:
        found += sorted(path.rglob("*.sgf")) if path.is_dir() else [path]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="SGF files or folders of them")
    parser.add_argument("--engine", default="fastplay", help="substring of the engine's PB/PW")
    parser.add_argument("--by-color", action="store_true",
                        help="also the score as Black, as White")
    parser.add_argument("--sprt", type=float, nargs=2, metavar=("ELO0", "ELO1"),
                        help="the SPRT's log-likelihood ratio of all the games (fastplay match)")
    args = parser.parse_args(argv)
    if args.sprt is not None and not args.sprt[0] < args.sprt[1]:
        parser.error("--sprt needs ELO0 < ELO1")
    tally = Tally()
    files = records(args.paths)
    if not files:
        print("tally_games: no .sgf records in the paths given", file=sys.stderr)
        return 2
    try:
        for path in files:
            tally.add(path, args.engine)
    except (OSError, ValueError) as exc:
        print(f"tally_games: {exc}", file=sys.stderr)
        return 2
    if args.sprt is not None:
        result = tally.result
        try:
            result.sprt = SPRT(*args.sprt)
        except ValueError as exc:
            print(f"tally_games: --sprt: {exc}", file=sys.stderr)
            return 2
        result.sprt_decision = result.sprt.decision(result.wins, result.losses, result.draws)
    try:
        _report(tally, args.engine, args.by_color)
    except BrokenPipeError:
        # The reader went away (``tally_games.py DIR | head -2``): stop
        # quietly, and keep Python from complaining again when it flushes.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _report(tally: Tally, engine: str, by_color: bool) -> None:
    """Print the tally: the score, its SPRT if asked, time losses, by colour."""
    print(tally.result.summary(engine, "opponent"))
    print(f"lost on time: {tally.on_time}")
    if tally.least_left is not None:
        print(f"least time {engine} had left after a move: {tally.least_left:.2f} s")
    if by_color:
        for color, (won, drawn, lost) in tally.by_color.items():
            print(f"as {'Black' if color == 'B' else 'White'}: +{won} -{lost} ={drawn}")


if __name__ == "__main__":
    sys.exit(main())
