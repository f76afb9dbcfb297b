"""Coverage-guided fuzzing of one harness with atheris (libFuzzer); outside CI.

    python fuzz/run.py HARNESS [--runs 1000000] [--timeout 10] [--corpus DIR]
                       [--artifacts DIR] [--max-len 4096] [-- LIBFUZZER_FLAGS...]

The harness's seeds (``harnesses.seeds``) are written into the corpus
folder first.  atheris instruments the Python code of fastplay, sgfmill and the
harnesses for coverage (:data:`INSTRUMENTED`; the compiled core is not
instrumented: that needs a clang build);
an exception out of the harness, a crash or an input that runs longer than
``--timeout`` seconds stops the run and leaves the input in ``--artifacts``.
libFuzzer's final statistics (``-print_final_stats=1``) give the inputs
tried; ``fuzz/campaign.py`` runs every harness and collects them.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import importlib
import pkgutil
import sys
import types
from pathlib import Path

import atheris  # type: ignore[import-untyped]  # no stubs on PyPI's atheris

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import harnesses  # noqa: E402

#: The code whose coverage guides the fuzzer: the project's and the SGF
#: reader's.  Instrumenting everything loaded (``atheris.instrument_all``:
#: numpy's and the standard library's Python too, 6,102 functions) took 20-40 s
#: at every start of ``run.py``, twice the time of a 4,000-input chunk of the
#: db harness (benchmarks/RESULTS.md, "Fuzzing").
INSTRUMENTED = ("fastplay", "sgfmill", "harnesses", "provider")


def instrument(prefixes: tuple[str, ...] = INSTRUMENTED) -> int:
    """Instrument every loaded Python function of the modules named by
    ``prefixes`` (and their submodules); how many."""
    count = 0
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType) and isinstance(obj.__code__, types.CodeType):
            module = getattr(obj, "__module__", None) or ""
            if module.split(".")[0] in prefixes and module in sys.modules:
                atheris.instrument_func(obj)
                count += 1
    return count


def load_all() -> None:
    """Import every module of fastplay (those whose optional dependencies are
    missing apart) and sgfmill's reader, so that :func:`instrument` sees the
    ones the harnesses import lazily too (the GTP analysis and handicap
    commands, the search's snapshots: a tester found them uninstrumented)."""
    import fastplay

    for info in pkgutil.walk_packages(fastplay.__path__, "fastplay."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:
            pass          # an optional dependency (the distributed backend, plotting)
    importlib.import_module("sgfmill.sgf")


load_all()
print(f"INFO: instrumented {instrument()} functions of {', '.join(INSTRUMENTED)}",
      file=sys.stderr)


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
    try:
        for data in harnesses.seeds(args.harness):
            (corpus / f"seed-{hashlib.sha1(data).hexdigest()[:16]}").write_bytes(data)
    except FileNotFoundError as exc:
        sys.exit(f"fuzz/run.py: the {args.harness} harness's seeds are read from the shared "
                 f"data, {harnesses.SHARED} (set FASTPLAY_SHARED): {exc.filename} is missing")
    check = harnesses.HARNESSES[args.harness]
    flags = [sys.argv[0], f"-runs={args.runs}", f"-timeout={args.timeout}",
             f"-max_len={args.max_len}", "-print_final_stats=1",
             f"-artifact_prefix={args.artifacts}/{args.harness}-", *extra, str(corpus)]
    atheris.Setup(flags, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
