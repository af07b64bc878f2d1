"""The regularization path against single Cholesky solves (Rosasco's MIT 9.520 notes: 'finding c(lambda) for many
lambdas is (essentially) free').

    python benchmarks/rls.py           # n = 2000, 100 lambdas, gaussian kernel
    python benchmarks/rls.py --quick   # n = 500

Reports, on one thread, medians of 5 runs: one Cholesky solve of (K + lam I) c = Y; the
whole path (one tridiagonalisation K = Q T Q', a tridiagonal solve per lambda, one blocked
product with Q); the leave-one-out residuals for every lambda (one eigendecomposition);
and 100 separate Cholesky solves, the naive alternative.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).parent))
from common import best_of, machine, table  # noqa: E402

from svmteach.kernels import Kernel, gram  # noqa: E402
from svmteach.rls import loo_errors, regularization_path, solve_dual  # noqa: E402


def problem(argv, description):
    """The benchmark's data from the command line: X (n, 10), labels Y (n, 1), 100 lambdas."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    n = 500 if parser.parse_args(argv).quick else 2000
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 10))
    Y = np.sign(X[:, :1] + 0.3 * rng.normal(size=(n, 1)))
    return X, Y, np.logspace(-3, 2, 100)


def main(argv=None):
    X, Y, lams = problem(argv, __doc__)
    n = X.shape[0]
    K = gram(X, None, Kernel("gaussian", 0.1))
    with threadpool_limits(1):
        t_one, _ = best_of(lambda: solve_dual(K, Y, 1.0), repeat=5)
        t_path, _ = best_of(lambda: regularization_path(K, Y, lams), repeat=5)
        t_loo, _ = best_of(lambda: loo_errors(K, Y, lams))
        t_naive, _ = best_of(lambda: [solve_dual(K, Y, lam) for lam in lams], repeat=1)
    rows = [["one Cholesky solve", f"{t_one:.3f} s", "1.0"],
            ["path, 100 lambdas (K = Q T Q', tridiagonal solves)", f"{t_path:.3f} s", f"{t_path / t_one:.1f}"],
            ["leave-one-out, 100 lambdas", f"{t_loo:.3f} s", f"{t_loo / t_one:.1f}"],
            ["100 separate Cholesky solves", f"{t_naive:.3f} s", f"{t_naive / t_one:.1f}"]]
    print(machine())
    print(f"\nn = {n}, gaussian kernel, one target column\n")
    print(table(rows, ["computation", "time", "in Cholesky solves"]))


if __name__ == "__main__":
    main()
