"""GNU Go's 9x9 regression suite through a GTP engine (evidence for issue 5, not CI).

Reads ``../shared/gnugo-regression/9x9.tst``: each case is ``loadsgf FILE N``
then a numbered ``reg_genmove COLOR`` and a ``#? [A|B]`` line with the
accepted answers (``[!X]``: anything but X; a trailing ``*`` marks a case GNU
Go itself was expected to fail).  Other commands of the suite
(``owl_defend``, ``restricted_genmove``) are GNU Go internals and are
skipped.  Each ``reg_genmove`` goes to the engine; the script prints every
case and the pass count.

Usage::

    python benchmarks/regression_9x9.py                       # fastplay gtp, 5000 playouts
    python benchmarks/regression_9x9.py --playouts 20000
    python benchmarks/regression_9x9.py --engine "/usr/games/gnugo --mode gtp --monte-carlo"
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# ../shared beside the checkout, or FASTPLAY_SHARED (as the tests find it).
SHARED = Path(os.environ.get("FASTPLAY_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SUITE_DIR = SHARED / "gnugo-regression"


@dataclass
class Case:
    number: int
    load: str            # the loadsgf command, path relative to the suite folder
    color: str
    expected: str        # "A|B" or "!X"
    known_failure: bool  # trailing '*'


def read_suite(path: Path) -> list[Case]:
    """The ``reg_genmove`` cases of a ``.tst`` file, in order."""
    cases: list[Case] = []
    load = ""
    pending: tuple[int, str] | None = None
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        line = raw.strip()
        if line.startswith("#?") and pending is not None:
            m = re.match(r"#\?\s*\[(.*)\](\*?)", line)
            if m:
                cases.append(Case(pending[0], load, pending[1], m.group(1), bool(m.group(2))))
            pending = None
            continue
        if not line or line.startswith("#"):
            continue
        words = line.split()
        if words[0] == "loadsgf":
            load = line
        elif len(words) >= 3 and words[0].isdigit() and words[1] == "reg_genmove":
            pending = (int(words[0]), words[2])
        else:
            pending = None  # a GNU Go-only command: its '#?' is not ours
    return cases


def accepted(answer: str, expected: str) -> bool:
    """Whether a GTP move matches ``A|B|C`` or ``!X`` (case-insensitive)."""
    answer = answer.strip().upper()
    if expected.startswith("!"):
        return answer not in {x.strip().upper() for x in expected[1:].split("|")}
    return answer in {x.strip().upper() for x in expected.split("|")}


class Engine:
    """A GTP engine subprocess, one command at a time."""

    def __init__(self, command: str, cwd: Path) -> None:
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, cwd=cwd)

    def send(self, command: str) -> tuple[bool, str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"engine died on {command!r}")
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        text = "\n".join(lines)
        ok = text.startswith("=")
        return ok, re.sub(r"^[=?]\d*\s*", "", text)

    def close(self) -> None:
        try:
            self.send("quit")
        except (RuntimeError, BrokenPipeError):
            pass
        self.proc.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run GNU Go's 9x9.tst through a GTP engine.")
    parser.add_argument("--engine", help="GTP engine command (default: fastplay gtp)")
    parser.add_argument("--playouts", type=int, default=5000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--suite", type=Path, default=SUITE_DIR / "9x9.tst")
    args = parser.parse_args(argv)
    command = args.engine or (f"{shlex.quote(sys.executable)} -m fastplay gtp --playouts "
                              f"{args.playouts} --threads {args.threads} --seed {args.seed}")
    cases = read_suite(args.suite)
    print(f"$ {command}\n{len(cases)} reg_genmove cases from {args.suite}", flush=True)
    engine = Engine(command, args.suite.parent)
    passed = unexpected = 0
    start = time.perf_counter()
    try:
        for case in cases:
            ok, message = engine.send(case.load)
            if not ok:
                print(f"{case.number:5} load failed: {message}")
                continue
            ok, answer = engine.send(f"{case.number} reg_genmove {case.color}")
            good = ok and accepted(answer, case.expected)
            passed += good
            if good and case.known_failure:
                unexpected += 1
            mark = "PASS" if good else "FAIL"
            star = "*" if case.known_failure else " "
            print(f"{case.number:5} {mark} {answer:>6}  expected [{case.expected}]{star}",
                  flush=True)
    finally:
        engine.close()
    seconds = time.perf_counter() - start
    print(f"passed {passed}/{len(cases)} ({unexpected} of them marked '*', GNU Go's expected "
          f"failures); {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
