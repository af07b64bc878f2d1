"""Tiny quadratic programs solved by trying every active set: the oracle of the problems of notebooks 05-08.

The problems of notebooks 6 and 7 ask for the optimum of duals and block subproblems with a handful of
variables.  Their answers are computed here without the library's solvers and without the closed forms
the notebooks derive: every variable is tried at its lower bound, at its upper bound or free, the KKT
system of the free ones is solved, and the first candidate that is feasible and has multipliers of the
right signs is returned.  For a convex problem any such KKT point is a minimiser (notebook 2), and with
n variables there are at most 3^n candidates: fine for n <= 8.
"""

from __future__ import annotations

import itertools

import numpy as np


def solve_by_active_sets(P, q, lower, upper, A_eq=None, b_eq=None, tol=1e-10):
    r"""Minimise :math:`\tfrac12 x^\top P x + q^\top x` over ``lower <= x <= upper`` and ``A_eq x = b_eq``.

    ``P`` is symmetric positive semidefinite (n, n); ``lower`` / ``upper`` are (n,) and may hold -inf / inf;
    ``A_eq`` is (r, n) or None.  Returns the minimiser as an (n,) array; raises RuntimeError when no active
    set gives a KKT point (an infeasible or unbounded problem).
    """
    P, q = np.asarray(P, float), np.asarray(q, float)
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    n = len(q)
    A = np.zeros((0, n)) if A_eq is None else np.atleast_2d(np.asarray(A_eq, float))
    b = np.zeros(0) if b_eq is None else np.atleast_1d(np.asarray(b_eq, float))
    r = len(b)
    scale = 1.0 + np.abs(P).max() + np.abs(q).max()
    options = [[s for s, bound in (("free", 0.0), ("lower", lower[i]), ("upper", upper[i])) if np.isfinite(bound)]
               for i in range(n)]
    for status in itertools.product(*options):
        free = np.array([s == "free" for s in status])
        x = np.where(np.array([s == "upper" for s in status]), upper, lower)
        x[free] = 0.0
        F = np.flatnonzero(free)
        # KKT of the free variables and the equalities: P_FF x_F + A_F' nu = -(q_F + P_FB x_B), A_F x_F = b - A_B x_B
        kkt = np.block([[P[np.ix_(F, F)], A[:, F].T], [A[:, F], np.zeros((r, r))]])
        rhs = np.concatenate([-(q[F] + P[np.ix_(F, ~free)] @ x[~free]), b - A[:, ~free] @ x[~free]])
        sol = np.linalg.lstsq(kkt, rhs, rcond=None)[0] if len(rhs) else np.zeros(0)
        if len(rhs) and np.abs(kkt @ sol - rhs).max() > tol * scale:
            continue  # no KKT point with this active set
        x[F] = sol[: len(F)]
        nu = sol[len(F):]
        if np.any(x < lower - tol * scale) or np.any(x > upper + tol * scale):
            continue
        reduced = P @ x + q + A.T @ nu  # >= 0 where x sits at its lower bound, <= 0 at its upper bound
        at_lower = np.array([s == "lower" for s in status])
        at_upper = np.array([s == "upper" for s in status])
        if np.any(reduced[at_lower] < -tol * scale) or np.any(reduced[at_upper] > tol * scale):
            continue
        return x
    raise RuntimeError("no active set gives a KKT point: the problem is infeasible or unbounded")


def linear_map(f, n_in):
    """The matrix of a linear function ``f`` of an (n_in,) vector, column by column (``f(e_j)``, flattened)."""
    return np.column_stack([np.ravel(f(np.eye(n_in)[j])) for j in range(n_in)])
