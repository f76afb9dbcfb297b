"""Run the coverage-guided campaign of every harness and collect its figures.

    python fuzz/campaign.py [--runs 1000000] [--jobs 2] [--harness NAME ...]
                            [--work fuzz-work] [--json fuzz-campaign.json] [--max-seconds S]

Each harness runs ``fuzz/run.py HARNESS`` in ``WORK/HARNESS``, in chunks of
runs (one libFuzzer process each, ``CHUNKS``) until ``--runs`` inputs; its
corpus, artifacts and the log of every chunk (``log.txt``) stay there, so a
later campaign resumes from the corpus.  From libFuzzer's output it takes the inputs tried
(``stat::number_of_executed_units``), the coverage (``cov``: edges of
instrumented Python code, ``ft``: features), the corpus size, the run time
and how the run ended: ``done``, ``crash`` (an exception out of the harness
or a fatal signal; the input is in ``WORK/HARNESS/artifacts``), ``timeout``
(an input ran longer than ``--timeout``) or ``oom``.  One JSON object per
harness goes to ``--json``; a table goes to standard output.

A timeout is replayed natively (``replay``: the harness in a fresh Python,
without atheris, ``REPLAYS`` times within ``--timeout`` seconds each).  An
input that finishes every replay in time was a stall of the host, not of
fastplay (a shared machine stalled a 6-byte prior input for 41 s in native
code, and it replays in 0.09 s): it is moved to ``artifacts/unreproduced``,
listed under ``stalls`` with its replay times, and the campaign goes on, at
most ``MAX_STALLS`` times per harness.  An input that times out or raises on
a replay ends the campaign as before.

Every finished campaign of a harness is appended to ``WORK/HARNESS/ledger.jsonl``
(its figures, the commit, the date), and its JSON object carries
``total_inputs`` and ``campaigns``: the inputs of all campaigns recorded
there.  The harnesses that run at tens of inputs a second (gtp, sgf under
atheris) reach 10^6 only over several sessions that resume one corpus; the
ledger keeps that count honest (a campaign cut short by a signal is not
recorded, so its inputs are not counted).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harnesses import HARNESSES  # noqa: E402

_STAT = re.compile(r"^stat::(\w+):\s+(\d+)", re.M)
_COV = re.compile(r"cov: (\d+) ft: (\d+) corp: (\d+)/")


def _ending(log: str, code: int) -> str:
    if "ERROR: libFuzzer: timeout" in log:
        return "timeout"
    if "out-of-memory" in log:
        return "oom"
    if code != 0 or "Uncaught Python exception" in log or "ERROR: libFuzzer" in log:
        return "crash"
    return "done"


#: Runs per libFuzzer process.  Under atheris the db harness grows by about
#: 400 kB an input (the same inputs run in constant memory without atheris),
#: so it restarts well before libFuzzer's memory limit; the corpus carries over.
CHUNKS = {"db": 4000, "gtp": 20_000, "analysis": 20_000}
DEFAULT_CHUNK = 50_000


def _chunk(name: str, runs: int, timeout: int, folder: Path, log: Any,
           seconds: float) -> tuple[str, dict[str, int], tuple[str, ...]]:
    """One libFuzzer process of at most ``runs`` runs and ``seconds``; (ending,
    its stats, its last coverage line)."""
    command = [sys.executable, str(HERE / "run.py"), name, f"--runs={runs}",
               f"--timeout={timeout}", f"--corpus={folder / 'corpus'}",
               f"--artifacts={folder / 'artifacts'}", "--", "-rss_limit_mb=4096",
               f"-max_total_time={max(1, int(seconds))}"]
    proc = subprocess.run(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    log.write(proc.stdout)
    log.flush()
    stats = {k: int(v) for k, v in _STAT.findall(proc.stdout)}
    cov = _COV.findall(proc.stdout)
    return _ending(proc.stdout, proc.returncode), stats, cov[-1] if cov else ("0", "0", "0")


#: Native replays of a timed-out input, and stalls forgiven per harness.
REPLAYS = 3
MAX_STALLS = 3


def replay(name: str, path: Path, timeout: float) -> float | None:
    """The slowest of ``REPLAYS`` native runs of harness ``name`` on the
    input in ``path``, in seconds; ``None`` when a run did not finish within
    ``timeout`` seconds or failed (an exception, a crash)."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import harnesses; "
            "harnesses.HARNESSES[sys.argv[2]](open(sys.argv[3], 'rb').read())")
    slowest = 0.0
    for _ in range(REPLAYS):
        begin = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "-c", code, str(HERE), name, str(path)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        if proc.returncode != 0:
            return None
        slowest = max(slowest, time.perf_counter() - begin)
    return slowest


