"""The course's worked example, and exact computations on it for the problems' answers.

Three points in the plane: :math:`x_1 = (0, 0)` with :math:`y_1 = -1`, :math:`x_2 = (2, 0)` and
:math:`x_3 = (0, 2)` with :math:`y_2 = y_3 = +1` (arrays index them 0, 1, 2).  The helpers compute with
SymPy's exact rationals, by maximising the dual along a line or a coordinate directly (not with the
closed forms the notebooks derive), or with the library's solvers run to a tight tolerance.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

X = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
Y = np.array([-1.0, 1.0, 1.0])


def exact_data():
    """The points, labels and Gram matrix as SymPy matrices (exact)."""
    import sympy as sp

    Xs = sp.Matrix([[0, 0], [2, 0], [0, 2]])
    ys = sp.Matrix([-1, 1, 1])
    return Xs, ys, Xs * Xs.T


def exact_dual(alpha, K=None):
    """:math:`D(\\alpha) = \\sum_i \\alpha_i - \\tfrac12 \\sum_{ij} \\alpha_i \\alpha_j y_i y_j K_{ij}`, exactly."""
    import sympy as sp

    Xs, ys, K0 = exact_data()
    K = K0 if K is None else K
    a = sp.Matrix(alpha)
    v = a.multiply_elementwise(ys)
    return sp.nsimplify(sum(a)) - sp.Rational(1, 2) * (v.T * K * v)[0, 0]


class Move(NamedTuple):
    """The exact best move ``alpha + t d`` along a segment: ``t``, the new ``alpha``, the gain in ``D`` and the
    ends ``lo <= t <= hi`` of the segment (SymPy numbers)."""

    t: object
    alpha: object
    gain: object
    lo: object
    hi: object


def best_on_segment(alpha, direction, C, K=None) -> Move:
    """The exact maximiser of :math:`D(\\alpha + t d)` over the ``t`` that keep every entry in ``[0, C]``.

    ``D`` along the line is a quadratic in ``t``; its maximum over the segment is at an end or where its
    derivative vanishes, so the candidates are compared directly.
    """
    import sympy as sp

    t = sp.Symbol("t", real=True)
    a = sp.Matrix([sp.nsimplify(v) for v in alpha])
    d = sp.Matrix([sp.nsimplify(v) for v in direction])
    C = sp.nsimplify(C)
    lo, hi = -sp.oo, sp.oo
    for ai, di in zip(a, d):  # 0 <= a_i + t d_i <= C
        if di > 0:
            lo, hi = sp.Max(lo, -ai / di), sp.Min(hi, (C - ai) / di)
        elif di < 0:
            lo, hi = sp.Max(lo, (C - ai) / di), sp.Min(hi, -ai / di)
    phi = sp.expand(exact_dual(a + t * d, K))
    candidates = [lo, hi] + [r for r in sp.solve(sp.diff(phi, t), t) if lo <= r <= hi]
    best = max(candidates, key=lambda r: phi.subs(t, r))
    return Move(best, a + best * d, phi.subs(t, best) - phi.subs(t, 0), lo, hi)


def bias_from_free(alpha, C):
    r""":math:`b` by complementary slackness: the mean of :math:`y_t - \sum_s \alpha_s y_s K_{st}` over the
    free points (:math:`0 < \alpha_t < C`), exactly."""
    import sympy as sp

    Xs, ys, K = exact_data()
    a = sp.Matrix([sp.nsimplify(v) for v in alpha])
    f = K * a.multiply_elementwise(ys)
    free = [t for t in range(3) if 0 < a[t] < sp.nsimplify(C)]
    return sum(ys[t] - f[t] for t in free) / len(free)


def solved(C, bias=True, features=None, tol=1e-13):
    """The library's optimum for penalty ``C``: SMO with a bias, dual coordinate ascent without.

    Returns ``(alpha, w, b)`` as NumPy values; ``features`` replaces the points (the constant-feature copy).
    """
    from svmteach import SMO, BinaryProblem, DualCoordinateAscent, solve

    Xf = X if features is None else np.asarray(features, dtype=float)
    problem = BinaryProblem(Xf, Y, C=float(C))
    result = solve(SMO() if bias else DualCoordinateAscent(shrinking=False, random_state=0), problem, tol=tol)
    alpha = np.asarray(result.state.alpha, dtype=float)
    b = float(result.state.b) if bias else 0.0
    return alpha, Xf.T @ (alpha * Y), b


def primal(w, b, C, features=None):
    """:math:`\\tfrac12\\|w\\|^2 + C \\sum_i \\max(0, 1 - y_i (w^\\top x_i + b))` on the worked example."""
    Xf = X if features is None else features
    w = np.asarray(w, dtype=float)
    return 0.5 * float(w @ w) + C * float(np.maximum(0.0, 1.0 - Y * (Xf @ w + b)).sum())
