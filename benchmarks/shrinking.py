"""Shrinking on and off: the sequential multiclass solvers' time to a certified gap, in one process.

    python benchmarks/shrinking.py            # digits (C = 1) and the text-like CSR problem
    python benchmarks/shrinking.py --quick    # smaller, a smoke run

Each solver runs ``solve(solver, problem, tol=1e-3)`` (the default tol; stopped by its certified
duality gap) with ``shrinking=True`` (the default: samples, and for Crammer-Singer classes, whose
block is settled are set aside, LIBLINEAR's rule) and ``shrinking=False``; medians of 3 runs, one
thread.  The table gives both times, the visits each run made (in epochs' worth of n visits) and
the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from sklearn.datasets import load_digits
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import machine, table, text_like  # noqa: E402

from svmteach import CSBlondel, MulticlassProblem, WWExact, WWShark, solve  # noqa: E402
from svmteach.solvers.exact_block import ExactBlock  # noqa: E402

SOLVERS = [("CS, blondel", "cs", CSBlondel), ("WW, exact", "ww", WWExact), ("WW, shark", "ww", WWShark),
           ("LLW, exact", "llw", ExactBlock)]


def timed(make, problem, repeat):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = solve(make(), problem, tol=1e-3)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    digits = load_digits()
    n_text = 2000 if args.quick else 20_000
    problems = [("digits 1797 x 64, C = 1", digits.data / 16.0, digits.target),
                (f"text-like CSR {n_text} x 50000, C = 1", *text_like(n=n_text))]
    rows = []
    with threadpool_limits(1):
        print(machine())
        for label, X, y in problems:
            for name, loss, Solver in SOLVERS:
                problem = MulticlassProblem(X, y, C=1.0, loss=loss)
                solve(Solver(random_state=0), MulticlassProblem(X[:50], y[:50], C=1.0, loss=loss))  # compile
                on, r_on = timed(lambda: Solver(random_state=0, shrinking=True), problem, args.repeat)
                off, r_off = timed(lambda: Solver(random_state=0, shrinking=False), problem, args.repeat)
                n = problem.n_samples
                rows.append((label, name, f"{off:.3g} s ({r_off.n_iter / n:.0f}, gap {r_off.gap:.1e})",
                             f"{on:.3g} s ({r_on.n_iter / n:.0f}, gap {r_on.gap:.1e})", f"{on / off:.2f}"))
    print(table(rows, ["problem", "solver", "shrinking=False: time (epochs of visits, gap)",
                       "shrinking=True (default)", "ratio on / off"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
