"""Result files written whole or not at all.

A tuned ``.db`` or a decision benchmark is written to a temporary file in
the target's folder and renamed over the target, so that a failed write
leaves the old file as it was.  The rename replaces whatever the name
points to, so two cases are handled first (a tester's findings: ``fastplay
tune mm ... --out /dev/full`` made ``/dev/full`` a regular file, and a
symbolic link was replaced by a file while its target stayed old):

* a symbolic link is followed: its target is written, the link stays;
* a name that exists but is not a regular file (a device, a FIFO, a
  socket, a directory) is refused.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["overwrites_input", "write_whole", "writable_folder"]


def writable_folder(path: str | os.PathLike[str]) -> None:
    """Make the folder ``path`` (and its parents) if it is missing, and
    check that a file can be written in it, before any work whose results
    go there (a tester's ``--sgf-dir /sys`` failed only after the
    searches).  Raises ``OSError`` naming the folder."""
    os.makedirs(path, exist_ok=True)
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write in this folder: {exc.strerror or exc}",
                      os.fspath(path)) from None


def write_whole(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file renamed over it.

    A new file gets the permissions the umask allows (``0o666 & ~umask``),
    a replaced one keeps its own.

    Returns:
        The file written (``path`` with its symbolic links followed).

    Raises:
        OSError: the folder is missing or not writable, the disk is full, or
            ``path`` exists and is not a regular file (the message says so);
            nothing is left behind.
    """
    target = Path(os.path.realpath(path))
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    except OSError:
        mode = None
    if target.exists() and not target.is_file():
        raise OSError(f"{os.fspath(path)}: not a regular file (a directory, a device, a FIFO "
                      f"or a socket)")
    if mode is None:
        umask = os.umask(0)    # read it: the temporary file is made 0600
        os.umask(umask)
        mode = 0o666 & ~umask
    handle = tempfile.NamedTemporaryFile("wb", dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".tmp", delete=False)
    try:
        with handle:
            handle.write(data)
        os.chmod(handle.name, mode)
        os.replace(handle.name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise
    return target


def overwrites_input(path: str | os.PathLike[str], files: Iterable[str | os.PathLike[str]],
                     folders: Iterable[str | os.PathLike[str]] = (),
                     pattern: str = "*.sgf") -> bool:
    """Whether writing ``path`` would overwrite an input: one of ``files``,
    or a file matching ``pattern`` (as ``Path.rglob`` finds records) in
    one of the input ``folders``, searched recursively.  Symbolic links are
    followed on both sides; names that do not exist are no inputs.  (A
    tester's ``fastplay tune mm games --out games/keep.sgf`` replaced one of
    the records it had just read with a ``.db`` file.)"""
    target = Path(os.path.realpath(path))
    if any(os.path.isfile(f) and Path(os.path.realpath(f)) == target for f in files):
        return True
    if not target.is_file() or not target.match(pattern):
        return False
    return any(os.path.isdir(d) and target.is_relative_to(os.path.realpath(d)) for d in folders)
