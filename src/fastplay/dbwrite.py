"""Write a value table as a ``.db`` file in GNU Go 3.8's pattern language.

The inverse of :func:`fastplay.patterns.compile_db` for the cells that
matter: one exact diagram per geometry class (spec §5.1, the class's first
code in GNU Go's numbering, drawn with ``.``, ``O``, ``X`` and off-board
symbols), one colon line per written cell naming its whole property byte
(§2.5: ``near``/``far``, ``xcapN``, ``ocapN``, ``xsafe``/``xunsafe``,
``osafe``/``ounsafe``, ``xnosuicide``/``xsuicide``), then a colon line
without keywords that gives the class's other cells its default, and a
final ``%%%`` diagram for the classes not written.  First match wins
(§2.7), so the file compiles, in fastplay's strict mode and in GNU Go's
loader alike, to exactly :meth:`DbLayout.table`.

GNU Go's limits (§2.1, §2.5, §6.6) are checked: lines stay within 79
bytes, values within 0..10,000,000 (above that GNU Go warns; 81 points of
that value keep its signed 32-bit sampling sum below 2**31).
"""

from __future__ import annotations

import functools
import textwrap
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fastplay._equality import fields_equal
from fastplay.patterns import geometry_table

__all__ = ["DbLayout", "write_db", "comment_lines", "class_diagram", "property_keywords",
           "MAX_VALUE"]

NUM_CLASSES = 1108
NUM_PROPERTIES = 256

#: Largest value written: GNU Go warns above it (§2.5), and with it 81
#: points stay within GNU Go's signed 32-bit sampling sum (§6.6).
MAX_VALUE = 10_000_000

# GNU Go reads at most 79 bytes of a line, its newline included (spec §2.1).
_LINE = 78

# Where neighbour k of a code sits in the 3x3 drawing (row, column), in
# GNU Go's delta order S W N E SW NW NE SE (spec §4.1).
_CELLS = ((2, 1), (1, 0), (0, 1), (1, 2), (2, 0), (0, 0), (0, 2), (2, 2))
_OFF_SYMBOL = {(0, 1): "-", (2, 1): "-", (1, 0): "|", (1, 2): "|"}   # corners: "+"


@functools.cache
def _first_codes() -> npt.NDArray[np.int64]:
    """``int64[1108]``: the first code of every class (row 0: -1)."""
    table = geometry_table().astype(np.int64)
    classes, first = np.unique(table, return_index=True)
    codes = np.full(NUM_CLASSES, -1, np.int64)
    codes[classes[classes > 0]] = first[classes > 0]
    return codes


def class_diagram(geometry: int) -> str:
    """The three rows (``"\\n"``-joined, centre ``*``) of geometry class
    ``geometry`` (1..1107), from the mover's side: ``O`` own, ``X`` opponent.

    Raises:
        ValueError: a class outside 1..1107.
    """
    if isinstance(geometry, bool) or not 1 <= int(geometry) < NUM_CLASSES:
        raise ValueError(f"a geometry class is in 1..{NUM_CLASSES - 1}, not {geometry!r}")
    code = int(_first_codes()[int(geometry)])
    rows = [["?", "?", "?"], ["?", "*", "?"], ["?", "?", "?"]]
    for k, (r, c) in enumerate(_CELLS):
        state = (code >> (2 * k)) & 3
        rows[r][c] = ".OX"[state] if state < 3 else _OFF_SYMBOL.get((r, c), "+")
    return "\n".join("".join(row) for row in rows)


def property_keywords(properties: int) -> str:
    """The keywords that admit exactly property byte ``properties`` (spec
    §4.2: near bit 0, xcap bits 1-2, ocap bits 3-4, xunsafe 5, ounsafe 6,
    xsuicide 7), comma-separated.

    Raises:
        ValueError: a byte outside 0..255.
    """
    if isinstance(properties, bool) or not 0 <= int(properties) < NUM_PROPERTIES:
        raise ValueError(f"a property byte is in 0..255, not {properties!r}")
    p = int(properties)
    words = ["near" if p & 1 else "far", f"xcap{(p >> 1) & 3}", f"ocap{(p >> 3) & 3}",
             "xunsafe" if p & 32 else "xsafe", "ounsafe" if p & 64 else "osafe",
             "xsuicide" if p & 128 else "xnosuicide"]
    return ",".join(words)


