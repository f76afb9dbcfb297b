"""Coverage-guided fuzzing of one harness with atheris (libFuzzer); outside CI.

    python fuzz/run.py HARNESS [--runs 1000000] [--timeout 10] [--corpus DIR]
                       [--artifacts DIR] [--max-len 4096] [-- LIBFUZZER_FLAGS...]

The harness's seeds (``harnesses.seeds``) are written into the corpus
folder first.  atheris instruments all loaded Python code (fastplay, sgfmill, numpy's
Python parts) for coverage (the compiled core is not instrumented: that needs a clang build);
an exception out of the harness, a crash or an input that runs longer than
``--timeout`` seconds stops the run and leaves the input in ``--artifacts``.
libFuzzer's final statistics (``-print_final_stats=1``) give the inputs
tried; ``fuzz/campaign.py`` runs every harness and collects them.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import atheris

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harnesses  # noqa: E402

# Every module a harness reaches, loaded now so that instrument_all() sees it.
for _module in ("fastplay.patterns", "fastplay.sgf", "fastplay.board", "fastplay.gtp",
                "fastplay.analysis.engine", "fastplay.search", "fastplay.prior",
                "fastplay.montecarlo", "fastplay.diagram", "sgfmill.sgf"):
    __import__(_module)
atheris.instrument_all()


def main() -> None:
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("harness", choices=sorted(harnesses.HARNESSES))
    parser.add_argument("--runs", type=int, default=1_000_000)
    parser.add_argument("--timeout", type=int, default=10, help="seconds per input")
    parser.add_argument("--max-len", type=int, default=4096, help="bytes per input")
    parser.add_argument("--corpus", type=Path, default=None,
                        help="corpus folder (default fuzz-corpus/HARNESS)")
    parser.add_argument("--artifacts", type=Path, default=Path("fuzz-artifacts"))
    args = parser.parse_args(argv)
    corpus = args.corpus or Path("fuzz-corpus") / args.harness
    corpus.mkdir(parents=True, exist_ok=True)
    args.artifacts.mkdir(parents=True, exist_ok=True)
    for data in harnesses.seeds(args.harness):
        (corpus / f"seed-{hashlib.sha1(data).hexdigest()[:16]}").write_bytes(data)
    check = harnesses.HARNESSES[args.harness]
    flags = [sys.argv[0], f"-runs={args.runs}", f"-timeout={args.timeout}",
             f"-max_len={args.max_len}", "-print_final_stats=1",
             f"-artifact_prefix={args.artifacts}/{args.harness}-", *extra, str(corpus)]
    atheris.Setup(flags, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
