#!/usr/bin/env python3
"""Side-by-side playout speed: fastplay versus the C/C++ engines libego and Pachi.

The peers are built from the archives in ``../shared/peers`` (GPL programs,
run here as yardsticks only)::

    bash ../shared/peers/build-peers.sh /work/peers
    python benchmarks/compare_peers.py /work/peers --rounds 5 --json /tmp/peers.json

Measured, one thread everywhere, in interleaved rounds (the order of the
steps reversed every other round, so that load from other processes hits
every side alike), medians over the rounds:

* light playouts (uniform over legal moves that do not fill an own eye):
  libego's ``benchmark N`` built with ``RandomLightMove`` (``libego-light9``,
  ``libego-light19``), Pachi's ``light`` policy (``pachi-bench``, t-unit
  ``moggy status`` with ``PACHI_BENCH_POLICY=light``) and fastplay's
  ``mc_uniform``, on 9x9 and 19x19;
* 3x3 pattern playouts: libego's as-shipped benchmark (its 3x3 ``Sampler``,
  ``libego-sampler9``/``19``) and fastplay's ``mc_montegnu_classic``.

Time is **CPU time**: each peer's own figure for its playout loop (libego:
process user time around the loop; Pachi: ``CLOCK_PROCESS_CPUTIME_ID``),
fastplay's ``time.process_time()`` around ``playouts(board, db, n, seed,
threads=1)``, which also counts building the playout template.  The peers'
whole-process CPU time (``wait4``), start-up included, is recorded too.
libego and fastplay start from the empty board; Pachi's t-unit benchmark
needs a position, so Pachi and a second fastplay run start from a lone
black stone on the 4-4 point (Pachi's own ``t-unit/blank.t`` on 19x19, D6
on 9x9), White to move.  Cycles per move are CPU seconds per move times
the nominal clock (the first ``cpu MHz`` of ``/proc/cpuinfo``, the
time-stamp-counter rate on this machine): libego's own ``CC/move`` counts
wall-clock ticks, which other processes inflate.

Ratios are fastplay's playouts per CPU second over the peer's; the playouts
differ in length (each engine's own pass and eye rules), so moves per second
are printed as well.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import fastplay
from fastplay import Board, PatternDatabase, playouts

#: name -> (peer kind, board size, fastplay database, fastplay start position)
SIDES: dict[str, tuple[str, int, str, str]] = {
    "libego-light9": ("libego", 9, "mc_uniform", "empty"),
    "pachi-light9": ("pachi", 9, "mc_uniform", "stone"),
    "libego-sampler9": ("libego", 9, "mc_montegnu_classic", "empty"),
    "libego-light19": ("libego", 19, "mc_uniform", "empty"),
    "pachi-light19": ("pachi", 19, "mc_uniform", "stone"),
    "libego-sampler19": ("libego", 19, "mc_montegnu_classic", "empty"),
}

DEFAULT_PLAYOUTS = {9: 20000, 19: 3000}


@dataclass
class Run:
    """One timed run of one side: playouts, CPU seconds, mean length."""

    playouts: int
    cpu: float
    mean_length: float
    process_cpu: float = float("nan")
    libego_clock_hz: float = float("nan")  # its kpps over kpps/GHz: the clock only when idle


@dataclass
class Pair:
    """All rounds of one comparison: the peer's runs and fastplay's."""

    name: str
    peer: list[Run] = field(default_factory=list)
    fastplay: list[Run] = field(default_factory=list)


def check_peers(peers: Path) -> None:
    """Exit with a message unless every peer executable is in ``peers``."""
    missing = [str(peer_binary(peers, name)) for name in SIDES
               if not os.access(peer_binary(peers, name), os.X_OK)]
    if missing:
        sys.exit("compare_peers: not built: " + ", ".join(missing)
                 + "\n  build them with: bash ../shared/peers/build-peers.sh " + str(peers))


def peer_binary(peers: Path, name: str) -> Path:
    """The executable of side ``name``."""
    if name.startswith("pachi"):
        return peers / "pachi-bench" / "pachi"
    return peers / name / "build" / "main" / "engine"


def tunit_file(folder: Path, size: int) -> Path:
    """A Pachi t-unit file: ``moggy status`` on a lone black stone, White to move."""
    rows = [" ".join(["."] * size) for _ in range(size)]
    rows[3] = " ".join(["."] * 3) + " X)" + " ".join(["."] * (size - 4))  # D(size-3), last move
    text = "\n".join(["# auto-run off", "", f"% raw light playouts, {size}x{size}",
                      f"boardsize {size}", *rows, "", "moggy status"])
    path = folder / f"blank{size}.t"
    path.write_text(text)
    return path


def run_process(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[str, float]:
    """Run a peer to completion; its combined output and whole-process CPU seconds."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}:\n{out[-2000:]}")
    return out, usage.ru_utime + usage.ru_stime


