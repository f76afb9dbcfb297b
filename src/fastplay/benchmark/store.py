"""The benchmark file: gzipped JSON lines, byte for byte reproducible.

Line 1 is the header::

    {"format": "fastplay-benchmark", "format_version": 1, "name": "9x9",
     "size": 9, "seed": 1, "version": 1, "filter": {...}, "reference": {...},
     "decisions": 1000, "base": "<sha256 of the build's header and ids>"}

then one line per decision::

    {"id": "3f2a...:27", "record": "cgos/x.sgf", "move_number": 27,
     "size": 9, "komi": 7.5, "setup": [], "first": "B", "moves": ["B E5", ...],
     "to_play": "W", "game_move": "D3", "phase": "middle", "stones": 25,
     "candidates": [{"move": "D3", "value": 0.61, "se": 0.012,
                     "source": "filter", "version": 1}, ...]}

``version`` counts reference passes: the build writes version 1; each
candidate-completion pass that adds candidates writes ``version + 1`` and
tags what it added, so a score can say which references it used.  ``base``
identifies the build (its options and decisions) and never changes.  Keys
are sorted, the gzip header carries no name and no time, so the same build
gives the same bytes.

Reading checks the file (:class:`BenchmarkError` names the file and the
line): the header's keys and the reference settings (exactly the
:class:`~fastplay.benchmark.reference.ReferenceSpec` fields plus
``method``; ``search``, the recorded search options, may be missing in
files made before they were recorded), the number of decision lines against ``decisions``, that each
position replays, that its candidates are distinct legal moves there with
finite values in [0, 1] and standard errors >= 0.  A trailing empty line is
tolerated.  Writing refuses values that are not finite.
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import math
import os
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from fastplay.benchmark.decisions import Decision, Position
from fastplay.outputfile import write_whole

__all__ = ["Candidate", "Entry", "Benchmark", "BenchmarkError", "FORMAT", "bundled_names",
           "open_benchmark", "bundled_path", "read_entries", "entries_digest"]

FORMAT = "fastplay-benchmark"
FORMAT_VERSION = 1

#: The header's keys (besides ``format`` and ``format_version``) and their types.
HEADER_TYPES: dict[str, type] = {"name": str, "size": int, "seed": int, "version": int,
                                 "filter": dict, "reference": dict, "decisions": int,
                                 "base": str}


class BenchmarkError(ValueError):
    """A benchmark file that cannot be read (names the file and line)."""


@dataclass(frozen=True)
class Candidate:
    """A candidate move with its reference value (win probability of the mover)."""

    move: str
    value: float
    se: float
    source: str  # "filter" (the reference filter's), "game" (the record's), "completion"
    version: int


@dataclass
class Entry:
    """A decision with its candidates, best reference value first."""

    decision: Decision
    candidates: list[Candidate] = field(default_factory=list)

    def value_of(self, move: str) -> float | None:
        """The reference value of ``move`` (GTP vertex, any case), or ``None``."""
        key = move.strip().upper()
        for candidate in self.candidates:
            if candidate.move.upper() == key:
                return candidate.value
        return None

    @property
    def best(self) -> Candidate:
        """The candidate with the highest reference value."""
        return max(self.candidates, key=lambda c: (c.value, c.move))

    def add(self, candidate: Candidate) -> None:
        """Add a candidate and keep the list best first."""
        self.candidates.append(candidate)
        self.candidates.sort(key=lambda c: (-c.value, c.move))

    def to_json(self) -> dict[str, Any]:
        d = self.decision
        return {"id": d.id, "record": d.record, "move_number": d.move_number,
                **d.position.to_json(), "to_play": d.position.to_play,
                "game_move": d.game_move, "phase": d.phase, "stones": d.stones,
                "candidates": [vars(c) for c in self.candidates]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Entry:
        position = Position.from_json(data)
        decision = Decision(str(data["id"]), str(data["record"]), int(data["move_number"]),
                            position, str(data["game_move"]), str(data["phase"]),
                            int(data["stones"]))
        candidates = [Candidate(str(c["move"]), float(c["value"]), float(c["se"]),
                                str(c["source"]), int(c["version"]))
                      for c in data["candidates"]]
        return cls(decision, candidates)


@dataclass
class Benchmark:
    """A decision benchmark: header fields plus its entries in build order."""

    name: str
    size: int
    seed: int
    filter: dict[str, Any]
    reference: dict[str, Any]
    entries: list[Entry]
    version: int = 1
    base: str = ""

    def __post_init__(self) -> None:
        if not self.base:
            self.base = self._base_digest()

    def _base_digest(self) -> str:
        text = json.dumps([self.name, self.size, self.seed, self.filter, self.reference,
                           [e.decision.id for e in self.entries]], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def header(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "name": self.name,
                "size": self.size, "seed": self.seed, "version": self.version,
                "filter": self.filter, "reference": self.reference,
                "decisions": len(self.entries), "base": self.base}

    def _check_finite(self) -> None:
        """:class:`BenchmarkError` naming the first decision with a NaN or infinite value."""
        for entry in self.entries:
            for c in entry.candidates:
                if not (math.isfinite(c.value) and math.isfinite(c.se)):
                    raise BenchmarkError(f"decision {entry.decision.id}: candidate {c.move} "
                                         f"has value {c.value!r}, se {c.se!r}: not finite")

    def to_bytes(self) -> bytes:
        """The file's bytes (gzip, level 9, no name, mtime 0); :class:`BenchmarkError`
        naming the decision for a value that is not finite."""
        self._check_finite()
        lines = [self.header()] + [e.to_json() for e in self.entries]
        text = "".join(json.dumps(line, sort_keys=True, separators=(",", ":"),
                                  allow_nan=False) + "\n" for line in lines)
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9,
                           mtime=0) as out:
            out.write(text.encode("utf-8"))
        return buffer.getvalue()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the file atomically (:func:`fastplay.outputfile.write_whole`:
        a temporary file renamed over ``path``, removed if the write or the
        rename fails; a symbolic link followed; a device or FIFO refused).

        A value that JSON cannot hold (NaN, infinite) is a
        :class:`BenchmarkError` naming the file, raised before anything is written.
        """
        name = os.fspath(path)
        try:
            data = self.to_bytes()
        except ValueError as exc:  # BenchmarkError included; json's allow_nan=False
            raise BenchmarkError(f"{name}: not written: {exc}") from None
        write_whole(name, data)

    @property
    def refs(self) -> str:
        """A short digest of every candidate's move, value and standard error."""
        return entries_digest(self.entries)

    @property
    def label(self) -> str:
        """``"NAME vVERSION (base BASE, refs REFS)"``: which references a score used
        (two files of one version and base with different candidates differ in REFS)."""
        return f"{self.name} v{self.version} (base {self.base}, refs {self.refs})"

    def merge(self, other: Benchmark) -> int:
        """Add every candidate of ``other`` (the same build: same ``base``, which
        a loaded file's header must match) that
        this benchmark lacks, tagged with version ``self.version + 1``; the
        version is raised when some were added.  Returns how many were."""
        if other.base != self.base or len(other.entries) != len(self.entries):
            raise ValueError(f"cannot merge {other.label} into {self.label}: another build")
        version, added = self.version + 1, 0
        for mine, theirs in zip(self.entries, other.entries):
            for candidate in theirs.candidates:
                if mine.value_of(candidate.move) is None:
                    mine.add(dataclasses.replace(candidate, version=version))
                    added += 1
        if added:
            self.version = version
        return added

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<bytes>") -> Benchmark:
        """Read a benchmark file; :class:`BenchmarkError` names ``source`` and the line."""
        try:
            text = gzip.decompress(data).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise BenchmarkError(f"{source}: not a gzipped benchmark file: {exc}") from None
        lines = text.splitlines()
        while lines and not lines[-1].strip():
            lines.pop()  # a trailing empty line
        number = 1
        try:
            head = json.loads(lines[0]) if lines else None
            if not isinstance(head, dict) or head.get("format") != FORMAT:
                raise BenchmarkError(f"{source}: line 1: not a {FORMAT} header")
            if head.get("format_version") != FORMAT_VERSION:
                raise BenchmarkError(f"{source}: format_version "
                                     f"{head.get('format_version')!r} is not {FORMAT_VERSION}")
            _check_header(head)
            entries = []
            for number, line in enumerate(lines[1:], 2):
                entry = Entry.from_json(json.loads(line))
                _check_entry(entry, head["size"])
                entries.append(entry)
            number = 1
            if len(entries) != head["decisions"]:
                raise ValueError(f"'decisions' is {head['decisions']} but the file has "
                                 f"{len(entries)} decision line{'s' * (len(entries) != 1)}"
                                 " (a truncated file?)")
            bench = cls(head["name"], head["size"], head["seed"], dict(head["filter"]),
                        dict(head["reference"]), entries, head["version"], head["base"])
            if bench.base != bench._base_digest():
                # The build's digest of its settings and decisions: a header
                # edited by hand would pass for the build it was (and merge
                # references of other settings into it).
                raise ValueError(f"'base' {bench.base!r} does not match the header's name, "
                                 "size, seed, filter and reference and the decisions "
                                 "(edited by hand?)")
            return bench
        except BenchmarkError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BenchmarkError(f"{source}: line {number}: {exc}") from None