@dataclass(frozen=True)
class DbLayout:
    """What a written file says.

    Attributes:
        values: ``uint32[1108, 256]``, the value of every written cell.
        written: ``bool[1108, 256]``, the cells with a colon line of their own.
        class_default: ``uint32[1108]``, the value of a class's other cells.
        default: the value of every cell of the classes without a diagram.
        classes: ``bool[1108]`` or ``None``: classes with a diagram even with
            no cell written (only their default then); every class with a
            written cell has one anyway.
    """

    __eq__ = fields_equal

    values: npt.NDArray[np.uint32]
    written: npt.NDArray[np.bool_]
    class_default: npt.NDArray[np.uint32]
    default: int
    classes: npt.NDArray[np.bool_] | None = None

    def used(self) -> npt.NDArray[np.bool_]:
        """``bool[1108]``: the classes the file draws."""
        used = np.asarray(self.written.any(axis=1), dtype=bool)
        if self.classes is not None:
            used = used | np.asarray(self.classes, dtype=bool)
        return used

    def table(self) -> npt.NDArray[np.uint32]:
        """``uint32[1108, 256]``: the table the file compiles to (row 0 zero)."""
        used = self.used()
        out = np.where(used[:, None], self.class_default[:, None], np.uint32(self.default))
        out = np.where(self.written, self.values, out).astype(np.uint32)
        out[0] = 0
        return out


def _check_layout(layout: DbLayout) -> None:
    if layout.values.shape != (NUM_CLASSES, NUM_PROPERTIES) \
            or layout.written.shape != layout.values.shape \
            or layout.class_default.shape != (NUM_CLASSES,) \
            or (layout.classes is not None and layout.classes.shape != (NUM_CLASSES,)):
        raise ValueError("a layout holds uint32[1108, 256] values and written cells and "
                         "uint32[1108] class defaults (and bool[1108] classes)")
    used = layout.used()
    if used[0]:
        raise ValueError("row 0 (no geometry class) cannot be written")
    biggest = max(int(layout.values[layout.written].max(initial=0)),
                  int(layout.class_default[used].max(initial=0)), int(layout.default))
    if biggest > MAX_VALUE or int(layout.default) < 0:
        raise ValueError(f"values must be in 0..{MAX_VALUE:,} (GNU Go's limit), not {biggest}")


def comment_lines(header: str) -> list[str]:
    """``header`` as ``# `` comment lines wrapped to GNU Go's line length,
    then an empty line; characters outside ASCII as backslash escapes (GNU Go
    reads bytes, and a file stays ASCII whatever paths it names)."""
    ascii_header = header.encode("ascii", "backslashreplace").decode("ascii")
    out = [f"# {piece}".rstrip() for line in ascii_header.splitlines()
           for piece in (textwrap.wrap(line, _LINE - 2, break_on_hyphens=False) or [""])]
    return [*out, ""]


def write_db(layout: DbLayout, header: str = "") -> str:
    """The ``.db`` text of ``layout``.

    Args:
        layout: the cells to write (:class:`DbLayout`).
        header: comment text put first, each line prefixed with ``# `` and
            wrapped to GNU Go's line length.

    Returns:
        The file's text (ASCII, LF line ends, every line within 79 bytes).

    Raises:
        ValueError: arrays of the wrong shape, a written cell in row 0, or a
            value outside 0..MAX_VALUE.
    """
    _check_layout(layout)
    out = comment_lines(header)
    for g in np.flatnonzero(layout.used()):
        cells = np.flatnonzero(layout.written[g])
        out.append(f"# class {g}")
        out.append(class_diagram(int(g)))
        out.append("")
        out.extend(f":{int(layout.values[g, p])} {property_keywords(int(p))}" for p in cells)
        if len(cells) < NUM_PROPERTIES:
            out.append(f":{int(layout.class_default[g])}")
        out.append("")
    out.append("# every other neighbourhood")
    out.append("%%%\n%*%\n%%%")
    out.append("")
    out.append(f":{int(layout.default)}")
    return "\n".join(out) + "\n"
