"""Regularized least squares and the representer argument (seeds 003 and 004).

Sizes n = 3, d = 2 with free symbols for the data, the targets and lambda.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import claim, numeric, real_symbols

MODEL = "regularized least squares"
n, d = 3, 2
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
Y = sp.Matrix(real_symbols("y1:4"))
c = sp.Matrix(real_symbols("c1:4"))
lam = sp.Symbol("lambda", positive=True)
K = X * X.T


def steps():
    out = []
    objective = sp.Rational(1, 2) * ((Y - K * c).T * (Y - K * c))[0] + lam / 2 * (c.T * K * c)[0]
    grad = sp.Matrix([sp.diff(objective, v) for v in c])
    out.append(claim(MODEL, "gradient of the RLS objective", grad, -K * (Y - K * c) + lam * K * c,
                     "seed 003, 'RLS' (first line of the solution)", "-K(Y - Kc) + lambda K c"))
    out.append(claim(MODEL, "(K + lambda I) c = Y is stationary", grad, K * ((K + lam * sp.eye(n)) * c - Y),
                     "seed 003, 'RLS'; seed 004, 'dual RLS'",
                     "the gradient is K((K + lambda I)c - Y): c = (K + lambda I)^{-1} Y makes it 0 (the unique "
                     "minimiser in the span when K is singular)"))
    out.append(claim(MODEL, "push-through identity", (X.T * X + lam * sp.eye(d)) * X.T, X.T * (X * X.T + lam * sp.eye(n)),
                     "seed 004, 'dual RLS' (w = X'(XX' + lambda I)^{-1} y = (X'X + lambda I)^{-1} X'y)",
                     "(X'X + lambda I) X' = X'(XX' + lambda I); both inverses exist for lambda > 0"))
    w = sp.Matrix(real_symbols("w1:3"))
    primal = sp.Rational(1, 2) * ((Y - X * w).T * (Y - X * w))[0] + lam / 2 * (w.T * w)[0]
    out.append(claim(MODEL, "primal stationarity", sp.Matrix([sp.diff(primal, v) for v in w]),
                     X.T * X * w - X.T * Y + lam * w, "seed 003, 'Linear kernel'", "X'Xw - X'Y + lambda w = 0"))
    # the orthogonal component (seed 004): two points in R^3, p orthogonal to both by construction
    X3 = sp.Matrix(2, 3, lambda r, q: sp.Symbol(f"z_{r + 1}{q + 1}", real=True))
    p = X3[0, :].T.cross(X3[1, :].T) * sp.Symbol("s", real=True)
    a = sp.Matrix(real_symbols("a1:3"))
    Y3 = sp.Matrix(real_symbols("v1:3"))
    w0 = X3.T * a

    def loss(w):
        return ((Y3 - X3 * w).T * (Y3 - X3 * w))[0] + lam * (w.T * w)[0]

    out.append(claim(MODEL, "the orthogonal component only costs", loss(w0 + p), loss(w0) + lam * (p.T * p)[0],
                     "seed 004, 'Representer theorem' (eq. 2 and the next line)",
                     "with x_i'p = 0 for every i the loss is unchanged and the penalty grows by lambda |p|^2, "
                     "so p = 0 at the optimum: w = X'a"))
    # regularization path by eigendecomposition (seed 003): K = Q diag(l) Q'
    th = sp.Symbol("theta", real=True)
    Qr = sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])
    l1, l2 = real_symbols("l1 l2", nonnegative=True)
    K2 = Qr * sp.diag(l1, l2) * Qr.T
    Y2 = sp.Matrix(real_symbols("u1 u2"))
    out.append(claim(MODEL, "path from one eigendecomposition", Qr * sp.diag(1 / (l1 + lam), 1 / (l2 + lam)) * Qr.T * Y2,
                     (K2 + lam * sp.eye(2)).inv() * Y2, "seed 003, 'Is there a more efficient method...'",
                     "c(lambda) = Q (Lambda + lambda I)^{-1} Q'Y: O(n^2) per lambda once Q is known"))
    # the SVM through the representer theorem: f = K c with c_i = alpha_i y_i
    al = sp.Matrix(real_symbols("alpha1:4"))
    ys = sp.Matrix(real_symbols("s1:4"))
    cs = sp.Matrix([al[i] * ys[i] for i in range(n)])
    quad_dual = sum(al[i] * al[j] * ys[i] * ys[j] * K[i, j] for i in range(n) for j in range(n))
    out.append(claim(MODEL, "SVM via the representer theorem", (cs.T * K * cs)[0], quad_dual,
                     "seed 003, 'Towards the Dual II'", "c_i = alpha_i y_i turns 1/2 c'Kc into the dual's quadratic term"))
    out.extend(numeric_checks())
    return out


def numeric_checks():
    """svmteach.rls's solvers against the lambdified derivation."""
    from .. import rls

    rng = np.random.default_rng(6)
    Xn = rng.normal(size=(n, d))
    Yn = rng.normal(size=n)
    lamn = 0.4
    system = sp.lambdify([list(X), lam], K + lam * sp.eye(n), "numpy")  # the derived system matrix
    derived = np.linalg.solve(np.asarray(system(Xn.ravel(), lamn), dtype=float), Yn)
    return [numeric(MODEL, "rls.solve_dual", rls.solve_dual(Xn @ Xn.T, Yn, lamn).ravel(), derived, "svmteach.rls"),
            numeric(MODEL, "rls.solve_primal (push-through)", rls.solve_primal(Xn, Yn, lamn).ravel(),
                    Xn.T @ derived, "svmteach.rls")]