def _is(value: object, kind: type) -> bool:
    """``isinstance`` where a bool is not an int."""
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def _check_header(head: dict[str, Any]) -> None:
    """``ValueError`` for a missing header key, a wrong type or a bad reference."""
    for key, kind in HEADER_TYPES.items():
        if key not in head:
            raise ValueError(f"missing {key!r}")
        if not _is(head[key], kind):
            raise ValueError(f"{key!r} is not a JSON {kind.__name__}: {head[key]!r}")
    if not 2 <= head["size"] <= 25:
        raise ValueError(f"'size' {head['size']} is not between 2 and 25")
    for key, least in (("seed", 0), ("version", 1), ("decisions", 0)):
        if head[key] < least:
            raise ValueError(f"{key!r} {head[key]} is below {least}")
    _check_reference(head["reference"])


def _check_reference(reference: dict[str, Any]) -> None:
    """``ValueError`` unless ``reference`` is a ReferenceSpec's JSON (plus ``method``)."""
    from fastplay.benchmark.reference import ReferenceSpec
    from fastplay.patterns import PatternDatabase

    expected = {f.name for f in dataclasses.fields(ReferenceSpec)} | {"method"}
    missing = sorted(expected - set(reference) - {"search"})   # optional: older files
    unknown = sorted(set(reference) - expected)
    if missing or unknown:
        raise ValueError("'reference': " + "; ".join(
            [f"missing {', '.join(map(repr, missing))}"] * bool(missing)
            + [f"unknown {', '.join(map(repr, unknown))}"] * bool(unknown)))
    checks = [("visits", _is(reference["visits"], int) and reference["visits"] >= 1,
               "an integer >= 1"),
              ("repeats", _is(reference["repeats"], int) and reference["repeats"] >= 2,
               "an integer >= 2"),
              ("patterns", reference["patterns"] in PatternDatabase.names(),
               f"a built-in database ({', '.join(PatternDatabase.names())})"),
              ("prior", _is(reference["prior"], str), "a string"),
              ("method", reference["method"] == "search", "\"search\"")]
    for key, good, what in checks:
        if not good:
            raise ValueError(f"'reference' {key!r} is not {what}: {reference[key]!r}")
    _check_prior(reference["prior"])
    if "search" in reference:
        _check_search(reference["search"])


