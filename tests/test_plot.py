"""``fastplay analyze --plot``: the title is whole, the colour bar covers no
label, and the best move is marked (issue 17, item 4).

The checks measure the drawn figure (matplotlib's window extents after a
draw), so they do not depend on looking at the picture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import matplotlib  # in the test extra: the plot is tested wherever the tests run
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.patches import Circle  # noqa: E402

import fastplay  # noqa: E402
from fastplay.analyze import PLOT_BEST, bundled_game, main, plot_figure  # noqa: E402
from fastplay.search import MCTS  # noqa: E402


@pytest.fixture(scope="module")
def analysed() -> tuple[fastplay.Board, Any]:
    board = fastplay.Board.from_sgf(bundled_game(), move_number=20)
    result = MCTS(fastplay.PatternDatabase.default(), seed=3).run(board, playouts=600)
    return board, result


def overlaps(a: Any, b: Any) -> bool:
    return bool(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1)


@pytest.mark.parametrize("source", [
    "bundled game cgos-471085-ayabot-montegnu.sgf",
    "/some/where/a-very-long-file-name-of-a-game-record-from-a-server-2002-04-04.sgf",
])
def test_title_whole_and_colour_bar_clear(analysed: tuple[fastplay.Board, Any],
                                          source: str) -> None:
    board, result = analysed
    fig = plot_figure(board, result, source)
    try:
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        page = fig.bbox
        board_ax, bar_ax = fig.axes
        title = board_ax.title.get_window_extent(renderer)
        assert page.x0 <= title.x0 and title.x1 <= page.x1 and title.y1 <= page.y1
        assert "after move 20" in board_ax.get_title()
        assert f"best {result.best_move.upper()}" in board_ax.get_title()
        texts = [board_ax.title, board_ax.xaxis.label, bar_ax.yaxis.label,
                 *board_ax.get_xticklabels(), *board_ax.get_yticklabels()]
        bar = bar_ax.get_window_extent(renderer)
        for text in texts:
            box = text.get_window_extent(renderer)
            assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0, text
            if text is not bar_ax.yaxis.label:
                assert not overlaps(box, bar), f"the colour bar covers {text.get_text()!r}"
        assert not overlaps(board_ax.get_window_extent(renderer), bar)
    finally:
        plt.close(fig)


def test_best_move_is_marked(analysed: tuple[fastplay.Board, Any]) -> None:
    board, result = analysed
    fig = plot_figure(board, result, "game.sgf")
    try:
        ax = fig.axes[0]
        best = [p for p in ax.patches if isinstance(p, Circle)
                and to_hex(p.get_facecolor()) == PLOT_BEST]
        assert len(best) == 1
        index = fastplay.parse_vertex(result.best_move, board.size)
        row, col = divmod(index, board.size)
        assert best[0].center == (col, row)
        labels = {t.get_text() for t in ax.texts}
        assert f"{100 * result.children[0].winrate:.0f}" in labels
    finally:
        plt.close(fig)


@pytest.mark.parametrize("name", ["own.png", "own.svg", "own.pdf"])
def test_plot_writes_each_format(tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    assert main(["--playouts", "200", "--plot", str(target)]) == 0
    data = target.read_bytes()
    assert len(data) > 1000
    assert data.startswith({"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}[name[-3:]])
