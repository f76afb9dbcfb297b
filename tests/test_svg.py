"""``fastplay.svg``: pictures of boards and of search results (issue 17, item 4).

The SVG is parsed as XML and checked element by element (grid, star points,
coordinates, stones, last move, ko, ownership, labels), the inputs'
validation is checked message by message, and when ``rsvg-convert`` is on
the machine every size is rendered to PNG too.
"""

from __future__ import annotations

import dataclasses

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import fastplay
from fastplay import svg
from fastplay.board import COLUMNS, Board
from fastplay.search import MCTS

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def of_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def centre(e: ET.Element) -> tuple[float, float]:
    """An element's centre, to 0.1 user unit (a point is 24 units apart)."""
    if e.tag == f"{NS}circle":
        x, y = float(e.get("cx", "nan")), float(e.get("cy", "nan"))
    else:
        x = float(e.get("x", "nan")) + float(e.get("width", "0")) / 2
        y = float(e.get("y", "nan")) + float(e.get("height", "0")) / 2
    return round(x, 1), round(y, 1)


def point_xy(root: ET.Element, board: Board, vertex: str) -> tuple[float, float]:
    """Where the picture draws ``vertex``: from the coordinates' own positions."""
    coords = of_class(root, "coord")
    xs = {e.text: float(e.get("x", "nan")) for e in coords}
    ys = {e.text: float(e.get("y", "nan")) - 0.35 * float(e.get("font-size", "0"))
          for e in coords}
    return round(xs[vertex[0]], 1), round(ys[vertex[1:]], 1)


def sample_board() -> Board:
    board = Board(9)
    for move in ["E5", "C3", "G7", "D4", "pass", "F3"]:
        board.play(move)
    return board


# ---------------------------------------------------------------------------
# the picture


def test_board_document_and_repr_svg() -> None:
    board = sample_board()
    text = svg.board(board)
    assert text.startswith("<svg xmlns=\"http://www.w3.org/2000/svg\"") and text.endswith("</svg>\n")
    root = parse(text)
    assert "width" not in root.attrib and root.get("viewBox", "").startswith("0 0 ")
    assert board._repr_svg_() == text
    assert fastplay.svg is svg


@pytest.mark.parametrize("size, count", [(19, 9), (13, 5), (9, 5), (7, 5), (5, 1), (4, 0),
                                         (2, 0), (25, 9), (15, 9), (12, 4)])
def test_star_points(size: int, count: int) -> None:
    assert len(svg.star_points(size)) == count
    assert len(of_class(parse(svg.board(Board(size))), "star")) == count


def test_star_points_are_hoshi() -> None:
    def gtp(points: list[tuple[int, int]], n: int) -> set[str]:
        return {fastplay.format_vertex(r * n + c, n) for r, c in points}

    assert gtp(svg.star_points(19), 19) == {"D4", "K4", "Q4", "D10", "K10", "Q10",
                                             "D16", "K16", "Q16"}
    assert gtp(svg.star_points(13), 13) == {"D4", "K4", "G7", "D10", "K10"}
    assert gtp(svg.star_points(9), 9) == {"C3", "G3", "E5", "C7", "G7"}


def test_coordinates_gtp_letters_and_row_one_at_the_bottom() -> None:
    root = parse(svg.board(Board(19)))
    texts = [e.text for e in of_class(root, "coord")]
    letters = [t for t in texts if t and t.isalpha()]
    assert sorted(set(letters)) == sorted(COLUMNS[:19]) and "I" not in letters
    assert sorted({int(t) for t in texts if t and t.isdigit()}) == list(range(1, 20))
    assert len(texts) == 4 * 19            # all four sides
    y = {e.text: float(e.get("y", "nan")) for e in of_class(root, "coord")}
    assert y["1"] > y["19"]                # row 1 at the bottom
    x = {e.text: float(e.get("x", "nan")) for e in of_class(root, "coord")}
    assert x["A"] < x["H"] < x["J"] < x["T"]
    assert of_class(parse(svg.board(Board(19), coordinates=False)), "coord") == []


def test_stones_where_the_board_has_them() -> None:
    board = sample_board()
    root = parse(svg.board(board))
    for colour, code in (("black", 1), ("white", -1)):
        stones = of_class(root, colour)
        grid = board.to_numpy()
        assert len(stones) == int((grid == code).sum())
        want = {point_xy(root, board, fastplay.format_vertex(int(r) * 9 + int(c), 9))
                for r, c in np.argwhere(grid == code)}
        assert {centre(s) for s in stones} == want


