"""Where fastplay's lost games went wrong, judged by bigger fastplay searches
(a diagnostic for issue 5's strength target, not a CI test).

For every game that fastplay lost in a directory of match records (the SGF
files that ``match_gnugo.py --sgf-dir`` writes), it searches each position
where fastplay was to move again, with ``--playouts`` playouts (default
10,000, twice the match budget), and prints one line per game:

* the *trajectory*: the judge's win rate for fastplay before each of its
  moves, in percent (``move:rate``), so one sees when the game turned;
* the *disagreements*: moves the judge rates at least ``--margin`` below its
  own choice (``move played (its rate) < judge's move (its rate)``), counted
  only when the judge gave the played move at least 50 playouts.

With ``--decisive`` it also names each game's decisive move (the largest
fall of the judge's win rate from one of fastplay's moves to the next,
among positions it rates at 0.40 or more) and counts, by colour, whether
the judge avoids it (rates the move played ``0.10`` or more below its own
choice), mildly prefers another (``0.05``-``0.10``) or agrees: agreement
with a losing move means the judge shares the playouts' blind spot
(RESULTS.md, "Where the 9x9 losses to GNU Go come from", which ran
``--playouts 50000 --stop-below 0.15 --decisive``).

With ``--deep K:N,...`` it also searches the position before move K of each
listed game with each budget in ``--budgets`` (default 5,000, 40,000 and
160,000 playouts): if a much bigger search still misjudges a position that
GNU Go went on to win, the loss comes from the playouts' evaluation, not
from the search's budget.

Usage::

    python benchmarks/judge_losses.py /work/notes/s7/def_241 --playouts 10000
    python benchmarks/judge_losses.py /work/notes/s7/def_241/job-0 --deep 11:28,14:27

The judge is the default :class:`fastplay.mcts.MCTS` with one thread and a
fixed seed, so a run is reproducible; it shares the playouts' blind spots,
which is the point of the ``--deep`` check.
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from sgfmill import sgf

from fastplay import Board, PatternDatabase, SGFError
from fastplay.argtypes import positive_int
from fastplay.mcts import MCTS


def lost_games(directory: Path, name: str = "fastplay") -> list[tuple[Path, str]]:
    """``(path, colour)`` of every game under ``directory`` that the player
    called ``name`` (a substring of PB or PW) lost; colour ``"b"`` or ``"w"``.

    Raises ``ValueError`` naming the file for a record that is not a match
    record: unreadable SGF, no result, or ``name`` in neither player."""
    games = []
    for path in sorted(directory.rglob("*.sgf")):
        try:
            root = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
            black, white, result = (root.get(key) if root.has_property(key) else ""
                                    for key in ("PB", "PW", "RE"))
        except ValueError as error:
            raise ValueError(f"{path}: not a readable SGF record ({error})") from None
        if name not in black + white or result[:1].lower() not in ("b", "w", "0", "d"):
            raise ValueError(f"{path}: not a match record (PB {black!r}, PW {white!r}, "
                             f"RE {result!r})")
        colour = "b" if name in black else "w"
        winner = result[:1].lower()
        if winner in ("b", "w") and winner != colour:
            games.append((path, colour))
    return games


def _budgets(text: str) -> list[int]:
    return [positive_int(item) for item in text.split(",")]


def _positions(text: str) -> list[tuple[int, int]]:
    try:
        positions = [(int(game), int(k)) for game, k in (item.split(":")
                                                          for item in text.split(","))]
        if any(k < 0 for _, k in positions):
            raise ValueError
        return positions
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected GAME:K,... (game number, moves played), "
                                         f"not {text!r}") from None


def mover_numbers(path: Path, colour: str) -> list[int]:
    """Move numbers k (moves already played) at which ``colour`` is to move."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    return [k for k, node in enumerate(game.get_main_sequence()[1:])
            if node.get_move()[0] == colour]


@dataclass(frozen=True)
class Judged:
    """The judge's view of one position where fastplay was to move.

    Attributes:
        k: moves played before it; ``move``: fastplay's move there (GTP).
        winrate: the judge's win rate for fastplay; ``best``: its choice.
        played: its value of fastplay's move (0 when it never searched it).
    """

    k: int
    move: str
    winrate: float
    best: str
    played: float


#: Error (the judge's best minus the move played) from which the judge
#: avoids a move, and from which it mildly prefers another.
AVOIDS, MILD = 0.10, 0.05


