#!/usr/bin/env python3
"""Side-by-side playout speed: fastplay versus GNU Go 3.8's Monte Carlo module.

GNU Go has no "run N playouts" command, so its simulation rate is measured
through its UCT search: for each database two GNU Go processes are started
over GTP, identical except for the budget ``--mc-games-per-level`` (small and
large).  On each position both answer ``reg_genmove`` (which searches without
playing the move, so the position can be reused), and

    GNU Go simulations/s = (sims_large - sims_small) / (t_large - t_small)

Taking the difference cancels start-up (the processes are started before any
timing anyway), the classical engine's own move generation (identical in both
processes) and GTP overhead.  The number of simulations for a budget is
``nodes - 10`` with ``nodes = mc_games_per_level * max(level, 1)``
(mc-patterns.md section 7.1).  GNU Go's time also includes walking and growing
its UCT tree, which fastplay's bare ``playouts()`` does not do; the ratios are
therefore slightly flattering to fastplay (the tree is a small share of a
9x9 simulation, but not zero).

fastplay's ``playouts()`` runs on the same positions with the same database,
interleaved with the GNU Go calls (alternating order each repetition) so that
load from other processes on a shared machine hits both sides alike; medians
over repetitions are reported.  Besides wall-clock rates the script records
CPU time (``/proc/<pid>/stat`` for GNU Go, ``time.process_time`` for
fastplay), which is much less sensitive to other processes stealing cores.

Installs nothing: it uses ``/usr/games/gnugo``, ``gnugo`` on ``PATH`` or
``--gnugo PATH``, and exits with a message if none is found.

``--search N`` also times fastplay's default one-thread search (``MCTS.run``
of N playouts: tree, priors, tactics and playouts) in the same interleaved
rounds, as GNU Go's by difference (``N`` and ``N // 5`` playouts, fresh
searches, CPU time), and reports its rate against GNU Go's genmove rate with the same
database (issue 20's "search >= 1.5x GNU Go MC") and against the bare
``playouts()`` of the same run (GNU Go's scoring, no AMAF: not the
Tromp-Taylor-with-AMAF rate of ``bench_mcts.py``).

Example::

    python benchmarks/compare_gnugo.py --positions 4 --repeat 5 --json out.json
    python benchmarks/compare_gnugo.py --databases mc_montegnu_classic --search 5000
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import fastplay
from fastplay import Board, PatternDatabase, playouts

# fastplay built-in name -> GNU Go --mc-patterns name
DATABASES: dict[str, str] = {
    "mc_montegnu_classic": "montegnu_classic",
    "mc_mogo_classic": "mogo_classic",
    "mc_uniform": "uniform",
}

# ../shared beside the checkout, or FASTPLAY_SHARED (as the tests find it).
SHARED = Path(os.environ.get("FASTPLAY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
GAMES_DIR = SHARED / "gnugo-regression" / "games"

# 9x9 records without setup stones (GNU Go's GTP cannot place arbitrary
# stones), each with a mid-game move number: far enough in that the opening
# is over, early enough that the classical engine still has a real move for
# the MC module to search (it bypasses MC when its own move is a pass).
DEFAULT_POSITIONS: list[tuple[str, int]] = [
    ("", 0),  # the empty board
    ("cgos/42896.sgf", 24),
    ("olympiad2006/9x9/gnu-aya.sgf", 30),
    ("cgos/31446.sgf", 20),
    ("olympiad2006/9x9/aya-gnu.sgf", 36),
    ("cgos/37169.sgf", 28),
    ("olympiad2006/9x9/crazy-gnu.sgf", 22),
    ("cgos/390115.sgf", 32),
]

CLK_TCK = os.sysconf("SC_CLK_TCK")


class GTPError(RuntimeError):
    """GNU Go answered a command with ``?``."""


class GnuGo:
    """A GNU Go process spoken to over GTP on pipes."""

    def __init__(self, path: str, args: list[str]) -> None:
        self.argv = [path, "--mode", "gtp", *args]
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, command: str) -> str:
        """Send one command and return the answer text (without ``=``)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"GNU Go exited during {command!r}: {' '.join(self.argv)}")
            line = line.rstrip("\n")
            if not line and lines:  # a GTP answer ends with an empty line
                break
            if line:
                lines.append(line)
        text = "\n".join(lines)
        if text.startswith("?"):
            raise GTPError(f"{command!r}: {text}")
        return text[1:].strip()

    def cpu_seconds(self) -> float:
        """User + system CPU time of the process so far (clock-tick resolution)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        # after the ")" of comm, utime and stime are fields 12 and 13 (0-based)
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def close(self) -> None:
        try:
            self.send("quit")
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def find_gnugo(explicit: str | None) -> str:
    """Return the GNU Go executable, or exit with a message if there is none."""
    candidates = [explicit] if explicit else ["/usr/games/gnugo", shutil.which("gnugo")]
    for cand in candidates:
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    where = explicit or "/usr/games/gnugo or gnugo on PATH"
    sys.exit(f"compare_gnugo: GNU Go not found ({where}). Install it (e.g. "
             "'apt-get install gnugo') or pass --gnugo PATH. Nothing was measured.")


def load_position(rel: str, move: int) -> Board:
    """The fastplay board for a (record, move number) entry; ``""`` is the empty 9x9 board."""
    if not rel:
        return Board(9, komi=7.5)
    return Board.from_sgf(GAMES_DIR / rel, move_number=move)


def setup_gnugo(gg: GnuGo, board: Board) -> None:
    """Replay ``board``'s moves into GNU Go and check that the stones agree."""
    gg.send(f"boardsize {board.size}")
    gg.send("clear_board")
    gg.send(f"komi {board.komi}")
    for colour, vertex in board.history:
        gg.send(f"play {colour} {vertex}")
    ours = {c: sorted(v for v in _vertices(board.size) if board.get(v) == c) for c in "BW"}
    for c, name in (("B", "black"), ("W", "white")):
        theirs = sorted(gg.send(f"list_stones {name}").split())
        if theirs != ours[c]:
            raise RuntimeError(f"position mismatch for {name}: GNU Go {theirs} vs fastplay {ours[c]}")


