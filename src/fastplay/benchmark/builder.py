"""``fastplay benchmark build``: decisions and their references from game records.

The build is a pure function of (records, options, seed):

1. the records of the chosen size are read (:func:`read_records`) and the
   positions to consider proposed in a seeded order (:func:`propose`);
2. the proposals are taken in chunks (at least :data:`FILTER_CHUNK`, and 4
   per worker so a fleet stays busy).  In each chunk, the proposals still
   *open* -- their record under ``per_game`` decisions, their position
   (:func:`position_key`: stones, side to move, komi, ko) not accepted yet
   -- go through the reference filter (one task per position), and every
   candidate of the kept ones is rated (:func:`evaluate`, one task per
   candidate: the unit of work a fleet of workers shares);
3. then the chunk's proposals are accepted in order if they are still open
   and :func:`significant`: the worst candidate's reference value is below
   the best's by more than ``FilterSpec.significance`` combined standard
   errors, so the decision is not one that reference noise decides.  The
   build stops when ``decisions`` are accepted.

Every task is seeded by :func:`derive_seed` from the seed and its own key,
and a proposal accepted in order was open before its chunk began, so the
decisions, their candidates and their values do not depend on the chunk
size, the number of workers or the backend.  The benchmark holds the
decisions in acceptance order.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastplay.backend import Backend
from fastplay.benchmark.decisions import Decision, propose, read_records
from fastplay.benchmark.reference import (CandidateTask, Evaluation, FilterSpec, FilterTask,
                                          ReferenceSpec, completed_search, evaluate,
                                          filter_decision)
from fastplay.benchmark.store import Benchmark, Candidate, Entry

__all__ = ["build", "complete", "rerate", "position_key", "significant", "reuse_mismatch",
           "FILTER_CHUNK"]

#: Least positions filtered per round of tasks (4 per worker when that is more).
FILTER_CHUNK = 64

T = TypeVar("T")


def _progress(items: Iterator[T], total: int, desc: str, show: bool) -> Iterator[T]:
    if not show:
        return items
    from tqdm import tqdm

    return iter(tqdm(items, total=total, desc=desc, unit="task", leave=False, disable=None))


def position_key(decision: Decision) -> tuple[int, str, float, str | None]:
    """What makes two decisions the same: the stones (Zobrist hash), the side
    to move, the komi and the ko point."""
    board = decision.position.board()
    return (int(board.zobrist_hash), board.to_move.letter, float(board.komi), board.ko_point)


def significant(entry: Entry, z: float) -> bool:
    """Whether the worst candidate is below the best by more than ``z``
    combined standard errors (the references show that the choice matters)."""
    best, worst = entry.candidates[0], entry.candidates[-1]
    return best.value - worst.value > z * math.hypot(best.se, worst.se)


@dataclass
class _Selection:
    """The state of the acceptance: what is accepted, and what is known."""

    wanted: int
    per_game: int
    accepted: list[Entry] = field(default_factory=list)
    per_record: Counter[str] = field(default_factory=Counter)
    seen: set[tuple[int, str, float, str | None]] = field(default_factory=set)
    known: dict[tuple[str, str], Evaluation] = field(default_factory=dict)

    def open(self, decision: Decision, key: tuple[int, str, float, str | None]) -> bool:
        """Whether ``decision`` could still be accepted (its record under the
        cap, its position not accepted yet, decisions still wanted)."""
        return (len(self.accepted) < self.wanted and key not in self.seen
                and self.per_record[decision.id.split(":")[0]] < self.per_game)


def _filter_chunk(chunk: Sequence[Decision], keys: Sequence[tuple[int, str, float, str | None]],
                  state: _Selection, spec: FilterSpec, reference: ReferenceSpec, seed: int,
                  backend: Backend, label: str, show: bool) -> list[list[tuple[str, float]]]:
    """The filter's candidates for each proposal of the chunk still open ([] otherwise)."""
    todo = [i for i, (d, k) in enumerate(zip(chunk, keys)) if state.open(d, k)]
    tasks = [FilterTask(chunk[i], spec, reference, seed) for i in todo]
    answers = list(_progress(backend.map(filter_decision, tasks), len(tasks),
                             f"filter {label}", show))
    out: list[list[tuple[str, float]]] = [[] for _ in chunk]
    for i, answer in zip(todo, answers):
        out[i] = answer
    return out


