"""Local contexts and move values against GNU Go 3.8, point by point (oracle positions).

Every record of ``shared/oracle/positions/*.jsonl.gz`` (3,965 positions on
9x9, 13x13 and 19x19) is rebuilt on a :class:`fastplay.Board`: the previous
board is set up and the last move played, so that the near set and the ko point
come from the board's own move logic.  Then, at every empty point, legality,
the near flag, both capture counts, both self-atari flags, both suicide flags,
the table index and the weight under all six databases must equal what GNU Go
recorded: 0 mismatches.  Everything is compared as whole arrays per position
and the mismatches are tallied per field, so one failure report shows them all.
"""

from __future__ import annotations

import gzip
import json
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from conftest import shared_path
from fastplay import Board
from fastplay.patterns import PatternDatabase, PatternWarning, local_contexts

SIZES = (9, 13, 19)
EXPECTED_POSITIONS = {9: 3005, 13: 445, 19: 515}
BUILTINS = ("mc_uniform", "mc_mogo_classic", "mc_montegnu_classic")
CUSTOM = ("custom_symbols", "custom_properties", "custom_quirks")
FIELDS = ("board", "ko", "ko_illegal", "to_move", "ctx", "near_mask", "legal", "near", "ocap",
          "xcap", "o_self_atari", "x_self_atari", "o_suicide", "x_suicide", "pattern",
          *(f"values[{n}]" for n in BUILTINS + CUSTOM), "move_values", "context")


@dataclass
class Tally:
    positions: Counter[int] = field(default_factory=Counter)
    points: int = 0
    mismatches: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def check(self, name: str, rid: str, ours: np.ndarray, theirs: np.ndarray) -> None:
        bad = np.flatnonzero(np.asarray(ours).reshape(-1) != np.asarray(theirs).reshape(-1))
        if bad.size:
            self.mismatches[name] += int(bad.size)
            ex = self.examples.setdefault(name, [])
            if len(ex) < 5:
                k = int(bad[0])
                ex.append(f"{rid} point {k}: ours {np.asarray(ours).reshape(-1)[k]} "
                          f"GNU Go {np.asarray(theirs).reshape(-1)[k]}")


def records(size: int) -> Iterator[dict[str, Any]]:
    path = shared_path("oracle", "positions", f"positions_{size}x{size}.jsonl.gz")
    with gzip.open(path, "rt") as fh:
        for line in fh:
            yield json.loads(line)


def stones(rows: list[str]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    black = [(i, j) for i, r in enumerate(rows) for j, ch in enumerate(r) if ch == "X"]
    white = [(i, j) for i, r in enumerate(rows) for j, ch in enumerate(r) if ch == "O"]
    return black, white


def digits(text: str) -> np.ndarray:
    """Record digit strings as ints, ``-1`` where the record has ``-`` (stones)."""
    a = np.frombuffer(text.encode(), dtype=np.uint8).astype(np.int64) - ord("0")
    a[a == ord("-") - ord("0")] = -1
    return a


def build(r: dict[str, Any]) -> Board:
    size = r["size"]
    b = Board(size)
    last = r["last_move"]
    if last is None:
        black, white = stones(r["board"])
        b.setup(black=black, white=white, to_move=r["to_move"])
    else:
        black, white = stones(r["prev_board"])
        b.setup(black=black, white=white, to_move="W" if r["to_move"] == "B" else "B")
        b.play("pass" if last == "pass" else tuple(last))
    return b


@pytest.fixture(scope="module")
def databases() -> dict[str, PatternDatabase]:
    dbs = {n: PatternDatabase.builtin(n) for n in BUILTINS}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PatternWarning)
        for n in CUSTOM:
            # custom_quirks relies on GNU Go's quirks: compatibility mode
            dbs[n] = PatternDatabase.from_file(shared_path("oracle", "tables", f"{n}.db"),
                                               strict=False)
    return dbs


@pytest.fixture(scope="module")
def tally(databases: dict[str, PatternDatabase]) -> Tally:
    t = Tally()
    rng = np.random.default_rng(3)
    for size in SIZES:
        for r in records(size):
            rid = r["id"]
            b = build(r)
            t.positions[size] += 1
            n = size * size
            board_chars = np.frombuffer("".join(r["board"]).encode(), dtype=np.uint8)
            ours_board = b.to_numpy().reshape(-1)
            theirs_board = np.select([board_chars == ord("X"), board_chars == ord("O")],
                                     [1, -1], 0)
            t.check("board", rid, ours_board, theirs_board)
            ko = -1 if r["ko"] is None else r["ko"][0] * size + r["ko"][1]
            t.check("ko", rid, np.array([b.ko_index]), np.array([ko]))
            mover = 2 if r["to_move"] == "B" else 1
            t.check("to_move", rid, np.array([b.to_move_code]), np.array([mover]))
            if ko >= 0:
                t.check("ko_illegal", rid, np.array([bool(b.ko_forbidden_for(mover))]),
                        np.array([r["ko_illegal"]]))
            t.check("ctx", rid, np.asarray(b.contexts()), np.array(r["ctx"]))
            empty = digits(r["legal"]) >= 0
            t.points += int(empty.sum())
            t.check("near_mask", rid, np.asarray(b.near_mask()).astype(np.int64) * empty,
                    np.maximum(digits(r["near"]), 0))

            lc = local_contexts(b)
            stone = ~empty

            def as_digits(a: np.ndarray) -> np.ndarray:
                return np.where(stone, -1, a.reshape(-1).astype(np.int64))

            for name in ("legal", "near", "ocap", "xcap", "o_self_atari", "x_self_atari",
                         "o_suicide", "x_suicide"):
                t.check(name, rid, as_digits(getattr(lc, name)), digits(r[name]))
            t.check("pattern", rid, lc.index.reshape(-1), np.array(r["pattern"]))
            for name, db in databases.items():
                ours = np.where(stone, -1, db.move_values(b).reshape(-1).astype(np.int64))
                t.check(f"values[{name}]", rid, ours, np.array(r["values"][name]))
            # the Board-level entry points agree with the vectorised path
            default = databases["mc_montegnu_classic"]
            t.check("move_values", rid, default.move_values(b, color=r["to_move"]),
                    default.move_values(b))
            k = int(rng.choice(np.flatnonzero(empty))) if empty.any() else -1
            if k >= 0:
                ctx = default.context(b, k)
                want = (bool(digits(r["legal"])[k]), int(r["pattern"][k]),
                        int(digits(r["ocap"])[k]), int(digits(r["xcap"])[k]))
                got = (ctx.legal, ctx.index, ctx.ocap, ctx.xcap)
                t.check("context", rid, np.array(got), np.array(want))
                value = r["values"]["mc_montegnu_classic"][k]
                t.check("context", rid, np.array([ctx.value if ctx.legal else 0]),
                        np.array([value]))
    return t


def test_all_positions_read(tally: Tally) -> None:
    assert dict(tally.positions) == EXPECTED_POSITIONS
    assert tally.points == 235_829


@pytest.mark.parametrize("name", FIELDS)
def test_zero_mismatches(tally: Tally, name: str) -> None:
    assert tally.mismatches[name] == 0, "\n".join(tally.examples.get(name, []))
