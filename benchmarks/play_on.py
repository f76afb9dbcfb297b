#!/usr/bin/env python3
"""Play on from fastplay's resignations: does resigning give games away?

For each saved game where fastplay resigned against GNU Go (records that
``fastplay match`` or ``match_gnugo.py`` wrote), replay its moves into a
fresh ``fastplay gtp`` with resignation off and a fresh GNU Go, play the
game out (two passes), score it with GNU Go's dead stones (as the match
referee does) and print one JSON line per game played on::

    python benchmarks/play_on.py benchmarks/games/9x9-10k-gnugo10 --repeats 2 \\
        --playouts 10000

A resignation that loses nothing wins none of these games.  Seeds: repeat
``r`` of every position runs fastplay with seed ``1000 + r``; GNU Go seeds
itself.  Results: RESULTS.md, "Settings screened on 9x9 and 13x13".
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from sgfmill import sgf

from fastplay.board import Board
from fastplay.match import GameRecord, GTPClient, _score

GNUGO = "/usr/games/gnugo --mode gtp --level 10"
REFEREE = "/usr/games/gnugo --mode gtp"


def record_moves(path: Path) -> tuple[list[tuple[str, str]], str, str, int, float]:
    """The moves (colour, GTP vertex or ``pass``), PB, RE, size and komi of a record."""
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    size = game.get_size()
    moves = []
    for node in game.get_main_sequence()[1:]:
        color, point = node.get_move()
        if color is None:
            continue
        vertex = "pass" if point is None else "ABCDEFGHJKLMNOPQRSTUVWXYZ"[point[1]] + str(point[0] + 1)
        moves.append((color.upper(), vertex))
    root = game.get_root()
    return moves, root.get("PB"), root.get("RE"), size, float(game.get_komi())


def play_on(moves: list[tuple[str, str]], ours: str, size: int, komi: float, engine: str,
            gnugo: str) -> GameRecord:
    """The game of ``moves`` played out by ``engine`` (colour ``ours``) and
    GNU Go, scored with the referee's dead stones."""
    players = {ours: GTPClient(engine, name="fastplay", timeout=300),
               "BW"[ours == "B"]: GTPClient(gnugo, name="GNU Go", timeout=300)}
    referee = GTPClient(REFEREE, name="referee", timeout=300)
    try:
        board = Board(size, komi=komi, superko=True)
        for client in players.values():
            for command in (f"boardsize {size}", "clear_board", f"komi {komi:g}"):
                client.send(command)
        for color, vertex in moves:
            board.play(vertex.lower(), color)
            for client in players.values():
                client.send(f"play {color.lower()} {vertex}")
        record = GameRecord(black=players["B"].label, white=players["W"].label, size=size,
                            komi=komi, moves=list(moves))
        color = "W" if moves and moves[-1][0] == "B" else "B"
        passes = 0
        while len(record.moves) < 3 * size * size and passes < 2:
            answer = players[color].send(f"genmove {color.lower()}").split()[0].lower()
            if answer == "resign":
                record.winner, record.result = "BW"[color == "B"], f"{'BW'[color == 'B']}+R"
                return record
            board.play(answer, color)
            record.moves.append((color, "pass" if answer == "pass" else answer.upper()))
            passes = passes + 1 if answer == "pass" else 0
            other = "BW"[color == "B"]
            players[other].send(f"play {color.lower()} {answer}")
            color = other
        record.reason = "played on"
        _score(record, board, referee)
        return record
    finally:
        for client in (*players.values(), referee):
            client.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders of saved games")
    parser.add_argument("--repeats", type=int, default=2, help="games per resignation")
    parser.add_argument("--playouts", type=int, default=10000)
    parser.add_argument("--engine", default="fastplay", help="substring of fastplay's PB/PW")
    parser.add_argument("--gnugo", default=GNUGO, help="GNU Go command line")
    args = parser.parse_args(argv)
    won = played = 0
    for path in sorted(p for folder in args.folders for p in folder.rglob("*.sgf")):
        moves, black, result, size, komi = record_moves(path)
        ours = "B" if args.engine in black else "W"
        if not result.endswith("+R") or result[0] == ours:
            continue
        for r in range(args.repeats):
            engine = (f"{shlex.quote(sys.executable)} -m fastplay gtp --playouts "
                      f"{args.playouts} --seed {1000 + r} --search resign_threshold=none")
            record = play_on(moves, ours, size, komi, engine, args.gnugo)
            played += 1
            won += record.winner == ours
            print(json.dumps({"game": str(path), "fastplay": ours, "moves": len(moves),
                              "repeat": r, "result": record.result,
                              "fastplay_won": record.winner == ours}), flush=True)
    print(f"played on from {played // max(1, args.repeats)} resignations, {played} games: "
          f"fastplay won {won}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
