"""`process_*` and `python_info` for the whole server, summed over the gunicorn master and its workers.

prometheus-client's ProcessCollector describes only the process that answers the scrape; behind gunicorn that
is one worker of several, so memory and CPU would be under-reported. This collector reads /proc for the
master (the worker's parent when workers are in use) and each of its children at scrape time.
"""

from __future__ import annotations

import os
import platform
import resource
from collections.abc import Iterator
from typing import Any

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(child) for child in handle.read().split()]
    except OSError:
        pass
    return found


def _stat(pid: int) -> tuple[float, int, int, float] | None:
    """(cpu seconds, resident bytes, virtual bytes, start seconds after boot) of one process."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rpartition(")")[2].split()
    except OSError:
        return None
    # fields[0] is the state (field 3 of proc(5)): utime is field 14, stime 15, starttime 22, vsize 23, rss 24
    return (
        (int(fields[11]) + int(fields[12])) / _TICKS,
        int(fields[21]) * _PAGE,
        int(fields[20]),
        int(fields[19]) / _TICKS,
    )


def _open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def _boot_time() -> float:
    try:
        with open("/proc/stat") as handle:
            for line in handle:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except OSError:
        pass
    return 0.0


class ServerProcessCollector:
    def __init__(self, workers: bool) -> None:
        self.workers = workers  # gunicorn workers: the parent is the master

    def pids(self) -> tuple[int, list[int]]:
        if not self.workers:
            return os.getpid(), [os.getpid()]
        master = os.getppid()
        return master, [master, *_children(master)]

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily

        if os.path.isdir("/proc/self"):
            master, pids = self.pids()
            stats = {pid: _stat(pid) for pid in pids}
            live = {pid: stat for pid, stat in stats.items() if stat is not None}
            yield CounterMetricFamily(
                "process_cpu_seconds_total",
                "Total user and system CPU time spent in seconds.",
                value=sum(s[0] for s in live.values()),
            )
            yield GaugeMetricFamily(
                "process_resident_memory_bytes",
                "Resident memory size in bytes.",
                value=sum(s[1] for s in live.values()),
            )
            yield GaugeMetricFamily(
                "process_virtual_memory_bytes", "Virtual memory size in bytes.", value=sum(s[2] for s in live.values())
            )
            yield GaugeMetricFamily(
                "process_open_fds", "Number of open file descriptors.", value=sum(_open_fds(pid) for pid in live)
            )
            yield GaugeMetricFamily(
                "process_max_fds",
                "Maximum number of open file descriptors.",
                value=resource.getrlimit(resource.RLIMIT_NOFILE)[0],
            )
            if master in live:
                yield GaugeMetricFamily(
                    "process_start_time_seconds",
                    "Start time of the process since unix epoch in seconds.",
                    value=_boot_time() + live[master][3],
                )
        info = InfoMetricFamily("python", "Python platform information")
        info.add_metric(
            [],
            {
                "implementation": platform.python_implementation(),
                "version": platform.python_version(),
                "major": platform.python_version_tuple()[0],
                "minor": platform.python_version_tuple()[1],
                "patchlevel": platform.python_version_tuple()[2],
            },
        )
        yield info