def test_last_move_ring() -> None:
    board = sample_board()
    (ring,) = of_class(parse(svg.board(board)), "last-move")
    assert centre(ring) == point_xy(parse(svg.board(board)), board, "F3")
    assert ring.get("stroke") == svg.COLORS["last_on_white"]      # F3 is White's
    assert of_class(parse(svg.board(board, last_move=False)), "last-move") == []
    board.play("pass")
    assert of_class(parse(svg.board(board)), "last-move") == []
    assert of_class(parse(svg.board(Board(9))), "last-move") == []


def test_ko_point_marked() -> None:
    # Black F5 takes the white stone on E5: White may not take back at once
    board = Board.from_sgf("(;SZ[9]AB[ed][de][ef]AW[fd][ge][ff][ee];B[fe])")
    assert board.ko_point == "E5"
    root = parse(svg.board(board))
    (ko,) = of_class(root, "ko")
    assert centre(ko) == point_xy(root, board, "E5")
    board.play("A1")
    assert of_class(parse(svg.board(board)), "ko") == []


def test_size_sets_width_and_keeps_the_aspect() -> None:
    root = parse(svg.board(Board(9), size=360))
    assert root.get("width") == "360" and root.get("height") == "360"
    with pytest.raises(ValueError, match="positive"):
        svg.board(Board(9), size=0)
    with pytest.raises(TypeError, match="size"):
        svg.board(Board(9), size=3.5)  # type: ignore[arg-type]


def test_needs_a_board() -> None:
    with pytest.raises(TypeError, match="fastplay.Board"):
        svg.board("E5")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# ownership


def test_ownership_shading() -> None:
    board = sample_board()
    own = np.zeros((9, 9))
    own[0, 0] = 1.0          # A9, Black's
    own[8, 8] = -0.5         # J1, White's
    own[4, 4] = -0.9         # E5 is a black stone that White owns: dead
    root = parse(svg.board(board, ownership=own))
    shades = of_class(root, "ownership")
    assert len(shades) == 3
    by_place = {centre(s): s for s in shades}
    a9 = by_place[point_xy(root, board, "A9")]
    assert a9.get("fill") == svg.COLORS["black"] and float(a9.get("fill-opacity", "0")) == 0.75
    j1 = by_place[point_xy(root, board, "J1")]
    assert j1.get("fill") == svg.COLORS["white"]
    (dead,) = of_class(root, "dead")
    assert centre(dead) == point_xy(root, board, "E5")
    # the search's own ownership (float32) and nested lists are fine
    svg.board(board, ownership=own.astype(np.float32).tolist())