def _vertices(size: int) -> list[str]:
    letters = "ABCDEFGHJKLMNOPQRST"[:size]
    return [f"{x}{y}" for x in letters for y in range(1, size + 1)]


@dataclass
class Cell:
    """Raw measurements of one (database, position) pair, one entry per repetition."""

    db: str
    position: str
    gg_small_wall: list[float] = field(default_factory=list)
    gg_large_wall: list[float] = field(default_factory=list)
    gg_small_cpu: list[float] = field(default_factory=list)
    gg_large_cpu: list[float] = field(default_factory=list)
    fp1_wall: list[float] = field(default_factory=list)
    fp1_cpu: list[float] = field(default_factory=list)
    fp2_wall: list[float] = field(default_factory=list)
    fp2_cpu: list[float] = field(default_factory=list)
    fp_mean_length: float = 0.0
    search_cpu: list[float] = field(default_factory=list)
    search_small_cpu: list[float] = field(default_factory=list)


def sims_for(games_per_level: int, level: int) -> int:
    """Simulations GNU Go runs for a budget: about ``nodes - 10`` (spec 7.1)."""
    return games_per_level * max(level, 1) - 10


def time_gnugo(gg: GnuGo, colour: str) -> tuple[float, float]:
    c0, t0 = gg.cpu_seconds(), time.perf_counter()
    gg.send(f"reg_genmove {colour}")
    t1 = time.perf_counter()
    return t1 - t0, gg.cpu_seconds() - c0


def time_fastplay(board: Board, db: PatternDatabase, n: int, seed: int, threads: int
                  ) -> tuple[float, float, float]:
    c0 = time.process_time()
    stats = playouts(board, db, n, seed=seed, threads=threads)
    return stats.seconds, time.process_time() - c0, stats.mean_length


