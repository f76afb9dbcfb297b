"""``fastplay analyze``: search one position of a game record and explain the result.

With no file it analyses a real 9x9 game bundled with the package (a CGOS
game, see ``fastplay/data/README.txt``), loaded with :mod:`importlib.resources`
so it works from an installed wheel.  It prints the board, the top moves
(visits, win rate, prior, principal variation), an ownership map and the
playouts per second; ``--plot FILE.png`` also draws the board on its
ownership heat map with the top moves' win rates and the best move marked,
with matplotlib (the optional ``plot`` extra; see :func:`plot_figure`).

The command line parses its own arguments: :func:`main` gets everything after
``fastplay analyze`` (see :mod:`fastplay.cli`).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, TextIO

import numpy as np
import numpy.typing as npt

from fastplay.argtypes import (Parser, add_database_and_search_flags, non_negative_int,
                               playout_count, positive_int, prior_option, seconds_value,
                               thread_count)
from fastplay.batch import (BATCH_PLAYOUTS, handicap_komi, handicap_note, pattern_database,
                            record_paths, rules_note, search_options)
from fastplay.outputfile import overwrites_input, writable_folder
from fastplay.shown import escape_controls

if TYPE_CHECKING:  # typing only: the core is imported late
    from fastplay.patterns import PatternDatabase

__all__ = ["main", "build_parser", "bundled_game", "BUNDLED_GAME", "format_ownership",
           "check_plot_path", "OWNERSHIP_LEGEND", "plot_figure", "PLOT_BEST"]

#: The bundled game analysed when no file is given, and its default move.
BUNDLED_GAME = "cgos-471085-ayabot-montegnu.sgf"
BUNDLED_MOVE = 20

DEFAULT_PLAYOUTS = 10_000
EXIT_USAGE = 2

#: File types ``--plot`` writes (matplotlib picks the format from the extension).
PLOT_FORMATS = (".png", ".pdf", ".svg")

#: The legend printed above :func:`format_ownership`'s map.
OWNERSHIP_LEGEND = ("X/O: Black/White own the point (above 85%), lower case x/o: leaning, "
                    ".: contested.\nThe letter shows the owner, not the stone: an O on a "
                    "black stone (or an X on a white one) means that stone is dead.")


def bundled_game(name: str = BUNDLED_GAME) -> str:
    """The SGF text of a game record bundled in ``fastplay/data``.

    Raises ``FileNotFoundError`` for an unknown name.
    """
    return (resources.files("fastplay") / "data" / name).read_text(encoding="utf-8")


def check_plot_path(path: str) -> None:
    """Raise ``ValueError`` unless ``path`` is a file ``--plot`` can write.

    Checked before the search, so that a typo costs no waiting: the name must
    end in one of :data:`PLOT_FORMATS` (matplotlib would otherwise append
    ``.png`` to a name without one, writing somewhere else than the user
    asked), its directory must exist, and the file must open for writing (a
    file that was not there is removed again).
    """
    if not path or os.path.isdir(path):
        raise ValueError(f"--plot needs a file name, not the directory {path!r}")
    extension = os.path.splitext(path)[1].lower()
    if extension not in PLOT_FORMATS:
        raise ValueError(f"--plot {path}: the file name must end in "
                         f"{', '.join(PLOT_FORMATS[:-1])} or {PLOT_FORMATS[-1]}")
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise ValueError(f"--plot {path}: {parent} is a file, not a directory"
                         if os.path.exists(parent) else f"--plot {path}: no such directory: "
                         f"{parent}")
    existed = os.path.lexists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise ValueError(f"--plot {path}: {exc.strerror or exc}") from None
    finally:
        if not existed and os.path.lexists(path):
            os.remove(path)


def _check_matplotlib() -> None:
    """Raise ``ImportError`` with the install hint when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError("--plot needs matplotlib: pip install 'fastplay[plot]'") from None
