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
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from fastplay.benchmark.decisions import Decision, Position

__all__ = ["Candidate", "Entry", "Benchmark", "BenchmarkError", "FORMAT", "bundled_names",
           "open_benchmark", "bundled_path"]

FORMAT = "fastplay-benchmark"
FORMAT_VERSION = 1


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

    def to_bytes(self) -> bytes:
        """The file's bytes (gzip, level 9, no name, mtime 0)."""
        lines = [self.header()] + [e.to_json() for e in self.entries]
        text = "".join(json.dumps(line, sort_keys=True, separators=(",", ":"),
                                  allow_nan=False) + "\n" for line in lines)
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, compresslevel=9,
                           mtime=0) as out:
            out.write(text.encode("utf-8"))
        return buffer.getvalue()

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the file atomically (a temporary file renamed over ``path``)."""
        temporary = f"{os.fspath(path)}.tmp{os.getpid()}"
        with open(temporary, "wb") as handle:
            handle.write(self.to_bytes())
        os.replace(temporary, path)

    @property
    def label(self) -> str:
        """``"NAME vVERSION (base BASE)"``: which references a score used."""
        return f"{self.name} v{self.version} (base {self.base})"

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<bytes>") -> Benchmark:
        """Read a benchmark file; :class:`BenchmarkError` names ``source`` and the line."""
        try:
            text = gzip.decompress(data).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError) as exc:
            raise BenchmarkError(f"{source}: not a gzipped benchmark file: {exc}") from None
        lines = text.splitlines()
        number = 1
        try:
            head = json.loads(lines[0]) if lines else None
            if not isinstance(head, dict) or head.get("format") != FORMAT:
                raise BenchmarkError(f"{source}: line 1: not a {FORMAT} header")
            if head.get("format_version") != FORMAT_VERSION:
                raise BenchmarkError(f"{source}: format_version "
                                     f"{head.get('format_version')!r} is not {FORMAT_VERSION}")
            entries = []
            for number, line in enumerate(lines[1:], 2):
                entry = Entry.from_json(json.loads(line))
                if entry.decision.position.size != head["size"] or not entry.candidates:
                    raise ValueError("wrong size or no candidates")
                entries.append(entry)
            return cls(str(head["name"]), int(head["size"]), int(head["seed"]),
                       dict(head["filter"]), dict(head["reference"]), entries,
                       int(head["version"]), str(head["base"]))
        except BenchmarkError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BenchmarkError(f"{source}: line {number}: {exc}") from None


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
