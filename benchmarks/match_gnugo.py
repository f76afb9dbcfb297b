"""fastplay against GNU Go 3.8 on 9x9 (evidence for issue 5, not a CI test).

Runs ``fastplay match`` between ``fastplay gtp --playouts P`` and
``gnugo --mode gtp --level 10`` (Debian package ``gnugo``), komi 7.5, colours
alternating, GNU Go also acting as the referee that settles dead stones
(``final_status_list dead``), and prints the match summary: wins, the win
rate with its 95 % confidence interval and the Elo difference.

Usage::

    python benchmarks/match_gnugo.py --games 20 --playouts 5000 --sgf-dir /tmp/match

Several hours for 100 games on one core: run it in the background.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

GNUGO = "/usr/games/gnugo --mode gtp --level 10"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--playouts", type=int, default=5000, help="fastplay playouts per move")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--gnugo", default=GNUGO, help="GNU Go command line")
    parser.add_argument("--sgf-dir", default=None, help="save every game as SGF here")
    parser.add_argument("--move-timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    fastplay = (f"{shlex.quote(sys.executable)} -m fastplay gtp --playouts {args.playouts} "
                f"--threads {args.threads} --seed {args.seed}")
    command = [sys.executable, "-m", "fastplay", "match", fastplay, args.gnugo,
               "--games", str(args.games), "--size", "9", "--komi", "7.5",
               "--referee", args.gnugo, "--move-timeout", str(args.move_timeout)]
    if args.sgf_dir:
        command += ["--sgf-dir", args.sgf_dir]
    print("$", " ".join(shlex.quote(c) for c in command), flush=True)
    return subprocess.call(command)


if __name__ == "__main__":
    sys.exit(main())
