"""Dual coordinate ascent: the one-dimensional quadratic, its maximiser, the gradient update;
and the primal subgradient of seed 002's Algorithm 1.

Sizes n = 3 with a general symmetric Q (Q_ij = y_i y_j K_ij).  Source: seed 002,
'Dual Solver - Algorithm' (Algorithm 2) and 'Binary Classification Primal Solver' (Algorithm 1).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import claim, numeric, real_symbols

MODEL = "dual coordinate ascent"
n = 3
Q = sp.Matrix(n, n, lambda r, c: sp.Symbol(f"Q_{min(r, c) + 1}{max(r, c) + 1}", real=True))
alpha = sp.Matrix(real_symbols("alpha1:4"))
x, Delta = real_symbols("x Delta")


def dual(al):
    return sum(al) - sp.Rational(1, 2) * (al.T * Q * al)[0]


def gradient(al):
    return sp.ones(n, 1) - Q * al


def coefficients(i=0):
    """``(a, b)`` of :math:`D(\\alpha + (x - \\alpha_i) e_i) = a x^2 + b x + c`."""
    g = gradient(alpha)
    return -Q[i, i] / 2, g[i] + Q[i, i] * alpha[i]


def steps():
    out = []
    i = 0
    al_x = alpha.copy()
    al_x[i] = x
    poly = sp.Poly(sp.expand(dual(al_x)), x)
    a_, b_ = coefficients()
    out.append(claim(MODEL, "gradient of the dual", sp.Matrix([sp.diff(dual(alpha), v) for v in alpha]),
                     gradient(alpha), "seed 002, Algorithm 2, line 2", "g = 1 - (y_i y_j x_i' x_j) alpha"))
    out.append(claim(MODEL, "coefficient a of x^2", poly.coeff_monomial(x ** 2), a_, "seed 002, Algorithm 2, line 5",
                     "a = -Q_ii / 2 (the slides' 'coefficients visualization')"))
    out.append(claim(MODEL, "coefficient b of x", poly.coeff_monomial(x), b_, "seed 002, Algorithm 2, line 5",
                     "b = g_i + Q_ii alpha_i, from the cached gradient"))
    vertex = sp.solve(sp.diff(a_ * x ** 2 + b_ * x, x), x)[0]
    out.append(claim(MODEL, "unconstrained maximiser", vertex, alpha[i] + gradient(alpha)[i] / Q[i, i],
                     "seed 002, Algorithm 2, line 6", "alpha_i + g_i / Q_ii, then clipped to [0, C] (a < 0)"))
    moved = alpha.copy()
    moved[i] = alpha[i] + Delta
    out.append(claim(MODEL, "gradient update", gradient(moved), gradient(alpha) - Delta * Q[:, i],
                     "seed 002, Algorithm 2, line 9", "g <- g - Delta Q e_i: O(n)"))
    # Algorithm 1: where no margin equals 1, P is differentiable and its gradient is the subgradient used
    w = sp.Matrix(real_symbols("w1:3"))
    X = sp.Matrix(n, 2, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
    ys = real_symbols("y1:4")
    C = sp.Symbol("C", positive=True)
    active = [0, 2]  # points with margin < 1 (their hinge is 1 - margin); point 2 has margin > 1
    P = sp.Rational(1, 2) * (w.T * w)[0] + C * sum(1 - ys[k] * (w.T * X[k, :].T)[0] for k in active)
    out.append(claim("primal subgradient", "subgradient of the primal",
                     sp.Matrix([sp.diff(P, v) for v in w]),
                     w - C * sum((ys[k] * X[k, :].T for k in active), sp.zeros(2, 1)),
                     "seed 002, Algorithm 1, lines 5-10",
                     "g = w - C sum_{m_i < 1} y_i x_i; full-batch although titled 'stochastic'"))
    out.extend(numeric_checks())
    return out


def numeric_checks():
    """The coefficients and step of DualCoordinateAscent against the lambdified derivation."""
    from ..problems import BinaryProblem
    from ..solvers import DualCoordinateAscent

    rng = np.random.default_rng(2)
    Xn = rng.normal(size=(n, 2))
    yn = np.array([1.0, -1.0, 1.0])
    p = BinaryProblem(Xn, yn, C=10.0)
    solver = DualCoordinateAscent(init="uniform", random_state=3, shrinking=False)
    state = solver.init(p)
    new = solver.step(p, state)
    i = new.i
    a_, b_ = coefficients(i)
    before = {**{Q[r, c]: p.Q[r, c] for r in range(n) for c in range(n)}, **dict(zip(alpha, state.alpha))}
    after = {**before, alpha[i]: new.alpha[i]}
    da, db = float(a_.subs(before)), float(b_.subs(before))
    grad_after = np.array(gradient(alpha).subs(after), dtype=float).ravel()
    return [numeric(MODEL, "DualCoordinateAscent.step: a, b", [new.a, new.b], [da, db],
                    "svmteach.solvers.dual_cd"),
            numeric(MODEL, "DualCoordinateAscent.step: gradient after the step", new.grad, grad_after,
                    "svmteach.solvers.dual_cd")]


