"""Binary solvers against LIBSVM and LIBLINEAR: time to the same relative suboptimality, in one process.

    python benchmarks/binary.py            # the sizes of the foundation issue
    python benchmarks/binary.py --quick    # small sizes, a smoke run

1. SMO (gaussian kernel, n = 5000, d = 20) against scikit-learn's SVC (LIBSVM),
   C = 1, gamma = 1/d, LIBSVM's default tol = 1e-3.
2. Dual coordinate ascent (linear, no bias, n = 20000, d = 100) against LIBLINEAR's
   dual solver ``-s 3 -B -1`` (L2-regularised hinge loss, no bias), C = 1, default eps.

For each pair: the reference library runs with its own default stopping rule;
its relative primal suboptimality ``(P - P*) / P*`` is measured against a
high-accuracy svmteach run (relative duality gap 1e-8, which certifies P* to 1e-8).  svmteach
then runs with tolerances 1e-1, 3e-2, ... and the loosest one whose
suboptimality is at most the reference's is timed.  Both primals are evaluated
by the same float64 function.  Times are medians of 3 runs, one thread, all
set-up (svmteach builds its problem, including kernel rows, inside the timing;
the LIBLINEAR problem conversion is outside it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import best_of, first_reaching, machine, table  # noqa: E402

from svmteach import SMO, BinaryProblem, DualCoordinateAscent, solve  # noqa: E402
from svmteach.kernels import Kernel, gram  # noqa: E402

TOLS = [1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6]


def kernel_primal(X, y, C, kernel, coef, b):
    """Primal of ``f(x) = sum_i coef_i k(x_i, x) + b`` (coef = alpha * y), in float64, in blocks."""
    nz = np.flatnonzero(coef)
    f = np.zeros(len(y))
    norm2 = 0.0
    for s in range(0, len(nz), 1000):
        block = nz[s : s + 1000]
        Kb = gram(X[block], X, kernel)  # (block, n)
        f += coef[block] @ Kb
        norm2 += coef[block] @ (Kb[:, nz] @ coef[nz])
    return 0.5 * norm2 + C * np.maximum(0.0, 1.0 - y * (f + b)).sum()


def bench_smo(n, d):
    from sklearn.svm import SVC

    X, y = make_classification(n_samples=n, n_features=d, n_informative=d // 2, flip_y=0.05, random_state=0)
    X = StandardScaler().fit_transform(X)
    y = np.where(y == 1, 1.0, -1.0)
    C, gamma = 1.0, 1.0 / d
    kern = Kernel("gaussian", gamma)
    ref = solve(SMO(), BinaryProblem(X, y, C, kern), tol=1e-8, max_iter=10**8)
    P_star = ref.dual  # the gap certifies P* in [dual, primal]

    def ours(tol):
        r = solve(SMO(), BinaryProblem(X, y, C, kern), tol=tol, max_iter=10**8)
        return kernel_primal(X, y, C, kern, np.asarray(r.state.alpha) * y, r.state.b)

    def libsvm():
        m = SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-3, cache_size=400).fit(X, y)
        coef = np.zeros(n)
        coef[m.support_] = m.dual_coef_[0]
        return kernel_primal(X, y, C, kern, coef, m.intercept_[0])

    return compare("SMO (gaussian) vs LIBSVM (SVC)", f"n={n}, d={d}, C=1, gamma=1/d", ours, libsvm, P_star)


def bench_dual_cd(n, d):
    from liblinear import liblinearutil as ll

    X, y = make_classification(n_samples=n, n_features=d, n_informative=d // 3, flip_y=0.05, random_state=0)
    X = StandardScaler().fit_transform(X) / np.sqrt(d)
    y = np.where(y == 1, 1.0, -1.0)
    C = 1.0
    ref = solve(DualCoordinateAscent(random_state=0), BinaryProblem(X, y, C), tol=1e-8, max_iter=10**9)
    P_star = ref.dual

    def primal(w):
        return 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (X @ w)).sum()

    def ours(tol):
        r = solve(DualCoordinateAscent(random_state=0), BinaryProblem(X, y, C), tol=tol, max_iter=10**9)
        return primal(X.T @ (np.asarray(r.state.alpha) * y))

    prob = ll.problem(y.tolist(), X)

    def liblinear():
        m = ll.train(prob, ll.parameter(f"-s 3 -c {C} -B -1 -q"))
        w = np.array([m.w[i] for i in range(d)])
        return primal(w if m.label[0] == 1 else -w)

    return compare("dual CD (linear, no bias) vs LIBLINEAR -s 3", f"n={n}, d={d}, C=1", ours, liblinear, P_star)


def compare(name, size, ours, reference, P_star):
    t_ref, P_ref = best_of(reference)
    s_ref = (P_ref - P_star) / P_star
    runs = []
    for tol in TOLS:
        t, P = best_of(lambda: ours(tol))
        runs.append((tol, t, (P - P_star) / P_star))
        if runs[-1][2] <= s_ref:
            break
    tol, t_ours, s_ours = first_reaching(runs, s_ref)
    return [name, size, f"{t_ref:.3f} s ({s_ref:.1e})", f"{t_ours:.3f} s ({s_ours:.1e}, tol {tol:g})",
            f"{t_ours / t_ref:.2f}"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        # compile the fast paths before timing
        Xw, yw = make_classification(n_samples=60, n_features=5, random_state=0)
        solve(SMO(), BinaryProblem(Xw, yw, 1.0, Kernel("gaussian", 0.2)), tol=1e-3)
        solve(DualCoordinateAscent(), BinaryProblem(Xw, yw), tol=1e-3)
        rows = [bench_smo(500, 20) if args.quick else bench_smo(5000, 20),
                bench_dual_cd(2000, 100) if args.quick else bench_dual_cd(20000, 100)]
    print(machine())
    print()
    print(table(rows, ["solvers", "problem", "reference: time (subopt.)", "svmteach: time (subopt.)",
                       "ratio (svmteach / reference)"]))


if __name__ == "__main__":
    main()
