"""``fastplay benchmark build``: decisions and their references from game records.

The build is a pure function of (records, options, seed):

1. the records of the chosen size are read (:func:`read_records`) and the
   positions to consider proposed in a seeded order (:func:`propose`);
2. they go through the reference filter in chunks (one task per
   position; a chunk is at least :data:`FILTER_CHUNK` positions and 4 per
   worker, so a fleet stays busy); the kept ones are accepted in proposal
   order, at most ``per_game`` per record, until ``decisions`` are accepted
   -- the same ones whatever the chunk or the number of workers, since every
   task is seeded by :func:`derive_seed` from the seed and its own key and
   a chunk only decides how many positions past the last accepted one were
   filtered in vain;
3. every candidate of every accepted decision is evaluated
   (:func:`evaluate`, one task per candidate: the unit of work a fleet of
   workers shares).

The benchmark holds the decisions in acceptance order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from fastplay.backend import Backend
from fastplay.benchmark.decisions import Decision, propose, read_records
from fastplay.benchmark.reference import (CandidateTask, Evaluation, FilterSpec, FilterTask,
                                          ReferenceSpec, evaluate, filter_decision)
from fastplay.benchmark.store import Benchmark, Candidate, Entry

__all__ = ["build", "complete", "rerate", "FILTER_CHUNK"]

#: Least positions filtered per round of tasks (4 per worker when that is more).
FILTER_CHUNK = 64

T = TypeVar("T")


def _progress(items: Iterator[T], total: int, desc: str, show: bool) -> Iterator[T]:
    if not show:
        return items
    from tqdm import tqdm

    return iter(tqdm(items, total=total, desc=desc, unit="task", leave=False, disable=None))


def _select(proposals: Sequence[Decision], wanted: int, per_game: int, spec: FilterSpec,
            reference: ReferenceSpec, seed: int, backend: Backend, show: bool
            ) -> list[tuple[Decision, list[tuple[str, float]]]]:
    """Filter the proposals chunk by chunk; the accepted decisions with their candidates."""
    accepted: list[tuple[Decision, list[tuple[str, float]]]] = []
    per_record: Counter[str] = Counter()
    step = max(FILTER_CHUNK, 4 * backend.workers)
    for start in range(0, len(proposals), step):
        chunk = list(proposals[start:start + step])
        tasks = [FilterTask(d, spec, reference, seed) for d in chunk]
        answers = _progress(backend.map(filter_decision, tasks), len(tasks),
                            f"filter {start // step + 1}", show)
        for decision, candidates in zip(chunk, list(answers)):
            key = decision.id.split(":")[0]
            if candidates and per_record[key] < per_game and len(accepted) < wanted:
                per_record[key] += 1
                accepted.append((decision, candidates))
        if len(accepted) >= wanted:
            break
    return accepted


def build(inputs: Iterable[str], size: int, decisions: int, seed: int, backend: Backend, *,
          name: str | None = None, per_game: int = 5, komi: float | None = None,
          filter_spec: FilterSpec = FilterSpec(), reference: ReferenceSpec = ReferenceSpec(),
          progress: bool = False) -> Benchmark:
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

    Raises ``ValueError`` when no record of that size can be read.
    """
    records = read_records(inputs, size, komi)
    if not records:
        raise ValueError(f"no readable {size}x{size} game record among the inputs")
    proposals = propose(records, seed, per_record=2 * per_game)
    accepted = _select(proposals, decisions, per_game, filter_spec, reference, seed, backend,
                       progress)
    tasks = [CandidateTask(d.position, d.id, move, reference, seed)
             for d, candidates in accepted for move, _ in candidates]
    values = _progress(backend.map(evaluate, tasks), len(tasks), "references", progress)
    by_key: dict[tuple[str, str], Evaluation] = {
        (task.decision_id, task.move): value for task, value in zip(tasks, list(values))}
    entries = []
    for decision, candidates in accepted:
        entry = Entry(decision)
        for move, _ in candidates:
            found = by_key[(decision.id, move)]
            entry.add(Candidate(move, found.value, found.se,
                                "game" if move == decision.game_move else "filter", 1))
        entries.append(entry)
    return Benchmark(name or f"{size}x{size}", size, seed, vars(filter_spec).copy(),
                     reference.to_json(), entries)


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