def time_search(board: Board, db: PatternDatabase, n: int, seed: int) -> float:
    """CPU seconds of fastplay's default one-thread search of ``n`` playouts
    (``MCTS.run``; the tree, its priors and tactics included)."""
    from fastplay.search import MCTS

    search = MCTS(db, seed=seed, resign_threshold=None)
    c0 = time.process_time()
    search.run(board, playouts=n)
    return time.process_time() - c0


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def summarise(cell: Cell, n_fp: int, sims_small: int, sims_large: int,
              n_search: int = 0) -> dict[str, Any]:
    """Median-based rates and ratios for one cell (``n_search``: the search's
    playouts per measurement, 0 when the search was not timed)."""
    dsims = sims_large - sims_small
    dwall = med(cell.gg_large_wall) - med(cell.gg_small_wall)
    dcpu = med(cell.gg_large_cpu) - med(cell.gg_small_cpu)
    # MC really ran only if the large budget took clearly longer than the
    # small one; otherwise the classical move (pass, fuseki, single legal
    # move) stood and the difference is noise.
    mc_ran = dwall > 0.1 and med(cell.gg_large_wall) > 1.5 * med(cell.gg_small_wall)
    gg_wall = dsims / dwall if mc_ran else float("nan")
    gg_cpu = dsims / dcpu if mc_ran and dcpu > 0 else float("nan")
    fp1_wall = n_fp / med(cell.fp1_wall)
    fp1_cpu = n_fp / med(cell.fp1_cpu)
    fp2_wall = n_fp / med(cell.fp2_wall)
    search_cpu = (n_search - n_search // 5) / (med(cell.search_cpu) - med(cell.search_small_cpu)) \
        if n_search else float("nan")
    return {
        "search_per_s_cpu": search_cpu, "search_ratio_cpu": search_cpu / gg_cpu,
        "search_share_of_bare_cpu": search_cpu / fp1_cpu,
        "db": cell.db, "position": cell.position, "mc_ran": mc_ran,
        "gnugo_sims_per_s_wall": gg_wall, "gnugo_sims_per_s_cpu": gg_cpu,
        "fastplay_per_s_wall": fp1_wall, "fastplay_per_s_cpu": fp1_cpu,
        "fastplay_2t_per_s_wall": fp2_wall,
        "ratio_wall": fp1_wall / gg_wall, "ratio_cpu": fp1_cpu / gg_cpu,
        "threads_2_over_1": fp2_wall / fp1_wall,
        "fastplay_2t_cpu_utilisation": med(cell.fp2_cpu) / med(cell.fp2_wall),
        "fastplay_mean_length": cell.fp_mean_length,
    }


def geomean(xs: list[float]) -> float:
    xs = [x for x in xs if not math.isnan(x) and x > 0]
    return statistics.geometric_mean(xs) if xs else float("nan")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gnugo", help="GNU Go executable (default /usr/games/gnugo, then PATH)")
    ap.add_argument("--positions", type=int, default=4,
                    help=f"how many positions from the built-in list (max {len(DEFAULT_POSITIONS)}; "
                         "the first is the empty board)")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved repetitions (medians taken)")
    ap.add_argument("--level", type=int, default=1, help="GNU Go --level (default 1: cheap classical engine)")
    ap.add_argument("--small", type=int, default=1000, help="small --mc-games-per-level")
    ap.add_argument("--large", type=int, default=20000, help="large --mc-games-per-level")
    ap.add_argument("--fastplay-n", type=int, default=20000, help="fastplay playouts per measurement")
    ap.add_argument("--search", type=int, default=0, metavar="N",
                    help="also time fastplay's default one-thread search of N playouts "
                         "(MCTS.run) against GNU Go's genmove rate (default 0: not timed)")
    ap.add_argument("--databases", default=",".join(DATABASES),
                    help="comma-separated fastplay built-ins to compare")
    ap.add_argument("--json", metavar="OUT", help="write raw and summarised figures here")
    return ap


def _measure_cell(cell: Cell, board: Board, db: PatternDatabase, small: GnuGo, large: GnuGo,
                  rep: int, n: int, n_search: int = 0) -> None:
    """One repetition of one (database, position) cell: both GNU Go budgets,
    fastplay with 1 and 2 threads and (``n_search`` > 0) its search, in an
    order that alternates with ``rep``."""
    colour = board.to_move
    setup_gnugo(small, board)
    setup_gnugo(large, board)
    seed = 1000 * rep + 7
    # Alternate which side goes first so that slow drifts in
    # machine load do not systematically favour one side.
    steps = ["gs", "gl", "f1", "f2"] + (["s1"] if n_search else [])
    if rep % 2:
        steps.reverse()
    for step in steps:
        if step == "gs":
            w, c = time_gnugo(small, colour)
            cell.gg_small_wall.append(w)
            cell.gg_small_cpu.append(c)
        elif step == "gl":
            w, c = time_gnugo(large, colour)
            cell.gg_large_wall.append(w)
            cell.gg_large_cpu.append(c)
        elif step == "s1":
            # Two budgets, differenced as GNU Go's are: start-up and the
            # root's expansion cancel.
            cell.search_cpu.append(time_search(board, db, n_search, seed))
            cell.search_small_cpu.append(time_search(board, db, n_search // 5, seed))
        else:
            t = 1 if step == "f1" else 2
            w, c, length = time_fastplay(board, db, n, seed, t)
            if t == 1:
                cell.fp1_wall.append(w)
                cell.fp1_cpu.append(c)
                cell.fp_mean_length = length
            else:
                cell.fp2_wall.append(w)
                cell.fp2_cpu.append(c)


def _measure(args: argparse.Namespace, gnugo: str, boards: dict[str, Board],
             dbs: list[str]) -> dict[tuple[str, str], Cell]:
    """Every cell, ``args.repeat`` interleaved repetitions."""
    cells: dict[tuple[str, str], Cell] = {}
    procs: dict[str, tuple[GnuGo, GnuGo]] = {}
    pdbs = {d: PatternDatabase.builtin(d) for d in dbs}
    try:
        for d in dbs:
            common = ["--monte-carlo", "--mc-patterns", DATABASES[d], "--level", str(args.level),
                      "--nofusekidb", "--boardsize", "9"]
            procs[d] = (GnuGo(gnugo, [*common, "--mc-games-per-level", str(args.small)]),
                        GnuGo(gnugo, [*common, "--mc-games-per-level", str(args.large)]))
            for key in boards:
                cells[(d, key)] = Cell(d, key)
            # warm both sides (page-in, fastplay engine build) outside the timings
            playouts(Board(9), pdbs[d], 200, seed=0)
        started = time.perf_counter()
        for rep in range(args.repeat):
            for key, board in boards.items():
                for d in dbs:
                    _measure_cell(cells[(d, key)], board, pdbs[d], *procs[d], rep,
                                  args.fastplay_n, args.search)
            print(f"  repetition {rep + 1}/{args.repeat} done "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)
    finally:
        for pair in procs.values():
            for gg in pair:
                gg.close()
    return cells


def _report(rows: list[dict[str, Any]], dbs: list[str]) -> dict[str, dict[str, float]]:
    """Print the per-position table and the per-database summary; the summary."""
    print()
    print(f"{'database':<20} {'position':<34} {'GNU Go/s':>9} {'fastplay/s':>10} "
          f"{'ratio':>6} {'cpu ratio':>9} {'2t/1t':>6} {'len':>6}")
    for r in rows:
        flag = "" if r["mc_ran"] else "  (MC did not run: excluded)"
        print(f"{r['db']:<20} {r['position']:<34} {r['gnugo_sims_per_s_wall']:>9.0f} "
              f"{r['fastplay_per_s_wall']:>10.0f} {r['ratio_wall']:>6.2f} {r['ratio_cpu']:>9.2f} "
              f"{r['threads_2_over_1']:>6.2f} {r['fastplay_mean_length']:>6.1f}{flag}")
    print()
    print("Per database (geometric mean over positions where GNU Go's MC module ran):")
    print(f"{'database':<20} {'fastplay/GNU Go (wall)':>23} {'(cpu)':>7} {'2 threads/1 (wall)':>19} "
          f"{'2t cpu use':>10}")
    summary: dict[str, dict[str, float]] = {}
    for d in dbs:
        mine = [r for r in rows if r["db"] == d and r["mc_ran"]]
        s = {
            "ratio_wall": geomean([r["ratio_wall"] for r in mine]),
            "ratio_cpu": geomean([r["ratio_cpu"] for r in mine]),
            "threads_2_over_1": geomean([r["threads_2_over_1"] for r in rows if r["db"] == d]),
            "fastplay_2t_cpu_utilisation": med([r["fastplay_2t_cpu_utilisation"]
                                                for r in rows if r["db"] == d]),
            "positions_used": len(mine),
        }
        summary[d] = s
        print(f"{d:<20} {s['ratio_wall']:>23.2f} {s['ratio_cpu']:>7.2f} "
              f"{s['threads_2_over_1']:>19.2f} {s['fastplay_2t_cpu_utilisation']:>10.2f}")
    print("\nGNU Go's times include its UCT tree (selection, expansion, backup) as well as "
          "the playouts;\nfastplay's are bare playouts. 'cpu' ratios use CPU seconds, "
          "which other processes disturb less.")
    return summary


def _report_search(rows: list[dict[str, Any]], dbs: list[str],
                   summary: dict[str, dict[str, float]]) -> None:
    """The search's rows (``--search``): its CPU rate against GNU Go's genmove
    rate and against fastplay's bare playouts; geometric means join ``summary``."""
    print(f"\n{'database':<20} {'position':<34} {'search/s':>9} {'/ GNU Go':>9} {'/ bare':>7}"
          "   (CPU time, one thread)")
    for r in rows:
        print(f"{r['db']:<20} {r['position']:<34} {r['search_per_s_cpu']:>9.0f} "
              f"{r['search_ratio_cpu']:>9.2f} {r['search_share_of_bare_cpu']:>7.2f}")
    for d in dbs:
        mine = [r for r in rows if r["db"] == d and r["mc_ran"]]
        summary[d]["search_ratio_cpu"] = geomean([r["search_ratio_cpu"] for r in mine])
        summary[d]["search_share_of_bare_cpu"] = geomean(
            [r["search_share_of_bare_cpu"] for r in rows if r["db"] == d])
        print(f"{d:<20} search / GNU Go genmove {summary[d]['search_ratio_cpu']:.2f}x, "
              f"search / bare playouts {summary[d]['search_share_of_bare_cpu']:.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    gnugo = find_gnugo(args.gnugo)
    version = subprocess.run([gnugo, "--version"], capture_output=True, text=True,
                             check=False).stdout.split("\n")[0]
    if not 1 <= args.positions <= len(DEFAULT_POSITIONS):
        ap.error(f"--positions must be in 1..{len(DEFAULT_POSITIONS)}")
    dbs = [d.strip() for d in args.databases.split(",") if d.strip()]
    for d in dbs:
        if d not in DATABASES:
            ap.error(f"unknown database {d!r}; choose from {', '.join(DATABASES)}")
    sims_small = sims_for(args.small, args.level)
    sims_large = sims_for(args.large, args.level)
    positions = DEFAULT_POSITIONS[:args.positions]
    boards = {f"{rel or 'empty'}@{mv}": load_position(rel, mv) for rel, mv in positions}
    print(f"GNU Go: {gnugo} ({version}); fastplay {fastplay.__version__}; "
          f"Python {platform.python_version()}; {os.cpu_count()} CPUs")
    print(f"budgets: level {args.level}, games/level {args.small} vs {args.large} "
          f"(~{sims_small} vs ~{sims_large} simulations); fastplay n = {args.fastplay_n}; "
          f"{len(boards)} positions x {args.repeat} repetitions")
    cells = _measure(args, gnugo, boards, dbs)
    rows = [summarise(c, args.fastplay_n, sims_small, sims_large, args.search)
            for c in cells.values()]
    summary = _report(rows, dbs)
    if args.search:
        _report_search(rows, dbs, summary)
    if args.json:
        out = {
            "gnugo": gnugo, "gnugo_version": version, "fastplay_version": fastplay.__version__,
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "args": vars(args), "sims_small": sims_small, "sims_large": sims_large,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "rows": rows, "summary": summary, "raw": [asdict(c) for c in cells.values()],
        }
        Path(args.json).write_text(json.dumps(out, indent=2, default=float))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
