"""Shared helpers of the pytest-benchmark suites (a plain module: a
conftest.py here would shadow the tests' one, which the suites import)."""

from __future__ import annotations

from typing import Any


def median_seconds(benchmark: Any, statistic: str = "median") -> float | None:
    """The median (or another ``statistic``: ``"mean"``, ``"min"``) round time
    of ``benchmark`` in seconds, or ``None`` under ``--benchmark-disable``
    (each benchmark then runs its function once, a quick check that the
    suite still works, and records no rate)."""
    stats = getattr(benchmark, "stats", None)
    return None if stats is None else float(getattr(stats.stats, statistic))
