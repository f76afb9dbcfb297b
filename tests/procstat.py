"""Processes as Linux's ``/proc/PID/stat`` shows them, for the tests that
check that engines and workers end (no ``pgrep``: under the sanitizer run's
preloaded ASan runtime it hangs)."""

from __future__ import annotations

import os


def stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (state first,
    then the parent, the process group, ...), or ``None`` once the process
    is gone.  The name, in parentheses, may hold spaces and parentheses:
    the fields start after its last ``)``."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie or a dead process does not)."""
    fields = stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def processes(field: int, value: int) -> list[int]:
    """The living processes whose stat field ``field`` (1: the parent, 2: the
    process group) is ``value``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(int(entry))
            if fields is not None and fields[0] not in ("Z", "X") and int(fields[field]) == value:
                found.append(int(entry))
    return found