@pytest.mark.parametrize("own, message", [
    (np.zeros((8, 8)), r"shape \(9, 9\).*got \(8, 8\)"),
    (np.zeros(81), r"shape \(9, 9\)"),
    (np.full((9, 9), np.nan), r"NaN.*row 0, column 0 \(A9\)"),
    (np.where(np.eye(9) > 0, np.inf, 0.0), r"81|9 NaN or infinite"),
    (np.full((9, 9), 1.5), r"\[-1, 1\]: 1.5 at row 0, column 0"),
    ([["x"] * 9] * 9, "numbers"),
    (np.full((9, 9), 0.5j), "complex values"),   # dropped with a NumPy warning before
])
def test_bad_ownership(own: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        svg.board(Board(9), ownership=own)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# labels


def test_labels_escaped_and_placed() -> None:
    board = sample_board()
    labels = {"A1": "a", (0, 8): 12, "C3": "<b>&\"x'", 40: 0.25}   # C3, E5 hold stones
    text = svg.board(board, labels=labels)
    assert "<b>" not in text and "&lt;b&gt;&amp;" in text
    root = parse(text)
    drawn = {e.text: e for e in root.iter(f"{NS}text") if "label" in (e.get("class") or "")}
    assert set(drawn) == {"a", "12", "<b>&\"x'", "0.25"}
    # a disc under a label on an empty point hides the grid; none on a stone
    discs = [e for e in of_class(root, "label") if e.tag == f"{NS}circle"]
    assert len(discs) == 2   # A1 and J9; C3 and E5 (index 40) hold stones
    assert drawn["<b>&\"x'"].get("fill") == svg.COLORS["label_on_white"]   # W C3
    assert drawn["0.25"].get("fill") == svg.COLORS["label_on_black"]        # B E5
    x, _ = point_xy(root, board, "J9")
    assert round(float(drawn["12"].get("x", "nan")), 1) == x


def test_label_on_the_last_move_replaces_the_ring() -> None:
    board = sample_board()
    assert of_class(parse(svg.board(board, labels={"F3": "1"})), "last-move") == []


@pytest.mark.parametrize("labels, error, message", [
    ({"Z99": "x"}, ValueError, "Z99"),
    ({"J10": "x"}, ValueError, "off the 9x9 board"),
    ({"I5": "x"}, ValueError, "letter I"),
    ({"pass": "x"}, ValueError, "'pass' names no point"),
    ({(9, 0): "x"}, ValueError, "off the 9x9 board"),
    ({81: "x"}, ValueError, "81"),
    ({"D4": "x", (5, 3): "y"}, ValueError, "D4 twice"),
    ({"D4": "bell\x07"}, ValueError, "control character"),
    ({"D4": None}, TypeError, "text or a number"),
    ({"D4": True}, TypeError, "text or a number"),
    ({"D4": float("nan")}, ValueError, "finite number"),   # was drawn as "nan"
    (["D4"], TypeError, "mapping"),
])
def test_bad_labels(labels: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        svg.board(Board(9), labels=labels)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# search results


@pytest.fixture(scope="module")
def searched() -> tuple[Board, object]:
    from fastplay.analyze import bundled_game

    board = Board.from_sgf(bundled_game(), move_number=20)
    return board, MCTS(fastplay.PatternDatabase.default(), seed=2).run(board, playouts=600)


def test_search_result_shows_the_top_moves(searched: tuple[Board, object]) -> None:
    board, result = searched
    root = parse(svg.search_result(board, result, top=3))  # type: ignore[arg-type]
    # a numpy integer is an integer, as board()'s size takes one
    assert svg.search_result(board, result, top=np.int64(3)) == \
        svg.search_result(board, result, top=3)  # type: ignore[arg-type]
    discs = [e for e in of_class(root, "candidate") if e.tag == f"{NS}circle"]
    children = [c for c in result.children if c.visits > 0][:3]  # type: ignore[attr-defined]
    on_board = [c for c in children if c.move != "pass"]
    assert len(discs) == len(on_board)
    (best,) = [e for e in discs if "best" in (e.get("class") or "")]
    assert centre(best) == point_xy(root, board, result.best_move.upper())  # type: ignore[attr-defined]
    labels = sorted(e.text or "" for e in root.iter(f"{NS}text")
                    if "candidate" in (e.get("class") or ""))
    assert labels == sorted(f"{100 * c.winrate:.0f}" for c in on_board)
    (caption,) = [e for e in root.iter(f"{NS}text") if e.get("class") == "caption"]
    assert f"best {result.best_move.upper()}" in (caption.text or "")  # type: ignore[attr-defined]
    assert of_class(root, "ownership")
    assert of_class(parse(svg.search_result(board, result, ownership=False)),  # type: ignore[arg-type]
                    "ownership") == []


def test_search_info_snapshots_draw_too(searched: tuple[Board, object]) -> None:
    board, _ = searched
    search = MCTS(fastplay.PatternDatabase.default(), seed=2)
    infos = list(search.analyze(board, playouts=300, interval=0.001))
    assert infos and infos[-1].final
    for info in infos[-2:]:
        parse(svg.search_result(board, info))


def test_search_result_checks(searched: tuple[Board, object]) -> None:
    board, result = searched
    with pytest.raises(ValueError, match="top"):
        svg.search_result(board, result, top=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="another position"):
        svg.search_result(Board(19), result)  # type: ignore[arg-type]
    other = board.copy()
    other.play("A1")
    with pytest.raises(ValueError, match="another position"):
        svg.search_result(other, result)  # type: ignore[arg-type]
    # Without a position of its own, the result's ownership must fit.
    unplaced = dataclasses.replace(result, position=None)  # type: ignore[type-var]
    with pytest.raises(ValueError, match=r"shape \(19, 19\)"):
        svg.search_result(Board(19), unplaced)


# ---------------------------------------------------------------------------
# rendering


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="rsvg-convert not installed")
def test_every_size_renders(tmp_path: Path) -> None:
    for n in range(2, 26):
        board = Board(n)
        board.play(f"{COLUMNS[n // 2]}{n // 2 + 1}")
        rng = np.random.default_rng(n)
        own = rng.uniform(-1, 1, (n, n))
        path = tmp_path / f"{n}.svg"
        path.write_text(svg.board(board, ownership=own, labels={"A1": "\u00e9\u6f22"}))
        png = tmp_path / f"{n}.png"
        subprocess.run(["rsvg-convert", str(path), "-o", str(png)], check=True)
        assert png.read_bytes().startswith(b"\x89PNG")