def _forgiven(name: str, folder: Path, timeout: float, stalls: list[dict[str, Any]]) -> bool:
    """After a chunk's timeout: whether its input replays in time (a stall of
    the host), in which case it is set aside and recorded in ``stalls``."""
    found = sorted((folder / "artifacts").glob(f"{name}-timeout-*"),
                   key=lambda p: p.stat().st_mtime)
    if not found or len(stalls) >= MAX_STALLS:
        return False
    artifact = found[-1]
    seconds = replay(name, artifact, timeout)
    if seconds is None:
        return False
    aside = folder / "artifacts" / "unreproduced"
    aside.mkdir(exist_ok=True)
    artifact.rename(aside / artifact.name)
    stalls.append({"artifact": artifact.name, "replay_seconds": round(seconds, 3)})
    return True


def _commit() -> str:
    """The checkout's commit (``unknown`` outside git)."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, text=True,
                              capture_output=True, check=True).stdout.strip() or "unknown"
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def record(folder: Path, result: dict[str, Any]) -> dict[str, Any]:
    """Append ``result`` (with the commit and the UTC date) to ``folder``'s
    ``ledger.jsonl``; ``result`` with ``total_inputs`` and ``campaigns`` of
    the whole ledger."""
    entry = dict(result, commit=_commit(),
                 date=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    ledger = folder / "ledger.jsonl"
    with open(ledger, "a") as out:
        out.write(json.dumps(entry) + "\n")
    entries = [json.loads(line) for line in ledger.read_text().splitlines() if line.strip()]
    return dict(result, total_inputs=sum(int(e["inputs"]) for e in entries),
                campaigns=len(entries))


def campaign(name: str, runs: int, timeout: int, work: Path,
             max_seconds: float = float("inf")) -> dict[str, Any]:
    """One harness's runs, chunk after chunk until ``runs`` inputs or
    ``max_seconds``; its figures."""
    folder = work / name
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    inputs, ending, chunks = 0, "done", 0
    last: tuple[str, ...] = ("0", "0", "0")
    stalls: list[dict[str, Any]] = []
    with open(folder / "log.txt", "a") as log:
        while inputs < runs and ending == "done":
            left = max_seconds - (time.perf_counter() - start)
            if left < 1:
                break
            size = min(CHUNKS.get(name, DEFAULT_CHUNK), runs - inputs)
            ending, stats, cov = _chunk(name, size, timeout, folder, log, min(left, 10**7))
            inputs += stats.get("number_of_executed_units", 0)
            last = cov if cov != ("0", "0", "0") else last
            chunks += 1
            if ending == "done" and not stats:
                ending = "crash"          # no statistics at all: the process did not run
            if ending == "timeout" and _forgiven(name, folder, timeout, stalls):
                ending = "done"
    return record(folder, {
        "harness": name, "inputs": inputs, "cov": int(last[0]), "ft": int(last[1]),
        "corpus": int(last[2]), "chunks": chunks, "seconds": round(time.perf_counter() - start, 1),
        "ending": ending, "stalls": stalls,
        "artifacts": sorted(p.name for p in (folder / "artifacts").glob("*") if p.is_file())})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--timeout", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=float("inf"),
                        help="stop a harness after this long even before --runs inputs")
    parser.add_argument("--harness", action="append", choices=sorted(HARNESSES))
    parser.add_argument("--work", type=Path, default=Path("fuzz-work"))
    parser.add_argument("--json", type=Path, default=Path("fuzz-campaign.json"))
    args = parser.parse_args(argv)
    names = args.harness or sorted(HARNESSES)
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda n: campaign(n, args.runs, args.timeout, args.work.resolve(),
                                                   args.max_seconds), names))
    args.json.write_text("".join(json.dumps(r) + "\n" for r in results))
    print(f"{'harness':9} {'inputs':>9} {'total':>9} {'cov':>6} {'ft':>6} {'corpus':>6} "
          f"{'s':>7}  ending")
    for r in results:
        print(f"{r['harness']:9} {r['inputs']:9} {r['total_inputs']:9} {r['cov']:6} {r['ft']:6} "
              f"{r['corpus']:6} "
              f"{r['seconds']:7.0f}  {r['ending']}"
              + (f" ({len(r['stalls'])} unreproduced timeouts)" if r["stalls"] else "")
              + f" {' '.join(r['artifacts'])}")
    return 0 if all(r["ending"] == "done" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
