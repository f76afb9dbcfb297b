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


def judge_game(db: PatternDatabase, path: Path, colour: str, playouts: int, seed: int,
               margin: float) -> tuple[list[tuple[int, float]], list[str]]:
    """The judge's win rate before each of ``colour``'s moves, and its disagreements."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    played = [node.get_move()[1] for node in game.get_main_sequence()[1:]]
    trajectory, disagreements = [], []
    for k in mover_numbers(path, colour):
        board = Board.from_sgf(path, move_number=k)
        result = MCTS(db, seed=seed).run(board, playouts=playouts)
        trajectory.append((k, result.winrate))
        point = played[k]
        move = "pass" if point is None else "ABCDEFGHJKLMNOPQRSTUVWXYZ"[point[1]] + str(point[0] + 1)
        best = result.children[0]
        mine = next((c for c in result.children if c.move == move), None)
        if mine is not None and mine.visits >= 50 and best.winrate - mine.winrate >= margin:
            disagreements.append(f"{k}: {move} ({mine.winrate:.2f}) < {best.move} "
                                 f"({best.winrate:.2f})")
    return trajectory, disagreements


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
    moves = agreed = 0
    try:
        games = lost_games(args.directory)
    except ValueError as error:
        parser.error(str(error))
    if not games:
        parser.error(f"no lost game of fastplay's under {args.directory}")
    for path, colour in games:
        trajectory, disagreements = judge_game(db, path, colour, args.playouts, args.seed,
                                               args.margin)
        moves += len(trajectory)
        agreed += len(trajectory) - len(disagreements)
        print(f"{path} ({colour.upper()}): "
              + " ".join(f"{k}:{round(100 * w)}" for k, w in trajectory), flush=True)
        for line in disagreements:
            print(f"    {line}")
    print(f"{agreed} of {moves} moves within {args.margin:.2f} of the judge's choice")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
