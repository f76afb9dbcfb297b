"""Reading a user's input file (a ``.db`` pattern database, an SGF record) with a size bound.

A path may name anything the system can open: a regular file, a pipe
(``<(zcat games.sgf.gz)``), ``/dev/stdin``, or ``/dev/zero``.  The readers
here read at most :data:`MAX_INPUT_BYTES` and raise an ``OSError`` with
``errno.EFBIG`` beyond it, so an endless or huge input ends with a clear
error instead of exhausting memory.  (Opening a named pipe that no process
writes to waits for a writer, as ``cat`` does: that is the pipe's contract.)
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

__all__ = ["MAX_INPUT_BYTES", "read_input"]

#: The largest input file read, in bytes (64 MiB): GNU Go's own ``.db`` files
#: are under 1 MiB, and the largest real SGF collections a few MiB.
MAX_INPUT_BYTES = 64 << 20


def read_input(path: str | os.PathLike[str], what: str = "input file",
               limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path``, read in one pass, at most ``limit`` of them.

    Raises:
        OSError: the file cannot be opened or read (its own errno), or it holds
            more than ``limit`` bytes (``errno.EFBIG``, naming ``what``, the
            path and the limit).
        FileNotFoundError: an empty path (which ``pathlib`` would take for
            the current folder), or a name the file system's encoding cannot
            write (a lone surrogate), naming ``what``.
    """
    if os.fspath(path) in ("", b""):
        raise FileNotFoundError(errno.ENOENT, f"no {what} given (an empty file name)", "")
    try:
        stream = open(Path(path), "rb")
    except UnicodeEncodeError:
        # A lone surrogate that the file system's encoding cannot write: no
        # file can have that name.
        raise FileNotFoundError(errno.ENOENT, f"no such {what} (its name cannot be "
                                "encoded for the file system)", os.fspath(path)) from None
    with stream:
        data = stream.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"{what} is larger than {limit:,} bytes, the most "
                      "fastplay reads", str(path))
    return data
