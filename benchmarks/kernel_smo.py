"""Gaussian-kernel BinarySVC (SMO) against scikit-learn's SVC (LIBSVM), both at their defaults (issue 30).

    python benchmarks/kernel_smo.py                        # n = 5,000 and 20,000, 3 runs each
    python benchmarks/kernel_smo.py --sizes 50000 --repeat 3
    python benchmarks/kernel_smo.py --sizes 5000 --features 784   # wide rows
    python benchmarks/kernel_smo.py --quick                # n = 1,000, one run: a smoke run

The problem: ``make_classification(n, n_features=20, n_informative=10, flip_y=0.05, random_state=0)``,
standardised, labels +-1.  ``BinarySVC(kernel="rbf")`` and ``SVC(kernel="rbf")`` as they come: C = 1,
``gamma="scale"`` (1/20 on standardised data, for both), 200 MB of kernel rows, both with shrinking; svmteach
stops on its certified relative duality gap 1e-3, LIBSVM on its KKT violation 1e-3.  (To compare with the code
of another commit: ``git worktree add /tmp/old <commit>``, then run this script with ``PYTHONPATH=/tmp/old``,
alternating with the current code, one process each.)  One process, one thread (numba and
the BLAS); numba compiles or loads its cache on a small fit first; the fits alternate (SVC, then svmteach) and
the table gives medians and the range.

Accuracy: the dual objective each fit's alpha reaches, :math:`D(\\alpha) = 1^\\top\\alpha - \\frac12 (\\alpha
\\circ y)^\\top K (\\alpha \\circ y)` recomputed here from ``dual_coef_`` in blocks of rows, against the primal of
a svmteach run certified to a relative gap of 1e-7: ``(P_ref - D) / P_ref`` bounds each fit's relative dual
suboptimality from above.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import machine, table  # noqa: E402

from svmteach import BinaryProblem, BinarySVC, Kernel, SMO, solve  # noqa: E402

D_FEATURES = 20


def data(n, d=D_FEATURES):
    """``(X, y)``: the standardised problem of the module docstring with d features, y in {-1, +1}."""
    from sklearn.datasets import make_classification
    from sklearn.preprocessing import StandardScaler

    X, y = make_classification(n_samples=n, n_features=d, n_informative=d // 2, flip_y=0.05,
                               random_state=0)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


def dual_value(X, support, coef, gamma, block=1000):
    """:math:`\\sum |c_s| - \\frac12 c^\\top K_{SS} c` for the support vectors' ``coef`` = alpha_s y_s."""
    from sklearn.metrics.pairwise import rbf_kernel

    Xs = X[support]
    quad = 0.0
    for a in range(0, len(support), block):
        quad += coef[a:a + block] @ (rbf_kernel(Xs[a:a + block], Xs, gamma=gamma) @ coef)
    return float(np.abs(coef).sum() - 0.5 * quad)


def run(n, d, repeat):
    from sklearn.svm import SVC

    X, y = data(n, d)
    gamma = 1.0 / (d * X.var())
    reference = solve(SMO(), BinaryProblem(X, y, 1.0, Kernel("gaussian", gamma)), tol=1e-7, max_iter=10**9)
    assert reference.converged
    P_ref = reference.primal
    times = {"SVC": [], "svmteach": []}
    fitted = {}
    for _ in range(repeat):
        t = time.perf_counter()
        fitted["SVC"] = SVC(kernel="rbf").fit(X, y)
        times["SVC"].append(time.perf_counter() - t)
        t = time.perf_counter()
        fitted["svmteach"] = BinarySVC(kernel="rbf").fit(X, y)
        times["svmteach"].append(time.perf_counter() - t)
    rows = []
    for name, model in fitted.items():
        D = dual_value(X, model.support_, model.dual_coef_[0], gamma)
        iters = int(np.sum(model.n_iter_)) if name == "SVC" else int(model.result_.n_iter)
        rows.append((name, times[name], (P_ref - D) / P_ref, len(model.support_), iters))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--features", type=int, default=D_FEATURES, help="d (half of them informative)")
    parser.add_argument("--quick", action="store_true", help="n = 1,000, one run")
    args = parser.parse_args(argv)
    sizes, repeat = ([1000], 1) if args.quick else (args.sizes, args.repeat)
    with threadpool_limits(1):
        import numba

        numba.set_num_threads(1)
        BinarySVC(kernel="rbf").fit(*data(300))  # compile (or load numba's cache) before any timing
        out = []
        for n in sizes:
            (_, ts, ds, ss, its), (_, tm, dm, sm, itm) = run(n, args.features, repeat)
            med_s, med_m = statistics.median(ts), statistics.median(tm)
            out.append((f"{n:,} x {args.features}", f"{med_s:.2f} s ({min(ts):.2f}-{max(ts):.2f})", f"{ds:.1e}", f"{ss:,}", f"{its:,}",
                        f"{med_m:.2f} s ({min(tm):.2f}-{max(tm):.2f})", f"{dm:.1e}", f"{sm:,}", f"{itm:,}",
                        f"**{med_m / med_s:.2f}**"))
            print(f"n = {n}: SVC {med_s:.2f} s, svmteach {med_m:.2f} s, ratio {med_m / med_s:.2f}", file=sys.stderr,
                  flush=True)
        print(f"Machine: {machine()}; {time.strftime('%Y-%m-%d')}; load average "
              f"{open('/proc/loadavg').read().split()[0]} at the end; medians of {repeat} runs.\n")
    print(table(out, ["n", "SVC time", "SVC dual subopt.", "SVC SVs", "SVC iterations", "svmteach time",
                      "svmteach dual subopt.", "svmteach SVs", "svmteach pair steps", "ratio"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
