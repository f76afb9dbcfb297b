"""Soak and ending checks of the GTP engine as a separate process (issue 21, item 4).

    python fuzz/soak_gtp.py soak [--moves 2000] [--playouts 50] [--tolerance-mib 16]
    python fuzz/soak_gtp.py endings [--trials 20] [--seed 1]

``soak``: one ``fastplay gtp --ponder`` process plays ``--moves`` moves of
9x9 games against itself -- ``genmove``, ``undo`` now and then, ``loadsgf``
of real records, ``kata-analyze`` streams cut by the next command,
``clear_board`` at each game's end -- pondering between commands (and for
``--ponder-seconds`` after one ``genmove`` in ten).  Its
resident memory (``VmRSS``) is sampled every 100 moves; after the first
``--warmup`` moves (default: half of them) it must stay within
``--tolerance-mib`` of its highest value until then.  (The allocator keeps
the high-water mark of the largest search trees, which pondering makes
larger now and then: the RSS rises to a plateau, a leak rises on.)  Every response must start with ``=`` or ``?``.

``endings``: ``--trials`` fresh engines, once they answer, each get a few
commands and then, at a random moment (mid-``genmove`` and mid-analysis included), SIGINT (Ctrl-C)
or the end of their input.  Each must exit within 10 s, with status 0 after
the end of input and 0 or 130 after SIGINT, and write no traceback.

Exit status 0 when every check passed.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

SHARED = Path(os.environ.get("FASTPLAY_SHARED") or Path(__file__).resolve().parents[2] / "shared")
GAMES = SHARED / "gnugo-regression" / "games"


def engine(*options: str) -> subprocess.Popen[str]:
    """A ``fastplay gtp`` process with pipes."""
    return subprocess.Popen([sys.executable, "-m", "fastplay", "gtp", *options],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)


def send(proc: subprocess.Popen[str], command: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(command + "\n")
    proc.stdin.flush()


def response(proc: subprocess.Popen[str], what: str) -> str:
    """The next response (up to its empty line); it must start with = or ?."""
    assert proc.stdout is not None
    lines: list[str] = []
    while True:
        line = proc.stdout.readline()
        if line == "":
            raise RuntimeError(f"the engine closed its output during {what!r}")
        if line == "\n" and lines:
            break
        if line != "\n":
            lines.append(line)
    if not lines[0].startswith(("=", "?")):
        raise RuntimeError(f"{what}: malformed response {lines[0][:200]!r}")
    if lines[0].startswith("?") and "internal error" in lines[0]:
        raise RuntimeError(f"{what}: fastplay failed inside: {lines[0][:300]!r}")
    return "".join(lines)


def ask(proc: subprocess.Popen[str], command: str) -> str:
    send(proc, command)
    return response(proc, command)


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` (MiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def step(proc: subprocess.Popen[str], rng: random.Random, records: list[Path],
         game: list[str], ponder: float) -> int:
    """One command of the soak session (``game``: this game's moves so far);
    returns the moves it played."""
    roll = rng.random()
    if roll < 0.03 and records:
        ask(proc, f"loadsgf {rng.choice(records)} {rng.randint(5, 40)}")
        game.clear()
        game.append("loaded")
        return 0
    if roll < 0.09 and len(game) > 2:
        ask(proc, "undo")
        game.pop()
        return 0
    if roll < 0.13:
        send(proc, "kata-analyze 5 ownership true")   # streams until the next line
        time.sleep(rng.choice((0.0, 0.02, 0.06)))
        ask(proc, "showboard")
        response(proc, "kata-analyze")
        return 0
    color = "b" if len(game) % 2 == 0 else "w"
    move = ask(proc, f"genmove {color}")[2:].strip().lower()
    game.append(move)
    if rng.random() < 0.1:
        time.sleep(ponder)         # the engine ponders on meanwhile
    if len(game) > 100 or move == "resign" or game[-2:] == ["pass", "pass"]:
        ask(proc, "clear_board")
        game.clear()
    return 1


def soak(moves: int, playouts: int, warmup: int, tolerance: float, seed: int,
         ponder: float) -> int:
    rng = random.Random(seed)
    records = sorted(p for p in GAMES.rglob("*.sgf") if "9x9" in p.read_text(errors="ignore")
                     or "SZ[9]" in p.read_text(errors="ignore"))[:50]
    proc = engine("--playouts", str(playouts), "--ponder", "--seed", str(seed))
    ask(proc, "boardsize 9")
    played = 0
    game: list[str] = []
    samples: list[tuple[int, float]] = []
    start = time.perf_counter()
    try:
        while played < moves:
            before = played
            played += step(proc, rng, records, game, ponder)
            if played != before and played % 100 == 0:
                samples.append((played, rss_mib(proc.pid)))
                print(f"{played:6} moves  RSS {samples[-1][1]:7.1f} MiB", flush=True)
        ask(proc, "quit")
    finally:
        proc.kill()
    seconds = time.perf_counter() - start
    ceiling = max((r for m, r in samples if m <= warmup), default=0.0)
    after = [r for m, r in samples if m > warmup]
    drift = max(after, default=ceiling) - ceiling
    ok = drift <= tolerance
    print(f"{moves} moves in {seconds:.0f} s; highest RSS in the first {warmup} moves "
          f"{ceiling:.1f} MiB, afterwards at most {max(after, default=0):.1f} MiB "
          f"(drift {drift:+.1f} MiB, tolerance {tolerance}): {'flat' if ok else 'GROWS'}")
    return 0 if ok else 1


def ending(rng: random.Random) -> str | None:
    """One engine ended at a random moment; a problem, or None."""
    proc = engine("--playouts", str(rng.choice((200, 5000))), "--seed", "1")
    assert proc.stdout is not None and proc.stderr is not None and proc.stdin is not None
    err: list[str] = []
    stderr = proc.stderr
    readers = [threading.Thread(target=proc.stdout.read, daemon=True),
               threading.Thread(target=lambda: err.append(stderr.read()), daemon=True)]
    # The engine is up once it answers (a signal before that meets CPython's
    # own start-up, site imports included, which no program controls).
    send(proc, "protocol_version")
    while proc.stdout.readline() not in ("\n", ""):
        pass
    for reader in readers:    # drained, so that a full pipe never blocks the engine
        reader.start()
    commands = ["boardsize 9", "genmove b", "play w e5", "kata-analyze 10", "genmove w"]
    for command in commands[:rng.randint(0, len(commands))]:
        send(proc, command)
    time.sleep(rng.choice((0.0, 0.005, 0.02, 0.05, 0.3, 1.0)))
    how = rng.choice(("sigint", "eof"))
    if how == "sigint":
        proc.send_signal(signal.SIGINT)
    else:
        proc.stdin.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        return f"{how}: no exit within 10 s"
    for reader in readers:
        reader.join(5)
    allowed = (0,) if how == "eof" else (0, 130)
    if proc.returncode not in allowed:
        return f"{how}: exit status {proc.returncode}"
    if "Traceback" in "".join(err):
        return f"{how}: a traceback on stderr: {''.join(err)[-600:]}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    p_soak = sub.add_parser("soak")
    p_soak.add_argument("--moves", type=int, default=2000)
    p_soak.add_argument("--playouts", type=int, default=50)
    p_soak.add_argument("--warmup", type=int, default=None,
                        help="moves before the reference (default: half of --moves)")
    p_soak.add_argument("--tolerance-mib", type=float, default=16.0)
    p_soak.add_argument("--seed", type=int, default=1)
    p_soak.add_argument("--ponder-seconds", type=float, default=0.2,
                        help="pause after one genmove in ten, while the engine ponders")
    p_end = sub.add_parser("endings")
    p_end.add_argument("--trials", type=int, default=20)
    p_end.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.mode == "soak":
        warmup = args.moves // 2 if args.warmup is None else args.warmup
        return soak(args.moves, args.playouts, warmup, args.tolerance_mib, args.seed,
                    args.ponder_seconds)
    rng = random.Random(args.seed)
    problems = [p for p in (ending(rng) for _ in range(args.trials)) if p]
    for problem in problems:
        print(problem)
    print(f"{args.trials} endings, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
