"""The fuzz harnesses (``fuzz/``, issue 21): a seeded smoke run of each in CI,
and the bugs the campaigns found, one regression test each.

The smoke run feeds every harness its seeds and a few hundred seeded
mutations (``fuzz/smoke.py``); a harness fails on any exception its input's
contract does not list, a broken round trip or an inconsistent board.  The
long coverage-guided campaigns (``fuzz/run.py``, ``fuzz/campaign.py``) run
outside CI; their figures are in ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

import fastplay as fp

FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ))

import harnesses  # noqa: E402
import smoke  # noqa: E402

#: Mutations per harness: the whole smoke run stays well under a minute.
SMOKE_INPUTS = {"db": 150, "sgf": 300, "gtp": 150, "analysis": 150, "board": 300,
                "playouts": 200, "prior": 150}


@pytest.mark.parametrize("name", sorted(harnesses.HARNESSES))
def test_smoke(name: str, tmp_path: Path, shared: Path) -> None:
    # (``shared``: the seeds come from ../shared; its absence fails with the
    # fixture's message, not a FileNotFoundError from a harness)
    tried, failure = smoke.run(name, SMOKE_INPUTS[name], seed=1, out=tmp_path)
    assert failure is None, failure
    assert tried >= SMOKE_INPUTS[name]


def test_a_harness_reports_an_undocumented_exception(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The smoke driver is not blind: a harness that raises is a failure, and
    the input that did it is saved."""
    def broken(data: bytes) -> None:
        if len(data) > 3:
            raise KeyError("boom")

    monkeypatch.setitem(harnesses.HARNESSES, "board", broken)
    tried, failure = smoke.run("board", 5, seed=1, out=tmp_path)
    assert failure is not None and "KeyError" in failure
    assert list(tmp_path.iterdir())


# -- regressions found by the fuzzers ------------------------------------------------

@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, 2**64, -2**63 - 1, 10**100, 2.0])
@pytest.mark.parametrize("method, args", [
    ("captures_of", ()), ("ko_forbidden_for", ()), ("set_to_move", ()),
    ("legality_index", (0,)), ("is_legal_index", (0,)), ("play_index", (0,)),
    ("set_ko_index", (0,))])
def test_colour_code_out_of_range_is_a_value_error(method: str, args: tuple[int, ...],
                                                   bad: object) -> None:
    """fuzz/harnesses.py check_board: a colour code too large for a C int (or
    infinite) raised OverflowError, which no Board method documents."""
    board = fp.Board(9)
    with pytest.raises(ValueError, match="colour code"):
        getattr(board, method)(*args, bad)
    board.check_integrity()


def test_a_root_property_of_lower_case_letters_only_is_not_kept(tmp_path: Path) -> None:
    """fuzz/run.py sgf (campaign): an FF[3] property named in lower-case letters
    only (``a[hd]``) became the key '' of ``sgf_properties``, which the record
    then could not be written with (ValueError from ``to_sgf``).  It is
    warned of (the seventeenth session: such a name can hide a move)."""
    with pytest.warns(fp.sgf.SGFWarning, match="lower-case letters only"):
        board = fp.Board.from_sgf(b"(;GM[1]FF[3]SZ[9]a[hd]GaMe[1]PB[x];B[be];W[bf])")
    assert "" not in board.sgf_properties and board.sgf_properties["PB"] == "x"
    again = fp.Board.from_sgf(board.to_sgf())
    assert again == board


def test_a_record_whose_first_move_is_not_the_player_to_move_writes_back_the_same() -> None:
    """fuzz/run.py sgf (campaign): PL[B] at the root and White's move first was
    written without the PL, so reading the record back gave another starting
    player and writing it again another record."""
    board = fp.Board.from_sgf(b"(;GM[1]FF[4]SZ[9]PL[B];W[ac];B[ad])")
    text = board.to_sgf()
    again = fp.Board.from_sgf(text)
    assert again == board and again.to_sgf() == text and "PL[B]" in text


def test_a_campaign_sets_aside_a_timeout_that_does_not_replay(tmp_path: Path) -> None:
    """fuzz/campaign.py: a timed-out input that replays natively in time was
    a stall of the host (2026-12-03: a prior input stalled 41 s beside other
    jobs and replays in 0.09 s); one that fails or times out on a replay is
    not forgiven, and neither is one stall too many."""
    import campaign

    seed = next(iter(harnesses.seeds("prior")))
    artifacts = tmp_path / "artifacts"
    artifacts.mkdir()
    (artifacts / "prior-timeout-1").write_bytes(seed)
    stalls: list[dict[str, object]] = []
    assert campaign._forgiven("prior", tmp_path, 60.0, stalls)
    assert (artifacts / "unreproduced" / "prior-timeout-1").exists()
    assert stalls[0]["artifact"] == "prior-timeout-1"
    assert 0 < float(stalls[0]["replay_seconds"]) < 60     # type: ignore[arg-type]
    (artifacts / "prior-timeout-2").write_bytes(seed)
    assert not campaign._forgiven("prior", tmp_path, 1e-3, stalls)   # times out again
    assert (artifacts / "prior-timeout-2").exists()
    assert campaign.replay("no-such-harness", artifacts / "prior-timeout-2", 60.0) is None
    assert not campaign._forgiven("prior", tmp_path, 60.0,
                                  [{}] * campaign.MAX_STALLS)   # stalls used up


def test_the_campaign_ledger_adds_up_the_campaigns_of_a_harness(tmp_path: Path) -> None:
    """fuzz/campaign.py: the inputs of every recorded campaign of a harness
    count towards its total (the slow harnesses reach 10^6 over sessions)."""
    import campaign

    first = campaign.record(tmp_path, {"harness": "gtp", "inputs": 30_000})
    assert first["total_inputs"] == 30_000 and first["campaigns"] == 1
    second = campaign.record(tmp_path, {"harness": "gtp", "inputs": 12_345})
    assert second["total_inputs"] == 42_345 and second["campaigns"] == 2
    assert second["inputs"] == 12_345
    lines = (tmp_path / "ledger.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all('"commit"' in line and '"date"' in line for line in lines)