def build_parser() -> argparse.ArgumentParser:
    """The parser of ``fastplay analyze``."""
    parser = Parser(
        prog="fastplay analyze",
        description="Analyse a position of a game record: top moves with win rates and "
                    "principal variations, and an ownership map. Without SGF, a real 9x9 "
                    "game bundled with fastplay is analysed.")
    parser.add_argument("sgf", nargs="*", metavar="SGF",
                        help="game record (default: the bundled CGOS 9x9 game); several "
                             "records or directories of them: a batch (see --every)")
    parser.add_argument("--move", type=non_negative_int, metavar="N",
                        help="analyse the position after N moves (default: the whole record; "
                             f"move {BUNDLED_MOVE} of the bundled game)")
    parser.add_argument("--playouts", type=playout_count, metavar="N",
                        help=f"playouts to run (default {DEFAULT_PLAYOUTS} when --seconds "
                             "is not given)")
    parser.add_argument("--seconds", type=seconds_value, metavar="S",
                        help="search time in seconds")
    parser.add_argument("--threads", type=thread_count, default=1, metavar="T",
                        help="search threads (default 1)")
    parser.add_argument("--seed", type=non_negative_int, default=1, metavar="S",
                        help="random seed (default 1; with one thread the output is reproducible)")
    parser.add_argument("--prior", default="auto", metavar="NAME|FILE|none",
                        help="the tree's move prior: 'auto' (default: learned on 9x9, "
                             "13x13, 19x19), gnugo9x9_shapes, gnugo9x9, gnugo13x13, gnugo19x19, "
                             "a .npz file "
                             "from benchmarks/train_prior.py, or 'none'")
    add_database_and_search_flags(
        parser, "a search option of fastplay.search.SearchConfig, as in 'fastplay gtp "
                "--search' (repeatable), e.g. '--search c_puct=0.7'")
    parser.add_argument("--top", type=positive_int, default=8, metavar="K",
                        help="moves to list (default 8)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw the board on its ownership heat map, with the top moves "
                             "and the best one marked, to FILE.png, .pdf or .svg (needs "
                             "matplotlib: pip install 'fastplay[plot]')")
    batch = parser.add_argument_group(
        "batch analysis", "with several records, a directory or any of these options, every "
        "N-th position of each record is searched (default "
        "%d playouts each) and answered in the JSON format of 'fastplay analysis'" %
        BATCH_PLAYOUTS)
    batch.add_argument("--every", type=positive_int, metavar="N",
                       help="analyse the positions after 0, N, 2N... moves (default 1: all)")
    batch.add_argument("--json", metavar="FILE.jsonl",
                       help="write one JSON line per position to FILE ('-': stdout)")
    batch.add_argument("--jobs", type=positive_int, metavar="N",
                       help="search in N processes (default 1)")
    batch.add_argument("--write-sgf", action="store_true",
                       help="write each record with the analysis as comments and principal "
                            "variations to NAME.analysis.sgf")
    batch.add_argument("--sgf-dir", metavar="DIR",
                       help="with --write-sgf: write the records here (created if missing), not "
                            "beside the inputs")
    return parser


def _json_target_problem(args: argparse.Namespace) -> str | None:
    """Why ``--json`` cannot be written (its folder is missing, it is a
    folder, or it names one of the input records), or ``None``."""
    target = args.json
    if target is None or target == "-":
        return None
    if not target.strip():
        return "an empty file name"
    if os.path.isdir(target):
        return "is a directory"
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        return f"{folder} is a file, not a directory" if os.path.exists(folder) else \
            f"no such directory {folder}"
    if overwrites_input(target, record_paths(args.sgf)):
        return "is one of the records to analyse (it would be overwritten)"
    return None