def _check_prior(prior: str, key: str = "'prior'", words: tuple[str, ...] = ("auto", "none")
                 ) -> None:
    """``ValueError`` unless ``prior`` is one of ``words`` or a prior
    :func:`fastplay.prior.load_prior` reads (a bundled name, an ``.npz``);
    ``key`` names it in the message."""
    from fastplay.prior import load_prior

    if prior in words:
        return
    try:
        load_prior(prior)
    except (OSError, ValueError) as exc:
        raise ValueError(f"'reference' {key}: {exc}") from None


def _check_search(search: Any) -> None:
    """``ValueError`` unless ``search`` is a JSON object of search options that
    :class:`fastplay.search.SearchConfig` accepts (``prior_table`` aside: the
    spec's ``prior`` says it)."""
    from fastplay.search import SearchConfig

    if not isinstance(search, dict):
        raise ValueError(f"'reference' 'search' is not a JSON object: {search!r}")
    from fastplay.benchmark.reference import OPTIONS_SINCE, completed_search

    known = {f.name for f in dataclasses.fields(SearchConfig)} - {"prior_table"}
    # Options newer than the record take the value of before (OPTIONS_SINCE).
    unknown = sorted(set(search) - known)
    missing = sorted(known - set(search) - set(OPTIONS_SINCE))
    if unknown or missing:
        # Every option, as recorded: a missing one would take whatever
        # default the reading fastplay has, which is what the record prevents.
        raise ValueError("'reference' 'search': " + "; ".join(
            [f"unknown search options {', '.join(map(repr, unknown))}"] * bool(unknown)
            + [f"missing search options {', '.join(map(repr, missing))}"] * bool(missing)))
    # The record's own rule for the opponent's prior first (a name, not a
    # table), then the options as the search checks them.
    opponent = search["opponent_prior"]
    if opponent is not None:
        if not isinstance(opponent, str):
            raise ValueError(f"'reference' 'search': 'opponent_prior' is not a string or "
                             f"null: {opponent!r}")
        _check_prior(opponent, "'search' 'opponent_prior'", ("auto",))
    try:
        config = SearchConfig(**completed_search(search))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"'reference' 'search': {exc}") from None
    if config.mix != 1.0:
        raise ValueError(f"'reference' 'search': 'mix' must be 1 (reference searches have "
                         f"no evaluator), not {search['mix']!r}")