def run_libego(binary: Path, n: int) -> Run:
    """libego's ``benchmark N``: playouts, user seconds of the loop, mean length."""
    out, pcpu = run_process([str(binary), f"benchmark {n}", "quit"], binary.parent, dict(os.environ))
    secs = re.search(r"(\d+) playouts in ([\d.e+-]+) seconds", out)
    kpps = re.search(r"([\d.e+-]+) kpps\n", out)
    per_ghz = re.search(r"([\d.e+-]+) kpps/GHz", out)
    length = re.search(r"AVG moves/playout = ([\d.e+-]+)", out)
    if not (secs and kpps and per_ghz and length):
        raise RuntimeError(f"unexpected libego output:\n{out}")
    clock = float(kpps.group(1)) / float(per_ghz.group(1)) * 1e9
    return Run(int(secs.group(1)), float(secs.group(2)), float(length.group(1)), pcpu, clock)


def run_pachi(binary: Path, tunit: Path, n: int) -> Run:
    """Pachi's light policy through the patched t-unit benchmark (run from its folder)."""
    env = dict(os.environ, PACHI_BENCH_POLICY="light", PACHI_BENCH_GAMES=str(n))
    out, pcpu = run_process([str(binary), "-d", "4", "-u", str(tunit)], binary.parent, env)
    m = re.search(r"BENCH policy=light games=(\d+) wall=[\d.]+ cpu=([\d.]+) "
                  r"games_per_cpu_s=[\d.]+ avg_moves=([\d.]+)", out)
    if not m:
        raise RuntimeError(f"no BENCH line in Pachi's output:\n{out[-2000:]}")
    return Run(int(m.group(1)), float(m.group(2)), float(m.group(3)), pcpu)


def start_board(size: int, start: str) -> Board:
    """The empty board, or the lone black 4-4 stone of the Pachi files (White to move)."""
    board = Board(size, komi=7.5)
    if start == "stone":
        board.play(f"D{size - 3}", "B")
    return board


def run_fastplay(size: int, db: str, start: str, n: int, seed: int) -> Run:
    """fastplay ``playouts()`` with one thread; CPU seconds from ``process_time``."""
    board = start_board(size, start)
    pdb = PatternDatabase.builtin(db)
    c0 = time.process_time()
    stats = playouts(board, pdb, n, seed=seed, threads=1)
    return Run(n, time.process_time() - c0, stats.mean_length)


def one_round(peers: Path, tunits: dict[int, Path], names: list[str], counts: dict[int, int],
              pairs: dict[str, Pair], rnd: int) -> None:
    """Time every side once, in forward order on even rounds and backwards on odd ones."""
    steps = [(name, side) for name in names for side in ("peer", "fastplay")]
    if rnd % 2:
        steps.reverse()
    for name, side in steps:
        kind, size, db, start = SIDES[name]
        n = counts[size]
        if side == "fastplay":
            pairs[name].fastplay.append(run_fastplay(size, db, start, n, seed=rnd + 1))
        elif kind == "libego":
            pairs[name].peer.append(run_libego(peer_binary(peers, name), n))
        else:
            pairs[name].peer.append(run_pachi(peer_binary(peers, name), tunits[size], n))


def rate(runs: list[Run]) -> float:
    """Median playouts per CPU second."""
    return statistics.median(r.playouts / r.cpu for r in runs)