def judge_game(db: PatternDatabase, path: Path, colour: str, playouts: int, seed: int,
               margin: float, stop_below: float = 0.0) -> tuple[list[Judged], list[str]]:
    """The judge's view before each of ``colour``'s moves, and its disagreements;
    once two positions in a row are below ``stop_below``, the rest is left."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    played = [node.get_move()[1] for node in game.get_main_sequence()[1:]]
    judged: list[Judged] = []
    disagreements = []
    low = 0
    for k in mover_numbers(path, colour):
        board = Board.from_sgf(path, move_number=k)
        result = MCTS(db, seed=seed).run(board, playouts=playouts)
        point = played[k]
        move = "pass" if point is None else "ABCDEFGHJKLMNOPQRSTUVWXYZ"[point[1]] + str(point[0] + 1)
        best = result.children[0]
        mine = next((c for c in result.children if c.move == move), None)
        judged.append(Judged(k, move, result.winrate, best.move,
                             mine.winrate if mine is not None else 0.0))
        if mine is not None and mine.visits >= 50 and best.winrate - mine.winrate >= margin:
            disagreements.append(f"{k}: {move} ({mine.winrate:.2f}) < {best.move} "
                                 f"({best.winrate:.2f})")
        low = low + 1 if result.winrate < stop_below else 0
        if low >= 2:
            break
    return judged, disagreements


def decisive(judged: list[Judged]) -> tuple[Judged, str] | None:
    """The decisive position of a lost game and its class (``"avoids"``,
    ``"mild"``, ``"agrees"``): the largest fall of the judge's win rate to
    fastplay's next move, among positions at 0.40 or more (``None`` if
    there is none)."""
    falls = [(a.winrate - b.winrate, a) for a, b in zip(judged, judged[1:])
             if a.winrate >= 0.40]
    if not falls:
        return None
    _, worst = max(falls, key=lambda fall: fall[0])
    error = worst.winrate - worst.played
    return worst, "avoids" if error >= AVOIDS else ("mild" if error >= MILD else "agrees")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path, help="match records (searched recursively)")
    parser.add_argument("--playouts", type=positive_int, default=10_000,
                        help="the judge's budget per move")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--margin", type=float, default=0.08,
                        help="win-rate gap that counts as a disagreement")
    parser.add_argument("--db", default="mc_montegnu_classic")
    parser.add_argument("--deep", type=_positions, default=None, metavar="GAME:K,...",
                        help="only search these positions (game number in its file name, "
                             "moves played) with every budget in --budgets")
    parser.add_argument("--budgets", type=_budgets, default=[5000, 40000, 160000])
    parser.add_argument("--stop-below", type=float, default=0.0, metavar="RATE",
                        help="leave a game after two positions in a row below this win rate")
    parser.add_argument("--decisive", action="store_true",
                        help="name each game's decisive move and count the judge's verdicts")
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        parser.error(f"{args.directory} is not a directory")
    if not 0 <= args.margin <= 1:
        parser.error(f"--margin must be a win rate in [0, 1], not {args.margin}")
    try:
        db = PatternDatabase.builtin(args.db)
    except ValueError as error:
        parser.error(f"--db: {error}")
    if args.deep is not None:
        for number, k in args.deep:
            path = next(args.directory.rglob(f"game-{number:04d}.sgf"), None)
            if path is None:
                parser.error(f"no game-{number:04d}.sgf under {args.directory}")
            try:
                board = Board.from_sgf(path, move_number=k)
            except (SGFError, ValueError) as error:
                parser.error(f"{path}, move {k}: {error}")
            cells = []
            for budget in args.budgets:
                result = MCTS(db, seed=args.seed).run(board, playouts=budget)
                cells.append(f"{budget}: {result.best_move} {result.winrate:.3f}")
            print(f"{path} before move {k + 1}: " + " | ".join(cells), flush=True)
        return 0
    if not 0 <= args.stop_below <= 1:
        parser.error(f"--stop-below must be a win rate in [0, 1], not {args.stop_below}")
    try:
        games = lost_games(args.directory)
    except ValueError as error:
        parser.error(str(error))
    if not games:
        parser.error(f"no lost game of fastplay's under {args.directory}")
    _judge_all(db, games, args)
    return 0


def _judge_all(db: PatternDatabase, games: list[tuple[Path, str]],
               args: argparse.Namespace) -> None:
    """Print each lost game's trajectory (and decisive move), then the totals."""
    moves = agreed = 0
    verdicts: Counter[tuple[str, str]] = Counter()
    for path, colour in games:
        judged, disagreements = judge_game(db, path, colour, args.playouts, args.seed,
                                           args.margin, args.stop_below)
        moves += len(judged)
        agreed += len(judged) - len(disagreements)
        print(f"{path} ({colour.upper()}): "
              + " ".join(f"{j.k}:{round(100 * j.winrate)}" for j in judged), flush=True)
        for line in disagreements:
            print(f"    {line}")
        found = decisive(judged) if args.decisive else None
        if found is not None:
            j, verdict = found
            verdicts[verdict, colour] += 1
            print(f"    decisive: move {j.k + 1} {j.move} ({j.played:.2f}; the judge's "
                  f"{j.best} {j.winrate:.2f}): the judge {verdict}")
    print(f"{agreed} of {moves} moves within {args.margin:.2f} of the judge's choice")
    if args.decisive:
        for verdict in ("avoids", "mild", "agrees"):
            print(f"decisive moves the judge {verdict}: {verdicts[verdict, 'b']} as Black, "
                  f"{verdicts[verdict, 'w']} as White")


if __name__ == "__main__":
    raise SystemExit(main())
