"""Compiled tables: geometry classes (spec §5.1), the six oracle tables, §5.4 checkpoints, §9 rules.

The oracle tables in ``shared/oracle/tables`` were produced by GNU Go 3.8 itself;
every comparison here is entry by entry (row 0, never read by GNU Go, is zero
in ours and in the oracle files).
"""

from __future__ import annotations

import hashlib
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, shared_path
from fastplay.patterns import (
    NUM_GEOMETRIES,
    PatternDatabase,
    PatternWarning,
    compile_db,
    geometry_table,
)

BUILTINS = ["mc_uniform", "mc_mogo_classic", "mc_montegnu_classic"]
CUSTOM = ["custom_symbols", "custom_properties", "custom_quirks"]

GEOMETRY_SHA256 = "91d29036408aa2c98062dbda30d6334ffd28efbc77d11d95d1ea23b0aea24e65"
# spec §5.4: (full table with row 0 zero, rows 1..1107 only)
TABLE_SHA256 = {
    "mc_uniform": ("f64b83ae22425832574930c0b6f5d0e56ed945bf3be8daf23540713aa6c491a3",
                   "c1bb191bf101290d4721fea9996e8bd5fcfc1a560dbb32186b3a2d3719bc752e"),
    "mc_mogo_classic": ("54719a8171caad88c4d5957d033451cec3f5af9a967571bde6466ee648952a3e",
                        "22c9a2654416ed57ff20b4713156df17bbc0c8a17356b5e8a2ee07f42592e902"),
    "mc_montegnu_classic": ("2c72797c643821151a94c60c078dd9eea44e90265cc9f2ad09176c302f0265f5",
                            "2d45fe75348fd7faad2e61b0a50a798dde38643b9078dc0f2f6b400a9eb929a7"),
}
# spec §5.4 value histograms over rows 1..1107: (all, far, near)
HISTOGRAMS = {
    "mc_uniform": ({0: 4352, 1: 279040}, {0: 2176, 1: 139520}, {0: 2176, 1: 139520}),
    "mc_mogo_classic": (
        {0: 4352, 1: 197052, 100: 31192, 10000: 50796},
        {0: 2176, 1: 139520},
        {0: 2176, 1: 57532, 100: 31192, 10000: 50796},
    ),
    "mc_montegnu_classic": (
        {0: 4352, 1: 114864, 3: 9752, 30: 13488, 40: 26976, 60: 26976, 100: 288, 400: 84,
         1000: 1448, 2000: 5908, 4000: 5908, 6000: 5908, 10000: 13488, 13000: 26976,
         20000: 26976},
        {0: 2176, 1: 72080, 30: 13488, 40: 26976, 60: 26976},
        {0: 2176, 1: 42784, 3: 9752, 100: 288, 400: 84, 1000: 1448, 2000: 5908, 4000: 5908,
         6000: 5908, 10000: 13488, 13000: 26976, 20000: 26976},
    ),
}
# spec §9: (value, diagram, classes, cells) per colon line, in file order
EYES = [(0, "oOo/O*O/oO?", 12, 3072), (0, "oOo/O*O/---", 3, 768), (0, "|Oo/|*O/+--", 2, 512)]
RULES = {
    "mc_uniform": EYES,
    "mc_mogo_classic": EYES + [
        (10000, "?X?/?*?/???", 741, 35568), (10000, "?O?/?*?/???", 741, 15228),
        (100, "XOX/.*./???", 18, 1368), (100, "OXO/.*./???", 18, 1300),
        (100, "XO./.*./?.?", 9, 720), (100, "OX./.*./?.?", 9, 720),
        (100, "XO?/X*./?.?", 27, 1836), (100, "OX?/O*./?.?", 27, 1836),
        (100, "OXX/.*./?.?", 9, 720), (100, "XO?/O*X/???", 69, 4692),
        (100, "XO?/O*O/?O?", 15, 720), (100, "XO?/O*./?.?", 18, 1440),
        (100, "OX?/X*./?.?", 18, 1440), (100, "OX?/X*X/?X?", 15, 1200),
        (100, "OX?/X*./?.?", 18, 0), (100, "?O?/X*X/ooo", 39, 2652),
        (100, "?X?/O*O/xxx", 39, 1972), (100, "O.?/X*?/---", 9, 1152),
        (100, "X.?/O*?/---", 9, 1024), (100, "XO?/x*?/---", 17, 2176),
        (100, "?X?/O*o/---", 15, 1920), (100, "XO?/?*?/---", 24, 896),
        (100, "OX?/o*?/---", 17, 1152), (100, "?XO/O*X/---", 3, 256),
        (1, "???/?*?/???", 954, 167740),
    ],
    "mc_montegnu_classic": EYES + [
        (10000, "?X%/?*%/%%%", 843, 13488), (13000, "?X%/?*%/%%%", 843, 26976),
        (20000, "?X%/?*%/%%%", 843, 26976),
        (2000, "?O%/?*%/%%%", 843, 5908), (4000, "?O%/?*%/%%%", 843, 5908),
        (6000, "?O%/?*%/%%%", 843, 5908),
        (1000, "?XO/O*?/%%%", 224, 896), (1000, "?X?/O*O/%%%", 123, 208),
        (1000, "?X|/O*|/%%%", 27, 108), (1000, "OX|/?*|/%%%", 30, 236),
        (400, "?X?/o*O/?X?", 72, 84), (400, "|X?/|*O/|X?", 6, 0),
        (100, "?XO/o*X/?o?", 63, 288), (100, "?XO/o*X/---", 6, 0),
        (100, "|XO/|*X/+--", 1, 0),
        (30, "?X%/?*%/%%%", 843, 13488), (40, "?X%/?*%/%%%", 843, 26976),
        (60, "?X%/?*%/%%%", 843, 26976),
        (3, "??%/?*%/%%%", 1107, 9752), (1, "??%/?*%/%%%", 1107, 114864),
    ],
}


