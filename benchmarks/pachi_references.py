#!/usr/bin/env python3
"""Reference values from Pachi for simulation balancing (issue 19).

    python benchmarks/pachi_references.py --out refs.jsonl [--benchmark 9x9]
        [--extra 500 --records benchmarks/data/gnugo9x9_games.tar.gz]
        [--playouts 20000] [--seed 1] [--pachi-dir /work/peers/pachi-12.90]
        [--limit-minutes 40]

For each position (the decision benchmark's, in its order, then ``--extra``
positions drawn from ``--records`` by :func:`fastplay.benchmark.decisions.propose`,
one per record, a pure function of ``--seed``), a fresh Pachi process is
given the position with GTP (``boardsize``, ``komi``, ``clear_board``, then
the setup stones as Black moves separated by White passes, so that Pachi
counts no handicap compensation, then the moves) and asked ``genmove`` for
the side to move.  Pachi is a black box: the script reads the line

    *** WINNER is E3 with score 50.3% (12670/20635 games), extra komi 0.0

that Pachi prints on stderr after its search; the score is the win rate of
the side to move after its chosen move, i.e. Pachi's value of the position
for the side to move.  Pachi runs as

    cd PACHI_DIR && ./pachi -D -s SEED -t =PLAYOUTS threads=1,dynkomi=none

(one thread, a fixed number of playouts, a fixed seed, no dynamic komi: the
value is the win rate at the game's real komi).

Output: one JSON object a line, a benchmark decision line (the format of
:mod:`fastplay.benchmark.store`, without the header) whose only candidate is
Pachi's move with Pachi's value (``source`` ``"pachi"``, ``se`` the binomial
``sqrt(v (1 - v) / games)``, a nominal figure), plus a ``"pachi"`` object
(``games``, ``xkomi``, ``seconds``).  ``fastplay tune balance --references
FILE`` and ``fastplay tune quality --references FILE`` read it.  Lines are
appended and flushed one by one; a run that stops can be resumed with the
same command (positions already in the file are skipped).  ``--limit-minutes``
stops after the position that passes the limit.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from fastplay.benchmark.decisions import Decision, Position, propose, read_records
from fastplay.benchmark.store import Candidate, Entry, open_benchmark

WINNER = re.compile(r"^\*\*\* WINNER is (\S+) with score ([0-9.]+)% \((\d+)/(\d+) games\)"
                    r", extra komi (-?[0-9.]+)", re.M)


def pachi_argv(playouts: int, seed: int) -> list[str]:
    """Pachi's command line (run in Pachi's folder)."""
    return ["./pachi", "-D", "-s", str(seed), "-t", f"={playouts}", "threads=1,dynkomi=none"]


def gtp_script(position: Position) -> str:
    """GTP commands that set ``position`` up and ask for the mover's move."""
    lines = [f"boardsize {position.size}", "clear_board", f"komi {position.komi}"]
    for i, stone in enumerate(position.black):
        if i:
            lines.append("play W pass")
        lines.append(f"play B {stone}")
    if position.black and position.first == "B":
        lines.append("play W pass")
    for colour, move in position.moves:
        lines.append(f"play {colour} {move}")
    lines += [f"genmove {position.to_play}", "quit"]
    return "\n".join(lines) + "\n"


def ask_pachi(position: Position, folder: str, playouts: int, seed: int
              ) -> tuple[str, float, int, float, float]:
    """Pachi's ``(move, value for the mover, games, extra komi, seconds)``."""
    start = time.perf_counter()
    proc = subprocess.run(pachi_argv(playouts, seed), cwd=folder, input=gtp_script(position),
                          capture_output=True, text=True, timeout=600, check=False)
    seconds = time.perf_counter() - start
    errors = [ln for ln in proc.stdout.splitlines() if ln.startswith("?")]
    if errors:
        raise RuntimeError(f"Pachi refused a command: {errors[0]}")
    found = WINNER.findall(proc.stderr)
    if not found:
        raise RuntimeError("no WINNER line on Pachi's stderr: " + proc.stderr[-500:])
    move, score, _, games, xkomi = found[-1]
    return move.upper(), round(float(score) / 100.0, 4), int(games), float(xkomi), seconds


def positions(args: argparse.Namespace) -> Iterator[Entry]:
    """The benchmark's entries, then the extra positions (without candidates)."""
    benchmark, _ = open_benchmark(args.benchmark)
    seen = set()
    for entry in benchmark.entries:
        seen.add(entry.decision.id)
        yield Entry(entry.decision, [])
    if not args.extra:
        return
    with tempfile.TemporaryDirectory() as scratch:
        with tarfile.open(args.records) as tar:
            tar.extractall(scratch, filter="data")
        records = read_records([scratch], benchmark.size)
        count = 0
        for decision in propose(records, args.seed, 1):
            if count >= args.extra:
                break
            if decision.id in seen:
                continue
            seen.add(decision.id)
            count += 1
            yield Entry(decision, [])


def done_ids(path: str) -> set[str]:
    if not os.path.exists(path):
        return set()
    with open(path, encoding="utf-8") as handle:
        return {json.loads(line)["id"] for line in handle if line.strip()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="JSON lines file (appended to)")
    ap.add_argument("--benchmark", default="9x9")
    ap.add_argument("--extra", type=int, default=0, help="positions from --records")
    ap.add_argument("--records", default="benchmarks/data/gnugo9x9_games.tar.gz")
    ap.add_argument("--playouts", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pachi-dir", default="/work/peers/pachi-12.90")
    ap.add_argument("--limit-minutes", type=float, default=0.0)
    args = ap.parse_args(argv)
    done = done_ids(args.out)
    print("pachi command: cd " + args.pachi_dir + " && "
          + " ".join(pachi_argv(args.playouts, args.seed)), flush=True)
    start = time.monotonic()
    new = 0
    with open(args.out, "a", encoding="utf-8") as out:
        for j, entry in enumerate(positions(args)):
            if entry.decision.id in done:
                continue
            if args.limit_minutes and time.monotonic() - start > 60 * args.limit_minutes:
                print(f"time limit reached after {new} new positions", flush=True)
                break
            move, value, games, xkomi, seconds = ask_pachi(
                entry.decision.position, args.pachi_dir, args.playouts, args.seed)
            se = math.sqrt(max(value * (1 - value), 0.0) / max(games, 1))
            entry.candidates.append(Candidate(move, value, round(se, 5), "pachi", 1))
            line = entry.to_json()
            line["pachi"] = {"games": games, "xkomi": xkomi, "seconds": round(seconds, 3),
                             "playouts": args.playouts, "seed": args.seed}
            out.write(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n")
            out.flush()
            new += 1
            if new % 50 == 0:
                print(f"{new} new positions (index {j}), {time.monotonic() - start:.0f} s",
                      flush=True)
    print(f"done: {new} new positions, {len(done) + new} in {args.out}, "
          f"{time.monotonic() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
