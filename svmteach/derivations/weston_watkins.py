"""The Weston-Watkins dual with a margin scale M: Lagrangian, W, the dual, gradients, the block
of one sample, the greedy step and the gradient update.

Sizes n = 3, d = 2, k = 3 with labels y = (0, 1, 2); data, C, M and the multipliers are
free symbols.  W is d x k here, as in seed 000 (svmteach stores its transpose).
Source: seed 000 (the sections are named in each step).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .core import claim, erratum, holds, numeric, real_symbols

MODEL = "Weston-Watkins"
n, d, k = 3, 2, 3
labels = (0, 1, 2)
X = sp.Matrix(n, d, lambda r, c: sp.Symbol(f"x_{r + 1}{c + 1}", real=True))
M, C, m = real_symbols("M C m")
Wsym = sp.Matrix(d, k, lambda r, c: sp.Symbol(f"W_{r + 1}{c + 1}", real=True))
free = {(i, j): sp.Symbol(f"alpha_{i + 1}{j + 1}", real=True) for i in range(n) for j in range(k) if j != labels[i]}


def x(i):
    return X[i, :].T


def e(j):
    return sp.Matrix([1 if r == j else 0 for r in range(k)])


def alpha_matrix(values=None):
    """(n, k) alpha with alpha_{i y_i} = -sum of the others (seed 000's convention)."""
    values = free if values is None else values
    A = sp.zeros(n, k)
    for (i, j), v in values.items():
        A[i, j] = v
        A[i, labels[i]] -= v
    return A


def weights(A=None):
    """:math:`W = -M \\sum_i x_i \\alpha_i^\\top` (d, k)."""
    A = alpha_matrix() if A is None else A
    return -M * sum((x(i) * A[i, :] for i in range(n)), sp.zeros(d, k))


def dual(A=None):
    """:math:`f(\\alpha) = \\frac{M^2}{2} \\sum_{i,s} x_s^\\top x_i \\alpha_i^\\top \\alpha_s - \\sum_{j \\ne y_i} \\alpha_{ij}`."""
    A = alpha_matrix() if A is None else A
    quad = sum((x(s).T * x(i))[0] * (A[i, :] * A[s, :].T)[0] for i in range(n) for s in range(n))
    lin = sum(A[i, j] for i in range(n) for j in range(k) if j != labels[i])
    return M ** 2 / 2 * quad - lin


def steps():
    out = []
    xi = {key: sp.Symbol(f"xi_{key[0] + 1}{key[1] + 1}", real=True) for key in free}
    beta = {key: sp.Symbol(f"beta_{key[0] + 1}{key[1] + 1}", real=True) for key in free}
    Delta = {key: e(labels[key[0]]) - e(key[1]) for key in free}
    L = sp.Rational(1, 2) * sum(v ** 2 for v in Wsym) + sum(
        C * xi[key] - beta[key] * xi[key]
        + free[key] * (1 - M * (Wsym.T * x(key[0]) * Delta[key].T).trace() - xi[key]) for key in free)
    out.append(holds(MODEL, "Lagrangian", sp.Eq(sp.Symbol("L"), L), True, "seed 000, 'Dual problem'",
                     "alpha_ij >= 0 for the margin constraints, beta_ij >= 0 for xi_ij >= 0"))
    sol = sp.solve([sp.diff(L, v) for v in Wsym], list(Wsym), dict=True)[0]
    W_star = Wsym.subs(sol)
    out.append(claim(MODEL, "stationarity in W", W_star,
                     M * sum((free[key] * x(key[0]) * Delta[key].T for key in free), sp.zeros(d, k)),
                     "seed 000, 'Dual problem'", "W = M sum alpha_ij x_i Delta_{y_i, j}'"))
    out.append(claim(MODEL, "W = -M sum_i x_i alpha_i'", W_star, weights(), "seed 000, 'Dual problem'",
                     "with alpha_{i y_i} = -sum_{j != y_i} alpha_ij"))
    key0 = next(iter(free))
    out.append(claim(MODEL, "stationarity in xi_ij", sp.diff(L, xi[key0]), C - beta[key0] - free[key0],
                     "seed 000, 'Dual problem'", "so 0 <= alpha_ij <= C"))
    L_dual = L.subs(sol).subs({beta[key]: C - free[key] for key in free})
    out.append(claim(MODEL, "dual objective", sp.expand(L_dual), sp.expand(-dual()),
                     "seed 000, 'Expression for the dual problem'",
                     "L(alpha) = -f(alpha) with f = M^2/2 sum x_s'x_i alpha_i'alpha_s - sum alpha_ij"))
    W = weights()
    i, j = 0, 1  # sample 1 (class 0), coordinate j = 1
    y = labels[i]
    grad = sp.diff(dual(), free[(i, j)])
    out.append(claim(MODEL, "gradient of the dual", grad, M * ((W[:, y] - W[:, j]).T * x(i))[0] - 1,
                     "seed 000, 'Derivatives'", "df/dalpha_ij = M (w_{y_i} - w_j)' x_i - 1"))
    # the block of sample i: f as a function of hat-alpha_i, everything else fixed
    hat = {key: (sp.Symbol(f"h_{key[1] + 1}", real=True) if key[0] == i else v) for key, v in free.items()}
    A_hat = alpha_matrix(hat)
    h = A_hat[i, :].T
    a_i = alpha_matrix()[i, :].T
    q = (x(i).T * x(i))[0]
    not_y = sp.Matrix([0 if r == y else 1 for r in range(k)])
    correct = M ** 2 / 2 * q * (h.T * h)[0] - (h.T * (M * W.T * x(i) + M ** 2 * q * a_i + not_y))[0]
    printed = M ** 2 / 2 * q * (h.T * h)[0] - (h.T * (M ** 2 * W.T * x(i) + M ** 2 * q * a_i + not_y))[0]
    hs = [hat[key] for key in free if key[0] == i]
    f_hat = dual(A_hat)
    out.append(claim(MODEL, "block subproblem of one sample",
                     sp.Matrix([sp.diff(f_hat - correct, v) for v in hs]), sp.zeros(len(hs), 1),
                     "seed 000, 'Coordinate descent in Shark' (corrected)",
                     "f(hat alpha) = M^2/2 |x_i|^2 |hat alpha_i|^2 - hat alpha_i'(M W'x_i + M^2 |x_i|^2 alpha_i + "
                     "1_{not y_i}) + const"))
    out.append(erratum(MODEL, "block subproblem, the W term", sp.Matrix([sp.diff(printed, v) for v in hs]),
                       sp.Matrix([sp.diff(correct, v) for v in hs]), "seed 000, 'Coordinate descent in Shark'",
                       "printed with M^2 x_i'W hat alpha_i (and M^2 W'x_i in the succinct form); since "
                       "sum_s x_s alpha_s' = -W / M the term is M x_i'W hat alpha_i. The two agree only for M = 1; "
                       "the earlier line 'x_i'(sum_{s != i} x_s alpha_s') hat alpha_i = -x_i'W hat alpha_i - ...' "
                       "misses the same 1/M"))
    out.append(claim(MODEL, "Hessian of the block: a multiple of I + 11'", sp.hessian(f_hat, hs),
                     M ** 2 * q * (sp.eye(k - 1) + sp.ones(k - 1, k - 1)), "Wang and Scott (2021), the reduced form",
                     "alpha_{i y_i} = -1'beta makes |alpha_i|^2 = |beta|^2 + (1'beta)^2"))
    # greedy step: alpha_ij += m, alpha_{i y_i} -= m
    phi = dual(alpha_matrix({**free, (i, j): free[(i, j)] + m}))
    m_star = sp.solve(sp.diff(phi, m), m)[0]
    out.append(claim(MODEL, "greedy step size", m_star, -grad / (2 * M ** 2 * q), "seed 000, 'Greedy step size'",
                     "m = -df/dalpha_ij / (2 (M |x_i|)^2); Shark's M = 1/2 gives -df/dalpha_ij * 2 / |x_i|^2"))
    z = sp.Symbol("z", real=True)  # alpha_ij while it moves
    f_z = dual(alpha_matrix({**free, (i, j): z}))
    for t, drop in ((j, 2), (2, 1)):
        neg_after = -sp.diff(f_z, z if t == j else free[(i, t)]).subs(z, free[(i, j)] + m)
        neg_before = -sp.diff(dual(), free[(i, t)])
        out.append(claim(MODEL, f"gradient update, {'t = j' if t == j else 't != j'}", neg_after,
                         neg_before - drop * M ** 2 * m * q, "seed 000, 'Computing the step vector'",
                         f"-df/dalpha_it drops by {drop} M^2 m |x_i|^2"))
    out.extend(numeric_checks())
    return out


def numeric_checks():
    """The gradient, Shark's first move and the exact block's vector, against the derivation."""
    from .. import objectives as obj
    from ..problems import MulticlassProblem
    from ..solvers import WWExact
    from ..solvers.ww_shark import shark_inner

    rng = np.random.default_rng(4)
    Xn = rng.normal(size=(n, d))
    Mn, Cn = 0.7, 2.0
    p = MulticlassProblem(Xn, np.array(labels), C=Cn, loss="ww", M=Mn)
    vals = {key: rng.uniform(0, Cn) for key in free}
    An = np.array(alpha_matrix(vals), dtype=float)
    Wn = obj.multiclass_weights(p, An)  # (k, d)
    S = obj.multiclass_scores(p, Wn)
    sub = {**{X[r, c]: Xn[r, c] for r in range(n) for c in range(d)}, **{free[key]: v for key, v in vals.items()},
           M: Mn}
    derived_grad = np.array([[float(sp.diff(dual(), free[(i, j)]).subs(sub)) if j != labels[i] else 0.0
                              for j in range(k)] for i in range(n)])
    out = [numeric(MODEL, "objectives.multiclass_gradient", obj.multiclass_gradient(p, S), derived_grad,
                   "svmteach.objectives.multiclass_gradient", "used by the KKT violation and the solvers")]
    # Shark's first move on sample 0
    i = 0
    g = -derived_grad[i].copy()
    a_i = An[i].copy()
    record = np.zeros((1, k + 3))
    shark_inner(g, a_i, labels[i], float(Xn[i] @ Xn[i]), Mn, Cn, 1, 0.0, record)
    j = int(record[0, 0])
    q = float(Xn[i] @ Xn[i])
    m_derived = float((-sp.diff(dual(), free[(i, j)]) / (2 * M ** 2 * sp.Symbol("q"))).subs(sub).subs(
        sp.Symbol("q"), q))
    out.append(numeric(MODEL, "ww_shark.shark_inner: greedy step", record[0, 1], m_derived,
                       "svmteach.solvers.ww_shark.shark_inner"))
    mc = record[0, 2]
    expect = -derived_grad[i] - Mn ** 2 * mc * q
    expect[j] -= Mn ** 2 * mc * q
    expect[labels[i]] = 0.0
    out.append(numeric(MODEL, "ww_shark.shark_inner: gradient update", record[0, 3:], expect,
                       "svmteach.solvers.ww_shark.shark_inner"))
    # the exact solver's block vector u = c / a for sample 0
    solver = WWExact(random_state=0)
    state = solver.init(p)._replace(alpha=An, W=Wn)
    new = solver.update(p, state, 0)
    a = Mn ** 2 * q
    u = [(-derived_grad[0, jj] + a * (An[0, jj] - An[0, 0])) / a for jj in range(k) if jj != labels[0]]
    out.append(numeric(MODEL, "WWExact: block vector u", new.u, u, "svmteach.solvers.ww_exact"))
    return out