def _rate(chunk: Sequence[Decision], candidates: Sequence[list[tuple[str, float]]],
          state: _Selection, reference: ReferenceSpec, seed: int, backend: Backend,
          label: str, show: bool) -> None:
    """Evaluate every candidate of the chunk's kept proposals not known yet."""
    tasks = [CandidateTask(d.position, d.id, move, reference, seed)
             for d, found in zip(chunk, candidates) for move, _ in found
             if (d.id, move) not in state.known]
    values = list(_progress(backend.map(evaluate, tasks), len(tasks), f"references {label}",
                            show))
    for task, value in zip(tasks, values):
        state.known[(task.decision_id, task.move)] = value


def _entry(decision: Decision, candidates: list[tuple[str, float]], state: _Selection) -> Entry:
    entry = Entry(decision)
    for move, _ in candidates:
        found = state.known[(decision.id, move)]
        entry.add(Candidate(move, found.value, found.se,
                            "game" if move == decision.game_move else "filter", 1))
    return entry


def _select(proposals: Sequence[Decision], state: _Selection, spec: FilterSpec,
            reference: ReferenceSpec, seed: int, backend: Backend, show: bool) -> None:
    """Accept decisions in proposal order, chunk by chunk (module docstring).

    Per chunk, the proposals still open are filtered and the candidates of
    the kept ones rated; then each proposal in order is accepted if it is
    still open and significant.  A proposal accepted in order was open
    before its chunk, so it was rated: the result does not depend on the
    chunk size.
    """
    step = max(FILTER_CHUNK, 4 * backend.workers)
    for start in range(0, len(proposals), step):
        chunk = list(proposals[start:start + step])
        keys = [position_key(d) for d in chunk]
        label = str(start // step + 1)
        candidates = _filter_chunk(chunk, keys, state, spec, reference, seed, backend, label,
                                   show)
        _rate(chunk, candidates, state, reference, seed, backend, label, show)
        for decision, key, found in zip(chunk, keys, candidates):
            if not found or not state.open(decision, key):
                continue
            entry = _entry(decision, found, state)
            if significant(entry, spec.significance):
                state.accepted.append(entry)
                state.seen.add(key)
                state.per_record[decision.id.split(":")[0]] += 1
        if len(state.accepted) >= state.wanted:
            return


def reuse_mismatch(reuse: Benchmark, reference: ReferenceSpec, seed: int) -> str | None:
    """Why ``reuse``'s references cannot serve a build with ``reference`` and
    ``seed`` (another seed, other reference settings), or ``None`` when they
    can.  Search options newer than ``reuse``'s record count at the value they
    had before (:data:`fastplay.benchmark.reference.OPTIONS_SINCE`)."""
    if reuse.seed != seed:
        return f"another seed ({reuse.seed}, not {seed})"
    mine, theirs = _settings(reference.to_json()), _settings(reuse.reference)
    differ = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    if differ:
        return "other reference settings: " + ", ".join(
            f"{k} {theirs.get(k, 'absent')!r}, not {mine.get(k, 'absent')!r}" for k in differ)
    return None


def _settings(reference: dict[str, Any]) -> dict[str, Any]:
    """A reference spec's JSON, its search options flattened and completed
    by :func:`~fastplay.benchmark.reference.completed_search` (so that a record older than an option compares
    equal to one that records its old value)."""
    flat = {k: v for k, v in reference.items() if k != "search"}
    if "search" in reference and isinstance(reference["search"], dict):
        flat.update({f"search.{k}": v for k, v in completed_search(reference["search"]).items()})
    return flat


def _reusable(reuse: Benchmark | None, reference: ReferenceSpec, seed: int
              ) -> dict[tuple[str, str], Evaluation]:
    """The evaluations of ``reuse`` made with the same reference settings and seed."""
    if reuse is None or reuse_mismatch(reuse, reference, seed) is not None:
        return {}
    return {(e.decision.id, c.move): Evaluation(c.move, c.value, c.se)
            for e in reuse.entries for c in e.candidates}


def build(inputs: Iterable[str], size: int, decisions: int, seed: int, backend: Backend, *,
          name: str | None = None, per_game: int = 5, komi: float | None = None,
          filter_spec: FilterSpec = FilterSpec(), reference: ReferenceSpec = ReferenceSpec(),
          progress: bool = False, reuse: Benchmark | None = None) -> Benchmark:
    """Build a benchmark of up to ``decisions`` decisions (module docstring).

    Args:
        inputs: SGF files or folders of them; records of other sizes are ignored.
        size: board size.
        decisions: decisions wanted; fewer when the records run out.
        seed: the seed every choice and every search derives from.
        backend: where the tasks run (:func:`fastplay.backend.get_backend`).
        name: the benchmark's name (default ``"{size}x{size}"``).
        per_game: at most this many decisions per record.
        komi: replaces each record's komi when given.
        reuse: an earlier benchmark built with the same reference settings
            and seed: its candidates' values are taken instead of being
            computed again (they are pure functions of their task), so the
            result is the same, faster.

    Raises ``ValueError`` when no record of that size can be read.
    """
    records = read_records(inputs, size, komi)
    if not records:
        raise ValueError(f"no readable {size}x{size} game record among the inputs")
    reference = reference.recorded(size)   # the file keeps the search's options
    state = _Selection(decisions, per_game, known=_reusable(reuse, reference, int(seed)))
    _select(propose(records, int(seed), per_record=2 * per_game), state, filter_spec,
            reference, int(seed), backend, progress)
    return Benchmark(name or f"{size}x{size}", size, int(seed), vars(filter_spec).copy(),
                     reference.to_json(), state.accepted)


def complete(benchmark: Benchmark, wanted: Iterable[tuple[int, str]], backend: Backend,
             progress: bool = False) -> int:
    """A candidate-completion pass: evaluate, with the benchmark's own reference
    settings, each ``(entry index, move)`` that has no reference yet, and add
    them as ``"completion"`` candidates of version ``benchmark.version + 1``.

    Returns the number of candidates added (the version is raised only when
    some were).  Moves that are not legal are skipped (the scorer counts them
    as illegal).
    """
    spec = ReferenceSpec(**{k: v for k, v in benchmark.reference.items() if k != "method"})
    todo: dict[tuple[int, str], CandidateTask] = {}
    for index, move in wanted:
        entry = benchmark.entries[index]
        key = move.strip().upper()
        if key in ("RESIGN", "") or entry.value_of(key) is not None or (index, key) in todo:
            continue
        key = "pass" if key == "PASS" else key
        try:
            legal = entry.decision.position.board().is_legal(key)
        except ValueError:  # not a vertex of this board
            legal = False
        if not legal:
            continue
        todo[(index, key)] = CandidateTask(entry.decision.position, entry.decision.id, key, spec,
                                           benchmark.seed)
    if not todo:
        return 0
    tasks = list(todo.values())
    values = _progress(backend.map(evaluate, tasks), len(tasks), "completion", progress)
    version = benchmark.version + 1
    for (index, _), found in zip(todo, list(values)):
        benchmark.entries[index].add(Candidate(found.move, found.value, found.se, "completion",
                                               version))
    benchmark.version = version
    return len(tasks)


def rerate(benchmark: Benchmark, reference: ReferenceSpec, backend: Backend, *,
           limit: int | None = None, name: str | None = None,
           progress: bool = False) -> Benchmark:
    """The same decisions and candidates rated by another reference player.

    A reference built with one player can favour engines that think like it;
    re-rating the candidates with another (other playouts, prior or visits)
    and comparing the engines' order under both checks that the choice of
    reference player does not decide the comparison.  The first ``limit``
    decisions are kept (all by default); every candidate, completions
    included, gets a version-1 value from ``reference`` and the benchmark's seed.
    """
    entries = benchmark.entries[:limit]
    tasks = [CandidateTask(e.decision.position, e.decision.id, c.move, reference,
                           benchmark.seed) for e in entries for c in e.candidates]
    values = iter(list(_progress(backend.map(evaluate, tasks), len(tasks), "re-rating",
                                 progress)))
    rated = []
    for entry in entries:
        new = Entry(entry.decision)
        for candidate in entry.candidates:
            found = next(values)
            new.add(Candidate(candidate.move, found.value, found.se, candidate.source, 1))
        rated.append(new)
    return Benchmark(name or f"{benchmark.name}-rerated", benchmark.size, benchmark.seed,
                     dict(benchmark.filter), reference.to_json(), rated)