def oracle_table(name: str) -> np.ndarray:
    with np.load(shared_path("oracle", "tables", f"{name}.npz")) as npz:
        return np.asarray(npz["values"])


def load_quietly(path: Path, strict: bool) -> PatternDatabase:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PatternWarning)
        return PatternDatabase.from_file(path, strict=strict)


def sha(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


# ---------------------------------------------------------------------------
# Geometry classes (§5.1)
# ---------------------------------------------------------------------------


def test_geometry_table_hash_and_oracle() -> None:
    gt = geometry_table()
    assert gt.dtype == np.uint16 and gt.shape == (65536,)
    assert not gt.flags.writeable
    assert sha(gt.astype("<u2")) == GEOMETRY_SHA256
    ref = np.load(shared_path("oracle", "tables", "geometry_table.npy"))
    assert np.array_equal(gt, ref)


@pytest.mark.parametrize(
    ("code", "cls"),
    [(0x0000, 1), (0x0055, 16), (0x0855, 94), (0x2855, 276), (0x8855, 645), (0x5555, 829),
     (0xAAAA, 1071), (0x3C30, 742), (0x3C75, 752), (0xFCF0, 1090), (0xFCF5, 1093)],
)
def test_geometry_checkpoints(code: int, cls: int) -> None:
    assert int(geometry_table()[code]) == cls


def test_geometry_counts_and_first_classes() -> None:
    gt = geometry_table().astype(np.int64)
    assert np.count_nonzero(gt) == 7641
    assert gt.max() == NUM_GEOMETRIES and len(np.unique(gt[gt > 0])) == NUM_GEOMETRIES
    codes = np.arange(65536)
    off = (codes & (codes >> 1)) & 0x5555
    n_off = np.array([bin(x).count("1") for x in off])
    kinds = {0: 954, 3: 135, 5: 18}
    for n, expected in kinds.items():
        assert len(np.unique(gt[(n_off == n) & (gt > 0)])) == expected
    first = [0x0, 0x1, 0x2, 0x5, 0x6, 0xA, 0x11, 0x12, 0x15, 0x16, 0x19]
    assert [int(gt[c]) for c in first] == list(range(1, 12))
    # class 1107: N and E sides off board, W, SW and S opponent
    corner = (3 << 4) | (3 << 10) | (3 << 12) | (3 << 6) | (3 << 14) | (2 << 2) | (2 << 8) | 2
    assert int(gt[corner]) == 1107


def test_geometries_txt_receivers_and_sizes() -> None:
    gt = geometry_table()
    sizes = np.bincount(gt.astype(np.int64), minlength=NUM_GEOMETRIES + 1)
    lines = [ln for ln in shared_path("oracle", "tables", "geometries.txt").read_text()
             .splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(lines) == NUM_GEOMETRIES
    for ln in lines:
        number, code, _hex, size = ln.split()[:4]
        assert int(gt[int(code)]) == int(number)
        assert sizes[int(number)] == int(size)
        # the receiver is the smallest code of its class in canonical orientation
        members = np.flatnonzero(gt == int(number))
        off = (members & (members >> 1)) & 0x5555
        canonical = members[np.isin(off, (0x0000, 0x1410, 0x5450))]
        assert int(canonical.min()) == int(code)


# ---------------------------------------------------------------------------
# The six oracle tables
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUILTINS)
def test_our_builtins_equal_gnugo(name: str) -> None:
    db = PatternDatabase.builtin(name)
    ref = oracle_table(name)
    assert db.table.shape == ref.shape == (1108, 256)
    assert np.array_equal(db.table, ref)


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("name", BUILTINS + ["custom_symbols", "custom_properties"])
def test_oracle_sources_compile_to_oracle_tables(name: str, strict: bool) -> None:
    db = load_quietly(shared_path("oracle", "tables", f"{name}.db"), strict)
    assert np.array_equal(db.table, oracle_table(name))


def test_custom_quirks_in_gnugo_mode() -> None:
    path = shared_path("oracle", "tables", "custom_quirks.db")
    with pytest.warns(PatternWarning, match="12345678"):
        table, rules = compile_db(path.read_bytes(), strict=False, filename=str(path),
                                  cache=False)
    assert np.array_equal(table, oracle_table("custom_quirks"))
    values = set(np.unique(table).tolist())
    assert 802 not in values and 831 not in values  # near+far; impossible edge
    assert {801, 811, 12345678, 0} <= values
    by_value = {r.value: r for r in rules}
    assert "near" in by_value[801].keywords  # "nearly" in the comment
    assert by_value[802].properties == 0 and by_value[802].cells == 0
    assert "near" not in by_value[811].keywords  # lost beyond byte 79
    assert by_value[831].classes == 0


def test_custom_quirks_rejected_by_strict_mode() -> None:
    from fastplay.patterns import PatternSyntaxError

    path = shared_path("oracle", "tables", "custom_quirks.db")
    with pytest.raises(PatternSyntaxError) as info:
        PatternDatabase.from_file(path)
    err = info.value
    assert (err.file, err.line, err.column) == (str(path), 15, 14)
    assert "near" in err.message


# ---------------------------------------------------------------------------
# §5.4 checkpoints and §9 rule statistics for our own files
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_hashes(name: str) -> None:
    db = PatternDatabase.builtin(name)
    full, rows = TABLE_SHA256[name]
    assert db.sha256() == full
    assert db.sha256(skip_row0=True) == rows
    assert sha(db.table.astype("<u4")) == full


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_histograms(name: str) -> None:
    t = PatternDatabase.builtin(name).table[1:]
    all_cells, far, near = HISTOGRAMS[name]
    assert dict(Counter(t.reshape(-1).tolist())) == all_cells
    assert dict(Counter(t[:, 0::2].reshape(-1).tolist())) == far
    assert dict(Counter(t[:, 1::2].reshape(-1).tolist())) == near


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_rules_match_spec_section_9(name: str) -> None:
    rules = PatternDatabase.builtin(name).rules
    assert [(r.value, r.diagram, r.classes, r.cells) for r in rules] == RULES[name]


def test_uniform_zero_exactly_on_17_eye_classes() -> None:
    t = PatternDatabase.builtin("uniform").table
    zero_rows = np.flatnonzero((t[1:] == 0).all(axis=1)) + 1
    assert len(zero_rows) == 17
    assert (t[1:][np.isin(np.arange(1, 1108), zero_rows, invert=True)] == 1).all()


@pytest.mark.parametrize("name", BUILTINS)
def test_our_files_are_ours(name: str) -> None:
    text = (REPO / "patterns" / f"{name}.db").read_bytes()
    assert b"Part of fastplay, BSD-3-Clause" in text
    assert b"GNU General Public License" not in text
    assert max(len(line) for line in text.splitlines()) <= 79


# ---------------------------------------------------------------------------
# PatternDatabase API
# ---------------------------------------------------------------------------


def test_names_default_and_aliases() -> None:
    assert PatternDatabase.names() == ["mc_montegnu_classic", "mc_mogo_classic", "mc_uniform",
                                       "mc_fastplay_9x9"]
    assert PatternDatabase.default() is PatternDatabase.builtin("mc_montegnu_classic")
    for short in ("montegnu_classic", "mogo_classic", "uniform", "fastplay_9x9"):
        db = PatternDatabase.builtin(short)
        assert db is PatternDatabase.builtin("mc_" + short)
        assert db.name == "mc_" + short
        assert db.source is not None and db.source.name == f"mc_{short}.db"


def test_unknown_builtin_lists_names() -> None:
    with pytest.raises(ValueError) as info:
        PatternDatabase.builtin("mogo")
    for name in PatternDatabase.names():
        assert name in str(info.value)


def test_a_builtin_name_that_is_no_str_and_an_empty_file_name_are_refused() -> None:
    """``builtin(None)`` is a wrong type, not an unknown name; an empty path
    names no file (``pathlib`` would take it for the current folder, and the
    error said ``.: Is a directory``)."""
    for name in (None, 3, b"mc_uniform"):
        with pytest.raises(TypeError, match="name must be a str"):
            PatternDatabase.builtin(name)  # type: ignore[arg-type]
    for empty in ("", b""):
        with pytest.raises(FileNotFoundError, match="no pattern database given"):
            PatternDatabase.from_file(empty)


def test_table_is_read_only_uint32_contiguous() -> None:
    db = PatternDatabase.default()
    t = db.table
    assert t.dtype == np.uint32 and t.shape == (1108, 256) and t.flags.c_contiguous
    assert not t.flags.writeable and (t[0] == 0).all()
    with pytest.raises(ValueError):
        t[1, 0] = 5
    assert "mc_montegnu_classic" in repr(db) and "rules=23" in repr(db)


def test_compilation_is_cached_by_content() -> None:
    text = (REPO / "patterns" / "mc_mogo_classic.db").read_bytes()
    a = PatternDatabase.from_string(text, name="a")
    b = PatternDatabase.from_string(text, name="b")
    assert a.table is b.table  # shared read-only array: compiled once
    assert a == PatternDatabase.builtin("mogo_classic")
    uncached, _ = compile_db(text, cache=False)
    assert uncached is not a.table and np.array_equal(uncached, a.table)


def test_from_file_and_from_string_agree(tmp_path: Path) -> None:
    src = (REPO / "patterns" / "mc_uniform.db").read_text(encoding="latin-1")
    path = tmp_path / "u.db"
    path.write_text(src, encoding="latin-1")
    from_file = PatternDatabase.from_file(path)
    assert from_file.name == "u" and from_file.source == path
    from_str = PatternDatabase.from_string(src, name="u2")
    assert from_str.source is None and from_str.name == "u2"
    assert from_file == from_str == PatternDatabase.builtin("uniform")


@pytest.mark.parametrize("text", ["(;GM[1]FF[4]SZ[9];B[ee])", "", "a note, not patterns\n"])
@pytest.mark.parametrize("strict", [True, False])
def test_a_file_without_patterns_loads_with_a_warning(tmp_path: Path, text: str,
                                                       strict: bool) -> None:
    """GNU Go's loader skips lines it does not know, so a game record, prose or
    an empty file loads as the default value everywhere: the loader says so."""
    path = tmp_path / "game.sgf"
    path.write_text(text)
    with pytest.warns(PatternWarning, match=r"game\.sgf: no pattern: every move gets the default"):
        db = PatternDatabase.from_file(path, strict=strict)
    assert db.rules == () and (db.table[1:] == 1).all()   # GNU Go's default value, 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PatternDatabase.from_string(text, strict=strict)   # built in memory: no file to mistake
        PatternDatabase.from_file(REPO / "patterns" / "mc_uniform.db")


def test_constructor_validates_tables() -> None:
    t = np.ones((1108, 256), dtype=np.int64)
    db = PatternDatabase(t, name="ones")
    assert db.table.dtype == np.uint32 and not db.table.flags.writeable
    t[5, 5] = 7  # the database keeps its own copy
    assert db.table[5, 5] == 1
    with pytest.raises(ValueError):
        PatternDatabase(np.ones((1107, 256)))
    with pytest.raises(ValueError):
        PatternDatabase(-np.ones((1108, 256)))


def test_builtins_found_as_package_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed wheel carries the files as ``fastplay/patterns/*.db``; they win."""
    import importlib.resources

    from fastplay import patterns

    (tmp_path / "patterns").mkdir()
    packaged = b"# packaged copy\n" + (REPO / "patterns" / "mc_uniform.db").read_bytes()
    (tmp_path / "patterns" / "mc_uniform.db").write_bytes(packaged)
    monkeypatch.setattr(importlib.resources, "files", lambda _pkg: tmp_path)
    data, path = patterns._builtin_source("mc_uniform")
    assert data == packaged and path == tmp_path / "patterns" / "mc_uniform.db"
    # not packaged: fall back to the repository's patterns/ folder, found
    # relative to the module (an editable install)
    monkeypatch.setattr(patterns, "__file__", str(REPO / "src" / "fastplay" / "patterns.py"))
    data, path = patterns._builtin_source("mc_mogo_classic")
    assert path == REPO / "patterns" / "mc_mogo_classic.db"
    assert data == path.read_bytes()


@pytest.mark.parametrize("name", ["mc_uniform", "mc_mogo_classic", "mc_montegnu_classic"])
def test_installed_fastplay_finds_the_repository_builtins(name: str) -> None:
    """Whichever way fastplay is installed (wheel or editable), the built-in it
    reads is byte for byte the file in the repository's patterns/ folder."""
    from fastplay import patterns

    data, path = patterns._builtin_source(name)
    assert path is not None and path.is_file()
    assert data == (REPO / "patterns" / f"{name}.db").read_bytes()
