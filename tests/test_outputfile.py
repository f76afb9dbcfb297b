"""fastplay.outputfile: result files written whole, never over a device."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from fastplay.outputfile import write_whole


def test_a_file_is_written_whole_and_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "out.db"
    assert write_whole(target, b"one") == target
    assert target.read_bytes() == b"one"
    target.chmod(0o640)
    write_whole(str(target), b"two")
    assert target.read_bytes() == b"two" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.db"]   # no temporary left


def test_a_link_is_followed_and_special_files_are_refused(tmp_path: Path) -> None:
    """A tester's findings: --out /dev/full became a regular file, and a
    symbolic link was replaced while its target stayed as it was."""
    real = tmp_path / "real.db"
    link = tmp_path / "link.db"
    link.symlink_to(real)
    assert write_whole(link, b"data") == real
    assert link.is_symlink() and real.read_bytes() == b"data"
    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)
    for special in (fifo, tmp_path):
        with pytest.raises(OSError, match="not a regular file"):
            write_whole(special, b"x")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo.db", "link.db", "real.db"]


def test_a_failed_write_leaves_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "out.db"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        write_whole(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.db"]