def _check_entry(entry: Entry, size: int) -> None:
    """``ValueError`` unless the position replays and its candidates are
    distinct legal moves there with finite values in [0, 1]."""
    position = entry.decision.position
    if position.size != size:
        raise ValueError(f"size {position.size} is not the header's {size}")
    if position.first not in ("B", "W"):
        raise ValueError(f"'first' is not 'B' or 'W': {position.first!r}")
    if not entry.candidates:
        raise ValueError("no candidates")
    try:
        board = position.board()
    except ValueError as exc:
        raise ValueError(f"the position does not replay: {exc}") from None
    seen: set[str] = set()
    for c in entry.candidates:
        if not (math.isfinite(c.value) and 0.0 <= c.value <= 1.0):
            raise ValueError(f"candidate {c.move!r}: value {c.value!r} is not in [0, 1]")
        if not (math.isfinite(c.se) and c.se >= 0.0):
            raise ValueError(f"candidate {c.move!r}: se {c.se!r} is not finite and >= 0")
        if c.move.upper() in seen:
            raise ValueError(f"candidate {c.move!r} appears twice")
        seen.add(c.move.upper())
        try:
            legal = board.is_legal(c.move)
        except ValueError:  # not a vertex of this board
            legal = False
        if not legal:
            raise ValueError(f"candidate {c.move!r} is not a legal move in this position")


def entries_digest(entries: list[Entry]) -> str:
    """A short digest of every candidate's move, value and standard error."""
    text = json.dumps([[[c.move, c.value, c.se] for c in e.candidates] for e in entries])
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def read_entries(path: str | os.PathLike[str]) -> list[Entry]:
    """Positions with reference values from a file of decision lines alone.

    The file (gzipped or not) holds one JSON object a line in the format of
    a benchmark's decision lines, without the header: references that no
    fastplay search made (``benchmarks/pachi_references.py`` writes Pachi's,
    one candidate a position, its source ``"pachi"``), which the header's
    ``reference`` could not describe.  Keys a decision line does not have are
    ignored.  Each line is checked as a benchmark's are (the position
    replays, the candidates are distinct legal moves with values in [0, 1]);
    ids must be distinct.  Empty lines are skipped.

    Raises:
        BenchmarkError: naming the file and line, or a file with no position.
        OSError: the file cannot be read.
    """
    name = os.fspath(path)
    with open(name, "rb") as handle:
        data = handle.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise BenchmarkError(f"{name}: not a readable gzip file: {exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BenchmarkError(f"{name}: not a text file of decision lines: {exc.reason} "
                             f"at byte {exc.start}") from None
    entries: list[Entry] = []
    seen: set[str] = set()
    number = 0
    try:
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            item = json.loads(line)
            if not isinstance(item, dict):
                raise ValueError("not a JSON object")
            if item.get("format") == FORMAT:
                raise ValueError("a benchmark header: give the file to --benchmark")
            entry = Entry.from_json(item)
            _check_entry(entry, entry.decision.position.size)
            if entry.decision.id in seen:
                raise ValueError(f"decision {entry.decision.id!r} appears twice")
            seen.add(entry.decision.id)
            entries.append(entry)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BenchmarkError(f"{name}: line {number}: {exc}") from None
    if not entries:
        raise BenchmarkError(f"{name}: no positions")
    return entries


def bundled_names() -> list[str]:
    """Names of the benchmarks shipped with fastplay (``9x9``, ``13x13``, ...), by size."""
    folder = resources.files("fastplay") / "data" / "benchmarks"
    names = [p.name[:-len(".jsonl.gz")] for p in folder.iterdir()
             if p.name.endswith(".jsonl.gz")] if folder.is_dir() else []
    return sorted(names, key=lambda n: (len(n), n))


def bundled_path(name: str) -> str:
    """The installed file of the bundled benchmark ``name``."""
    return str(resources.files("fastplay") / "data" / "benchmarks" / f"{name}.jsonl.gz")


def open_benchmark(name_or_path: str) -> tuple[Benchmark, str]:
    """The benchmark a user named (a bundled name or a file) and the path it came from.

    Raises :class:`BenchmarkError` for an unknown name or an unreadable file.
    """
    if name_or_path in bundled_names():
        path = bundled_path(name_or_path)
    elif os.path.exists(name_or_path):
        path = name_or_path
    else:
        known = ", ".join(bundled_names()) or "none"
        raise BenchmarkError(f"{name_or_path}: no such file or bundled benchmark "
                             f"(bundled: {known})")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise BenchmarkError(f"{path}: {exc.strerror or exc}") from None
    return Benchmark.from_bytes(data, path), path