def summarise(pair: Pair) -> dict[str, Any]:
    """Median rates, moves per second, ratio and cycles per move of one comparison."""
    fp, peer = rate(pair.fastplay), rate(pair.peer)
    fp_len = statistics.median(r.mean_length for r in pair.fastplay)
    peer_len = statistics.median(r.mean_length for r in pair.peer)
    row: dict[str, Any] = {
        "name": pair.name, "fastplay_db": SIDES[pair.name][2],
        "peer_per_cpu_s": peer, "fastplay_per_cpu_s": fp, "ratio": fp / peer,
        "peer_mean_length": peer_len, "fastplay_mean_length": fp_len,
        "moves_ratio": (fp * fp_len) / (peer * peer_len),
        "peer_process_per_cpu_s": statistics.median(r.playouts / r.process_cpu
                                                    for r in pair.peer),
    }
    hz = nominal_hz()
    if hz:
        row["clock_hz"] = hz
        row["peer_cycles_per_move"] = hz / (peer * peer_len)
        row["fastplay_cycles_per_move"] = hz / (fp * fp_len)
    return row


def nominal_hz() -> float | None:
    """The first ``cpu MHz`` of ``/proc/cpuinfo`` in Hz, or None where there is none."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    m = re.search(r"^cpu MHz\s*:\s*([\d.]+)", text, re.M)
    return float(m.group(1)) * 1e6 if m else None


def print_table(rows: list[dict[str, Any]]) -> None:
    """The ratios, one line per comparison."""
    print(f"{'peer':<17} {'fastplay db':<20} {'peer/CPU s':>10} {'fastplay':>9} {'ratio':>6} "
          f"{'moves':>6} {'len peer/fp':>12} {'cyc/move peer/fp':>17}")
    for r in rows:
        cyc = (f"{r['peer_cycles_per_move']:.0f}/{r['fastplay_cycles_per_move']:.0f}"
               if "clock_hz" in r else "-")
        print(f"{r['name']:<17} {r['fastplay_db']:<20} {r['peer_per_cpu_s']:>10.0f} "
              f"{r['fastplay_per_cpu_s']:>9.0f} {r['ratio']:>6.3f} {r['moves_ratio']:>6.3f} "
              f"{r['peer_mean_length']:>5.1f}/{r['fastplay_mean_length']:<6.1f} {cyc:>17}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("peers", type=Path, metavar="PEERS_DIR",
                    help="the folder given to build-peers.sh")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--only", action="append", choices=sorted(SIDES),
                    help="compare with this peer only (repeatable; default all)")
    ap.add_argument("--playouts9", type=int, default=DEFAULT_PLAYOUTS[9],
                    help="playouts per run on 9x9 (default %(default)s)")
    ap.add_argument("--playouts19", type=int, default=DEFAULT_PLAYOUTS[19],
                    help="playouts per run on 19x19 (default %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures and raw runs here")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.playouts9 < 1 or args.playouts19 < 1:
        ap.error("--rounds, --playouts9 and --playouts19 must be at least 1")
    if not args.peers.is_dir():
        ap.error(f"PEERS_DIR {args.peers} is not a folder (build it with build-peers.sh)")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; exit 0 when every side ran."""
    args = parse_args(argv)
    peers = args.peers.resolve()
    check_peers(peers)
    names = args.only or list(SIDES)
    counts = {9: args.playouts9, 19: args.playouts19}
    pairs = {name: Pair(name) for name in names}
    load = os.getloadavg()
    print(f"load average at the start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tunits = {size: tunit_file(Path(tmp), size) for size in (9, 19)}
        for rnd in range(args.rounds):
            one_round(peers, tunits, names, counts, pairs, rnd)
            print(f"  round {rnd + 1}/{args.rounds} done", flush=True)
    rows = [summarise(pairs[name]) for name in names]
    print_table(rows)
    end_load = os.getloadavg()
    print(f"load average at the end {end_load[0]:.2f} {end_load[1]:.2f} {end_load[2]:.2f}")
    if args.json:
        out = {"fastplay_version": fastplay.__version__, "fastplay_file": fastplay.__file__,
               "python": platform.python_version(), "cpus": os.cpu_count(),
               "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "load_start": load,
               "load_end": end_load, "args": {k: str(v) for k, v in vars(args).items()},
               "rows": rows, "raw": [asdict(p) for p in pairs.values()]}
        Path(args.json).write_text(json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
