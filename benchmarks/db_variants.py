#!/usr/bin/env python3
"""Simple variants of a playout database, for screens (issues 16 and 19).

Each variant rewrites the values of the base file's colon lines and keeps
everything else (diagrams, keywords, first-match order), so the variant's
table is the base's table transformed cell by cell:

* ``power A``: every value ``v`` becomes ``round(s * v ** A)`` (0 stays 0,
  every other value at least 1), ``s`` the largest integer up to 1,000
  that keeps the largest value within GNU Go's 10,000,000 (spec section
  2.5).  ``A > 1`` sharpens the policy towards its top moves, ``A < 1``
  flattens it.
* ``safe F``: every value times ``F``, and the base's last colon line (a
  bare value, the catch-all) split in two: its value ``F * v`` for the
  moves that are not self-ataris (``osafe``) and ``v`` for the self-ataris.
  ``mc_montegnu_classic`` weighs a quiet self-atari as much as any quiet
  move; this one makes it ``F`` times less likely.

Usage::

    python benchmarks/db_variants.py power 1.5 --out pow1.5.db
    python benchmarks/db_variants.py safe 10 --out safe10.db [--base mc_montegnu_classic]

The file is checked by fastplay's strict loader (GNU Go's limits) before it
is written.  Screens of these variants: RESULTS.md, "Screens at 9x9".
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from fastplay.patterns import PatternDatabase

MAX_VALUE = 10_000_000
_COLON = re.compile(r"^:(\d+)(.*)$", re.MULTILINE)


def _base_text(base: str) -> str:
    if Path(base).is_file():
        return Path(base).read_text(encoding="ascii")
    db = PatternDatabase.builtin(base)
    if db.source is None:
        raise ValueError(f"built-in {base!r} has no source file to rewrite")
    return Path(db.source).read_text(encoding="ascii")


def power(text: str, exponent: float) -> tuple[str, str]:
    """``text`` with every colon value ``v`` raised to ``exponent`` (module
    docstring), and the header line that says so."""
    top = max(int(m.group(1)) for m in _COLON.finditer(text)) ** exponent
    if round(top) > MAX_VALUE:
        raise ValueError(f"the largest value would be {round(top):,}, above GNU Go's "
                         f"{MAX_VALUE:,}")
    scale = max(1, min(1000, int(MAX_VALUE // top)))

    def value(m: re.Match[str]) -> str:
        v = int(m.group(1))
        return f":{0 if v == 0 else max(1, round(scale * v ** exponent))}{m.group(2)}"

    return _COLON.sub(value, text), f"each value v -> round({scale} * v ** {exponent:g})"


def safe(text: str, factor: int) -> tuple[str, str]:
    """``text`` with every value times ``factor`` and the catch-all split into
    ``osafe`` (times ``factor``) and self-atari (unchanged) lines."""
    last = list(_COLON.finditer(text))[-1]
    if last.group(2).strip():
        raise ValueError(f"the last colon line must be a bare value, not {last.group(0)!r}")
    v = int(last.group(1))
    scaled = _COLON.sub(lambda m: f":{int(m.group(1)) * factor}{m.group(2)}", text)
    last = list(_COLON.finditer(scaled))[-1]
    split = f":{v * factor},osafe\n:{v}"
    return (scaled[:last.start()] + split + scaled[last.end():],
            f"values x{factor}; self-ataris of the catch-all x1")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=("power", "safe"))
    parser.add_argument("amount", type=float, help="the exponent A, or the factor F (an integer)")
    parser.add_argument("--base", default="mc_montegnu_classic",
                        help="built-in name or .db file (default mc_montegnu_classic)")
    parser.add_argument("--out", required=True, help="the .db file to write")
    args = parser.parse_args(argv)
    text = _base_text(args.base)
    try:
        if args.kind == "power":
            body, how = power(text, args.amount)
        else:
            if args.amount != int(args.amount) or args.amount < 1:
                parser.error("safe takes an integer factor >= 1")
            body, how = safe(text, int(args.amount))
    except ValueError as error:
        parser.error(str(error))
    header = f"# {Path(args.base).stem}: {how}\n# (benchmarks/db_variants.py)\n"
    out = header + body
    PatternDatabase.from_string(out, name=Path(args.out).stem)   # strict: GNU Go's limits
    Path(args.out).write_text(out, encoding="ascii")
    print(f"{args.out}: {how}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
