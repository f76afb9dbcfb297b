"""Input files are read with a size bound: an endless or huge file is a clear
``OSError`` (``EFBIG``), never an exhausted memory; a pipe still reads."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

import fastplay as fp
from fastplay.inputfile import read_input

ENDLESS = Path("/dev/zero")


@pytest.mark.skipif(not ENDLESS.exists(), reason="needs /dev/zero (a POSIX system)")
@pytest.mark.parametrize("load, what", [
    (lambda: fp.PatternDatabase.from_file(ENDLESS), "pattern database"),
    (lambda: fp.Board.from_sgf(ENDLESS), "SGF file"),
])
def test_an_endless_file_is_a_clear_error(load: object, what: str) -> None:
    with pytest.raises(OSError, match=what) as caught:
        load()  # type: ignore[operator]
    assert caught.value.errno == errno.EFBIG and caught.value.filename == str(ENDLESS)


def test_the_bound_is_exact(tmp_path: Path) -> None:
    path = tmp_path / "ten.sgf"
    path.write_bytes(b"0123456789")
    assert read_input(path, limit=10) == b"0123456789"
    with pytest.raises(OSError, match="larger than 9 bytes"):
        read_input(path, limit=9)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_named_pipe_with_a_writer_reads(tmp_path: Path) -> None:
    fifo = tmp_path / "game.sgf"
    os.mkfifo(fifo)
    record = b"(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc])"

    def write() -> None:
        with open(fifo, "wb") as out:
            out.write(record)

    writer = threading.Thread(target=write)
    writer.start()
    board = fp.Board.from_sgf(fifo)
    writer.join()
    assert board.move_number == 2 and board.komi == 7.0


# An SGF's memory is bounded by its nodes, not its bytes: sgfmill keeps about
# 900 bytes a node (a tester's 8 MiB of passes took 1.8 GB).
def _passes(nodes: int) -> bytes:
    return b"(;GM[1]SZ[9]" + b";B[]" * (nodes - 1) + b")"


def test_a_record_of_too_many_nodes_is_refused_before_parsing(tmp_path: Path) -> None:
    from fastplay.sgf import MAX_NODES, SGFError, load_board

    with pytest.raises(SGFError, match=f"{MAX_NODES + 1:,} nodes, more than the {MAX_NODES:,}"):
        load_board(_passes(MAX_NODES + 1))
    record = tmp_path / "passes.sgf"
    record.write_bytes(_passes(MAX_NODES + 1))
    from fastplay.prior import collect_samples

    with pytest.raises(SGFError, match=f"{record}: .* nodes"):
        collect_samples([record], None, size=9)


def test_semicolons_inside_values_are_not_nodes() -> None:
    from fastplay.sgf import MAX_NODES, check_nodes, load_board

    comment = b"C[" + b"a;\\];" * MAX_NODES + b"]"
    check_nodes(b"(;GM[1]SZ[9]" + comment + b";B[cc])")
    board = load_board(b"(;GM[1]SZ[9]" + comment + b";B[cc])")
    assert board.sgf_properties["C"].count(";") == 2 * MAX_NODES


def test_the_node_bound_is_exact() -> None:
    from fastplay.sgf import MAX_NODES, check_nodes

    check_nodes(_passes(MAX_NODES))


def test_a_read_error_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error of ``read`` (EIO, as ``/proc/self/mem`` gives) carried no file
    name, so ``fastplay analyze`` said only "Input/output error" (a tester)."""
    path = tmp_path / "g.sgf"
    path.write_bytes(b"(;GM[1]SZ[9])")

    class Failing:
        def __init__(self, *args: object) -> None:
            pass

        def __enter__(self) -> Failing:
            return self

        def __exit__(self, *args: object) -> None:
            pass

        def read(self, size: int) -> bytes:
            raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr("fastplay.inputfile.open", Failing, raising=False)
    with pytest.raises(OSError) as caught:
        read_input(path, "SGF file")
    assert (caught.value.errno, caught.value.filename) == (errno.EIO, str(path))
