"""The test suite and every fuzz harness's smoke run on a sanitizer build of the core.

    python fuzz/sanitize.py [--sanitize address,undefined] [--work DIR]
                            [--smoke-inputs 200] [-- PYTEST_ARGS...]

The tracked files of this checkout (uncommitted edits included) are copied
to ``--work`` (a fresh temporary folder by default), the core is built there
in place with ``FASTPLAY_SANITIZE`` (``setup.py``: ``-fsanitize=...
-fno-sanitize-recover=all -O1 -g``), and ``pytest`` and ``fuzz/smoke.py``
run against that build with gcc's sanitizer runtimes preloaded (all tests
but the resident-memory check, which ASan's quarantine defeats; CPython
itself is not instrumented, so its own allocations are not checked, and
leak detection is off: the interpreter keeps memory until exit by design).
Any sanitizer report aborts the process, so a failing run names the first
error.  Exit status 0 when both runs pass.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def runtime(name: str) -> str:
    """The path of gcc's sanitizer runtime ``name`` (``libasan.so``, ``libubsan.so``)."""
    path = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True,
                          check=True).stdout.strip()
    if not os.path.isabs(path):
        raise SystemExit(f"gcc has no {name}: install its sanitizer runtime")
    return path


def copy_checkout(work: Path) -> None:
    """The tracked files of the checkout (and ../shared stays where it is)."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def sanitized_env(sanitize: str, work: Path) -> dict[str, str]:
    """The environment of a process that loads the sanitized core."""
    preload = [runtime("libasan.so")] if "address" in sanitize else []
    if "undefined" in sanitize:
        preload.append(runtime("libubsan.so"))
    env = dict(os.environ)
    # Ray's own setproctitle (``spt_setup`` in ``ray/_raylet.so``) reads past
    # a heap block in ``strcmp`` when a worker starts: not fastplay's code,
    # and a worker stopped by it leaves the Ray tests waiting for ever.
    suppressions = work / "asan-suppressions.txt"
    suppressions.write_text("interceptor_via_lib:_raylet.so\n")
    env.update({
        "PYTHONPATH": str(work / "src"),
        "LD_PRELOAD": " ".join(preload),
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:symbolize=1:verify_asan_link_order=0"
                        f":suppressions={suppressions}",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    })
    return env


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    pytest_args = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sanitize", default="address,undefined")
    parser.add_argument("--work", type=Path, default=None,
                        help="build folder (default: a fresh temporary one, removed after)")
    parser.add_argument("--smoke-inputs", type=int, default=200)
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="fastplay-sanitize-"))
    copy_checkout(work)
    build_env = dict(os.environ, FASTPLAY_SANITIZE=args.sanitize)
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-j", "2"], cwd=work,
                   env=build_env, check=True, capture_output=True)
    env = sanitized_env(args.sanitize, work)
    # The checks of resident memory (marked ``resident_memory``) are left
    # out: ASan keeps freed memory in its quarantine (256 MB by default), so
    # RSS grows by design under it.
    default = ["tests", "-m", "not resident_memory"]
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            *(pytest_args or default)], cwd=work, env=env)
    smoke = subprocess.run([sys.executable, "fuzz/smoke.py", "--inputs", str(args.smoke_inputs),
                            "--out", str(work / "fuzz-failures")], cwd=work, env=env)
    print(f"sanitizers {args.sanitize}: pytest exit {tests.returncode}, "
          f"fuzz smoke exit {smoke.returncode} (build in {work})")
    if args.work is None and tests.returncode == 0 and smoke.returncode == 0:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if tests.returncode == 0 and smoke.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
