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

__all__ = ["MAX_INPUT_BYTES", "read_input", "check_regular"]

#: The largest input file read, in bytes (64 MiB): GNU Go's own ``.db`` files
#: are under 1 MiB, and the largest real SGF collections a few MiB.
MAX_INPUT_BYTES = 64 << 20


def check_regular(path: str | os.PathLike[str], what: str = "input file") -> None:
    """Refuse ``path`` unless it is a regular file (after symbolic links): a
    named pipe, a device or a socket where a caller expects a file it found
    (a record in a folder) or was given by a program (GTP's ``loadsgf``)
    would block or never end.  Raises ``OSError`` (``errno.EINVAL``, naming
    ``what``) for such a path, and the ``stat`` error (missing, no
    permission; a name the file system cannot encode as :func:`read_input`)
    otherwise; a path that is a regular file passes."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except UnicodeEncodeError:
        raise _unencodable(path, what) from None
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, f"not a regular file (as {what}s here must be)",
                      os.fspath(path))


def read_input(path: str | bytes | os.PathLike[str], what: str = "input file",
               limit: int = MAX_INPUT_BYTES, regular: bool = False) -> bytes:
    """The bytes of ``path`` (``bytes`` as ``open`` takes them, decoded by
    ``os.fsdecode``), read in one pass, at most ``limit`` of them
    (``regular``: only from a regular file, :func:`check_regular`).

    Raises:
        OSError: the file cannot be opened or read (its own errno), or it holds
            more than ``limit`` bytes (``errno.EFBIG``, naming ``what``, the
            path and the limit).
        FileNotFoundError: an empty path (which ``pathlib`` would take for
            the current folder), a name the file system's encoding cannot
            write (a lone surrogate) or with a NUL byte, naming ``what``.
    """
    path = os.fsdecode(path)        # TypeError for what is no path
    if path == "":
        raise FileNotFoundError(errno.ENOENT, f"no {what} given (an empty file name)", "")
    if "\0" in path:
        raise FileNotFoundError(errno.ENOENT, f"no such {what} (a file name holds no NUL "
                                "byte)", path)
    if regular:
        check_regular(path, what)
    try:
        stream = open(Path(path), "rb")
    except UnicodeEncodeError:
        raise _unencodable(path, what) from None
    with stream:
        try:
            data = stream.read(limit + 1)
        except OSError as exc:      # (EIO from /proc/self/mem): named as open's errors are
            raise OSError(exc.errno, exc.strerror, path) from None
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"{what} is larger than {limit:,} bytes, the most "
                      "fastplay reads", str(path))
    return data


def _unencodable(path: str | os.PathLike[str], what: str) -> FileNotFoundError:
    """The error for a name with a lone surrogate, which the file system's
    encoding cannot write: no file can have that name."""
    return FileNotFoundError(errno.ENOENT, f"no such {what} (its name cannot be encoded for "
                             "the file system)", os.fspath(path))
