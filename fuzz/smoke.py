"""The seeded smoke run of every harness (what CI runs; no atheris needed).

Each harness gets its seeds, then ``--inputs`` mutations of them (byte flips,
inserts, cuts, splices) from a fixed random seed, so a failure replays
exactly.  Exit status 1 names the harness, the input (written to
``--out``) and the exception; a crash of the interpreter or an input that
runs longer than ``--timeout`` leaves its input in ``OUT/HARNESS-current``.

    python fuzz/smoke.py [--inputs 200] [--seed 1] [--harness NAME ...]
"""

from __future__ import annotations

import argparse
import faulthandler
import hashlib
import random
import sys
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harnesses import HARNESSES, seeds  # noqa: E402


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    """One random edit of ``data``: flips, inserts, cuts or a splice with ``pool``."""
    buf = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(5)
        if op == 0 and buf:
            buf[rng.randrange(len(buf))] = rng.randrange(256)
        elif op == 1:
            buf[rng.randint(0, len(buf)):rng.randint(0, len(buf))] = rng.randbytes(rng.randint(1, 8))
        elif op == 2 and buf:
            start = rng.randrange(len(buf))
            del buf[start:start + rng.randint(1, 32)]
        elif op == 3 and pool:
            other = rng.choice(pool)
            cut = rng.randint(0, len(other))
            buf = buf[:rng.randint(0, len(buf))] + other[cut:cut + rng.randint(1, 200)]
        else:
            buf += rng.randbytes(rng.randint(1, 16))
    return bytes(buf[:20000])


def inputs(name: str, count: int, seed: int) -> Iterator[bytes]:
    """The seeds of ``name``, then ``count`` mutations of them."""
    pool = list(seeds(name))
    yield from pool
    rng = random.Random(f"{name}:{seed}")
    for _ in range(count):
        yield mutate(rng, rng.choice(pool), pool)


def _signature(exc: BaseException) -> str:
    """Exception type and the innermost fastplay frame: one line per distinct bug."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "fastplay" in f.filename]
    where = f"{frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno}" if frames else "?"
    text = str(exc)
    if type(exc).__name__ == "ContractError":   # its message quotes the input: keep the kind
        text = text.split(":", 1)[0]
    return f"{type(exc).__name__} at {where}: {text[:120]}"


def run(name: str, count: int, seed: int, out: Path, keep_going: bool = False,
        timeout: float = 120.0) -> tuple[int, str | None]:
    """Feed ``name`` its smoke inputs; (inputs tried, failure text or None).

    With ``keep_going`` every distinct failure is reported, not just the first.
    Each input is written to ``OUT/NAME-current`` before it runs, so that a
    crash of the interpreter leaves it there; one that runs longer than
    ``timeout`` seconds stops the process with every thread's stack
    (``faulthandler``), its input left there too.
    """
    check = HARNESSES[name]
    tried = 0
    found: dict[str, str] = {}
    out.mkdir(parents=True, exist_ok=True)
    current = out / f"{name}-current"
    faulthandler.enable()
    for data in inputs(name, count, seed):
        tried += 1
        current.write_bytes(data)
        faulthandler.dump_traceback_later(timeout, exit=True)
        try:
            check(data)
        except Exception as exc:  # noqa: BLE001 - every escape is a finding
            sig = _signature(exc)
            if sig in found:
                continue
            path = out / f"{name}-{hashlib.sha1(data).hexdigest()[:12]}"
            path.write_bytes(data)
            found[sig] = f"{name}: input {path}\n{traceback.format_exc()}"
            if not keep_going:
                break
        finally:
            faulthandler.cancel_dump_traceback_later()
    current.unlink(missing_ok=True)
    if not found:
        return tried, None
    if not keep_going:
        return tried, "\n".join(found.values())
    return tried, "\n".join(f"{name}: {sig} ({text.split(chr(10), 1)[0].split('input ')[-1]})"
                            for sig, text in found.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=200, help="mutations per harness")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--harness", action="append", choices=sorted(HARNESSES))
    parser.add_argument("--keep-going", action="store_true",
                        help="report every distinct failure of a harness, not just the first")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds an input may run before it counts as a hang")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"),
                        help="folder for a failing input")
    args = parser.parse_args(argv)
    status = 0
    for name in args.harness or sorted(HARNESSES):
        start = time.perf_counter()
        tried, failure = run(name, args.inputs, args.seed, args.out, args.keep_going,
                              args.timeout)
        print(f"{name:9} {tried:6} inputs  {time.perf_counter() - start:6.1f} s  "
              f"{'FAIL' if failure else 'ok'}", flush=True)
        if failure:
            print(failure, file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
