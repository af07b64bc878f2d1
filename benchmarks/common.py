"""Helpers shared by the benchmark scripts: timing, the machine's description, tables."""

from __future__ import annotations

import os
import platform
import statistics
import time


def best_of(fn, repeat=3):
    """Median wall time of ``fn()`` over ``repeat`` runs, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def machine() -> str:
    """One line naming the CPU, core count, Python and library versions."""
    import numba
    import numpy
    import sklearn

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, NumPy {numpy.__version__}, "
            f"numba {numba.__version__}, scikit-learn {sklearn.__version__}; one thread (BLAS limited to 1)")


def table(rows, header):
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def first_reaching(runs, target):
    """The first (loosest) run whose suboptimality is at most ``target``: ``(tol, time, subopt)``."""
    for tol, t, s in runs:
        if s <= target:
            return tol, t, s
    return runs[-1]
