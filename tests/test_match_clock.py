"""The referee's clocks (fastplay.match_clock): sudden death and Canadian byo-yomi."""

from __future__ import annotations

import pytest

from fastplay.match_clock import GameClock, TimeControl


def test_parse_sudden_death_and_canadian() -> None:
    assert TimeControl.parse("30") == TimeControl(30.0)
    assert TimeControl.parse(" 60+10/5 ") == TimeControl(60.0, 10.0, 5)
    assert TimeControl.parse("0+30/1") == TimeControl(0.0, 30.0, 1)
    assert TimeControl.parse("60+10/5").gtp() == "time_settings 60 10 5"
    assert TimeControl.parse("30").gtp() == "time_settings 30 0 0"
    for text in ("30", "60+10/5", "0+1/2"):
        assert TimeControl.parse(TimeControl.parse(text).spec()) == TimeControl.parse(text)


@pytest.mark.parametrize("text", ["", "abc", "10+5", "10+5/", "-1", "nan", "inf", "0",
                                  "60+0/5", "60+10/0", "1e3", "60 + 10 / 5 / 2", "3.5",
                                  "60+2.5/5", "9" * 300])
def test_parse_refuses_what_is_no_time_control(text: str) -> None:
    with pytest.raises(ValueError, match="time control"):
        TimeControl.parse(text)


def test_sudden_death_flag_falls() -> None:
    clock = GameClock(TimeControl(30.0))
    assert clock.stop("B", 10.0) and clock.stop("B", 15.0)
    assert clock.time_left("B") == (5.0, 0) and clock.gtp_time_left("B") == "time_left b 5 0"
    assert clock.time_left("W") == (30.0, 0)
    assert clock.available("B") == 5.0
    assert not clock.stop("B", 6.0)


def test_canadian_periods_run_and_restart() -> None:
    clock = GameClock(TimeControl(60.0, 10.0, 5))
    assert clock.stop("W", 59.0)
    assert clock.available("W") == pytest.approx(11.0)   # main time left plus a period
    # Main time runs out 4 s into this move: it is the first stone of the first period.
    assert clock.stop("W", 5.0)
    assert clock.time_left("W") == (pytest.approx(6.0), 4)
    for _ in range(4):
        assert clock.stop("W", 1.0)
    assert clock.time_left("W") == (10.0, 5)              # a new period
    assert clock.gtp_time_left("W") == "time_left w 10 5"
    assert not clock.stop("W", 10.5)
    assert clock.sides["W"].used == pytest.approx(59 + 5 + 4 + 10.5)


def test_stop_before_start_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        GameClock(TimeControl(1.0)).stop("B")


@pytest.mark.parametrize("text", ["x", "0", "60+10", "-5"])
def test_the_command_line_refuses_a_bad_time_control(text: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from fastplay.cli import main

    assert main(["match", "engine-a", "engine-b", "--time", text]) == 2
    err = capsys.readouterr().err
    assert "--time" in err and "time control" in err and "Traceback" not in err


def test_gtp_gets_whole_seconds() -> None:
    """A tester's --time 3.5 sent 'time_settings 3.5 0 0', which GNU Go and fastplay
    refuse, and 1000000 went out as 1e+06: the engines never knew their clock."""
    assert TimeControl.parse("1000000").gtp() == "time_settings 1000000 0 0"
    assert TimeControl.parse("1234567+30/2").gtp() == "time_settings 1234567 30 2"


def test_byo_yomi_from_the_start_and_after_main_time_used_up_exactly() -> None:
    clock = GameClock(TimeControl.parse("0+10/5"))
    assert clock.gtp_time_left("B") == "time_left b 10 5"
    clock = GameClock(TimeControl.parse("5+10/5"))
    assert clock.stop("W", 5.0)
    assert clock.gtp_time_left("W") == "time_left w 10 5"