def _batch_database(args: argparse.Namespace) -> tuple[PatternDatabase | None, str | None]:
    """A batch's pattern database, read once here (its workers get the
    table: a second read of a pipe would find it empty, a tester), and what
    is wrong with it or the search options (``None``: nothing), found once
    rather than in every record's worker; the database's warnings are shown
    here, once."""
    from fastplay.search import MCTS, SearchConfig

    try:
        db = pattern_database(args.mc_patterns, args.mc_load_patterns, not args.gnugo_syntax)
        MCTS(db, config=SearchConfig(**search_options(args.prior, args.search)))
    except (OSError, ValueError, TypeError) as exc:
        from fastplay.cli import describe_error

        return None, describe_error(exc)
    return db, None


def _is_batch(args: argparse.Namespace) -> bool:
    """Whether parsed ``args`` ask for a batch (:mod:`fastplay.batch`)."""
    return len(args.sgf) > 1 or any(os.path.isdir(p) for p in args.sgf) or any(
        getattr(args, name) not in (None, False)
        for name in ("every", "json", "jobs", "write_sgf", "sgf_dir"))


def format_ownership(ownership: npt.NDArray[np.floating[Any]], grid: npt.NDArray[np.int8]) -> str:
    """An ASCII ownership map, row 0 at the top.

    ``X``/``O``: Black/White own the point with probability above 85 %
    (|ownership| > 0.7); ``x``/``o``: leaning (> 0.3); ``.``: contested.
    The letter depends on the ownership only, never on the stone standing
    there (see :data:`OWNERSHIP_LEGEND`): an ``O`` on a black stone says
    White owns that point, i.e. the stone is dead.  ``grid`` is accepted for
    callers that pass the board along; the rendering does not need it.
    """
    from fastplay.board import COLUMNS

    size = ownership.shape[0]
    width = len(str(size))
    header = " " * (width + 1) + " ".join(COLUMNS[:size])
    lines = [header]
    for r in range(size):
        cells = []
        for c in range(size):
            v = float(ownership[r, c])
            if v > 0.7:
                ch = "X"
            elif v > 0.3:
                ch = "x"
            elif v < -0.7:
                ch = "O"
            elif v < -0.3:
                ch = "o"
            else:
                ch = "."
            cells.append(ch)
        num = str(size - r).rjust(width)
        lines.append(f"{num} {' '.join(cells)} {num}")
    lines.append(header)
    return "\n".join(lines)


#: Colours of ``--plot``'s move discs (the best move, the other candidates).
PLOT_BEST = "#2fbf4a"
PLOT_CANDIDATE = "#f2f2f2"


def _short(name: str, limit: int = 36) -> str:
    """``name`` cut to ``limit`` characters, with an ellipsis in the middle."""
    if len(name) <= limit:
        return name
    keep = (limit - 1) // 2
    return f"{name[:keep]}\u2026{name[-(limit - 1 - keep):]}"


def _plot(path: str, board: Any, result: Any, source: str, top: int = 5,
          move_number: int | None = None) -> None:
    """Save :func:`plot_figure`'s picture to ``path`` (the format from its extension)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    fig = plot_figure(board, result, source, top, move_number)
    try:
        fig.savefig(path, dpi=120)
    finally:
        plt.close(fig)


def plot_figure(board: Any, result: Any, source: str, top: int = 5,
                move_number: int | None = None) -> Any:
    """The ``--plot`` picture as a matplotlib ``Figure`` (the caller closes it).

    The ownership heat map of ``result`` (red Black, blue White, the colour
    bar beside it) with the board on top: grid, star points, stones, the
    last move ringed, the ``top`` visited moves as discs holding their win
    rate (per cent), the best move's disc green (:data:`PLOT_BEST`).  The
    title has two lines (the record, cut to 36 characters, and the move;
    who plays, the best move and its win rate); matplotlib's constrained
    layout places title, colour bar and labels so none is cut off or covered.
    ``move_number``: the move the title names (default: the board's own).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle

    from fastplay.board import COLUMNS, parse_vertex
    from fastplay.svg import star_points

    ownership = result.ownership
    grid = board.to_numpy()
    size = int(board.size)
    fig, ax = plt.subplots(figsize=(6.4, 5.6), layout="constrained")
    image = ax.imshow(ownership, cmap="RdBu_r", vmin=-1, vmax=1,
                      extent=(-0.5, size - 0.5, size - 0.5, -0.5))
    ax.hlines(range(size), 0, size - 1, colors="black", linewidth=0.6, alpha=0.6, zorder=1)
    ax.vlines(range(size), 0, size - 1, colors="black", linewidth=0.6, alpha=0.6, zorder=1)
    for r, c in star_points(size):
        ax.add_patch(Circle((c, r), 0.08, facecolor="black", alpha=0.7, zorder=1))
    for r in range(size):
        for c in range(size):
            if grid[r, c]:
                ax.add_patch(Circle((c, r), 0.42, facecolor="black" if grid[r, c] > 0
                                    else "white", edgecolor="black", linewidth=0.8, zorder=2))
    history = board.history
    if history and history[-1][1] != "pass":
        r, c = divmod(parse_vertex(history[-1][1], size), size)
        if grid[r, c]:
            ax.add_patch(Circle((c, r), 0.2, fill=False, linewidth=1.6, zorder=3,
                                edgecolor="white" if grid[r, c] > 0 else "black"))
    best = str(result.best_move)
    shown = 0
    for child in result.children:
        if shown >= top:
            break
        if child.visits <= 0:
            continue
        shown += 1
        if child.move in ("pass", "resign"):
            continue
        r, c = divmod(parse_vertex(child.move, size), size)
        if grid[r, c]:
            continue
        is_best = child.move == best
        ax.add_patch(Circle((c, r), 0.4, facecolor=PLOT_BEST if is_best else PLOT_CANDIDATE,
                            edgecolor="black", linewidth=1.2 if is_best else 0.6, zorder=3))
        ax.text(c, r, f"{100 * child.winrate:.0f}", ha="center", va="center", zorder=4,
                fontsize=max(5.0, min(9.0, 80 / size)),
                fontweight="bold" if is_best else "normal")
    ax.set_xlim(-0.5, size - 0.5)
    ax.set_ylim(size - 0.5, -0.5)
    ax.set_xticks(range(size), list(COLUMNS[:size]))
    ax.set_yticks(range(size), [str(size - r) for r in range(size)])
    ax.tick_params(length=0, labelsize=max(6.0, min(10.0, 120 / size)))
    side = {"B": "Black", "W": "White"}[board.to_move]
    name = _short(os.path.basename(source.rstrip("/\\")) or source)
    move = best.upper() if best not in ("pass", "resign") else best
    shown = board.move_number if move_number is None else move_number
    ax.set_title(f"{name}, after move {shown}\n"
                 f"{side} to play: best {move}, win rate {100 * result.winrate:.0f}% "
                 f"for {side}" + (f"\n{_why(result).strip()}" if _why(result) else ""),
                 fontsize=11)
    ax.set_xlabel(f"discs: win rate (%) of the {top} most visited moves; green: the best",
                  fontsize=8)
    fig.colorbar(image, ax=ax, shrink=0.85, pad=0.02, label="ownership (+1 Black, -1 White)")
    return fig


def _why(result: Any) -> str:
    """`` (the rule)`` when a rule other than the visits picked the best
    move, which the table may not list first, or at all (a pass after the
    opponent's pass); else ``""``."""
    from fastplay.search.decide import RULES

    rule = getattr(result, "rule", "visits")
    return "" if rule == "visits" else f" ({RULES.get(rule, rule)})"


def _load(args: argparse.Namespace) -> tuple[Any, str, int | None]:
    """The position, its source's name and the record's move number it is
    after (``--move``, or the record's last).  The heading gives that number: a
    board's own ``move_number`` restarts at a setup node inside a record
    (a tester's ``AE[ee]B[ee]`` showed "after move 1" for ``--move 2``)."""
    from fastplay.board import Board
    from fastplay.inputfile import read_input
    from fastplay.sgf import SGFWarning, opening_moves, record_moves

    if args.sgf is None:
        move = BUNDLED_MOVE if args.move is None else args.move
        board = Board.from_sgf(bundled_game(), move_number=move)
        return board, f"bundled game {BUNDLED_GAME}", move
    # Read once: a pipe or a named pipe gives its record to one read.
    data = read_input(args.sgf, "SGF file")
    board = Board.from_sgf(data, move_number=args.move)
    turn = record_moves(data) if args.move is None else args.move
    # A handicap's komi as the analysis protocol adds it (batch.handicap_komi).
    with warnings.catch_warnings():              # the record's warnings: told above
        warnings.simplefilter("ignore", SGFWarning)
        start = Board.from_sgf(data, move_number=0)
    opening = opening_moves(data)
    note = handicap_note(board, start, opening, turn)
    if note is not None:
        print(escape_controls(f"fastplay analyze: warning: {note}"), file=sys.stderr)
        board.komi = board.komi + handicap_komi(board, start, opening, turn)
    return board, args.sgf, turn


def analyze(args: argparse.Namespace, out: TextIO) -> int:
    """Run the analysis described by parsed ``args``, printing to ``out``; returns 0.

    Raises ``OSError``/``ValueError`` (bad file, move number past the end,
    unknown database) and ``ImportError`` (``--plot`` without matplotlib) for
    :func:`main` to report.
    """
    from fastplay.search import MCTS
    from fastplay.patterns import PatternDatabase

    if args.plot is not None:
        # Checked before a long search, not after it.
        check_plot_path(args.plot)
        _check_matplotlib()
    board, source, move_number = _load(args)
    db = pattern_database(args.mc_patterns, args.mc_load_patterns, not args.gnugo_syntax)
    playouts = args.playouts
    if playouts is None and args.seconds is None:
        playouts = DEFAULT_PLAYOUTS
    search = MCTS(db, threads=args.threads, seed=args.seed,
                  **search_options(prior_option(args.prior), args.search))

    from tqdm import tqdm

    # delay=1: the bar appears only for searches longer than a second;
    # disable=None: only on a terminal, so piped output stays clean.
    total = playouts if playouts is not None else None
    with tqdm(total=total, delay=1.0, unit="playouts", file=sys.stderr, disable=None,
              leave=False) as bar:
        def progress(done: int) -> None:
            bar.update(done - bar.n)

        result = search.run(board, playouts=playouts, seconds=args.seconds, callback=progress)

    names = {"B": "Black", "W": "White"}
    side = names[board.to_move]
    props = board.sgf_properties
    note = rules_note(props)
    if note is not None:
        print(escape_controls(f"fastplay analyze: warning: {note}"), file=sys.stderr)
    players = ""
    if "PB" in props or "PW" in props:
        players = f" ({props.get('PB', '?')} vs {props.get('PW', '?')})"
    # A record's names reach the terminal: no escape sequence of theirs does.
    shown = board.move_number if move_number is None else move_number
    print(escape_controls(f"{source}{players}, after move {shown}"), file=out)
    print(board, file=out)
    print(file=out)
    print(f"{side} to play: best {result.best_move.upper()}{_why(result)}, win rate "
          f"{100 * result.winrate:.1f}% for {side}", file=out)
    print(f"{'move':>5} {'visits':>7} {'win%':>6} {'prior%':>7}  PV", file=out)
    for child in result.children[:args.top]:
        winrate = "-" if child.visits == 0 else f"{100 * child.winrate:.1f}"
        pv = " ".join(m.upper() for m in child.pv)
        print(f"{child.move.upper():>5} {child.visits:>7} {winrate:>6} "
              f"{100 * child.prior:>7.2f}  {pv}", file=out)
    print(file=out)
    grid = board.to_numpy()
    own = result.ownership
    score = float(own.sum()) - board.komi
    print(f"Ownership. {OWNERSHIP_LEGEND}", file=out)
    print(format_ownership(own, grid), file=out)
    leader = "B" if score > 0 else "W"
    print(f"Expected area score: {leader}+{abs(score):.1f} (komi {board.komi:g})", file=out)
    print(file=out)
    print(f"{result.playouts} playouts in {result.seconds:.2f} s: "
          f"{result.playouts_per_second:,.0f} playouts/s "
          f"({args.threads} thread{'s' if args.threads > 1 else ''}, "
          f"{result.simulations} simulations, {result.nodes} nodes)", file=out)
    if args.plot is not None:
        _plot(args.plot, board, result, source, min(args.top, 5), move_number)
        print(f"ownership heat map written to {args.plot}", file=out)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``fastplay analyze`` with ``argv`` (the arguments after ``analyze``); returns the exit status."""
    parser = build_parser()
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        # Records may follow options (intermixed), but argparse's intermixed
        # parsing reads options after "--" too: there, the plain parser.
        args = parser.parse_args(words) if "--" in words else \
            parser.parse_intermixed_args(words)
    except SystemExit as exc:  # --help or a usage error, already printed
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    from fastplay.sgf import MoveNumberError, SGFError

    if _is_batch(args):
        from fastplay.batch import run_batch

        if not args.sgf:
            print("fastplay analyze: error: a batch (--every, --json, --jobs, --write-sgf, "
                  "--sgf-dir) needs SGF files or directories", file=sys.stderr)
            return EXIT_USAGE
        if args.move is not None or args.plot is not None:
            print("fastplay analyze: error: a batch (--every, --json, --jobs, --write-sgf, "
                  "--sgf-dir) takes neither --move nor --plot", file=sys.stderr)
            return EXIT_USAGE
        if args.sgf_dir is not None and not args.write_sgf:
            print("fastplay analyze: error: --sgf-dir says where --write-sgf writes: give "
                  "both", file=sys.stderr)
            return EXIT_USAGE
        if args.sgf_dir is not None:
            try:          # created, as fastplay match creates its --sgf-dir, and tried
                writable_folder(args.sgf_dir)
            except OSError as exc:
                why = "is a file, not a directory" if os.path.isfile(args.sgf_dir) else \
                    exc.strerror or exc
                print(escape_controls(f"fastplay analyze: error: --sgf-dir {args.sgf_dir}: "
                                      f"{why}"), file=sys.stderr)
                return EXIT_USAGE
        problem = _json_target_problem(args)
        if problem is not None:
            print(f"fastplay analyze: error: --json {args.json}: {problem}", file=sys.stderr)
            return EXIT_USAGE
        db, problem = _batch_database(args)
        if db is None:
            print(escape_controls(f"fastplay analyze: error: {problem}"), file=sys.stderr)
            return EXIT_USAGE
        return run_batch(args, sys.stdout, db)
    args.sgf = args.sgf[0] if args.sgf else None
    try:
        return analyze(args, sys.stdout)
    except BrokenPipeError:
        # The reader went away (``fastplay analyze | head``): stop quietly,
        # and keep Python from complaining again when it flushes stdout.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, SGFError, ValueError, ImportError) as exc:
        from fastplay.cli import describe_error

        message = describe_error(exc)           # ``FILE: reason``, not ``[Errno N]``
        if isinstance(exc, MoveNumberError):        # said in the command's own terms
            message = f"--move {exc.move_number}: the record has only {exc.moves} moves"
        if isinstance(exc, (SGFError, MoveNumberError)) and args.sgf is not None:
            message = f"{args.sgf}: {message}"      # as a batch names each file
        print(escape_controls(f"fastplay analyze: error: {message}"), file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    # Through the command line's entry, which checks the standard streams.
    from fastplay.cli import main as command_line

    sys.exit(command_line(["analyze", *sys.argv[1:]]))
